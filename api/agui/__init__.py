"""AG-UI 1.0 over ``POST /ag-ui``: the same agent and the same runs, translated from the contract's envelopes."""

from __future__ import annotations

from api.agui.input import requested_turn
from api.agui.runs import OpenedRun, open_run
from api.agui.stream import AgUiStream
from api.agui.translate import AgUiTranslator, interrupt_id

__all__ = ("AgUiStream", "AgUiTranslator", "OpenedRun", "interrupt_id", "open_run", "requested_turn")
