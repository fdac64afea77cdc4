"""AG-UI 1.0 over ``POST /ag-ui`` (the support agent) and ``POST /ag-ui/{assistant_id}`` (any registered graph): the
same runs, translated from the shared projection of their envelopes (``api.projection``)."""

from __future__ import annotations

from api.agui.input import graph_turn, requested_turn, run_options
from api.agui.stream import AgUiStream
from api.agui.translate import AgUiTranslator, interrupt_id

__all__ = ("AgUiStream", "AgUiTranslator", "graph_turn", "interrupt_id", "requested_turn", "run_options")
