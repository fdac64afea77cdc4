"""The service against the Agent Protocol's published OpenAPI document (``openapi.json`` beside this file).

Which of the published operations the service serves at their method and path, which it serves only in the
LangGraph Agent Server's form (the API its SDKs speak, which the service implements), which it does not serve,
and whether the bodies it answers meet the published response schemas. The report goes to
``test-artifacts/agent-protocol-conformance.md``; docs/agent-protocol.md's "Conformance" section says what it
found.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest
from jsonschema import Draft202012Validator, FormatChecker
from litestar.testing import AsyncTestClient
from openapi_spec_validator import validate

from api.app import create_app
from tests.e2e.agent_protocol.turns import EXAMPLES, TOPIC
from tests.support.graph_projects import isolated_loading

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from api.settings import Settings

ROOT = Path(__file__).resolve().parents[3]
SPEC = json.loads((Path(__file__).parent / "openapi.json").read_text())
DOC = ROOT / "docs" / "agent-protocol.md"
REPORT = ROOT / "test-artifacts" / "agent-protocol-conformance.md"
METHODS = ("get", "put", "post", "delete", "patch")
RESEARCH = {"assistant_id": "research", "input": TOPIC}

Operation = tuple[str, str]
"""``(METHOD, path)``, the path's parameters named ``{}``."""

IMPLEMENTED: frozenset[Operation] = frozenset(
    {
        ("POST", "/threads"),
        ("POST", "/threads/search"),
        ("GET", "/threads/{}"),
        ("DELETE", "/threads/{}"),
        ("POST", "/threads/{}/copy"),
        ("POST", "/runs/stream"),
        ("POST", "/runs/wait"),
        ("GET", "/runs/{}/stream"),
        ("PUT", "/store/items"),
        ("GET", "/store/items"),
        ("DELETE", "/store/items"),
        ("POST", "/store/items/search"),
        ("POST", "/store/namespaces"),
    }
)
"""The published operations served at their method and path by a route of the tag ``agent-protocol``."""

TAKEN_BY_THE_SERVICES_OWN_API: frozenset[Operation] = frozenset({("GET", "/runs/{}"), ("POST", "/runs/{}/cancel")})
"""Published operations whose method and path the service serves for its own runs (tag ``runs``, answering a
``RunSnapshot``), not as the Agent Protocol's ``Run``."""

AT_THE_AGENT_SERVERS_PATH: dict[Operation, Operation] = {
    ("POST", "/agents/search"): ("POST", "/assistants/search"),
    ("GET", "/agents/{}"): ("GET", "/assistants/{}"),
    ("GET", "/agents/{}/schemas"): ("GET", "/assistants/{}/schemas"),
    ("GET", "/threads/{}/history"): ("POST", "/threads/{}/history"),
    ("POST", "/runs"): ("POST", "/threads/{}/runs"),
    ("POST", "/runs/search"): ("GET", "/threads/{}/runs"),
    ("GET", "/runs/{}"): ("GET", "/threads/{}/runs/{}"),
    ("GET", "/runs/{}/wait"): ("GET", "/threads/{}/runs/{}/join"),
    ("POST", "/runs/{}/cancel"): ("POST", "/threads/{}/runs/{}/cancel"),
    ("DELETE", "/runs/{}"): ("DELETE", "/threads/{}/runs/{}"),
}
"""Published operations not served at their path whose LangGraph Agent Server form is served (``/agents`` are
its assistants; a run on a thread is under ``/threads/{thread_id}/runs``)."""


def normalised(path: str) -> str:
    return re.sub(r"\{[^}]*\}", "{}", path)


def operations(document: dict[str, Any], tag: str | None = None) -> set[Operation]:
    return {
        (method.upper(), normalised(path))
        for path, item in document["paths"].items()
        for method, operation in item.items()
        if method in METHODS and (tag is None or tag in operation.get("tags", ()))
    }


def not_served_section() -> str:
    text = DOC.read_text()
    start = text.index("\n## Not served\n")
    end = text.find("\n## ", start + 1)
    return normalised(text[start : end if end != -1 else None])


def test_the_vendored_document_is_valid_openapi() -> None:
    validate(SPEC)
    assert SPEC["info"]["title"] == "Agent Protocol"


async def test_the_published_operations_served(client: AsyncTestClient) -> None:
    served = (await client.get("/schema/openapi.json")).json()
    published = operations(SPEC)
    ours = operations(served, "agent-protocol")
    implemented = published & ours
    not_implemented = published - ours
    beyond = ours - published
    REPORT.parent.mkdir(exist_ok=True)
    REPORT.write_text(report(published, implemented, not_implemented, beyond))

    assert implemented == IMPLEMENTED
    assert published & (operations(served) - ours) == TAKEN_BY_THE_SERVICES_OWN_API
    assert set(AT_THE_AGENT_SERVERS_PATH) <= not_implemented
    assert set(AT_THE_AGENT_SERVERS_PATH.values()) <= beyond
    section = not_served_section()
    unnamed = sorted(f"{method} {path}" for method, path in not_implemented if f"`{method} {path}`" not in section)
    assert not unnamed, f"not served, and not named in docs/agent-protocol.md's 'Not served': {unnamed}"


