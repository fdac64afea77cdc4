"""The tokens file is read again when it changes, and a token's principal says whether it still stands."""

from __future__ import annotations

import asyncio
import json
import os
import time
from typing import TYPE_CHECKING, Any

import jwt
import pytest

from api.auth.authenticator import Authenticator
from api.auth.config import AuthConfig
from api.auth.jwt_tokens import LEEWAY_S
from api.auth.streams import OpenStreams
from api.exceptions import TokenRejected

if TYPE_CHECKING:
    from pathlib import Path

    from api.auth.principal import Principal

ALICE = "alice-token-0123456789abcdef"
BOB = "bob-token-0123456789abcdef"
SECRET = "a-secret-of-at-least-thirty-two-bytes!"


def entry(token: str, subject: str, **fields: Any) -> dict[str, Any]:
    return {"token": token, "subject": subject, "roles": ["user"], **fields}


def write(path: Path, *entries: dict[str, Any]) -> None:
    """Replace the file as an operator should: a new file renamed over the old one."""
    fresh = path.with_suffix(".new")
    fresh.write_text(json.dumps({"tokens": list(entries)}))
    os.replace(fresh, path)


def spoil(path: Path, text: str | None) -> None:
    """Write ``text`` over the file in place, as an editor may (None: remove it)."""
    if text is None:
        path.unlink()
    else:
        path.write_text(text)


@pytest.fixture
def tokens(tmp_path: Path) -> Path:
    path = tmp_path / "tokens.json"
    write(path, entry(ALICE, "alice", account_id="ACC-2001"), entry(BOB, "bob"))
    return path


async def principal(authenticator: Authenticator, token: str) -> Principal:
    return await authenticator.principal(f"Bearer {token}")


async def refusal(authenticator: Authenticator, token: str) -> str:
    with pytest.raises(TokenRejected) as refused:
        await principal(authenticator, token)
    return refused.value.code


async def test_a_token_taken_out_of_the_file_is_refused_once_it_is_read_again(tokens: Path) -> None:
    authenticator = Authenticator(AuthConfig(tokens_file=tokens))
    alice = await principal(authenticator, ALICE)
    assert not authenticator.reload_if_changed(), "nothing changed"

    write(tokens, entry(BOB, "bob"))

    assert authenticator.reload_if_changed()
    assert await refusal(authenticator, ALICE) == "token_unknown"
    assert not authenticator.still_valid(alice, time.time())
    assert (await principal(authenticator, BOB)).subject == "bob"


async def test_a_changed_entry_ends_what_the_old_one_gave(tokens: Path) -> None:
    authenticator = Authenticator(AuthConfig(tokens_file=tokens))
    alice, bob = await principal(authenticator, ALICE), await principal(authenticator, BOB)

    write(tokens, entry(ALICE, "alice", account_id="ACC-2001", roles=[]), entry(BOB, "bob"))
    authenticator.reload("SIGHUP")

    assert not authenticator.still_valid(alice, time.time()), "a role taken away"
    assert authenticator.still_valid(bob, time.time())
    assert authenticator.still_valid(await principal(authenticator, ALICE), time.time())


async def test_a_file_that_cannot_be_read_again_keeps_the_tokens_in_force(
    tokens: Path, caplog: pytest.LogCaptureFixture
) -> None:
    authenticator = Authenticator(AuthConfig(tokens_file=tokens))
    spoil(tokens, '{"tokens": [')

    assert not authenticator.reload_if_changed()
    assert (await principal(authenticator, ALICE)).subject == "alice"
    assert "is not a valid tokens file" in caplog.text
    assert not authenticator.reload_if_changed(), "one complaint per change"

    spoil(tokens, None)
    assert not authenticator.reload_if_changed()
    assert "cannot be read" in caplog.text
    write(tokens, entry(BOB, "bob"))
    assert authenticator.reload_if_changed()
    assert await refusal(authenticator, ALICE) == "token_unknown"


async def test_a_signed_token_stands_until_its_expiry_and_the_leeway() -> None:
    authenticator = Authenticator(AuthConfig(jwt_secret=SECRET, jwt_audience="harness"))
    expires = int(time.time()) + 60
    token = jwt.encode({"sub": "dave", "aud": "harness", "exp": expires}, SECRET, algorithm="HS256")
    dave = await principal(authenticator, token)

    assert authenticator.still_valid(dave, expires + LEEWAY_S - 0.5)
    assert not authenticator.still_valid(dave, expires + LEEWAY_S)


async def test_open_streams_of_a_revoked_principal_end_and_no_others(tokens: Path) -> None:
    authenticator = Authenticator(AuthConfig(tokens_file=tokens))
    alice, bob = await principal(authenticator, ALICE), await principal(authenticator, BOB)
    streams = OpenStreams()
    held = {}
    all_held = asyncio.Event()

    async def stream(who: Principal, name: str) -> None:
        held[name] = streams.hold(who)
        if len(held) == 3:
            all_held.set()
        await asyncio.Event().wait()

    tasks = {name: asyncio.create_task(stream(who, name)) for name, who in (("a1", alice), ("a2", alice), ("b", bob))}
    await asyncio.wait_for(all_held.wait(), 10)
    write(tokens, entry(BOB, "bob"))
    authenticator.reload_if_changed()

    assert streams.end_where(lambda who: not authenticator.still_valid(who, time.time())) == 2
    assert streams.end_where(lambda who: not authenticator.still_valid(who, time.time())) == 0, "ending already"
    await asyncio.wait([tasks["a1"], tasks["a2"]], timeout=10)
    assert tasks["a1"].cancelled()
    assert tasks["a2"].cancelled()
    assert held["a1"].ended
    assert not tasks["b"].done()
    for name in ("a1", "a2"):
        held[name].release()
    assert len(streams) == 1
    tasks["b"].cancel()
