"""Copying a thread (``POST /threads/{thread_id}/copy``): a new thread of the caller's with the source's graph,
metadata and checkpoints.

The copy is a thread of its own from then on: its runs write its checkpoints only, and it has none of the source's
runs (a run's record and events stay with the thread it ran on). A busy source is copied as far as its checkpoints
are committed when they are read: the copy's state is the source's at its latest checkpoint then. The new thread is
recorded before its checkpoints are written, so a copy cut short leaves a thread its owner sees (and erasure
removes), never checkpoints nothing points at; it is erased again when the copy fails.
"""

from __future__ import annotations

import contextlib
import logging
from typing import TYPE_CHECKING, Any

from api.runs.checkpoints import copy_checkpoints

if TYPE_CHECKING:
    from langgraph.checkpoint.base import BaseCheckpointSaver

    from api.runs.erasure import SessionErasure
    from api.runs.log.threads import ThreadRecord
    from api.runs.principal import Principal
    from api.runs.threads import ThreadBook

__all__ = ("copy_thread",)

logger = logging.getLogger(__name__)


async def copy_thread(
    threads: ThreadBook,
    saver: BaseCheckpointSaver[Any],
    erasure: SessionErasure,
    thread_id: str,
    principal: Principal,
) -> ThreadRecord:
    """Copy ``principal``'s thread ``thread_id`` (404 for anyone else's); the new thread."""
    source = await threads.get(thread_id, principal)
    copy = await threads.copy(source, principal)
    try:
        await copy_checkpoints(saver, thread_id, copy.thread_id)
    except BaseException:
        with contextlib.suppress(Exception):
            await erasure.erase_session(copy.thread_id, principal)
        raise
    logger.info("copied thread %s to %s", thread_id, copy.thread_id)
    return copy
