"""Every action says why it cannot happen as asked, in words that promise nothing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from agent.actions import ActionRegistry, NotPossible, SqliteLedger

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from agent.state import PrincipalState


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[ActionRegistry]:
    ledger = SqliteLedger(tmp_path / "ledger.sqlite")
    yield ActionRegistry.default(ledger)
    ledger.close()


ANYONE: PrincipalState = {"subject": None, "account_id": None}
"""The one user of a service with identity off."""


def signed_in(account_id: str | None) -> PrincipalState:
    return {"subject": "alice", "account_id": account_id}


async def check(
    registry: ActionRegistry, action: str, arguments: dict[str, Any], asker: PrincipalState = ANYONE
) -> NotPossible | None:
    registered = registry.get(action)
    assert registered is not None
    return await registered.check(registered.bind(arguments, asker), asker)


@pytest.mark.parametrize(
    ("action", "arguments", "reason", "says"),
    [
        ("issue_refund", {"invoice_id": "INV-9999"}, "unknown_record", "There is no invoice INV-9999"),
        ("delete_account", {"account_id": "ACC-9999"}, "unknown_record", "There is no account ACC-9999"),
        ("issue_refund", {}, "missing_argument", "Which invoice should I refund?"),
        ("issue_refund", {"invoice_id": "last one"}, "missing_argument", "such as INV-1001"),
        ("delete_account", {}, "missing_argument", "Which account should I delete?"),
    ],
)
async def test_an_action_that_cannot_happen_says_why_and_promises_nothing(
    registry: ActionRegistry, action: str, arguments: dict[str, Any], reason: str, says: str
) -> None:
    problem = await check(registry, action, arguments)

    assert problem is not None
    assert problem.reason == reason
    assert says in problem.text
    assert "approve" not in problem.text


async def test_an_existing_record_can_be_proposed(registry: ActionRegistry) -> None:
    assert await check(registry, "issue_refund", {"invoice_id": "INV-1001"}) is None
    assert await check(registry, "delete_account", {"account_id": "ACC-2001"}) is None


async def test_an_account_already_deleted_is_already_done(registry: ActionRegistry, tmp_path: Path) -> None:
    ledger = SqliteLedger(tmp_path / "ledger.sqlite")
    await ledger.delete_account("ACC-2002", "2026-12-01T00:00:00Z")
    ledger.close()

    problem = await check(registry, "delete_account", {"account_id": "ACC-2002"})

    assert problem == NotPossible(
        reason="already_done", text="Account ACC-2002 is already deleted; there is nothing left to delete."
    )


@pytest.mark.parametrize(
    ("action", "arguments"),
    [("issue_refund", {"invoice_id": "INV-1003"}), ("delete_account", {"account_id": "ACC-2002"})],
)
async def test_a_record_of_another_account_is_not_the_askers_to_act_on(
    registry: ActionRegistry, action: str, arguments: dict[str, Any]
) -> None:
    problem = await check(registry, action, arguments, signed_in("ACC-2001"))

    assert problem is not None
    assert problem.reason == "wrong_account"
    assert "can't" in problem.text
    assert "approve" not in problem.text


async def test_the_askers_own_records_can_be_proposed(registry: ActionRegistry) -> None:
    assert await check(registry, "issue_refund", {"invoice_id": "INV-1002"}, signed_in("ACC-2001")) is None
    assert await check(registry, "delete_account", {"account_id": "ACC-2001"}, signed_in("ACC-2001")) is None


@pytest.mark.parametrize(
    ("action", "arguments"),
    [
        ("issue_refund", {"invoice_id": "INV-1001"}),
        ("issue_refund", {}),
        ("issue_refund", {"invoice_id": "INV-9999"}),
        ("delete_account", {"account_id": "ACC-2001"}),
        ("delete_account", {}),
        ("delete_account", {"account_id": "ACC-9999"}),
    ],
)
async def test_a_signed_in_asker_bound_to_no_account_may_act_on_no_record(
    registry: ActionRegistry, action: str, arguments: dict[str, Any]
) -> None:
    problem = await check(registry, action, arguments, signed_in(None))

    assert problem is not None
    assert problem.reason == "wrong_account"
    assert problem.text.startswith("Your sign-in is linked to no account")
    assert "?" not in problem.text, "it asks for nothing: no id would make the action possible"
    assert "approve" not in problem.text


def test_my_account_is_the_askers_account(registry: ActionRegistry) -> None:
    delete = registry.get("delete_account")
    assert delete is not None
    assert delete.bind({}, signed_in("ACC-2003")) == {"account_id": "ACC-2003"}
    assert delete.bind({"account_id": "ACC-2002"}, signed_in("ACC-2003")) == {"account_id": "ACC-2002"}, "named"
    assert delete.bind({}, ANYONE) == {}, "identity off: the registry asks which account"
