"""GenAI spans for any graph, from LangChain's callbacks: ``invoke_agent {graph}`` for a run (the graph's
name, or its id when it has none; ``gen_ai.agent.id`` is the id), ``chat {model}``
for each chat model call, ``execute_tool {tool}`` for each tool.

A graph written the way LangGraph users write them never touches OpenTelemetry; its runs are traced anyway
because LangChain adds the handler registered here (``register_configure_hook``) to every run's callbacks,
however the run was started (``harness eval``, ``/chat``, the Agent Protocol). ``tracing_to`` sets the
provider the runs of one task and its children report to (each eval case reads its own spans);
``for_every_task`` makes it the process's (a server's). The support agent's own spans (nodes, its model
calls) are parented under the run's ``invoke_agent`` span by ``parent_context``.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tracers.context import register_configure_hook
from langgraph.errors import GraphBubbleUp
from opentelemetry import trace
from opentelemetry.trace import SpanKind, Status, StatusCode

from agent import gen_ai

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping, Sequence
    from uuid import UUID

    from langchain_core.messages import BaseMessage
    from langchain_core.outputs import LLMResult
    from opentelemetry.context import Context
    from opentelemetry.trace import Span, TracerProvider

__all__ = ("GenAITracer", "current_tracer", "for_every_task", "parent_context", "tracing_to")

_UNNAMED = "LangGraph"
"""The name LangGraph gives a compiled graph nobody named: such a run is named by its graph id."""

_ROLES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool"}


class GenAITracer(BaseCallbackHandler):
    """Spans from one process's (or one task's) graph runs, on ``provider``."""

    run_inline = True
    """Called in the event loop, in order: a span's parent must exist before the child starts."""

    def __init__(self, provider: TracerProvider, *, capture_content: bool | None = None) -> None:
        self.provider = provider
        self.tracer = provider.get_tracer("agent.gen_ai")
        self.capture_content = gen_ai.capture_message_content() if capture_content is None else capture_content
        self._parents: dict[UUID, UUID | None] = {}
        self._spans: dict[UUID, Span] = {}
        self.last_run: Span | None = None
        """The latest ``invoke_agent`` span started: what an eval case's scores are attached to. Only the latest:
        a server's tracer sees every run of the process, and must not keep them."""

    def span_of(self, run_id: UUID | None) -> Span | None:
        """The span of ``run_id`` or of its nearest ancestor that has one."""
        while run_id is not None:
            span = self._spans.get(run_id)
            if span is not None:
                return span
            run_id = self._parents.get(run_id)
        return None

    def _start(
        self, name: str, run_id: UUID, parent_run_id: UUID | None, kind: SpanKind, attrs: dict[str, Any]
    ) -> None:
        self._parents[run_id] = parent_run_id
        parent = self.span_of(parent_run_id)
        context = trace.set_span_in_context(parent) if parent is not None else None
        self._spans[run_id] = self.tracer.start_span(name, context=context, kind=kind, attributes=attrs)

    def _end(self, run_id: UUID, error: BaseException | None = None) -> Span | None:
        self._parents.pop(run_id, None)
        span = self._spans.pop(run_id, None)
        if span is not None:
            if error is not None and not isinstance(error, GraphBubbleUp):  # an interrupt is a pause, not a failure
                span.set_attribute("error.type", type(error).__name__)
                span.set_status(Status(StatusCode.ERROR, type(error).__name__))
            span.end()
        return span

    def on_chain_start(
        self,
        serialized: dict[str, Any] | None,
        inputs: Any,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        if parent_run_id is not None:
            self._parents[run_id] = parent_run_id
            return
        metadata = metadata or {}
        graph_id = metadata.get("graph_id")
        name = kwargs.get("name") or (serialized or {}).get("name")
        agent = str((name if name and name != _UNNAMED else None) or graph_id or "graph")
        attrs: dict[str, Any] = {gen_ai.OPERATION_NAME: "invoke_agent", gen_ai.AGENT_NAME: agent}
        if graph_id is not None:
            attrs[gen_ai.AGENT_ID] = str(graph_id)
        thread_id = metadata.get("thread_id")
        if thread_id is not None:
            attrs[gen_ai.CONVERSATION_ID] = str(thread_id)
        self._start(f"invoke_agent {agent}", run_id, None, SpanKind.INTERNAL, attrs)
        self.last_run = self._spans[run_id]

    def on_chain_end(self, outputs: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id)

    def on_chain_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, error)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any] | None,
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        metadata: dict[str, Any] | None = None,
        invocation_params: dict[str, Any] | None = None,
        **kwargs: Any,
    ) -> None:
        metadata, params = metadata or {}, invocation_params or {}
        model = str(metadata.get("ls_model_name") or params.get("model") or params.get("model_name") or "unknown")
        attrs: dict[str, Any] = {
            gen_ai.OPERATION_NAME: "chat",
            gen_ai.PROVIDER_NAME: str(metadata.get("ls_provider") or params.get("_type") or "langchain"),
            gen_ai.REQUEST_MODEL: model,
        }
        for key, name in (("ls_temperature", gen_ai.REQUEST_TEMPERATURE), ("ls_max_tokens", gen_ai.REQUEST_MAX_TOKENS)):
            if metadata.get(key) is not None:
                attrs[name] = metadata[key]
        if self.capture_content and messages:
            attrs[gen_ai.INPUT_MESSAGES] = gen_ai.messages_attribute(_pairs(messages[0]))
        self._start(f"chat {model}", run_id, parent_run_id, SpanKind.CLIENT, attrs)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._spans.get(run_id)
        if span is not None and response.generations and response.generations[0]:
            generation = response.generations[0][0]
            message = getattr(generation, "message", None)
            usage = getattr(message, "usage_metadata", None) or {}
            if usage:
                span.set_attribute(gen_ai.USAGE_INPUT_TOKENS, int(usage.get("input_tokens", 0)))
                span.set_attribute(gen_ai.USAGE_OUTPUT_TOKENS, int(usage.get("output_tokens", 0)))
            info = {**(generation.generation_info or {}), **(getattr(message, "response_metadata", None) or {})}
            if info.get("finish_reason"):
                span.set_attribute(gen_ai.RESPONSE_FINISH_REASONS, [str(info["finish_reason"])])
            if info.get("model_name"):
                span.set_attribute(gen_ai.RESPONSE_MODEL, str(info["model_name"]))
            if self.capture_content:
                span.set_attribute(gen_ai.OUTPUT_MESSAGES, gen_ai.messages_attribute([("assistant", generation.text)]))
        self._end(run_id)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, error)

    def on_tool_start(
        self,
        serialized: dict[str, Any] | None,
        input_str: str,
        *,
        run_id: UUID,
        parent_run_id: UUID | None = None,
        tool_call_id: str | None = None,
        **kwargs: Any,
    ) -> None:
        name = str((serialized or {}).get("name") or kwargs.get("name") or "tool")
        attrs: dict[str, Any] = {
            gen_ai.OPERATION_NAME: "execute_tool",
            gen_ai.TOOL_NAME: name,
            gen_ai.TOOL_TYPE: "function",
        }
        if tool_call_id:
            attrs[gen_ai.TOOL_CALL_ID] = tool_call_id
        if self.capture_content:
            attrs[gen_ai.TOOL_CALL_ARGUMENTS] = input_str
        self._start(f"execute_tool {name}", run_id, parent_run_id, SpanKind.INTERNAL, attrs)

    def on_tool_end(self, output: Any, *, run_id: UUID, **kwargs: Any) -> None:
        span = self._spans.get(run_id)
        if span is not None and self.capture_content:
            span.set_attribute(gen_ai.TOOL_CALL_RESULT, str(getattr(output, "content", output)))
        self._end(run_id)

    def on_tool_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._end(run_id, error)


