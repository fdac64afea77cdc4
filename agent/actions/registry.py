"""The actions the agent may propose. Every one of them needs a human's approval before it runs.

An action that cannot happen as asked is never proposed: ``check`` says why in a ``NotPossible``, whose
text tells the user plainly what is wrong and what they can do, and promises nothing.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

if TYPE_CHECKING:
    from collections.abc import Sequence

    from agent.actions.ledger import Ledger
    from agent.state import PrincipalState

__all__ = (
    "Action",
    "ActionRegistry",
    "ActionResult",
    "DeleteAccount",
    "IssueRefund",
    "NotPossible",
    "NotPossibleReason",
    "unknown_action",
    "which_record",
)

_INVOICE_ID = re.compile(r"^INV-\d{4}$")
_ACCOUNT_ID = re.compile(r"^ACC-\d{4}$")


NotPossibleReason = Literal["unknown_record", "missing_argument", "unknown_action", "already_done", "wrong_account"]
"""``answer.reason`` of an ``action_not_possible`` answer. ``wrong_account``: the record is not one of the
asker's account, which includes every record for a signed-in asker bound to no account."""


class NotPossible(msgspec.Struct, frozen=True, kw_only=True):
    """Why an action cannot be proposed, and what to tell the user."""

    reason: NotPossibleReason
    text: str
    """Says what is wrong and what the user can do; never promises the action."""


def unknown_action(name: str | None) -> NotPossible:
    what = f"“{name}”" if name else "that"
    return NotPossible(
        reason="unknown_action",
        text=f"I can't do {what} here. The actions I can take are refunding an invoice and deleting an account, "
        "each once a person approves it; for anything else, the help centre explains how to do it yourself.",
    )


def _unbound(asker: PrincipalState, act: str, unknown: str) -> NotPossible | None:
    """Why a signed-in asker whose sign-in names no account may act on no record, or None.

    Which records are theirs cannot be checked, so no record is theirs: nothing is asked for (an id would
    change nothing) and nothing proposed. With identity off (``subject`` None) the one user of the service
    acts on any record.
    """
    if asker["subject"] is None or asker["account_id"] is not None:
        return None
    return NotPossible(
        reason="wrong_account",
        text=f"Your sign-in is linked to no account, so I can't {act} for you: I can't tell {unknown}. Whoever "
        "manages your access can link your sign-in to your account; then ask again.",
    )


def which_record(action: Action, candidates: Sequence[str]) -> NotPossible:
    """A request that could mean any of several records: ask which, never guess."""
    what = "invoice should I refund" if action.argument == "invoice_id" else "account should I delete"
    listed = ", ".join(candidates[:-1]) + f" or {candidates[-1]}" if len(candidates) > 1 else "".join(candidates)
    return NotPossible(
        reason="missing_argument",
        text=f"Which {what}: {listed}? Tell me the one you mean and I'll propose it for a person to approve.",
    )


class ActionResult(msgspec.Struct, frozen=True, kw_only=True):
    outcome: str
    """`done`, `already_done` or `failed`."""
    text: str


class Action(Protocol):
    name: str
    description: str
    """What it does, for the model (the tool's description)."""
    argument: str
    """Its one argument, the id of the record it acts on, e.g. ``invoice_id``."""
    record_id: re.Pattern[str]
    """How such an id looks; a model may only name a record the user named."""

    def bind(self, arguments: dict[str, Any], asker: PrincipalState) -> dict[str, Any]:
        """The arguments with what "my account" means filled in from the asker's account, when it has one."""
        ...

    async def check(self, arguments: dict[str, Any], asker: PrincipalState) -> NotPossible | None:
        """Why the action cannot be proposed with these arguments for ``asker``, or None."""
        ...

    async def summarize(self, arguments: dict[str, Any]) -> str:
        """One line for the person who approves it."""
        ...

    async def execute(self, arguments: dict[str, Any], approval_id: str, at: str) -> ActionResult: ...