def report(
    published: set[Operation], implemented: set[Operation], not_implemented: set[Operation], beyond: set[Operation]
) -> str:
    agent_server_form = {value: key for key, value in AT_THE_AGENT_SERVERS_PATH.items()}
    lines = [
        "# Agent Protocol conformance",
        "",
        f"Published spec: langchain-ai/agent-protocol openapi.json, version {SPEC['info']['version']}.",
        f"Implemented at the spec's method and path: {len(implemented)} of {len(published)} operations.",
        "",
        "## Implemented",
        *(f"- `{method} {path}`" for method, path in sorted(implemented, key=by_path)),
        "",
        "## Not implemented",
    ]
    for operation in sorted(not_implemented, key=by_path):
        notes = []
        if operation in AT_THE_AGENT_SERVERS_PATH:
            notes.append("served in the Agent Server's form as `{} {}`".format(*AT_THE_AGENT_SERVERS_PATH[operation]))
        if operation in TAKEN_BY_THE_SERVICES_OWN_API:
            notes.append("the path serves the service's own run API")
        lines.append("- `{} {}`".format(*operation) + (f" ({'; '.join(notes)})" if notes else ""))
    lines += ["", "## Served beyond the spec (tag agent-protocol)"]
    for operation in sorted(beyond, key=by_path):
        form = agent_server_form.get(operation)
        note = " (the Agent Server's form of `{} {}`)".format(*form) if form else ""
        lines.append("- `{} {}`".format(*operation) + note)
    lines += ["", "## Deliberate schema differences (checked by test_conformance.py)"]
    lines += [
        f"- `{op}` {schema} `{where}` ({keyword}): {why}" for (op, schema, where, keyword), why in DELIBERATE.items()
    ]
    return "\n".join(lines) + "\n"


def by_path(operation: Operation) -> tuple[str, str]:
    return operation[1], operation[0]


Difference = tuple[str, str, str, str]
"""``(operation, schema, where, keyword)``: the operation served, the published schema its body is checked
against, the failing location (array indices as ``*``) and the JSON Schema keyword that fails."""

_ASSISTANT = "an Agent Server assistant, not the spec's Agent (docs/agent-protocol.md, Conformance)"
_THREAD_ID = "thread ids are session ids, not UUIDs (docs/agent-protocol.md, Endpoints: POST /threads)"
_RUN_ID = "run ids are `r_...`, not UUIDs (docs/agent-protocol.md, Endpoints: GET /threads/{id}/runs/{id})"

DELIBERATE: dict[Difference, str] = {
    # Agents: the service serves the Agent Server's assistants (assistant_id, graph_id, ...), without the
    # spec's agent_id and capabilities; a graph without a description has `null`, as the Agent Server's.
    ("POST /assistants/search", "Agent", "agent_id", "required"): _ASSISTANT,
    ("POST /assistants/search", "Agent", "capabilities", "required"): _ASSISTANT,
    ("POST /assistants/search", "Agent", "description", "type"): _ASSISTANT,
    ("GET /assistants/{}", "Agent", "agent_id", "required"): _ASSISTANT,
    ("GET /assistants/{}", "Agent", "capabilities", "required"): _ASSISTANT,
    # The Agent Server's GraphSchemas: graph_id, not agent_id; `null` for a schema the graph does not declare.
    ("GET /assistants/{}/schemas", "AgentSchema", "agent_id", "required"): _ASSISTANT,
    ("GET /assistants/{}/schemas", "AgentSchema", "config_schema", "type"): _ASSISTANT,
    # Ids: docs/agent-protocol.md, Endpoints (POST /threads; GET /threads/{thread_id}/runs/{run_id}).
    ("POST /threads", "Thread", "thread_id", "format"): _THREAD_ID,
    ("GET /threads/{}", "Thread", "thread_id", "format"): _THREAD_ID,
    ("POST /threads/search", "Thread", "thread_id", "format"): _THREAD_ID,
    ("POST /threads/{}/runs", "Run", "thread_id", "format"): _THREAD_ID,
    ("GET /threads/{}/runs/{}", "Run", "thread_id", "format"): _THREAD_ID,
    ("GET /threads/{}/runs", "Run", "thread_id", "format"): _THREAD_ID,
    ("POST /threads/{}/runs", "Run", "run_id", "format"): _RUN_ID,
    ("GET /threads/{}/runs/{}", "Run", "run_id", "format"): _RUN_ID,
    ("GET /threads/{}/runs", "Run", "run_id", "format"): _RUN_ID,
    # docs/agent-protocol.md, Endpoints (GET /threads/{thread_id}): `values` is null before the first checkpoint.
    ("POST /threads", "Thread", "values", "type"): "a new thread's `values` is `null` (docs/agent-protocol.md, "
    "Endpoints: GET /threads/{id})",
    # docs/agent-protocol.md, Endpoints (GET /threads/{thread_id}/runs/{run_id}): `running`, and no `pending`.
    ("POST /threads/{}/runs", "Run", "status", "enum"): "a started run is `running`, a status the spec does not "
    "have (docs/agent-protocol.md, Endpoints: GET /threads/{id}/runs/{id})",
}
"""The differences the service means, each with the section of docs/agent-protocol.md that says why."""


