"""The Litestar application factory."""

from __future__ import annotations

import re
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import msgspec
from litestar import Litestar, Request
from litestar.datastructures import State
from litestar.di import NamedDependency, Provide
from litestar.middleware.rate_limit import RateLimitConfig, get_remote_address
from litestar.openapi import OpenAPIConfig

from agent import RandomIds, SystemClock, for_every_task, open_agent
from agent.graphs import GraphRegistry
from agent.knowledge import KnowledgeIndex
from agent.stores import GraphStore
from api.auth import ANONYMOUS, Principal
from api.auth.authorization import authorize_route, narrowed_threads, narrowing
from api.auth.custom import load_custom_auth
from api.auth.identity import Identity
from api.auth.middleware import custom_authentication
from api.crons import CronBook, CronScheduler, open_cron_store
from api.exception_handlers import EXCEPTION_HANDLERS
from api.graph_registry import open_graphs
from api.metrics import Metrics, metrics_route
from api.online_eval import online_evaluation
from api.openapi import TAGS, ContractJsonPlugin
from api.request_checks import body_checks, cors_response_headers, site_checks
from api.routes.a2a import a2a_router
from api.routes.agent_protocol import agent_protocol_router
from api.routes.agui import ag_ui_router
from api.routes.ai_sdk import ai_sdk_router
from api.routes.mcp import mcp_router
from api.routes.native import native_router
from api.runs.cluster.quotas import StreamQuota
from api.runs.erasure import SessionErasure
from api.runs.registry import RunRegistry
from api.runs.stores import open_run_stores
from api.runs.stream.follow import RunStreams
from api.runs.threads import ThreadBook
from api.settings import Settings
from api.webhooks import WebhookSender, check_url, open_webhook_outbox, webhook_pattern

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from opentelemetry.sdk.trace import TracerProvider

    from agent import Clock, IdFactory
    from agent.llm import LLMClient

__all__ = ("API_VERSION", "create_app")

API_VERSION = "1.2.0"
_TURN_PATHS = frozenset({"/chat", "/chat/resume", "/ag-ui", "/ai-sdk/chat", "/runs", "/runs/stream", "/runs/wait"})
_THREAD_RUN = re.compile(r"^/threads/[^/]+(/runs(/stream|/wait)?)$")
"""A run started on a thread counts as a turn; its path's tail is what ``_TURN_PATHS`` names."""
_GRAPH_TURN = re.compile(r"^/(ag-ui/[^/]+|ai-sdk/[^/]+/chat)$")
"""A run of a registered graph started through AG-UI or the AI SDK counts as a turn too."""
_RPC_TURN = re.compile(r"^/(a2a/[^/]+|mcp)$")
"""The JSON-RPC endpoints: a call of one of ``_RPC_TURN_METHODS`` starts (or resumes) a run, a turn (ADR 41)."""
_RPC_TURN_METHODS = frozenset({"SendMessage", "SendStreamingMessage", "tools/call"})


class _RpcMethod(msgspec.Struct):
    method: Any = None


