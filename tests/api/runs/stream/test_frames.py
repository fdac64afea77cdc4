"""The frame encoder writes, for every event type, the bytes msgspec writes for the envelope ``Struct``."""

from __future__ import annotations

import msgspec

from api.docs.samples import sample_frames
from contracts import TERMINAL_EVENT_TYPES, Envelope


async def test_every_frame_the_service_sends_is_its_envelope_struct_encoded() -> None:
    samples = await sample_frames()
    assert {"graph_topology", "node_started", "token_delta", "paused", "snapshot"} <= set(samples)
    assert set(TERMINAL_EVENT_TYPES) <= set(samples)
    for frames in samples.values():
        for frame in frames:
            id_line, event_line, data_line = frame.split(b"\n")
            data = data_line.removeprefix(b"data: ")
            envelope = msgspec.json.decode(data, type=Envelope)
            assert msgspec.json.encode(envelope) == data
            assert id_line == b"id: %s:%d" % (envelope.run_id.encode(), envelope.seq)
            assert event_line == b"event: " + type(envelope).__struct_config__.tag.encode()
