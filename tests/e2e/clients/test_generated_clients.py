"""Clients generated from the committed docs/openapi.json, by tools nobody here wrote, against a real uvicorn.

Each generator must report nothing (no warning, no schema it could not process); the generated code is
type-checked strictly together with a small driver that uses it the way an application would (a JSON
turn, a pause, its approval, the run's snapshot, the 409 of deciding twice, and erasing the session), and
the driver then runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec
import pytest

from api.auth import AuthConfig
from tests.support.node import node_tool, run_node

if TYPE_CHECKING:
    from collections.abc import Callable

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer

HERE = Path(__file__).parent
OPENAPI = HERE.parents[2] / "docs" / "openapi.json"
TS = HERE / "ts"
BIN = Path(sys.executable).parent


TOKEN = "generated-clients-token-of-alice"


@pytest.fixture
def service_url(serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path) -> str:
    """The service with identity on, as the committed document describes it: the clients send a token."""
    tokens = tmp_path / "tokens.json"
    alice = {"token": TOKEN, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"}  # INV-1001 is hers
    tokens.write_text(json.dumps({"tokens": [alice]}))
    return serve(msgspec.structs.replace(settings, auth=AuthConfig(tokens_file=tokens))).url


def assert_drove_the_service(report: dict[str, Any]) -> None:
    assert report["question"] == {"status": "completed", "citations": ["kb-password-reset"]}
    assert report["paused"]["status"] == "paused"
    assert report["paused"]["action"] == "issue_refund"
    assert report["resumed"]["status"] == "completed"
    assert report["resumed"]["kind"] == "action_result"
    assert report["resumed"]["run_id"] == report["paused"]["run_id"]
    assert report["again"] == {"status_code": 409, "code": "run_not_paused"}
    assert report["snapshot"]["status"] == "completed"
    assert report["erased"] == {"status_code": 204, "read_after": 404}


def test_the_python_client_openapi_python_client_generates(tmp_path: Path, service_url: str) -> None:
    out = tmp_path / "harness-client"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff post-hooks
    command = [BIN / "openapi-python-client", "generate", "--path", OPENAPI, "--output-path", out]
    generated = subprocess.run(
        [*command, "--config", HERE / "python-client.yaml", "--fail-on-warning"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    output = generated.stdout + generated.stderr
    assert generated.returncode == 0, output
    assert "Warning" not in output, output
    assert "Skipping" not in output, output

    typed = subprocess.run(
        [BIN / "mypy", "--strict", "--no-incremental", "harness_client", HERE / "drive_python_client.py"],
        cwd=out,
        capture_output=True,
        text=True,
        check=False,
    )
    assert typed.returncode == 0, typed.stdout + typed.stderr
    assert {path.name for path in (out / "harness_client" / "api").iterdir() if path.is_dir()} == {
        "turns",
        "runs",
        "sessions",
        "knowledge",
        "health",
        "agent_protocol",
        "a2a",
        "mcp",
    }, "one module per tag"

    driven = subprocess.run(
        [sys.executable, HERE / "drive_python_client.py", service_url, TOKEN],
        env={**env, "PYTHONPATH": str(out)},
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert driven.returncode == 0, driven.stdout + driven.stderr
    assert_drove_the_service(json.loads(driven.stdout))


def test_the_typescript_client_openapi_typescript_and_openapi_fetch_generate(service_url: str) -> None:
    node_tool(TS)
    schema = TS / "generated" / "schema.d.ts"
    schema.parent.mkdir(exist_ok=True)
    # --default-non-nullable false: a property with a default is optional to send, as the schema says
    generated = run_node(
        TS, "node_modules/.bin/openapi-typescript", str(OPENAPI), "-o", str(schema), "--default-non-nullable", "false"
    )
    assert "warn" not in (generated.stdout + generated.stderr).lower(), generated.stdout + generated.stderr
    run_node(TS, "node_modules/.bin/tsc", "-p", "tsconfig.json")

    driven = run_node(TS, "generated/js/drive.js", service_url, TOKEN)
    assert_drove_the_service(json.loads(driven.stdout))