def create_app(
    settings: Settings | None = None,
    *,
    llm: LLMClient | None = None,
    clock: Clock | None = None,
    ids: IdFactory | None = None,
    tracer_provider: TracerProvider | None = None,
) -> Litestar:
    """The app on ``settings`` (default: the environment). The keyword arguments replace parts for tests."""
    settings = settings or Settings.from_env()
    clock = clock or SystemClock()
    ids = ids or RandomIds()
    metrics = Metrics(clock)

    @asynccontextmanager
    async def lifespan(app: Litestar) -> AsyncIterator[None]:
        async with (
            open_agent(settings.agent, llm=llm, clock=clock, ids=ids, tracer_provider=tracer_provider) as agent,
            open_run_stores(settings.runs, agent.stores) as (log, cluster),
            open_cron_store(agent.stores, settings.agent.data_dir) as cron_store,
            open_webhook_outbox(agent.stores, settings.agent.data_dir) as outbox,
            for_every_task(),  # the graph runs' traces: runs start in request tasks, outside the lifespan's context
        ):
            graphs = await open_graphs(settings, agent)
            metered = metrics.meter_log(log, store="redis" if settings.shared else "sqlite")
            webhooks = WebhookSender(
                outbox,
                settings.webhooks,
                load_run=metered.load_run,
                clock=clock,
                counted=lambda outcome: metrics.instruments.webhook_deliveries.labels(outcome=outcome).inc(),
            )
            runs = RunRegistry(
                agent,
                metered,
                settings.runs,
                clock=clock,
                ids=ids,
                graphs=graphs,
                cluster=metrics.meter_cluster(cluster),
                crons=cron_store,
                webhooks=webhooks,
            )
            metrics.watch(runs)
            await runs.open()
            webhooks.start()
            scheduler = CronScheduler(
                cron_store,
                runs,
                runs.erasure,
                clock=clock,
                tick_s=settings.cron_tick_s,
                lease_s=settings.run_lease_s,
                counted=lambda outcome: metrics.instruments.cron_firings.labels(outcome=outcome).inc(),
            )
            scheduler.start()
            app.state.crons = CronBook(
                cron_store,
                graphs,
                clock=clock,
                ids=ids,
                check_webhook=lambda url: check_url(url, settings.webhooks.allowed_hosts),
            )
            app.state.runs = runs
            app.state.erasure = runs.erasure
            app.state.knowledge = agent.deps.knowledge
            app.state.graph_store = agent.stores.graph_store
            try:
                async with online_evaluation(
                    settings.online_eval,
                    settings.agent,
                    database=agent.stores.database,
                    log=log,
                    cluster=runs.cluster,
                    clock=clock,
                    observe=metrics.online_score,
                ):
                    yield
            finally:
                await scheduler.stop()
                await webhooks.stop()
                await runs.close()

    custom_auth = load_custom_auth(
        settings.graphs_config,
        identity_configured=settings.auth.enabled,
        read_timeout_s=settings.request_read_timeout_s,
    )
    identity = Identity(settings.auth) if settings.auth.enabled else None
    middleware: list[Any] = [metrics.middleware()]
    middleware += site_checks(hosts_allowed=settings.hosts_allowed, cors_origins=settings.cors_origins)
    if identity is not None:
        middleware.append(identity.middleware())
    if custom_auth is not None:  # langgraph.json's auth.path, in place of the service's own identity (ADR 49)
        middleware.append(custom_authentication(custom_auth))
    body_middleware: list[Any] = body_checks(read_timeout_s=settings.request_read_timeout_s)
    stores: dict[str, Any] = {}
    if settings.rate_limit_per_minute > 0:
        body_middleware.append(
            RateLimitConfig(
                rate_limit=("minute", settings.rate_limit_per_minute),
                check_throttle_handler=_is_turn_request,
                identifier_for_request=_subject_or_address,
            ).middleware
        )
        if settings.redis_url is not None:  # every instance counts the same turns
            from litestar.stores.redis import RedisStore

            stores["rate_limit"] = RedisStore.with_client(
                url=settings.redis_url, namespace=f"{settings.redis_prefix}:rate-limit"
            )

    return Litestar(
        route_handlers=[
            native_router(body_checks=body_middleware, metrics=metrics_route(settings.metrics_token)),
            ag_ui_router(body_checks=body_middleware),
            ai_sdk_router(body_checks=body_middleware),
            a2a_router(body_checks=body_middleware),
            mcp_router(body_checks=body_middleware),
            agent_protocol_router(body_checks=body_middleware),
        ],
        dependencies={
            "runs": Provide(_runs, sync_to_thread=False),
            "graphs": Provide(_graphs, sync_to_thread=False),
            "threads": Provide(_threads, sync_to_thread=False),
            "streams": Provide(_streams, sync_to_thread=False),
            "quota": Provide(_quota, sync_to_thread=False),
            "principal": Provide(_principal, sync_to_thread=False),
            "erasure": Provide(_erasure, sync_to_thread=False),
            "knowledge": Provide(_knowledge, sync_to_thread=False),
            "graph_store": Provide(_graph_store, sync_to_thread=False),
            "crons": Provide(_crons, sync_to_thread=False),
        },
        signature_namespace={
            "RunRegistry": RunRegistry,
            "GraphRegistry": GraphRegistry,
            "ThreadBook": ThreadBook,
            "RunStreams": RunStreams,
            "StreamQuota": StreamQuota,
            "Principal": Principal,
            "SessionErasure": SessionErasure,
            "KnowledgeIndex": KnowledgeIndex,
            "GraphStore": GraphStore,
            "CronBook": CronBook,
        },
        state=State(
            {
                "identity": settings.auth.enabled or custom_auth is not None,
                "auth": identity,
                "custom_auth": custom_auth,
                "metrics": metrics,
                "webhook_pattern": webhook_pattern(settings.webhooks.allowed_hosts),
            }
        ),
        guards=[authorize_route] if custom_auth is not None else None,
        stores=stores,
        lifespan=[lifespan] if identity is None else [lifespan, identity.watching],
        exception_handlers=EXCEPTION_HANDLERS,
        middleware=middleware,
        before_send=cors_response_headers(settings.cors_origins),
        request_max_body_size=settings.max_body_bytes,
        openapi_config=OpenAPIConfig(
            title="Agent Harness API",
            version=API_VERSION,
            description="An AI agent whose every turn can be watched live. See docs/events.md for the SSE events.",
            path="/schema",
            tags=TAGS,
            render_plugins=[ContractJsonPlugin()],
        ),
        debug=False,
    )


