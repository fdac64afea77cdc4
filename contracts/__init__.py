"""The wire contract (v1) as msgspec Structs: the single source of validation, OpenAPI and event docs.

This package does no I/O and imports nothing else of the project. It exports what each of its modules
exports (their ``__all__``), but of ``agui`` only the input of the support agent's AG-UI route.
"""

from __future__ import annotations

from contracts import (
    approvals,
    events,
    feedback,
    graph_events,
    health,
    ids,
    knowledge,
    problem,
    requests,
    responses,
    runs,
)
from contracts.agui import (
    INTERRUPT_ID_PATTERN,
    AgUiCancelledEntry,
    AgUiDecision,
    AgUiMessage,
    AgUiResolvedEntry,
    AgUiRunInput,
)
from contracts.approvals import *  # noqa: F403
from contracts.events import *  # noqa: F403
from contracts.feedback import *  # noqa: F403
from contracts.graph_events import *  # noqa: F403
from contracts.health import *  # noqa: F403
from contracts.ids import *  # noqa: F403
from contracts.knowledge import *  # noqa: F403
from contracts.problem import *  # noqa: F403
from contracts.requests import *  # noqa: F403
from contracts.responses import *  # noqa: F403
from contracts.runs import *  # noqa: F403

__all__ = [
    "INTERRUPT_ID_PATTERN",
    "AgUiCancelledEntry",
    "AgUiDecision",
    "AgUiMessage",
    "AgUiResolvedEntry",
    "AgUiRunInput",
]
__all__ += approvals.__all__
__all__ += events.__all__
__all__ += feedback.__all__
__all__ += graph_events.__all__
__all__ += health.__all__
__all__ += ids.__all__
__all__ += knowledge.__all__
__all__ += problem.__all__
__all__ += requests.__all__
__all__ += responses.__all__
__all__ += runs.__all__
