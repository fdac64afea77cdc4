"""langgraph.json's ``auth.path`` in a real ``harness serve --config``: the tests' own ``langgraph_sdk.Auth``
(tests/e2e/custom_auth/auth.py: a token table, threads and crons stamped and filtered by team and visibility, the
store kept under each user's identity and to notes), driven with langgraph-sdk and plain HTTP, on the embedded and
the shared stores.

Its thread filter lets a whole team through, so bob not seeing alice's threads is the service's ownership beneath
it; and it excludes threads marked ``hidden``, so alice not seeing her own hidden thread is the filter at work (what
aegra PR #494 lost: a filter computed, then not applied).
"""

from __future__ import annotations

import json
from contextlib import AsyncExitStack
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import pytest
from langgraph_sdk import get_client

from tests.support.harness_process import HarnessProcess, serve_once
from tests.support.shared_stores import fresh_shared_stores

if TYPE_CHECKING:
    from langgraph_sdk.client import LangGraphClient

PROJECT = Path(__file__).parent / "custom_auth" / "langgraph.json"
ALICE = {"Authorization": "Bearer alice-token-0123456789"}
BOB = {"Authorization": "Bearer bob-token-0123456789"}
MALLORY = {"Authorization": "Bearer mallory-token-0123456789"}
HELLO = {"messages": [{"role": "user", "content": "hello"}]}


def env(tmp_path: Path) -> dict[str, str]:
    return {"HARNESS_DATA_DIR": str(tmp_path / "data"), "HARNESS_RATE_LIMIT_PER_MINUTE": "0"}


async def status(call: Any) -> int:
    """The status an SDK call failed with (200 when it did not)."""
    try:
        await call
    except httpx.HTTPStatusError as exc:
        return exc.response.status_code
    return 200


async def test_the_handlers_principal_is_every_protocols_and_refusals_are_problems(tmp_path: Path) -> None:
    async with AsyncExitStack() as stack:
        process = HarnessProcess(env(tmp_path), args=["--config", str(PROJECT)])
        stack.callback(process.close)
        await process.start()
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=process.url, timeout=60))
        alice: LangGraphClient = await stack.enter_async_context(get_client(url=process.url, headers=ALICE))

        nobody = await http.post("/threads/search", json={})
        crashed = await http.post("/threads/search", json={}, headers={"Authorization": "Bearer crash"})
        suspended = await http.post(
            "/threads/search", json={}, headers={"Authorization": "Bearer suspended-token-0123456789"}
        )
        banned = await http.post("/threads", json={}, headers=MALLORY)
        health = await http.get("/healthz")

        agui = await http.post(
            "/ag-ui/echo",
            headers=ALICE,
            json={
                "threadId": "agui-thread",
                "runId": "agui-run",
                "state": {},
                "messages": [{"id": "m-1", "role": "user", "content": "hello"}],
                "tools": [],
                "context": [],
                "forwardedProps": {},
            },
        )
        ai_sdk = await http.post(
            "/ai-sdk/echo/chat",
            headers=ALICE,
            json={
                "id": "ai-sdk-thread",
                "messages": [{"id": "m-1", "role": "user", "parts": [{"type": "text", "text": "hello"}]}],
                "trigger": "submit-message",
            },
        )
        chat = await http.post("/chat", headers=ALICE, json={"message": "Where is my order A-1002?"})
        chat_run = chat.json()["run_id"]
        chat_read = {
            who: (await http.get(f"/runs/{chat_run}", headers=headers)).status_code
            for who, headers in (("alice", ALICE), ("bob", BOB))
        }
        chat_banned = await http.post("/chat", headers=MALLORY, json={"message": "hello"})
        agui_thread = await alice.threads.get("agui-thread")
        ai_sdk_thread = await alice.threads.get("ai-sdk-thread")
        bob_reads_agui = await http.get("/threads/agui-thread", headers=BOB)

    assert (nobody.status_code, nobody.headers["content-type"]) == (401, "application/problem+json")
    assert nobody.headers["www-authenticate"].startswith("Bearer")
    assert nobody.json()["detail"] == "Unknown token."
    assert crashed.status_code == 401, "a handler that raises is a refusal, never a 500"
    assert (suspended.status_code, suspended.json()["detail"]) == (403, "This account is suspended.")
    assert (banned.status_code, banned.json()["code"]) == (403, "access_denied")
    assert health.status_code == 200, "the routes the service's own identity leaves open stay open"

    assert agui.status_code == 200
    assert '"RUN_FINISHED"' in agui.text
    assert agui_thread["metadata"]["owner"] == "alice", "AG-UI's run was alice's, its thread stamped by her handler"
    assert ai_sdk.status_code == 200
    assert "echo: hello" in ai_sdk.text
    assert ai_sdk_thread["metadata"]["owner"] == "alice"
    assert bob_reads_agui.status_code == 404
    assert chat.status_code == 200
    assert chat_read == {"alice": 200, "bob": 404}, "/chat's run is alice's"
    assert chat_banned.status_code == 403, "/chat starts a run: threads.create_run decides it too"


