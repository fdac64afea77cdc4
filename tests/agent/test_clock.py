from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

from agent.clock import RandomIds
from agent.intake import carries_personal_data

if TYPE_CHECKING:
    import pytest


def test_a_random_id_that_passes_for_a_card_number_is_drawn_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # the first hex id holds 14 digits that pass the Luhn check: a session id the service itself would refuse
    drawn = iter([uuid.UUID("aa345875316045810000000000000000"), uuid.UUID("3eef198e8ca746c80000000000000000")])
    monkeypatch.setattr(uuid, "uuid4", lambda: next(drawn))

    assert carries_personal_data("s_aa34587531604581")
    assert RandomIds().new("s") == "s_3eef198e8ca746c8"
