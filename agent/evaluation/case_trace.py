"""The telemetry of one eval case: its spans (exported over OTLP when configured), its model client (through
the eval's cache and limits), and its scores written into the trace."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from agent.evaluation.model_calls import current_model_calls
from agent.evaluation.results import CaseResult
from agent.evaluation.spans import Evaluation, record_evaluations
from agent.graph_tracing import tracing_to
from agent.llm.factory import close_llm_client
from agent.telemetry import TRACER_NAME, create_tracer_provider

if TYPE_CHECKING:
    from agent.config import AgentConfig
    from agent.evaluation.records import GraphRecord
    from agent.graph_tracing import GenAITracer

__all__ = ("CaseTrace", "case_evaluations")


class CaseTrace:
    """Enter it around the case's agent (so that its ``invoke_agent`` spans are known), ``close`` it with the
    case's result."""

    def __init__(self, config: AgentConfig | None = None, *, epoch: int = 1) -> None:
        """``config``: the support agent's, whose model client the eval makes; ``None`` for another graph,
        which makes its own (its LangChain chat models are cached by LangChain's hook)."""
        self.provider = create_tracer_provider()  # with the OTLP exporter when OTEL_EXPORTER_OTLP_ENDPOINT is set
        calls = current_model_calls()
        self.llm = calls.client_for(config, epoch=epoch) if calls is not None and config is not None else None
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

    async def close(self, result: CaseResult | GraphRecord) -> None:
        """Write the case's scores into the trace, close its model client and flush its spans."""
        try:
            evaluated = self._runs.last_run if self._runs is not None else None
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


def case_evaluations(result: CaseResult | GraphRecord) -> list[Evaluation]:
    """The case's verdict, passed (1) or not (0), then each check of another graph's case with its score."""
    if isinstance(result, CaseResult):
        failures = [failure for turn in result.turns for failure in turn.failures]
    else:
        failures = [f"{check.name}: {check.detail}" for check in result.checks if not check.passed]
        if result.error:
            failures.insert(0, result.error)
    verdict = Evaluation(
        name="passed",
        score=1.0 if result.passed else 0.0,
        label="pass" if result.passed else "fail",
        explanation="; ".join(failures) or None,
    )
    checks = [] if isinstance(result, CaseResult) else result.checks
    return [
        verdict,
        *(
            Evaluation(
                name=check.name,
                score=check.value,
                label="pass" if check.passed else "fail",
                explanation=check.detail or None,
            )
            for check in checks
        ),
    ]
