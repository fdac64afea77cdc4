"""A case's trajectory as a person reads its graph: one step per completed execution of a node.

LangGraph resumes an interrupt by running the node that called ``interrupt()`` again from its start, so its
streams show that node starting twice for one booking (``plan → book`` paused, then ``book`` again). Read as
the graph is drawn, that is one execution of ``book`` with a pause in it: the re-run on resume takes the
paused step's place (its latencies added up) and the pause is a step of its own, ``__interrupt__``, where the
run stopped, as agentevals' graph trajectories mark it. A dataset's ``trajectory`` expectation leaves the
marker out unless it asks for it (``interrupts: marked``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Any

import msgspec

from agent.evaluation.records import INTERRUPT_MARKER, NodeStep
from contracts import NodeCompleted, NodeStarted

if TYPE_CHECKING:
    from collections.abc import Iterable

__all__ = ("TrajectoryRecorder", "steps_of")


def steps_of(envelopes: Iterable[dict[str, Any]]) -> list[NodeStep]:
    """The trajectory of a run as its event log has it (JSON envelopes, in order), as the eval records it: each
    ``graph_topology`` begins a send (after a ``paused``, a resume)."""
    steps: list[NodeStep] = []
    recorder = TrajectoryRecorder(steps)
    resuming = False
    for envelope in envelopes:
        kind, data = envelope.get("type"), envelope.get("data") or {}
        if kind == "graph_topology":
            recorder.begin(resuming=resuming)
        elif kind == "node_started":
            recorder.started(msgspec.convert(data, NodeStarted))
        elif kind == "node_completed":
            recorder.completed(msgspec.convert(data, NodeCompleted))
        elif kind == "paused":
            recorder.paused()
            resuming = True
    return steps


class TrajectoryRecorder:
    """Builds ``steps`` from a case's ``NodeStarted``/``NodeCompleted`` events, stop by stop.

    ``begin(resuming=...)`` before each send, ``started``/``completed`` for its events, ``paused()`` when the
    run stopped at an interrupt. Only a resume continues a paused node: after any other send (a later turn on
    a paused thread) the paused steps stay as they were, ``interrupted``.
    """

    def __init__(self, steps: list[NodeStep]) -> None:
        self.steps = steps
        self._paused: dict[str, list[int]] = defaultdict(list)
        """Node → the indexes of its steps the last pause stopped, in order, for a resume to run again."""
        self._ran: list[int] = []
        """The indexes of the steps started since the last send: only these can be the ones a pause stopped."""

    def begin(self, *, resuming: bool) -> None:
        self._ran = []
        if not resuming:
            self._paused.clear()

    def started(self, event: NodeStarted) -> None:
        waiting = self._paused.get(event.node)
        if waiting:
            index = waiting.pop(0)
            latency = self.steps[index].latency_ms
        else:
            index, latency = len(self.steps), 0.0
            self.steps.append(NodeStep(node=event.node))
        self.steps[index] = NodeStep(node=event.node, depth=len(event.ns), latency_ms=latency, outcome="running")
        self._ran.append(index)

    def completed(self, event: NodeCompleted) -> None:
        for index in range(len(self.steps) - 1, -1, -1):
            step = self.steps[index]
            if step.node == event.node and step.outcome == "running":
                latency = round(step.latency_ms + event.latency_ms, 3)
                self.steps[index] = NodeStep(
                    node=event.node, depth=len(event.ns), latency_ms=latency, outcome=event.outcome
                )
                return

    def paused(self) -> None:
        """The run stopped at an interrupt: a node still running (one that reports itself and says nothing
        when it pauses) or interrupted waits for a resume, and the pause is marked."""
        self._paused.clear()
        for index in self._ran:
            step = self.steps[index]
            if step.outcome in ("running", "interrupted"):
                self.steps[index] = NodeStep(
                    node=step.node, depth=step.depth, latency_ms=step.latency_ms, outcome="interrupted"
                )
                self._paused[step.node].append(index)
        self.steps.append(NodeStep(node=INTERRUPT_MARKER, outcome="interrupted"))
