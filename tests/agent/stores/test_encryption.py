"""Encrypted checkpoints on both savers (SQLite and PostgreSQL): they round-trip across a restart, hold no
plain text, and a wrong or missing key, or plain checkpoints written before the key, stop the stores from
opening."""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
import psycopg
import pytest

from agent import open_agent, resume_turn, run_turn
from agent.clock import SequentialIds, SteppingClock
from agent.config import AgentConfig, StubConfig
from agent.encryption import EncryptionKey
from agent.stores.key_check import EncryptionKeyError, PlainValuesError
from tests.support.store_bytes import postgres_bytes, sqlite_bytes

if TYPE_CHECKING:
    from pathlib import Path

    from contracts import ChatResponse
    from tests.support.shared_stores import SharedStores

KEY = EncryptionKey(bytes(range(32)))
OTHER_KEY = EncryptionKey(bytes(range(1, 33)))
REFUND = "Please refund invoice INV-1001."


@pytest.fixture
def config(tmp_path: Path, stores: SharedStores | None) -> AgentConfig:
    return AgentConfig(
        data_dir=tmp_path / "data",
        database_url=stores.database_url if stores else None,
        stub=StubConfig(token_delay_ms=0),
    )


def keyed(config: AgentConfig, key: EncryptionKey | None) -> AgentConfig:
    return msgspec.structs.replace(config, encryption_key=key)


async def pause(config: AgentConfig, session_id: str = "s_1") -> ChatResponse:
    async with open_agent(config, clock=SteppingClock(), ids=SequentialIds()) as agent:
        paused = await run_turn(agent, REFUND, session_id=session_id, run_id=f"r_{session_id}")
    assert paused.pending_approval is not None
    return paused


async def approve(config: AgentConfig, paused: ChatResponse) -> ChatResponse:
    assert paused.pending_approval is not None
    async with open_agent(config, clock=SteppingClock(), ids=SequentialIds()) as agent:
        return await resume_turn(
            agent, session_id=paused.session_id, approval_id=paused.pending_approval.approval_id, decision="approve"
        )


def checkpoint_bytes(config: AgentConfig, stores: SharedStores | None) -> bytes:
    if stores is None:
        found = sqlite_bytes(config.data_dir)
        return b"".join(data for name, data in found.items() if name.startswith("checkpoints"))
    return b"".join(data for name, data in postgres_bytes(stores).items() if name.startswith("postgres checkpoint"))


async def test_encrypted_checkpoints_round_trip_across_a_restart_and_hold_no_plain_text(
    config: AgentConfig, stores: SharedStores | None
) -> None:
    paused = await pause(keyed(config, KEY))
    done = await approve(keyed(config, KEY), paused)

    assert done.status == "completed"
    assert done.answer.text.startswith("Refund of $42.00 for invoice INV-1001")
    stored = checkpoint_bytes(config, stores)
    assert b"aes" in stored
    # each long enough not to turn up in random ciphertext by chance (three bytes, "kb-", once did)
    for plain in (b"refund invoice", b"Refund of $42.00", b"kb-refund-policy", b"issue_refund", b"stub-1"):
        assert plain not in stored, plain


async def test_a_wrong_key_stops_the_stores_from_opening(config: AgentConfig) -> None:
    await pause(keyed(config, KEY))

    with pytest.raises(EncryptionKeyError, match=r"is not the key the checkpoints in .* were encrypted with"):
        await pause(keyed(config, OTHER_KEY), "s_2")


async def test_a_missing_key_stops_the_stores_from_opening(config: AgentConfig) -> None:
    await pause(keyed(config, KEY))

    with pytest.raises(EncryptionKeyError, match="are encrypted: set HARNESS_ENCRYPTION_KEY"):
        await pause(keyed(config, None), "s_2")


async def test_checkpoints_written_before_the_key_are_refused_until_sealed(config: AgentConfig) -> None:
    plain = await pause(keyed(config, None))

    with pytest.raises(PlainValuesError, match=r"the checkpoints \(\w+\) in .* run `harness rotate-key`"):
        await approve(keyed(config, KEY), plain)
    done = await approve(keyed(config, None), plain)
    assert done.status == "completed"


async def test_a_key_with_nothing_sealed_by_it_can_be_dropped_or_changed(config: AgentConfig) -> None:
    async with open_agent(keyed(config, KEY)):
        pass
    async with open_agent(keyed(config, None)):
        pass

    await pause(keyed(config, OTHER_KEY))
    done = await approve(keyed(config, OTHER_KEY), await pause(keyed(config, OTHER_KEY), "s_2"))
    assert done.status == "completed"


async def test_sealed_data_without_its_record_is_probed(config: AgentConfig, stores: SharedStores | None) -> None:
    await pause(keyed(config, KEY))
    if stores is None:
        import sqlite3

        with sqlite3.connect(config.data_dir / "checkpoints.sqlite") as db:
            db.execute("DELETE FROM harness_key_check")
    else:
        with psycopg.connect(stores.database_url, autocommit=True) as db:
            db.execute("DELETE FROM harness_key_check")

    with pytest.raises(EncryptionKeyError, match="is not the key"):
        await pause(keyed(config, OTHER_KEY), "s_2")
    done = await approve(keyed(config, KEY), await pause(keyed(config, KEY), "s_3"))
    assert done.status == "completed"
