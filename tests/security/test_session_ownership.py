"""Issue 24, findings 5, 6 (in part) and 9: who owns a session, and erasure across instances, over real HTTP.

5. On shared stores, Redis holds only a copy of a session's owner: after Redis loses its keys, a stranger
   naming the session gets 404 and sees nothing of it, and its owner goes on (PostgreSQL decides); sessions
   owned before PostgreSQL kept owners (Redis's owner keys, the run archive) keep theirs.
6. Embedded: two subjects naming one new session id at once cannot both take it; a stranger naming a
   session being erased gets 404, as for any session not theirs (its owner gets 409 ``session_busy``).
9. An erasure holds its session on every instance: a turn asked of another instance while it runs is
   refused, and afterwards nothing of the session is in any store.

Where a race is needed, the server is held at one step (a ``Gate`` on its own event loop, or a PostgreSQL
lock) until the test has done what the race needs: no sleeps.
"""

from __future__ import annotations

import asyncio
import json
import threading
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import psycopg
import pytest
import redis

from agent.stores.postgres import apply_migrations, migration_lock, open_pool
from api.auth import AuthConfig
from api.runs.log.archive import RunArchive
from tests.support.harness_process import HarnessProcess
from tests.support.run_records import run_record
from tests.support.shared_stores import fresh_shared_stores
from tests.support.store_bytes import postgres_bytes, redis_bytes, sqlite_bytes

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable
    from pathlib import Path

    from api.settings import Settings
    from tests.e2e.conftest import LiveServer
    from tests.support.shared_stores import SharedStores

TOKENS = {"alice": "alice-token-0123456789abcdef", "bob": "bob-token-0123456789abcdef"}
SSE = {"Accept": "text/event-stream"}
PATIENCE_S = 30
"""The most a test waits for the server to reach a step (it takes milliseconds)."""


@pytest.fixture
def stores() -> None:
    """The embedded tests run one instance on their own; the shared ones start theirs."""


def bearer(subject: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {TOKENS[subject]}"}


def tokens_file(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({"tokens": [{"token": t, "subject": s, "roles": ["user"]} for s, t in TOKENS.items()]}))
    return path


def turn(session_id: str, message: str = "How do I reset my password?") -> dict[str, str]:
    return {"message": message, "session_id": session_id}


def code(response: httpx.Response) -> tuple[int, str | None]:
    problem = response.json() if response.headers.get("content-type", "").startswith("application/problem") else {}
    return response.status_code, problem.get("code")


class Gate:
    """Holds a coroutine of the server (uvicorn runs it on its own loop, in another thread) until the test opens
    the gate; ``reached`` is set once ``count`` callers wait at it."""

    def __init__(self, count: int = 1) -> None:
        self.reached = threading.Event()
        self._open = threading.Event()
        self._count = count
        self._arrived = 0
        self._lock = threading.Lock()

    def wrap(self, function: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
        async def held(*args: Any) -> Any:
            with self._lock:
                self._arrived += 1
                if self._arrived >= self._count:
                    self.reached.set()
            await asyncio.to_thread(self._open.wait, PATIENCE_S)
            return await function(*args)

        return held

    def open(self) -> None:
        self._open.set()

    async def wait_reached(self) -> None:
        assert await asyncio.to_thread(self.reached.wait, PATIENCE_S), "the server never reached the gate"


def with_identity(settings: Settings, tmp_path: Path) -> Settings:
    return msgspec.structs.replace(settings, auth=AuthConfig(tokens_file=tokens_file(tmp_path)))


# --- 6: embedded ---


async def test_two_subjects_naming_one_new_session_at_once_cannot_both_take_it(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    server = serve(with_identity(settings, tmp_path))
    log = server.app.state.runs.log
    gate = Gate(count=2)  # both turns have asked the store who owns the session before either is told
    log._load_owner = gate.wrap(log._load_owner)
    async with httpx.AsyncClient(base_url=server.url, timeout=PATIENCE_S) as client:
        racing = {
            subject: asyncio.ensure_future(client.post("/chat", json=turn("s_race"), headers=bearer(subject)))
            for subject in TOKENS
        }
        try:
            await gate.wait_reached()
        finally:
            gate.open()
        first = {subject: await answer for subject, answer in racing.items()}
        winner = next(subject for subject, answer in first.items() if answer.status_code == 200)
        loser = next(subject for subject in TOKENS if subject != winner)
        again = {
            subject: await client.post("/chat", json=turn("s_race"), headers=bearer(subject)) for subject in TOKENS
        }
        runs_of_the_winner = await client.get(f"/runs/{first[winner].json()['run_id']}", headers=bearer(loser))

    assert sorted(code(answer) for answer in first.values()) == [(200, None), (404, "session_not_found")]
    assert again[winner].json()["status"] == "completed", "the winner goes on in the session"
    assert code(again[loser]) == (404, "session_not_found")
    assert runs_of_the_winner.status_code == 404


async def test_a_stranger_naming_a_session_being_erased_gets_404_and_its_owner_409(
    serve: Callable[..., LiveServer], settings: Settings, tmp_path: Path
) -> None:
    server = serve(with_identity(settings, tmp_path))
    eraser = server.app.state.runs.eraser
    gate = Gate()  # the erasure holds the session, has ended its runs, and waits to remove them
    eraser.forget = gate.wrap(eraser.forget)
    async with httpx.AsyncClient(base_url=server.url, timeout=PATIENCE_S) as client:
        for session in ("s_going", "s_kept"):
            assert (await client.post("/chat", json=turn(session), headers=bearer("alice"))).status_code == 200
        erasing = asyncio.ensure_future(client.delete("/sessions/s_going", headers=bearer("alice")))
        try:
            await gate.wait_reached()
            by_the_stranger = await client.post("/chat", json=turn("s_going"), headers=bearer("bob"))
            by_the_owner = await client.post("/chat", json=turn("s_going"), headers=bearer("alice"))
        finally:
            gate.open()
        erased = await erasing
        not_erased = await client.post("/chat", json=turn("s_kept"), headers=bearer("bob"))
        afterwards = await client.post("/chat", json=turn("s_going"), headers=bearer("bob"))

    assert code(by_the_stranger) == (404, "session_not_found")
    assert by_the_stranger.content.replace(b"s_going", b"ID") == not_erased.content.replace(b"s_kept", b"ID"), (
        "the same answer as for any session not theirs"
    )
    assert code(by_the_owner) == (409, "session_busy")
    assert erased.status_code == 204
    assert afterwards.json()["status"] == "completed", "once erased, the id may start a new session"


# --- 5 and 9: two instances on shared stores ---


@asynccontextmanager
async def two_instances(shared: SharedStores, tmp_path: Path) -> AsyncIterator[tuple[HarnessProcess, HarnessProcess]]:
    env = {
        **shared.env,
        "HARNESS_AUTH_TOKENS_FILE": str(tokens_file(tmp_path)),
        "HARNESS_STUB_TOKEN_DELAY_MS": "0",
        "HARNESS_RATE_LIMIT_PER_MINUTE": "0",
    }
    a = HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / "a")})
    b = HarnessProcess({**env, "HARNESS_DATA_DIR": str(tmp_path / "b")})
    try:
        await a.start()
        await b.start()
        yield a, b
    finally:
        a.close()
        b.close()


