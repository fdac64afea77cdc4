"""The model calls of one ``harness eval``: through the disk cache (``--cache``, the default) and under
each provider's concurrency limit.

The cache lives in ``$HARNESS_DATA_DIR/cache/model-calls.sqlite`` (``--cache-dir`` moves it), not in
``--out``: a CI job or a developer who writes each run's reports somewhere new still reuses the answers of
the runs before. The stub provider is never cached: it costs nothing, and an A/A experiment varies its seed,
which a replayed answer would hide. Each epoch is its own scope, so epochs sample a model again.
"""

from __future__ import annotations

import argparse
import os
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from agent.llm.cache import CacheStats, ModelCallCache, cached
from agent.llm.concurrency import ProviderLimits
from agent.llm.factory import create_llm_client
from agent.llm.langchain_cache import langchain_cache
from agent.llm.wrapper import provider_of

if TYPE_CHECKING:
    from collections.abc import Iterator, Mapping

    from rich.console import Console

    from agent.config import AgentConfig
    from agent.evaluation.judge import JudgeInfo
    from agent.llm.protocol import LLMClient

__all__ = (
    "CacheSummary",
    "EvalModelCalls",
    "add_model_call_arguments",
    "cache_directory",
    "current_model_calls",
    "eval_model_calls",
    "print_model_calls",
)

CACHE_DIRECTORY = "cache"
UNCACHED_PROVIDERS = frozenset({"stub"})


class CacheSummary(CacheStats, kw_only=True):
    """What report.json says of the cache (``cache``): off, or where it is and what it saved."""

    enabled: bool = False
    path: str | None = None


class EvalModelCalls:
    """The cache (or none) and the per-provider limits every model client of the eval goes through."""

    def __init__(self, cache: ModelCallCache | None, limits: ProviderLimits) -> None:
        self.cache = cache
        self.limits = limits

    def wrap(self, client: LLMClient, *, scope: str = "") -> LLMClient:
        """``client`` under its provider's limit, behind the cache (a hit takes no slot of the provider)."""
        limited = self.limits.wrap(client)
        if self.cache is None or provider_of(client) in UNCACHED_PROVIDERS:
            return limited
        return cached(limited, self.cache, scope=scope)

    def client_for(self, config: AgentConfig, *, epoch: int = 1) -> LLMClient:
        """A model client of ``config`` for one case of one epoch; the caller closes it."""
        return self.wrap(create_llm_client(config), scope=f"epoch {epoch}")

    def summary(self) -> CacheSummary:
        if self.cache is None:
            return CacheSummary(enabled=False)
        stats = msgspec.structs.asdict(self.cache.stats)
        return CacheSummary(enabled=True, path=str(self.cache.path), **stats)


_current: ContextVar[EvalModelCalls | None] = ContextVar("harness_eval_model_calls", default=None)


def current_model_calls() -> EvalModelCalls | None:
    """The eval's model calls, inside ``eval_model_calls``; ``None`` elsewhere (the agent makes its own)."""
    return _current.get()


@contextmanager
def eval_model_calls(cache_dir: Path | None, environ: Mapping[str, str] | None = None) -> Iterator[EvalModelCalls]:
    """Model calls through the cache in ``cache_dir`` (``None``: no cache), LangChain chat models' included."""
    env = os.environ if environ is None else environ
    limits = ProviderLimits.from_env(env)
    if cache_dir is None:
        calls = EvalModelCalls(None, limits)
        token = _current.set(calls)
        try:
            yield calls
        finally:
            _current.reset(token)
        return
    cache = ModelCallCache.in_directory(cache_dir)
    calls = EvalModelCalls(cache, limits)
    token = _current.set(calls)
    try:
        with langchain_cache(cache):
            yield calls
    finally:
        _current.reset(token)
        cache.close()


def add_model_call_arguments(parser: argparse.ArgumentParser) -> None:
    """``--cache/--no-cache``, ``--cache-dir``, and the judge's ``--judge-provider`` and ``--judge-model``."""
    parser.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="answer a model call made before from the disk cache (default: on; the stub is never cached)",
    )
    parser.add_argument(
        "--cache-dir", type=Path, metavar="DIR", help="where the cache lives (default: $HARNESS_DATA_DIR/cache)"
    )
    parser.add_argument(
        "--judge-provider",
        metavar="NAME",
        help="the model that grades expect.judge rubrics (default: HARNESS_JUDGE_PROVIDER)",
    )
    parser.add_argument("--judge-model", metavar="MODEL", help="the judge's model (default: HARNESS_JUDGE_MODEL)")


def cache_directory(args: argparse.Namespace, data_dir: Path) -> Path | None:
    """The cache directory ``args`` ask for, or ``None`` for ``--no-cache``."""
    if not args.cache:
        return None
    return args.cache_dir or data_dir / CACHE_DIRECTORY


def print_model_calls(console: Console, cache: CacheSummary | None, judge: JudgeInfo | None) -> None:
    """One line on the cache, one on the judge (when one graded)."""
    if cache is not None and cache.enabled:
        console.print(
            f"model-call cache: {cache.hits} hits, {cache.misses} misses, {cache.saved_tokens:,} tokens saved "
            f"({cache.path})",
            markup=False,
            highlight=False,
            soft_wrap=True,
        )
    elif cache is not None:
        console.print("model-call cache: off (--no-cache)", markup=False, highlight=False)
    if judge is not None:
        console.print(
            f"judge: {judge.provider} {judge.model}, prompt {judge.prompt_version} ({judge.prompt_sha256[:12]})",
            markup=False,
            highlight=False,
        )
