"""Side effects the agent can take, each behind a human approval."""

from __future__ import annotations

from agent.actions.ledger import Ledger, SqliteLedger
from agent.actions.registry import Action, ActionRegistry, ActionResult, NotPossible, NotPossibleReason

__all__ = ("Action", "ActionRegistry", "ActionResult", "Ledger", "NotPossible", "NotPossibleReason", "SqliteLedger")
