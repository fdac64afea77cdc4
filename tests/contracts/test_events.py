from __future__ import annotations

from typing import get_args

import msgspec

import contracts
from contracts import (
    ENVELOPE_OF,
    Envelope,
    EventPayload,
    EventType,
    NodeStarted,
    NodeStartedEvent,
    TurnCompletedEvent,
)


def test_envelope_is_a_tagged_union_on_type() -> None:
    frame = msgspec.json.encode(
        NodeStartedEvent(
            1, "r_1", 2, "running", "2026-11-30T04:12:59.123456Z", NodeStarted(node="guardrail_pre", step=1)
        )
    )
    assert frame.startswith(b'{"type":"node_started","v":1,"run_id":"r_1","seq":2,')
    assert msgspec.json.decode(frame, type=Envelope) == msgspec.json.decode(frame, type=NodeStartedEvent)


def test_human_wait_ms_appears_only_when_set() -> None:
    fields = {f.name for f in msgspec.structs.fields(TurnCompletedEvent)}
    assert "human_wait_ms" in fields
    event = msgspec.json.decode(
        b'{"type":"error","v":1,"run_id":"r","seq":3,"status":"failed","at":"t",'
        b'"data":{"code":"cancelled","message":"m","retryable":false,"node":null}}',
        type=Envelope,
    )
    assert b"human_wait_ms" not in msgspec.json.encode(event)


def test_unknown_envelope_fields_are_ignored_by_decoders() -> None:
    frame = (
        b'{"type":"node_started","v":1,"run_id":"r","seq":2,"status":"running","at":"t",'
        b'"data":{"node":"n","step":1,"new":"field"},"future":true}'
    )
    assert msgspec.json.decode(frame, type=Envelope).data == NodeStarted(node="n", step=1)


def test_public_names_are_all_exported() -> None:
    public = {
        name
        for name, value in vars(contracts).items()
        if not name.startswith("_") and getattr(value, "__module__", "").startswith("contracts.")
    }
    assert public <= set(contracts.__all__)
    assert all(hasattr(contracts, name) for name in contracts.__all__)


def test_every_event_type_has_one_payload_and_one_envelope() -> None:
    tags = [envelope.__struct_config__.tag for envelope in get_args(Envelope)]
    assert sorted(tags) == sorted(get_args(EventType))
    assert set(get_args(EventPayload)) == set(ENVELOPE_OF)
    assert len(set(ENVELOPE_OF.values())) == len(tags)