@pytest.mark.parametrize("stores", ["embedded", "shared"])
async def test_thread_filters_hide_what_they_exclude_and_the_store_keeps_to_its_handler(
    tmp_path: Path, stores: str
) -> None:
    async with AsyncExitStack() as stack:
        shared = stack.enter_context(fresh_shared_stores()).env if stores == "shared" else {}
        process = HarnessProcess({**env(tmp_path), **shared}, args=["--config", str(PROJECT)])
        stack.callback(process.close)
        await process.start()
        alice: LangGraphClient = await stack.enter_async_context(get_client(url=process.url, headers=ALICE))
        bob: LangGraphClient = await stack.enter_async_context(get_client(url=process.url, headers=BOB))

        shown = await alice.threads.create(metadata={"topic": "shown"})
        hidden = await alice.threads.create(metadata={"topic": "hidden", "visibility": "hidden"})
        answer: Any = await alice.runs.wait(shown["thread_id"], "echo", input=HELLO)
        made_by_run: Any = await alice.runs.wait(None, "echo", input=HELLO)
        alice_sees = [thread["thread_id"] for thread in await alice.threads.search(limit=100)]
        bob_sees = await bob.threads.search(limit=100)
        bob_reads = {
            "thread": await status(bob.threads.get(shown["thread_id"])),
            "state": await status(bob.threads.get_state(shown["thread_id"])),
            "runs": await status(bob.runs.list(shown["thread_id"])),
            "run": await status(bob.runs.create(shown["thread_id"], "echo", input=HELLO)),
        }
        alice_reads_hidden = {
            "thread": await status(alice.threads.get(hidden["thread_id"])),
            "state": await status(alice.threads.get_state(hidden["thread_id"])),
            "run": await status(alice.runs.wait(hidden["thread_id"], "echo", input=HELLO)),
            "delete": await status(alice.threads.delete(hidden["thread_id"])),
        }

        yearly = {"schedule": "0 0 1 1 *", "input": HELLO}
        cron = await alice.crons.create("echo", **yearly, metadata={"topic": "shown"})
        hidden_cron = await alice.crons.create("echo", **yearly, metadata={"visibility": "hidden"})
        alice_crons = [found["cron_id"] for found in await alice.crons.search()]
        hidden_cron_delete = await status(alice.crons.delete(hidden_cron["cron_id"]))
        mallory = await stack.enter_async_context(get_client(url=process.url, headers=MALLORY))
        banned_cron = await status(mallory.crons.create("echo", **yearly))

        await alice.store.put_item(["notes"], "n-1", {"kind": "note", "text": "buy milk"})
        refused = await status(alice.store.put_item(["notes"], "n-2", {"kind": "secret"}))
        item = await alice.store.get_item(["notes"], "n-1")
        found = await alice.store.search_items(["notes"])
        namespaces = await alice.store.list_namespaces()
        bob_finds = await bob.store.search_items(["notes"])
        bob_gets = await status(bob.store.get_item(["alice", "notes"], "n-1"))

    assert (shown["metadata"]["owner"], shown["metadata"]["team"]) == ("alice", "red"), "stamped on create"
    assert answer["messages"][-1]["content"] == "echo: hello"
    assert answer["asked_by"] == "alice of team red", "the graph gets the user as on the Agent Server"
    assert made_by_run["messages"][-1]["content"] == "echo: hello", "a thread a run creates gets the stamp too"
    assert shown["thread_id"] in alice_sees
    assert hidden["thread_id"] not in alice_sees, "the filter hides a thread from its very owner"
    assert bob_sees == [], "bob's filter lets team red through; ownership still hides alice's threads"
    assert bob_reads == {"thread": 404, "state": 404, "runs": 404, "run": 404}
    assert alice_reads_hidden == {"thread": 404, "state": 404, "run": 404, "delete": 404}

    assert cron["metadata"] == {"topic": "shown", "visibility": "shown", "owner": "alice"}, "stamped on create"
    assert alice_crons == [cron["cron_id"]], "the filter hides a cron from its owner"
    assert hidden_cron_delete == 404
    assert banned_cron == 403

    assert refused == 403
    assert item is not None
    assert (item["namespace"], item["value"]) == (["alice", "notes"], {"kind": "note", "text": "buy milk"})
    assert [entry["key"] for entry in found["items"]] == ["n-1"]
    assert namespaces["namespaces"] == [["alice", "notes"]]
    assert bob_finds["items"] == [], "bob's namespace is his own, under his identity"
    assert bob_gets == 404


