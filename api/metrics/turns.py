"""What a run's events say about its turns, read as they are appended: outcomes, durations, first tokens, model
usage and guardrail decisions. Only the few events that carry these are decoded (a token is looked at once per
turn, for its time); the rest cost a set lookup.

A turn is a run's start or resume (its ``graph_topology`` event) until it pauses or ends. Its outcome is the
``ChatResponse`` status for a ``/chat`` turn (completed, refused, rejected), ``paused``, ``completed`` for a
registered graph's run, or the run's status after an ``error`` event (failed, cancelled).
"""

from __future__ import annotations

import logging
import re
import time
from typing import TYPE_CHECKING, TypeVar

import msgspec

if TYPE_CHECKING:
    from api.metrics.instruments import Instruments
    from api.runs.log.records import StoredEvent

__all__ = ("TurnWatch",)

logger = logging.getLogger(__name__)

WATCHED = frozenset(
    {
        "graph_topology",
        "cost_updated",
        "node_completed",
        "paused",
        "turn_completed",
        "run_completed",
        "error",
    }
)
"""The event types that move a metric beyond the count of events appended; a ``token_delta`` does only when it is
the first of its turn (``TurnWatch.awaiting_first_token``)."""
_GUARDRAIL_LAYERS = {"guardrail_pre": "input", "guardrail_post": "output"}
_CODE = re.compile(r"[a-z][a-z0-9_]{0,47}")
"""What a label taken from an event may be (a reason or error code); anything else counts as ``other``."""
_MODEL = re.compile(r"[A-Za-z0-9][A-Za-z0-9._:/@+-]{0,99}")


class _Response(msgspec.Struct):
    status: str


class _TurnCompletedData(msgspec.Struct):
    response: _Response


class _Cost(msgspec.Struct):
    model: str
    input_tokens: int
    output_tokens: int
    cost_usd: float | None = None


class _Node(msgspec.Struct):
    node: str
    outcome: str
    summary: str = ""


class _Error(msgspec.Struct):
    code: str


class _Envelope(msgspec.Struct):
    status: str


class _TurnCompleted(_Envelope):
    data: _TurnCompletedData


class _CostUpdated(_Envelope):
    data: _Cost


class _NodeCompleted(_Envelope):
    data: _Node


class _ErrorEvent(_Envelope):
    data: _Error


_Decoded = TypeVar("_Decoded", bound=_Envelope)


class _Turn:
    __slots__ = ("first_token", "started")

    def __init__(self, started: float) -> None:
        self.started = started
        self.first_token: float | None = None


class TurnWatch:
    def __init__(self, instruments: Instruments) -> None:
        self._m = instruments
        self._turns: dict[str, _Turn] = {}
        """The turns executing on this instance, by run id."""
        self.awaiting_first_token: set[str] = set()
        """The runs whose turn executing here has sent no token yet."""

    def saw(self, run_id: str, event: StoredEvent) -> None:
        """``event`` (one of ``WATCHED``) was appended to ``run_id``; an envelope it cannot read moves nothing."""
        try:
            self._saw(run_id, event)
        except (ValueError, msgspec.MsgspecError):
            logger.warning("metrics could not read a %s event; it is not counted", event.type, exc_info=True)

    def _saw(self, run_id: str, event: StoredEvent) -> None:
        kind = event.type
        if kind == "token_delta":
            turn = self._turns.get(run_id)
            if turn is not None and turn.first_token is None:
                turn.first_token = time.perf_counter()
            self.awaiting_first_token.discard(run_id)
        elif kind == "graph_topology":
            self._turns[run_id] = _Turn(time.perf_counter())
            self.awaiting_first_token.add(run_id)
        elif kind == "node_completed":
            if b'"node":"guardrail_' in event.envelope:
                self._guardrail(_decode(event.envelope, _NodeCompleted).data)
        elif kind == "cost_updated":
            self._cost(_decode(event.envelope, _CostUpdated).data)
        elif kind == "paused":
            self._ended(run_id, "paused")
        elif kind == "turn_completed":
            self._ended(run_id, _label(_decode(event.envelope, _TurnCompleted).data.response.status))
        elif kind == "run_completed":
            self._ended(run_id, "completed")
        elif kind == "error":
            error = _decode(event.envelope, _ErrorEvent)
            self._m.run_errors.labels(_label(error.data.code)).inc()
            self._ended(run_id, _label(error.status))

    def forget(self, run_id: str) -> None:
        """The run stopped executing here without an ending of its own (another instance took it over)."""
        self._turns.pop(run_id, None)
        self.awaiting_first_token.discard(run_id)

    def _ended(self, run_id: str, outcome: str) -> None:
        self._m.turns.labels(outcome).inc()
        self.awaiting_first_token.discard(run_id)
        turn = self._turns.pop(run_id, None)
        if turn is None:
            return  # ended without starting here: a lost run ended by this instance, a paused run cancelled
        now = time.perf_counter()
        self._m.turn_duration.labels(outcome).observe(now - turn.started)
        if turn.first_token is not None:
            self._m.first_token.labels(outcome).observe(turn.first_token - turn.started)

    def _cost(self, cost: _Cost) -> None:
        model = cost.model if _MODEL.fullmatch(cost.model) else "other"
        self._m.model_tokens.labels(model, "input").inc(cost.input_tokens)
        self._m.model_tokens.labels(model, "output").inc(cost.output_tokens)
        if cost.cost_usd is not None:
            self._m.model_cost.labels(model).inc(cost.cost_usd)

    def _guardrail(self, node: _Node) -> None:
        layer = _GUARDRAIL_LAYERS.get(node.node)
        if layer is None:
            return
        # the node's summary is "<decision>: <reason> (<rule>)" when it has a reason (agent/nodes/guardrail_*.py)
        _, _, after = node.summary.partition(": ")
        reason = after.split(" (", 1)[0].strip() if after else "none"
        self._m.guardrail_decisions.labels(layer, _label(node.outcome), _label(reason)).inc()


def _decode(envelope: bytes, kind: type[_Decoded]) -> _Decoded:
    return msgspec.json.decode(envelope, type=kind)


def _label(value: str) -> str:
    return value if _CODE.fullmatch(value) else "other"