def lose_redis_keys(shared: SharedStores) -> int:
    """What a Redis restart without persistence does to the service: every key of its prefix is gone."""
    client = redis.Redis.from_url(shared.redis_url)
    try:
        keys = list(client.scan_iter(match=f"{shared.redis_prefix}:*", count=1000))
        return int(client.delete(*keys)) if keys else 0
    finally:
        client.close()


async def first_row(shared: SharedStores, sql: str, *args: object) -> tuple[Any, ...]:
    """The first row ``sql`` finds, asked every 50 ms, for what the service does in the background."""
    async with await psycopg.AsyncConnection.connect(shared.database_url, autocommit=True) as connection:
        async with asyncio.timeout(PATIENCE_S):
            while (row := await (await connection.execute(sql, args)).fetchone()) is None:
                await asyncio.sleep(0.05)
    return row


async def test_after_redis_loses_its_keys_a_stranger_cannot_take_a_session_postgresql_knows(
    tmp_path: Path,
) -> None:
    secret = "the quokka in my attic"
    with fresh_shared_stores() as shared:
        async with two_instances(shared, tmp_path) as (a, b), httpx.AsyncClient(timeout=PATIENCE_S) as client:
            started = await client.post(f"{a.url}/chat", json=turn("s_alices", secret), headers=bearer("alice"))
            made = (await client.post(f"{a.url}/chat", json={"message": secret}, headers=bearer("alice"))).json()
            # the claim of a session the service made reaches PostgreSQL just after its first run began
            claimed = "SELECT owner FROM session_owners WHERE session_id = %s"
            assert await first_row(shared, claimed, made["session_id"]) == ("alice",)
            lost = lose_redis_keys(shared)
            by_bob = {
                session: await client.post(
                    f"{b.url}/chat", json=turn(session, "What did I ask?"), headers=bearer("bob")
                )
                for session in ("s_alices", made["session_id"])
            }
            reads_by_bob = [
                (await client.get(f"{url}/runs/{run_id}", headers=bearer("bob"))).status_code
                for url in (a.url, b.url)
                for run_id in (started.json()["run_id"], made["run_id"])
            ]
            by_alice = {
                session: await client.post(f"{b.url}/chat", json=turn(session), headers=bearer("alice"))
                for session in ("s_alices", made["session_id"])
            }
            stored = b"".join(postgres_bytes(shared).values()) + redis_bytes(shared)

    assert started.json()["status"] == "completed"
    assert lost > 0
    for answer in by_bob.values():
        assert code(answer) == (404, "session_not_found")
        assert secret.encode() not in answer.content
    assert set(reads_by_bob) == {404}
    assert [answer.json()["status"] for answer in by_alice.values()] == ["completed", "completed"]
    assert b"What did I ask?" not in stored, "bob's message reached no store"


