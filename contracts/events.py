"""The SSE event envelope (v1) and the payload of every event type.

Each envelope type is a tagged Struct (tag field ``type``), so ``Envelope`` is a tagged union that
encodes and decodes in one msgspec pass, and the JSON Schema of every event comes from here. A new event
type is written here alone: its payload, its envelope (added to ``Envelope``, ``EventPayload`` and
``EventType``); ``ENVELOPE_OF`` is derived from the envelopes, and a test holds the three lists together.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args, get_type_hints

import msgspec

from contracts.graph_events import GraphPart, InterruptInfo, RunCompleted
from contracts.ids import RunId, SessionId
from contracts.responses import ChatResponse, NonNegativeInt, PendingApproval, TokenCounts
from contracts.runs import RunSnapshot, RunStatus

__all__ = (
    "ENVELOPE_OF",
    "ENVELOPE_VERSION",
    "TERMINAL_EVENT_TYPES",
    "CostUpdated",
    "CostUpdatedEvent",
    "Envelope",
    "ErrorEvent",
    "ErrorInfo",
    "EventPayload",
    "EventType",
    "GraphPartEvent",
    "GraphTopology",
    "GraphTopologyEvent",
    "InteractionLogged",
    "InteractionLoggedEvent",
    "NodeCompleted",
    "NodeCompletedEvent",
    "NodeStarted",
    "NodeStartedEvent",
    "Paused",
    "PausedEvent",
    "RunCompletedEvent",
    "Snapshot",
    "SnapshotEvent",
    "TokenDelta",
    "TokenDeltaEvent",
    "TopologyEdge",
    "TopologyNode",
    "TurnCompleted",
    "TurnCompletedEvent",
)

ENVELOPE_VERSION = 1

EventType = Literal[
    "graph_topology",
    "node_started",
    "node_completed",
    "token_delta",
    "cost_updated",
    "paused",
    "interaction_logged",
    "error",
    "turn_completed",
    "snapshot",
    "graph_part",
    "run_completed",
]
TERMINAL_EVENT_TYPES: frozenset[str] = frozenset({"turn_completed", "error", "run_completed"})
"""A run ends with exactly one of these: ``turn_completed`` or ``error`` for the support agent's turns,
``run_completed`` or ``error`` for a run of a registered graph."""

Step = Annotated[int, msgspec.Meta(ge=0, description="The graph superstep the node ran in.")]
Milliseconds = Annotated[float, msgspec.Meta(ge=0)]


class TopologyNode(msgspec.Struct, kw_only=True):
    id: str
    label: str


class TopologyEdge(msgspec.Struct, kw_only=True):
    source: str
    target: str
    conditional: Annotated[
        bool, msgspec.Meta(description="True when a router decides at run time whether this edge is taken.")
    ]


class GraphTopology(msgspec.Struct, kw_only=True):
    """The shape of the graph, read from the compiled graph itself."""

    session_id: SessionId
    nodes: list[TopologyNode]
    edges: list[TopologyEdge]


SubgraphNamespace = Annotated[
    list[str],
    msgspec.Meta(
        description=(
            "For a node of a subgraph of a registered graph: one `<node>:<task id>` per subgraph level, outermost "
            "first. Left out for the root graph (the support agent's nodes never carry it)."
        )
    ),
]


class NodeStarted(msgspec.Struct, kw_only=True, omit_defaults=True):
    node: str
    step: Step
    ns: SubgraphNamespace = msgspec.field(default_factory=list)


class NodeCompleted(msgspec.Struct, kw_only=True, omit_defaults=True):
    node: str
    step: Step
    latency_ms: Annotated[
        Milliseconds,
        msgspec.Meta(
            description="The duration of the node's OpenTelemetry span (the same figure as `ChatResponse.trace`)."
        ),
    ]
    outcome: str
    summary: Annotated[str, msgspec.Meta(description="One line a person can read, e.g. `3 passages found`.")]
    ns: SubgraphNamespace = msgspec.field(default_factory=list)


class TokenDelta(msgspec.Struct, kw_only=True):
    """One chunk of the model's answer."""

    delta: Annotated[
        str, msgspec.Meta(description="The raw model chunk (for a structured answer: a piece of its JSON).")
    ]
    text: Annotated[
        str,
        msgspec.Meta(
            description=(
                "The increment of the answer's visible text; the concatenation of every `text` is `answer.text`."
            )
        ),
    ]
    finish_reason: Annotated[
        str | None,
        msgspec.Meta(
            description="`null` on intermediate chunks; the last chunk of the answer carries it (e.g. `stop`)."
        ),
    ]
    input_tokens: Annotated[
        NonNegativeInt, msgspec.Meta(description="0 on intermediate chunks; the turn's count on the last one.")
    ]
    output_tokens: NonNegativeInt
    latency_ms: Annotated[Milliseconds, msgspec.Meta(description="Cumulative since the model stream opened.")]
    model: str
    metadata: Annotated[
        dict[str, Any],
        msgspec.Meta(description='Provider details safe to show, e.g. `{"provider": "openai", "usage": "estimated"}`.'),
    ]


class CostUpdated(TokenCounts, kw_only=True):
    """Running totals for the turn."""

    cost_usd: Annotated[
        Annotated[float, msgspec.Meta(ge=0)] | None,
        msgspec.Meta(description="`null` when the model has no known price."),
    ]


class Paused(msgspec.Struct, kw_only=True, omit_defaults=True):
    approval: Annotated[
        PendingApproval,
        msgspec.Meta(
            description=(
                "What a person is asked to decide. For a registered graph's interrupt: its id, the value's `action` "
                "(else `interrupt`) and its `summary` (else the value as text)."
            )
        ),
    ]
    interrupts: Annotated[
        list[InterruptInfo],
        msgspec.Meta(
            description=(
                "A registered graph's run: every interrupt it stopped at, with its value. Left out for the support "
                "agent's turns."
            )
        ),
    ] = msgspec.field(default_factory=list)