_process_tracer: GenAITracer | None = None
_task_tracer: ContextVar[GenAITracer | None] = ContextVar("harness_gen_ai_task_tracer", default=None)


_NO_TRACER = BaseCallbackHandler()


class _ToTracer:
    """An ``on_*`` hook of ``_Dispatch``: the current tracer's, else the base handler's no-op."""

    __slots__ = ("_name",)

    def __init__(self, name: str) -> None:
        self._name = name

    def __get__(self, dispatch: object, owner: type | None = None) -> Any:
        tracer = current_tracer()
        return getattr(_NO_TRACER if tracer is None else tracer, self._name)


class _IgnoredWithoutTracer:
    """An ``ignore_*`` flag of ``_Dispatch``: LangChain skips the event's hook while no tracer would see it."""

    __slots__ = ()

    def __get__(self, dispatch: object, owner: type | None = None) -> bool:
        return current_tracer() is None


class _Dispatch(BaseCallbackHandler):
    """What LangChain's hook adds to every run: the task's tracer, else the process's, else nothing. Only its
    ``on_*`` hooks and ``ignore_*`` flags look the tracer up (LangChain reads them per event, a model's chunk
    included); its other attributes are plain ones."""

    run_inline = True


for _name in dir(BaseCallbackHandler):
    if _name.startswith("on_"):
        setattr(_Dispatch, _name, _ToTracer(_name))
    elif _name.startswith("ignore_"):
        setattr(_Dispatch, _name, _IgnoredWithoutTracer())