async def test_sessions_owned_before_postgresql_kept_owners_keep_their_owners(tmp_path: Path) -> None:
    with fresh_shared_stores() as shared:
        # as the versions before wrote them: one session only the run archive knows, one only Redis's owner key
        async with open_pool(shared.database_url) as pool:
            async with migration_lock(pool) as connection:
                await apply_migrations(connection, "runs", RunArchive.MIGRATIONS)
            archived = run_record("r_archived", "s_archived", status="completed", last_seq=7, owner="alice")
            await RunArchive(pool).save([archived.encode()])
        client = redis.Redis.from_url(shared.redis_url)
        try:
            client.set(f"{shared.redis_prefix}:session:s_cached:owner", "alice")
        finally:
            client.close()
        async with two_instances(shared, tmp_path) as (a, b), httpx.AsyncClient(timeout=PATIENCE_S) as http:
            lose_redis_keys(shared)  # from here on only PostgreSQL can know who owns them
            by_bob = [
                code(await http.post(f"{url}/chat", json=turn(session), headers=bearer("bob")))
                for url, session in ((a.url, "s_archived"), (b.url, "s_cached"))
            ]
            by_alice = [
                (await http.post(f"{url}/chat", json=turn(session), headers=bearer("alice"))).json()["status"]
                for url, session in ((b.url, "s_archived"), (a.url, "s_cached"))
            ]

    assert by_bob == [(404, "session_not_found")] * 2
    assert by_alice == ["completed"] * 2


@asynccontextmanager
async def checkpoints_locked(shared: SharedStores) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    """Hold the checkpoints table against writes (an erasure's delete waits there), until the block ends."""
    async with await psycopg.AsyncConnection.connect(shared.database_url) as connection:
        await connection.execute("LOCK TABLE checkpoints IN SHARE MODE")
        try:
            yield connection
        finally:
            await connection.rollback()


ERASURE_WAITS = (
    "SELECT 1 FROM pg_locks l JOIN pg_class c ON c.oid = l.relation JOIN pg_namespace n ON n.oid = c.relnamespace "
    "WHERE NOT l.granted AND c.relname = 'checkpoints' AND n.nspname = %s"
)
"""A row once a statement (the erasure's delete of the session's checkpoints) waits for ``checkpoints_locked``."""


async def test_an_erasure_on_one_instance_holds_the_session_on_the_other_and_leaves_nothing(
    tmp_path: Path,
) -> None:
    marker = "wombat-under-the-stairs"
    with fresh_shared_stores() as shared:
        async with two_instances(shared, tmp_path) as (a, b), httpx.AsyncClient(timeout=PATIENCE_S) as client:
            started = (await client.post(f"{a.url}/chat", json=turn("s_goes", marker), headers=bearer("alice"))).json()
            async with checkpoints_locked(shared):
                erasing = asyncio.ensure_future(client.delete(f"{a.url}/sessions/s_goes", headers=bearer("alice")))
                await first_row(shared, ERASURE_WAITS, shared.schema)
                async with client.stream(
                    "POST", f"{b.url}/chat", json=turn("s_goes", marker), headers=bearer("alice") | SSE
                ) as by_the_owner:
                    owner_during = (by_the_owner.status_code, by_the_owner.headers.get("content-type", ""))
                    owner_body = await by_the_owner.aread() if by_the_owner.status_code != 200 else b"{}"
                by_the_stranger = await client.post(f"{b.url}/chat", json=turn("s_goes"), headers=bearer("bob"))
            erased = await erasing
            reads = [
                (await client.get(f"{url}/runs/{started['run_id']}", headers=bearer("alice"))).status_code
                for url in (a.url, b.url)
            ]
            stored = {**postgres_bytes(shared), "redis": redis_bytes(shared)}
        for instance in ("a", "b"):
            stored |= {f"{instance} {name}": data for name, data in sqlite_bytes(tmp_path / instance).items()}

    assert owner_during[0] == 409, "the turn asked of the other instance did not begin"
    assert json.loads(owner_body)["code"] == "session_busy"
    assert code(by_the_stranger) == (404, "session_not_found")
    assert erased.status_code == 204
    assert set(reads) == {404}
    for where, data in stored.items():
        assert b"s_goes" not in data, where
        assert marker.encode() not in data, where
