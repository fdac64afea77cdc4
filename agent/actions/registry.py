"""The actions the agent may propose. Every one of them needs a human's approval before it runs."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, Protocol

import msgspec

if TYPE_CHECKING:
    from agent.actions.ledger import Ledger

__all__ = ("Action", "ActionRegistry", "ActionResult", "DeleteAccount", "IssueRefund")

_INVOICE_ID = re.compile(r"^INV-\d{4}$")
_ACCOUNT_ID = re.compile(r"^ACC-\d{4}$")


class ActionResult(msgspec.Struct, frozen=True, kw_only=True):
    outcome: str
    """`done`, `already_done` or `failed`."""
    text: str


class Action(Protocol):
    name: str

    async def check(self, arguments: dict[str, Any]) -> str | None:
        """Why the action cannot be proposed with these arguments, or None when it can."""
        ...

    async def summarize(self, arguments: dict[str, Any]) -> str:
        """One line for the person who approves it."""
        ...

    async def execute(self, arguments: dict[str, Any], approval_id: str, at: str) -> ActionResult: ...


class IssueRefund:
    name = "issue_refund"

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    async def check(self, arguments: dict[str, Any]) -> str | None:
        invoice_id = arguments.get("invoice_id")
        if not isinstance(invoice_id, str) or not _INVOICE_ID.match(invoice_id):
            return "a refund needs an invoice number such as INV-1001"
        if await self._ledger.invoice(invoice_id) is None:
            return f"there is no invoice {invoice_id}"
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

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    async def check(self, arguments: dict[str, Any]) -> str | None:
        account_id = arguments.get("account_id")
        if not isinstance(account_id, str) or not _ACCOUNT_ID.match(account_id):
            return "deleting an account needs its id, such as ACC-2001"
        if await self._ledger.account(account_id) is None:
            return f"there is no account {account_id}"
        return None

    async def summarize(self, arguments: dict[str, Any]) -> str:
        return f"Delete account {arguments['account_id']} (irreversible)"

    async def execute(self, arguments: dict[str, Any], approval_id: str, at: str) -> ActionResult:
        account_id = arguments["account_id"]
        if not await self._ledger.delete_account(account_id, at):
            return ActionResult(outcome="already_done", text=f"Account {account_id} was already deleted.")
        return ActionResult(outcome="done", text=f"Account {account_id} is deleted; its data is removed after 30 days.")


class ActionRegistry:
    def __init__(self, actions: list[Action]) -> None:
        self._actions = {action.name: action for action in actions}

    @classmethod
    def default(cls, ledger: Ledger) -> ActionRegistry:
        return cls([IssueRefund(ledger), DeleteAccount(ledger)])

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._actions)

    def get(self, name: str) -> Action | None:
        return self._actions.get(name)
