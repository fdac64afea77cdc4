"""The generated contract documents: current, valid by standard validators, and consistent."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec
import pytest
from jsonschema import Draft202012Validator
from litestar.testing import AsyncTestClient
from openapi_spec_validator import validate

if TYPE_CHECKING:
    from api.settings import Settings

from api.app import create_app
from api.auth import AuthConfig
from api.docs import stale_docs
from api.openapi.document import PUBLIC_OPERATIONS
from tests.support.frame_schema import frame_problems

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
ASYNCAPI_CHECKER = Path(__file__).parent / "asyncapi"


def test_committed_docs_are_what_the_code_generates() -> None:
    assert stale_docs(DOCS) == [], "run `harness docs` and commit docs/"


def test_openapi_document_is_valid_and_served_as_committed(client: AsyncTestClient) -> None:
    committed = json.loads((DOCS / "openapi.json").read_text())
    validate(committed)
    assert committed["openapi"].startswith("3.1")
    assert committed["info"]["title"] == "Agent Harness API"


async def test_the_app_serves_the_committed_openapi_document_with_identity_on(settings: Settings) -> None:
    identity = msgspec.structs.replace(settings, auth=AuthConfig(jwt_secret="s" * 32, jwt_audience="harness"))
    async with AsyncTestClient(create_app(identity)) as client:
        served = (await client.get("/schema/openapi.json")).json()
    assert served == json.loads((DOCS / "openapi.json").read_text())


async def test_with_identity_off_the_document_requires_no_token(client: AsyncTestClient) -> None:
    served = (await client.get("/schema/openapi.json")).json()
    committed = json.loads((DOCS / "openapi.json").read_text())
    assert "securitySchemes" not in served["components"]
    del committed["components"]["securitySchemes"]
    for path_item in committed["paths"].values():
        for operation in path_item.values():
            assert operation.pop("security") == (
                [] if operation["operationId"] in PUBLIC_OPERATIONS else [{"bearer": []}]
            )
    assert served == committed


def test_chat_documents_both_json_and_the_event_stream() -> None:
    document = json.loads((DOCS / "openapi.json").read_text())
    for path in ("/chat", "/chat/resume"):
        ok = document["paths"][path]["post"]["responses"]["200"]["content"]
        assert ok["application/json"]["schema"] == {"$ref": "#/components/schemas/ChatResponse"}
        assert ok["text/event-stream"]["schema"] == {"$ref": "#/components/schemas/EventStream"}
    events = document["paths"]["/runs/{run_id}/events"]["get"]["responses"]["200"]["content"]
    assert list(events) == ["text/event-stream"]
    data = document["components"]["schemas"]["ServerSentEvent"]["properties"]["data"]
    assert data == {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": {"$ref": "#/components/schemas/Envelope"},
    }


def test_request_bodies_that_reject_unknown_fields_say_so() -> None:
    schemas = json.loads((DOCS / "openapi.json").read_text())["components"]["schemas"]
    assert schemas["ChatRequest"]["additionalProperties"] is False
    assert schemas["ResumeRequest"]["additionalProperties"] is False


def test_every_error_status_is_problem_json() -> None:
    document = json.loads((DOCS / "openapi.json").read_text())
    for path, item in document["paths"].items():
        for method, operation in item.items():
            for status, response in operation["responses"].items():
                if int(status) >= 400:
                    assert list(response["content"]) == ["application/problem+json"], (method, path, status)
            assert "400" not in operation["responses"], f"{method} {path} never answers 400"


def test_event_schemas_are_valid_json_schemas() -> None:
    for path in sorted((DOCS / "schemas").glob("*.json")):
        Draft202012Validator.check_schema(json.loads(path.read_text()))


def test_example_frames_in_events_md_meet_the_contract() -> None:
    text = (DOCS / "events.md").read_text()
    frames = [block.split("```", 1)[0].strip() for block in text.split("```text\n")[1:]]
    assert len(frames) >= 10
    for frame in frames:
        assert frame_problems(frame.encode()) == []


def test_asyncapi_document_is_valid_by_the_official_parser() -> None:
    node = shutil.which("node")
    if not (ASYNCAPI_CHECKER / "node_modules").is_dir() or node is None:
        pytest.skip("the AsyncAPI parser is not installed (npm ci --prefix tests/contracts/asyncapi)")
    result = subprocess.run(
        [node, "validate.mjs", str(DOCS / "asyncapi.yaml")],
        cwd=ASYNCAPI_CHECKER,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_example_events_in_ag_ui_md_are_ag_ui_events() -> None:
    from ag_ui.core import Event
    from pydantic import TypeAdapter

    lines = [line for line in (DOCS / "ag-ui.md").read_text().split("\n") if line.startswith("data: ")]
    assert len(lines) >= 10
    adapter = TypeAdapter(Event)
    for line in lines:
        adapter.validate_json(line[len("data: ") :])
