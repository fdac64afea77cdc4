"""What a turn asks the service to forget: the account that a ``delete_account`` removed.

The agent does not erase: the sessions, runs and events are the service's (``api.runs.erasure``). The
graph reports, through its state, that an approved ``delete_account`` was carried out, and for which
account; the service then erases the sessions begun by subjects of that account, which it recorded with
each run (ADR 19).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent.state import AgentState

__all__ = ("deleted_account",)


def deleted_account(state: AgentState) -> str | None:
    """The account this turn deleted (a ``delete_account`` a person approved, carried out in this run), or None."""
    proposal = state.get("proposal")
    if proposal is None or proposal["action"] != "delete_account":
        return None
    run_id = state.get("run_id")
    executed = any(
        entry["run_id"] == run_id and entry["node"] == "execute_action" and entry["outcome"] == "done"
        for entry in state.get("trace", [])
    )
    account_id = proposal["arguments"].get("account_id")
    return account_id if executed and isinstance(account_id, str) else None