def problems(schema: str, body: object) -> set[tuple[str, str, str]]:
    """Where ``body`` breaks the published ``schema``: ``(schema, where, keyword)``."""
    root = {"$ref": f"#/components/schemas/{schema}", "components": SPEC["components"]}
    validator = Draft202012Validator(root, format_checker=FormatChecker())
    found: set[tuple[str, str, str]] = set()
    pending = list(validator.iter_errors(body))
    while pending:
        error = pending.pop()
        if error.context:  # an allOf/anyOf: the branches' own errors say where
            pending.extend(error.context)
            continue
        where = "/".join("*" if isinstance(part, int) else str(part) for part in error.absolute_path)
        if error.validator == "required":
            where = f"{where}/{error.message.split(chr(39))[1]}".lstrip("/")
        found.add((schema, where, str(error.validator)))
    return found


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """The examples imported afresh, with their scripted fake chat model."""
    monkeypatch.delenv("HARNESS_CHAT_MODEL", raising=False)
    yield from isolated_loading(monkeypatch, EXAMPLES, tmp_path)


@pytest.fixture
async def examples(settings: Settings, isolated: None) -> AsyncIterator[AsyncTestClient]:
    """The service serving examples/langgraph.json beside its support agent."""
    app = create_app(msgspec.structs.replace(settings, graphs_config=EXAMPLES / "langgraph.json"))
    async with AsyncTestClient(app) as client:
        yield client


async def test_served_bodies_meet_the_published_schemas(examples: AsyncTestClient) -> None:
    """Each body against the published schema of the operation it serves; what breaks it is ``DELIBERATE``."""
    found: set[Difference] = set()

    async def answer(operation: str, schema: str, *ids: str, **kwargs: Any) -> Any:
        method, path = operation.split(" ")
        response = await examples.request(method, path.format(*ids), **kwargs)
        assert response.status_code == 200, response.text
        body = response.json()
        if schema == "RunWaitResponse":
            # "/wait, /join, and a cancel with wait": the body is the run's final state, as langgraph-sdk expects,
            # where the spec wraps it as {"run", "values", "messages"}: its values are checked.
            body = {"values": body}
        for item in body if isinstance(body, list) else [body]:
            found.update((operation, *problem) for problem in problems(schema, item))
        return response.json()

    assistants = await answer("POST /assistants/search", "Agent", json={})
    assert {assistant["graph_id"] for assistant in assistants} == {"support", "react_agent", "research"}
    await answer("GET /assistants/{}", "Agent", "research")
    await answer("GET /assistants/{}/schemas", "AgentSchema", "research")

    thread = await answer("POST /threads", "Thread", json={"metadata": {"purpose": "conformance"}})
    thread_id = thread["thread_id"]
    result = await answer("POST /threads/{}/runs/wait", "RunWaitResponse", thread_id, json=RESEARCH)
    assert result["report"].startswith("Report on How do clouds make rain.")
    await answer("GET /threads/{}", "Thread", thread_id)
    threads = await answer("POST /threads/search", "Thread", json={"metadata": {"purpose": "conformance"}})
    assert [found_thread["thread_id"] for found_thread in threads] == [thread_id]
    await answer("GET /threads/{}/state", "ThreadState", thread_id)
    assert await answer("POST /threads/{}/history", "ThreadState", thread_id, json={"limit": 3})

    run = await answer("POST /threads/{}/runs", "Run", thread_id, json=RESEARCH)
    await answer("GET /threads/{}/runs/{}/join", "RunWaitResponse", thread_id, run["run_id"])
    assert (await answer("GET /threads/{}/runs/{}", "Run", thread_id, run["run_id"]))["status"] == "success"
    assert len(await answer("GET /threads/{}/runs", "Run", thread_id)) == 2
    await answer("POST /runs/wait", "RunWaitResponse", json=RESEARCH)
    assert (await examples.delete(f"/threads/{thread_id}")).status_code == 204  # the spec's 204, no body

    assert found == set(DELIBERATE), sorted(found)