class InteractionLogged(msgspec.Struct, kw_only=True):
    interaction_id: str


class ErrorInfo(msgspec.Struct, kw_only=True):
    """Why the run failed or was cancelled."""

    code: Annotated[
        str,
        msgspec.Meta(
            description=(
                "e.g. `provider_unavailable`, `provider_stream_failed`, `internal_error`, `cancelled`, "
                "`client_disconnected`, `server_shutdown`."
            )
        ),
    ]
    message: str
    retryable: Annotated[bool, msgspec.Meta(description="True when sending the same message again may well succeed.")]
    node: Annotated[str | None, msgspec.Meta(description="The node that failed, when one did.")]


class TurnCompleted(msgspec.Struct, kw_only=True):
    response: ChatResponse


class Snapshot(msgspec.Struct, kw_only=True):
    """Stands in for events that left the replay window."""

    gap: Annotated[Literal[True], msgspec.Meta(extra_json_schema={"type": "boolean"})]
    run: RunSnapshot


class _EnvelopeBase(msgspec.Struct, tag_field="type", omit_defaults=True):
    v: Annotated[
        Literal[1],
        msgspec.Meta(
            description="Envelope version. Changes within v1 are additive: ignore unknown fields and event types.",
            extra_json_schema={"type": "integer"},
        ),
    ]
    run_id: RunId
    seq: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            description=(
                "Starts at 1 for each run and rises by exactly 1 per event; `(run_id, seq)` names an event forever."
            ),
        ),
    ]
    status: Annotated[RunStatus, msgspec.Meta(description="The run's status after this event.")]
    at: Annotated[str, msgspec.Meta(description="UTC, RFC 3339 with microseconds.")]


class GraphTopologyEvent(_EnvelopeBase, tag="graph_topology"):
    """Sent first by every run (seq 1) and again at the start of every ``POST /chat/resume`` stream: the graph's
    nodes and edges, read from the compiled graph."""

    data: GraphTopology


class NodeStartedEvent(_EnvelopeBase, tag="node_started"):
    """A graph node began to run."""

    data: NodeStarted


class NodeCompletedEvent(_EnvelopeBase, tag="node_completed"):
    """A graph node finished; ``latency_ms`` is its OpenTelemetry span's duration."""

    data: NodeCompleted


class TokenDeltaEvent(_EnvelopeBase, tag="token_delta"):
    """A chunk of the model's answer, as it streams. The last one of the answer carries ``finish_reason`` and
    the turn's token counts."""

    data: TokenDelta


class CostUpdatedEvent(_EnvelopeBase, tag="cost_updated"):
    """The turn's running token and cost totals, after each model call."""

    data: CostUpdated


class PausedEvent(_EnvelopeBase, tag="paused"):
    """The run waits for a person to approve or reject an action (envelope ``status: waiting``). Not terminal:
    the stream stays open, with heartbeats, until the decision's events arrive."""

    data: Paused


class InteractionLoggedEvent(_EnvelopeBase, tag="interaction_logged"):
    """The finished turn was written, redacted, to the interaction log; sent just before ``turn_completed``."""

    data: InteractionLogged


class ErrorEvent(_EnvelopeBase, tag="error"):
    """Terminal. The run failed (``status: failed``) or was cancelled (``status: cancelled``, code ``cancelled``
    or ``client_disconnected``); no ``turn_completed`` follows."""

    data: ErrorInfo


class TurnCompletedEvent(_EnvelopeBase, tag="turn_completed"):
    """Terminal. The turn's ``ChatResponse``, identical to the JSON answer; after a resume the envelope also
    carries ``human_wait_ms``."""

    data: TurnCompleted
    human_wait_ms: Annotated[
        Milliseconds | None,
        msgspec.Meta(
            description=(
                "After a resume: how long the run waited for its human. Outside `data`, so the `ChatResponse` in it "
                "stays identical to the JSON path."
            )
        ),
    ] = None


class GraphPartEvent(_EnvelopeBase, tag="graph_part"):
    """A run of a registered graph (not the support agent's turns): one part of one of LangGraph's own stream
    modes, as the graph streamed it; the Agent Protocol's stream events are these."""

    data: GraphPart


class RunCompletedEvent(_EnvelopeBase, tag="run_completed"):
    """Terminal for a run of a registered graph (``status: completed``): the graph's final state."""

    data: RunCompleted


class SnapshotEvent(_EnvelopeBase, tag="snapshot"):
    """Sent on replay instead of events that left the replay window; its ``seq`` is that of the last event it
    stands for, so the stream stays contiguous."""

    data: Snapshot


Envelope = (
    GraphTopologyEvent
    | NodeStartedEvent
    | NodeCompletedEvent
    | TokenDeltaEvent
    | CostUpdatedEvent
    | PausedEvent
    | InteractionLoggedEvent
    | ErrorEvent
    | TurnCompletedEvent
    | SnapshotEvent
    | GraphPartEvent
    | RunCompletedEvent
)

EventPayload = (
    GraphTopology
    | NodeStarted
    | NodeCompleted
    | TokenDelta
    | CostUpdated
    | Paused
    | InteractionLogged
    | ErrorInfo
    | TurnCompleted
    | Snapshot
    | GraphPart
    | RunCompleted
)
"""What a run emits: the ``data`` of one envelope type each."""

ENVELOPE_OF: dict[type[Any], type[Any]] = {
    get_type_hints(envelope)["data"]: envelope for envelope in get_args(Envelope)
}
"""The envelope type of each payload type, read from the envelopes' ``data`` fields."""
