"""The telemetry of one eval case: its spans read back for the results, exported over OTLP when configured,
its model client (through the eval's cache and limits), and its scores written into the trace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from agent.evaluation.model_calls import current_model_calls
from agent.evaluation.spans import Evaluation, record_evaluations
from agent.graph_tracing import tracing_to
from agent.llm.factory import close_llm_client
from agent.telemetry import TRACER_NAME, create_tracer_provider

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.evaluation.results import CaseResult
    from agent.graph_tracing import GenAITracer

__all__ = ("CaseTrace", "case_evaluations")


class CaseTrace:
    """Enter it around the case's agent (so that its ``invoke_agent`` spans are known), ``close`` it with the
    case's result."""

    def __init__(self, config: AgentConfig, *, epoch: int = 1) -> None:
        self.exporter = InMemorySpanExporter()
        self.provider = create_tracer_provider()  # with the OTLP exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set
        self.provider.add_span_processor(SimpleSpanProcessor(self.exporter))
        calls = current_model_calls()
        self.llm = calls.client_for(config, epoch=epoch) if calls is not None else None
        self._tracing = tracing_to(self.provider)
        self._runs: GenAITracer | None = None

    def agent_options(self) -> dict[str, Any]:
        """What ``open_agent`` takes from this case: its tracer provider and its model client."""
        return {"tracer_provider": self.provider, "llm": self.llm}

    async def __aenter__(self) -> CaseTrace:
        self._runs = self._tracing.__enter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> None:
        self._tracing.__exit__(*exc_info)

    async def close(self, result: CaseResult) -> None:
        """Write the case's scores into the trace, close its model client and flush its spans."""
        try:
            evaluated = self._runs.runs[-1] if self._runs is not None and self._runs.runs else None
            record_evaluations(
                self.provider.get_tracer(TRACER_NAME),
                evaluated,
                case_id=result.id,
                epoch=result.epoch,
                evaluations=case_evaluations(result),
            )
            if self.llm is not None:
                await close_llm_client(self.llm)
        finally:
            self.provider.shutdown()


def case_evaluations(result: CaseResult) -> list[Evaluation]:
    """A support case's verdict: passed (1) or not (0), with the failures that decided it."""
    failures = [failure for turn in result.turns for failure in turn.failures]
    return [
        Evaluation(
            name="passed",
            score=1.0 if result.passed else 0.0,
            label="pass" if result.passed else "fail",
            explanation="; ".join(failures) or None,
        )
    ]
