"""Every case of a dataset for each epoch, at most so many at a time, an interrupted run's finished ones kept.

The support agent's runner and the graph runner differ in what one case and epoch is (a ``CaseResult`` of an
agent opened for it, a ``GraphRecord`` of the registered graph), not in how the dataset's cases are run.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Protocol, TypeVar

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from agent.evaluation.graph_cases import GraphCase

__all__ = ("run_epochs",)


class _Ran(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def epoch(self) -> int: ...


_R = TypeVar("_R", bound=_Ran)


async def run_epochs(
    cases: Sequence[GraphCase],
    run: Callable[[GraphCase, int], Awaitable[_R]],
    *,
    epochs: int,
    concurrency: int,
    done: Sequence[_R],
    on_case_done: Callable[[_R], None] | None,
) -> list[_R]:
    """``run(case, epoch)`` for every case and epoch not in ``done``, at most ``concurrency`` at once, each told
    to ``on_case_done`` as it finishes; with those of ``done`` still in the dataset, in dataset order, epochs in
    order."""
    gate = asyncio.Semaphore(concurrency)
    finished = {(r.id, r.epoch): r for r in done}
    order = {case.id: index for index, case in enumerate(cases)}

    async def one(case: GraphCase, epoch: int) -> _R:
        async with gate:
            result = await run(case, epoch)
        if on_case_done is not None:
            on_case_done(result)
        return result

    todo = [(c, e) for c in cases for e in range(1, epochs + 1) if (c.id, e) not in finished]
    fresh = await asyncio.gather(*(one(case, epoch) for case, epoch in todo))
    kept = [r for key, r in finished.items() if key[0] in order and key[1] <= epochs]
    return sorted([*kept, *fresh], key=lambda r: (order[r.id], r.epoch))