del _name


_DISPATCH = _Dispatch()
_hook: ContextVar[BaseCallbackHandler | None] | None = None


def _register_hook() -> None:
    global _hook  # noqa: PLW0603 (LangChain's hooks are process-wide; one is registered, once)
    if _hook is None:
        _hook = ContextVar("harness_gen_ai_tracing", default=_DISPATCH)
        register_configure_hook(_hook, inheritable=True)


def current_tracer() -> GenAITracer | None:
    return _task_tracer.get() or _process_tracer


class for_every_task:
    """This task's tracer (``tracing_to``) becomes the process's in the block (``with`` or ``async with``):
    runs started by tasks that do not descend from this one (a server's requests, started outside its
    lifespan's task) report to it too."""

    def __enter__(self) -> GenAITracer | None:
        global _process_tracer
        self._previous, _process_tracer = _process_tracer, _task_tracer.get()
        return _process_tracer

    def __exit__(self, *exc_info: object) -> None:
        global _process_tracer  # noqa: PLW0603
        _process_tracer = self._previous

    async def __aenter__(self) -> GenAITracer | None:
        return self.__enter__()

    async def __aexit__(self, *exc_info: object) -> None:
        self.__exit__()


@contextmanager
def tracing_to(provider: TracerProvider) -> Iterator[GenAITracer]:
    """The graph runs started in this block (this task and the tasks it starts) report to ``provider``; a
    block inside one on the same provider shares its tracer (and the latest run it saw)."""
    _register_hook()
    current = _task_tracer.get()
    tracer = current if current is not None and current.provider is provider else GenAITracer(provider)
    token = _task_tracer.set(tracer)
    try:
        yield tracer
    finally:
        _task_tracer.reset(token)


def _pairs(messages: Sequence[BaseMessage]) -> list[tuple[str, str]]:
    return [(_ROLES.get(message.type, message.type), message.text) for message in messages]


def parent_context(config: Mapping[str, Any]) -> Context | None:
    """The context of the span of the run a node runs in (from the node's ``config``), for its own spans."""
    tracer = current_tracer()
    manager = config.get("callbacks")
    run_id = getattr(manager, "parent_run_id", None)
    if tracer is None or run_id is None:
        return None
    span = tracer.span_of(run_id)
    return trace.set_span_in_context(span) if span is not None else None
