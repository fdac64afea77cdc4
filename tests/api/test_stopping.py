"""A background task is stopped even when the cancellation that stops it is swallowed on its way."""

from __future__ import annotations

import asyncio

from api.stopping import stop_task


async def test_a_loop_that_swallows_its_cancellation_is_stopped() -> None:
    swallowed = 0

    async def loop() -> None:
        nonlocal swallowed
        while True:
            try:
                await asyncio.sleep(3600)
            except asyncio.CancelledError:
                if swallowed:
                    raise
                swallowed += 1  # as Python 3.11's wait_for does when the cancellation lands as its work completes

    task = asyncio.create_task(loop())
    await asyncio.sleep(0)
    await asyncio.wait_for(stop_task(task), 5)

    assert swallowed == 1
    assert task.cancelled()


async def test_a_task_that_failed_is_stopped_without_its_error() -> None:
    async def fail() -> None:
        raise RuntimeError("its own to report")

    task = asyncio.create_task(fail())
    await asyncio.sleep(0)
    await stop_task(task)

    assert isinstance(task.exception(), RuntimeError)