def _runs(request: Request[Any, Any, Any]) -> RunRegistry:
    runs: RunRegistry = request.app.state.runs
    return runs


def _graphs(runs: NamedDependency[RunRegistry]) -> GraphRegistry:
    return runs.graphs


def _threads(request: Request[Any, Any, Any], runs: NamedDependency[RunRegistry]) -> ThreadBook:
    """The threads as the request may see them: all the caller's, or those langgraph.json's auth lets it see."""
    return narrowed_threads(request.scope, runs.threads)


def _streams(runs: NamedDependency[RunRegistry]) -> RunStreams:
    return runs.streams


def _quota(runs: NamedDependency[RunRegistry]) -> StreamQuota:
    return runs.stream_quota


def _erasure(request: Request[Any, Any, Any]) -> SessionErasure:
    erasure: SessionErasure = request.app.state.erasure
    return erasure


def _knowledge(request: Request[Any, Any, Any]) -> KnowledgeIndex:
    knowledge: KnowledgeIndex = request.app.state.knowledge
    return knowledge


def _graph_store(request: Request[Any, Any, Any]) -> GraphStore:
    """The long-term store (``/store/*``); each route scopes it to the caller."""
    store: GraphStore = request.app.state.graph_store
    return store


def _crons(request: Request[Any, Any, Any]) -> CronBook:
    """The crons as the request may see them: all the caller's, or those langgraph.json's auth lets it see."""
    crons: CronBook = request.app.state.crons
    found = narrowing(request.scope, "crons")
    return crons if found is None else crons.narrowed(*found)


def _principal(request: Request[Any, Any, Any], runs: NamedDependency[RunRegistry]) -> Principal:
    """Who sent the request: set by the authentication middleware, or the one user when identity is off.

    It takes ``runs`` only to be resolved after it: Litestar resolves the dependencies of one level together
    in an anyio task group, which cost 60 µs a request, two thirds of Litestar's own time in a turn.
    """
    del runs
    user = request.scope.get("user")
    return user if isinstance(user, Principal) else ANONYMOUS


def _subject_or_address(request: Request[Any, Any, Any]) -> str:
    """Rate limits count per subject when identity is on, per client address when it is off."""
    user = request.scope.get("user")
    if isinstance(user, Principal) and user.subject is not None:
        return f"subject:{user.subject}"
    return get_remote_address(request)


async def _is_turn_request(request: Request[Any, Any, Any]) -> bool:
    if request.method != "POST":
        return False
    path = request.url.path
    if _RPC_TURN.match(path) is not None:
        return await _calls_turn_method(request)
    thread_run = _THREAD_RUN.match(path)
    return (thread_run.group(1) if thread_run else path) in _TURN_PATHS or _GRAPH_TURN.match(path) is not None


async def _calls_turn_method(request: Request[Any, Any, Any]) -> bool:
    """Whether a JSON-RPC body calls a method that runs a graph. The body checks (``body_checks``, before this)
    have read it, so this reads it from the connection; a body that is no single call starts nothing."""
    try:
        call = _read_method(await request.body())
    except msgspec.DecodeError:
        return False
    return isinstance(call.method, str) and call.method in _RPC_TURN_METHODS


_read_method = msgspec.json.Decoder(_RpcMethod).decode