class IssueRefund:
    name = "issue_refund"
    description = "Refund an invoice the user names, once a person approves it."
    argument = "invoice_id"
    record_id = re.compile(r"\bINV-\d{4}\b", re.IGNORECASE)

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def bind(self, arguments: dict[str, Any], asker: PrincipalState) -> dict[str, Any]:
        return arguments  # an invoice is named by its number, never by "my"

    async def check(self, arguments: dict[str, Any], asker: PrincipalState) -> NotPossible | None:
        if (unbound := _unbound(asker, "refund an invoice", "which invoices are yours")) is not None:
            return unbound
        invoice_id = arguments.get("invoice_id")
        if not isinstance(invoice_id, str) or not _INVOICE_ID.match(invoice_id):
            return NotPossible(
                reason="missing_argument",
                text="Which invoice should I refund? Tell me its number, such as INV-1001; Settings > Billing > "
                "Invoices lists yours.",
            )
        invoice = await self._ledger.invoice(invoice_id)
        if invoice is None:
            return NotPossible(
                reason="unknown_record",
                text=f"There is no invoice {invoice_id}, so there is nothing to refund. Check the number in "
                "Settings > Billing > Invoices (invoice numbers look like INV-1001) and ask again.",
            )
        if asker["subject"] is not None and invoice.account_id != asker["account_id"]:
            return NotPossible(
                reason="wrong_account",
                text=f"Invoice {invoice_id} is not one of your account's invoices, so I can't refund it. "
                "Settings > Billing > Invoices lists the invoices of your account; ask again with one of those.",
            )
        return None

    async def summarize(self, arguments: dict[str, Any]) -> str:
        invoice = await self._ledger.invoice(arguments["invoice_id"])
        assert invoice is not None, "summarize() is only called after check()"
        return f"Refund invoice {invoice.invoice_id} ({invoice.amount})"

    async def execute(self, arguments: dict[str, Any], approval_id: str, at: str) -> ActionResult:
        invoice = await self._ledger.invoice(arguments["invoice_id"])
        if invoice is None:
            return ActionResult(outcome="failed", text=f"Invoice {arguments['invoice_id']} no longer exists.")
        if not await self._ledger.record_refund(approval_id, invoice, at):
            return ActionResult(outcome="already_done", text=f"Invoice {invoice.invoice_id} was already refunded.")
        return ActionResult(
            outcome="done",
            text=f"Refund of {invoice.amount} for invoice {invoice.invoice_id} issued to the original payment "
            "method; it arrives in 5 to 10 business days.",
        )


class DeleteAccount:
    name = "delete_account"
    description = "Delete an account the user names, once a person approves it. It cannot be undone."
    argument = "account_id"
    record_id = re.compile(r"\bACC-\d{4}\b", re.IGNORECASE)

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def bind(self, arguments: dict[str, Any], asker: PrincipalState) -> dict[str, Any]:
        if asker["account_id"] is not None and not arguments.get("account_id"):
            return {**arguments, "account_id": asker["account_id"]}  # "delete my account"
        return arguments

    async def check(self, arguments: dict[str, Any], asker: PrincipalState) -> NotPossible | None:
        if (unbound := _unbound(asker, "delete an account", "which account is yours")) is not None:
            return unbound
        account_id = arguments.get("account_id")
        if not isinstance(account_id, str) or not _ACCOUNT_ID.match(account_id):
            return NotPossible(
                reason="missing_argument",
                text="Which account should I delete? Tell me its id, such as ACC-2001; Settings > Account shows "
                "it. Deleting an account cannot be undone.",
            )
        account = await self._ledger.account(account_id)
        if account is None:
            return NotPossible(
                reason="unknown_record",
                text=f"There is no account {account_id}, so there is nothing to delete. Check the id in "
                "Settings > Account (account ids look like ACC-2001) and ask again.",
            )
        own = asker["account_id"]
        if asker["subject"] is not None and account_id != own:
            return NotPossible(
                reason="wrong_account",
                text=f"You can only delete your own account, {own}; {account_id} is not yours, so I can't "
                "delete it. Its owner can ask for that themselves.",
            )
        if account.deleted_at is not None:
            return NotPossible(
                reason="already_done", text=f"Account {account_id} is already deleted; there is nothing left to delete."
            )
        return None

    async def summarize(self, arguments: dict[str, Any]) -> str:
        return f"Delete account {arguments['account_id']} (irreversible)"

    async def execute(self, arguments: dict[str, Any], approval_id: str, at: str) -> ActionResult:
        account_id = arguments["account_id"]
        if not await self._ledger.delete_account(account_id, at):
            return ActionResult(outcome="already_done", text=f"Account {account_id} was already deleted.")
        return ActionResult(
            outcome="done", text=f"Account {account_id} is deleted; its conversations with this service are erased now."
        )


class ActionRegistry:
    def __init__(self, actions: list[Action]) -> None:
        self._actions = {action.name: action for action in actions}

    @classmethod
    def default(cls, ledger: Ledger) -> ActionRegistry:
        return cls([IssueRefund(ledger), DeleteAccount(ledger)])

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._actions)

    @property
    def actions(self) -> tuple[Action, ...]:
        return tuple(self._actions.values())

    def get(self, name: str) -> Action | None:
        return self._actions.get(name)
