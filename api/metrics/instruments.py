"""Every metric the service exposes, made on the registry of one app: tests start many apps in one process, and
an instance's figures must never be another's (so never prometheus-client's global default registry).

Labels are bounded sets (event types, outcomes, stores and their operations, route templates, model names
from the configuration, guardrail layers and reason codes); no run, session or subject id is ever a label.
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING

from prometheus_client import Counter, Gauge, Histogram
from prometheus_client.core import CounterMetricFamily

if TYPE_CHECKING:
    from collections.abc import Iterator

    from prometheus_client import CollectorRegistry
    from prometheus_client.metrics_core import Metric

__all__ = ("EventCounts", "Instruments")

FAST_S = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
"""Store round trips and commits: sub-millisecond on SQLite, a few milliseconds on Redis and PostgreSQL."""
SCORE = (0.0, 0.25, 0.5, 0.75, 1.0)
"""Online evaluation scores, in [0, 1]: pass/fail scorers fill the first and last bucket."""
TURN_S = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
"""First tokens and whole turns: model calls, from tens of milliseconds to minutes."""


class EventCounts:
    """Events appended, by type: plain integers on the hot path (an event costs a dict update, not a lock), read
    as a counter family when scraped."""

    def __init__(self) -> None:
        self.appended: dict[str, int] = {}

    def collect(self) -> Iterator[Metric]:
        family = CounterMetricFamily(
            "harness_events_appended", "Events appended to the run event log, by event type.", labels=["type"]
        )
        for kind, count in sorted(self.appended.items()):
            family.add_metric([kind], count)
        yield family


class Instruments:
    def __init__(self, registry: CollectorRegistry) -> None:
        self.events = EventCounts()
        registry.register(self.events)
        counter = partial(Counter, registry=registry)
        gauge = partial(Gauge, registry=registry)
        histogram = partial(Histogram, registry=registry)
        self.runs_running = gauge("harness_runs_running", "Runs executing on this instance now.")
        self.runs_waiting = gauge(
            "harness_runs_waiting",
            "Runs paused for a human, in the whole service's store (every instance reports the same figure).",
        )
        self.approvals_pending = gauge(
            "harness_approvals_pending", "Paused runs waiting for an approval decision, in the whole service's store."
        )
        self.approval_oldest_age = gauge(
            "harness_approvals_pending_oldest_age_seconds",
            "How long the oldest pending approval has waited (0 when none waits).",
        )
        self.streams_open = gauge("harness_streams_open", "Event streams (SSE responses) open on this instance now.")
        self.events_replayed = counter("harness_events_replayed", "Events read back from the event log for a stream.")
        self.event_commit = histogram(
            "harness_event_commit_seconds",
            "From an event's append to its commit (durable, so it may be sent): per run and commit, the wait of "
            "the oldest event it commits.",
            buckets=FAST_S,
        )
        self.turns = counter(
            "harness_turns", "Turns (a run's start or resume until it pauses or ends) by outcome.", ["outcome"]
        )
        self.turn_duration = histogram(
            "harness_turn_duration_seconds", "Turn duration by outcome.", ["outcome"], buckets=TURN_S
        )
        self.first_token = histogram(
            "harness_first_token_seconds",
            "From a turn's start to its first model token being appended, by the turn's outcome.",
            ["outcome"],
            buckets=TURN_S,
        )
        self.run_errors = counter("harness_run_errors", "Runs ended by an error event, by its code.", ["code"])
        self.model_tokens = counter(
            "harness_model_tokens", "Model tokens, by model and direction (input, output).", ["model", "direction"]
        )
        self.model_cost = counter(
            "harness_model_cost_usd", "Model cost in US dollars (models with a known price), by model.", ["model"]
        )
        self.guardrail_decisions = counter(
            "harness_guardrail_decisions",
            "Guardrail decisions by layer (input, output), decision and reason code.",
            ["layer", "decision", "reason"],
        )
        self.cron_firings = counter(
            "harness_cron_firings",
            "Cron firings this instance claimed, by outcome (started, queued behind the thread's run, skipped, "
            "failed).",
            ["outcome"],
        )
        self.webhook_deliveries = counter(
            "harness_webhook_deliveries",
            "Webhook delivery attempts this instance made, by outcome: delivered (a 2xx), retried (a 408, 429, 5xx, "
            "connection error or timeout, to be tried again), failed (given up: attempts exhausted, another answer, "
            "or a host not allowed); dropped: a delivery whose run was removed before it ended.",
            ["outcome"],
        )
        self.leases_lost = counter(
            "harness_leases_lost",
            "Runs this instance stopped executing because another instance took them over (its lease ran out).",
        )
        self.store_errors = counter(
            "harness_store_errors", "Store operations that failed, by store and operation.", ["store", "operation"]
        )
        self.store_latency = histogram(
            "harness_store_operation_seconds",
            "Awaited store operations, by store and operation.",
            ["store", "operation"],
            buckets=FAST_S,
        )
        self.rate_limited = counter(
            "harness_rate_limit_refusals",
            "Requests refused with 429, by limit (turns_per_minute, streams_per_subject).",
            ["limit"],
        )
        self.http_requests = counter(
            "harness_http_requests",
            "HTTP requests answered, by method, route template and status.",
            ["method", "route", "status"],
        )
        self.online_eval_score = histogram(
            "harness_online_eval_score",
            "Online evaluation scores of finished runs, in [0, 1], by assistant (graph id) and scorer; each run "
            "counted once, by the instance that scored it (docs/evaluation.md).",
            ["assistant", "scorer"],
            buckets=SCORE,
        )
        self.online_eval_passed = counter(
            "harness_online_eval_passed",
            "Online evaluation scores that passed, by assistant and scorer (out of harness_online_eval_score_count).",
            ["assistant", "scorer"],
        )
        self.agent_calls = counter(
            "harness_agent_calls",
            "Calls of other agents and tools (A2A, MCP), by protocol, method (one the protocol serves, else other) "
            "and outcome (ok, or the error's reason).",
            ["protocol", "method", "outcome"],
        )