def rpc(method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}


async def test_a_hidden_thread_is_not_found_whichever_way_it_is_reached(tmp_path: Path) -> None:
    """Not only by the routes naming it in their path: by its run alone, as an AI SDK chat, as an A2A context or
    task (MCP's ways, a cancellation and an elicitation's answer, are tests/api/mcp's). Its run is made by a run
    that creates its thread with ``hidden`` metadata (what the handler stamps it with), so it is alice's own run on
    alice's own thread: ownership lets her through everywhere, the filter alone hides it."""
    async with AsyncExitStack() as stack:
        process = HarnessProcess(env(tmp_path), args=["--config", str(PROJECT)])
        stack.callback(process.close)
        await process.start()
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=process.url, timeout=60, headers=ALICE))

        made = await http.post(
            "/threads/hidden-thread/runs/wait",
            json={
                "assistant_id": "echo",
                "input": HELLO,
                "if_not_exists": "create",
                "metadata": {"visibility": "hidden"},
            },
        )
        hidden_run = made.headers["content-location"].rsplit("/", 1)[-1]
        shown = await http.post(
            "/threads/shown-thread/runs/wait", json={"assistant_id": "echo", "input": HELLO, "if_not_exists": "create"}
        )
        shown_run = shown.headers["content-location"].rsplit("/", 1)[-1]
        chat = await http.post("/threads", json={"thread_id": "hidden-chat", "metadata": {"visibility": "hidden"}})

        def by_run(run: str) -> dict[str, Any]:
            return {
                "run": ("GET", f"/runs/{run}", None),
                "events": ("GET", f"/runs/{run}/events", None),
                "stream": ("GET", f"/runs/{run}/stream", None),
                "case": ("GET", f"/runs/{run}/case", None),
                "feedback": ("POST", f"/runs/{run}/feedback", {"score": 1}),
                "cancel": ("POST", f"/runs/{run}/cancel", None),
            }

        async def statuses(run: str) -> dict[str, int]:
            found = {}
            for name, (method, url, body) in by_run(run).items():
                async with http.stream(method, url, json=body) as answer:
                    found[name] = answer.status_code
            return found

        hidden_by_run = await statuses(hidden_run)
        shown_by_run = await statuses(shown_run)
        reconnects = {
            url: (await http.get(url)).status_code
            for url in ("/ai-sdk/echo/chat/hidden-chat/stream", "/ai-sdk/chat/hidden-chat/stream")
        }
        shown_reconnect = (await http.get("/ai-sdk/echo/chat/shown-thread/stream")).status_code

        ask = {"messageId": "m-1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}
        a2a = {
            "SendMessage": rpc("SendMessage", {"message": {**ask, "contextId": "hidden-thread"}}),
            "GetTask": rpc("GetTask", {"id": hidden_run}),
            "CancelTask": rpc("CancelTask", {"id": hidden_run}),
            "SubscribeToTask": rpc("SubscribeToTask", {"id": hidden_run}),
        }
        a2a_errors = {}
        for method, call in a2a.items():
            answer = await http.post("/a2a/echo", json=call)
            a2a_errors[method] = (answer.status_code, answer.json().get("error", {}).get("code"))
        shown_task = (await http.post("/a2a/echo", json=rpc("GetTask", {"id": shown_run}))).json()

    assert made.status_code == 200, made.text
    assert chat.status_code == 200
    assert hidden_by_run == dict.fromkeys(by_run(hidden_run), 404), "by its run alone, as on its thread's routes"
    assert shown_by_run["run"] == 200, "a shown thread's run is read as ever"
    assert reconnects == dict.fromkeys(reconnects, 404), "the AI SDK's chat id is the thread"
    assert shown_reconnect == 204, "no active run on a shown chat: nothing to resume"
    assert a2a_errors == {
        "SendMessage": (200, -32001),
        "GetTask": (200, -32001),
        "CancelTask": (200, -32001),
        "SubscribeToTask": (200, -32001),
    }, "a JSON-RPC error, as for a task that does not exist"
    assert shown_task["result"]["id"] == shown_run


async def test_the_approvals_inbox_lists_no_interrupt_of_a_thread_the_filter_hides(tmp_path: Path) -> None:
    """``GET /approvals`` is a search of interrupted threads: alice's run waiting on her own hidden thread is hers by
    ownership, and the filter keeps it out of her inbox as it keeps the thread out of her searches."""
    async with AsyncExitStack() as stack:
        process = HarnessProcess(env(tmp_path), args=["--config", str(PROJECT)])
        stack.callback(process.close)
        await process.start()
        http = await stack.enter_async_context(httpx.AsyncClient(base_url=process.url, timeout=60, headers=ALICE))
        asks = {"hidden": "approve: the hidden one", "shown": "approve: the shown one"}
        for visibility, message in asks.items():
            waiting = await http.post(
                f"/threads/{visibility}-thread/runs/wait",
                json={
                    "assistant_id": "echo",
                    "input": {"messages": [{"role": "user", "content": message}]},
                    "if_not_exists": "create",
                    "metadata": {"visibility": visibility},
                },
            )
            assert "__interrupt__" in waiting.json(), waiting.text
        inbox = await http.get("/approvals")
        bobs = await http.get("/approvals", headers=BOB)

    assert inbox.status_code == 200, inbox.text
    assert [(item["session_id"], item["summary"]) for item in inbox.json()["approvals"]] == [
        ("shown-thread", "Echo the shown one")
    ]
    assert bobs.json()["approvals"] == [], "bob's team sees the shown thread; ownership still keeps alice's run hers"


@pytest.mark.parametrize(
    ("auth", "extra", "problem"),
    [
        ({"path": "./missing.py:auth"}, {}, "auth.path './missing.py:auth' does not load: FileNotFoundError"),
        ({"path": "./echo_graph.py:graph"}, {}, "auth.path './echo_graph.py:graph' is of type"),
        (
            {"path": "./auth.py:auth"},
            {"HARNESS_AUTH_TOKENS_FILE": "tokens.json"},
            "auth.path is given and so is HARNESS_AUTH_TOKENS_FILE",
        ),
    ],
)
def test_an_auth_path_that_cannot_serve_stops_the_start_naming_the_file_and_key(
    tmp_path: Path, auth: dict[str, str], extra: dict[str, str], problem: str
) -> None:
    project = tmp_path / "langgraph.json"
    folder = PROJECT.parent
    located = {"graphs": {"echo": f"{folder / 'echo_graph.py'}:graph"}, "auth": {"path": auth["path"]}}
    located["auth"]["path"] = auth["path"].replace("./", f"{folder}/")
    project.write_text(json.dumps(located))
    (tmp_path / "tokens.json").write_text('{"tokens": [{"token": "tok-0123456789abcdef", "subject": "x"}]}')
    extra = {key: str(tmp_path / value) for key, value in extra.items()}

    result = serve_once({**env(tmp_path), "HARNESS_CONFIG": str(project), **extra})

    assert result.returncode != 0
    assert f"{project}: " in result.stderr + result.stdout
    assert problem.replace("./", f"{folder}/") in result.stderr + result.stdout
