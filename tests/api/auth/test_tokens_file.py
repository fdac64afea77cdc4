from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING

import pytest

from agent.config import ConfigError
from api.auth.tokens_file import TokensFile

if TYPE_CHECKING:
    from pathlib import Path

ALICE = "alice-token-0123456789"
CAROL = "carol-token-0123456789"


def _write(tmp_path: Path, body: object) -> Path:
    path = tmp_path / "tokens.json"
    path.write_text(body if isinstance(body, str) else json.dumps(body))
    return path


def test_plain_and_digest_entries_name_their_subjects(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        {
            "tokens": [
                {"token": ALICE, "subject": "alice", "roles": ["user"], "account_id": "ACC-2001"},
                {"token_sha256": hashlib.sha256(CAROL.encode()).hexdigest(), "subject": "carol", "roles": ["approver"]},
            ]
        },
    )
    tokens = TokensFile.load(path)
    alice, carol = tokens.principal(ALICE), tokens.principal(CAROL)
    assert alice is not None
    assert carol is not None
    assert (alice.subject, alice.roles, alice.account_id) == ("alice", frozenset({"user"}), "ACC-2001")
    assert (carol.subject, carol.roles, carol.account_id) == ("carol", frozenset({"approver"}), None)
    assert tokens.principal("someone-else-0123456789") is None
    assert tokens.plain_tokens == [ALICE], "only plain tokens are handed to the log redaction"


@pytest.mark.parametrize(
    ("body", "complaint"),
    [
        ("{not json", "is not a valid tokens file"),
        ({"tokens": [{"subject": "alice"}]}, "needs exactly one of `token` and `token_sha256`"),
        (
            {"tokens": [{"token": ALICE, "token_sha256": "0" * 64, "subject": "alice"}]},
            "needs exactly one of `token` and `token_sha256`",
        ),
        ({"tokens": [{"token": "short", "subject": "alice"}]}, "is not a valid tokens file"),
        ({"tokens": [{"token_sha256": "not-hex", "subject": "alice"}]}, "is not a valid tokens file"),
        ({"tokens": [{"token": ALICE, "subject": ""}]}, "is not a valid tokens file"),
        ({"tokens": [{"token": ALICE, "subject": "alice", "admin": True}]}, "is not a valid tokens file"),
        (
            {"tokens": [{"token": ALICE, "subject": "alice"}, {"token": ALICE, "subject": "bob"}]},
            "entry 2 repeats a token",
        ),
        ({"users": []}, "is not a valid tokens file"),
    ],
)
def test_a_malformed_file_is_a_config_error_naming_it(tmp_path: Path, body: object, complaint: str) -> None:
    path = _write(tmp_path, body)
    with pytest.raises(ConfigError, match="HARNESS_AUTH_TOKENS_FILE") as raised:
        TokensFile.load(path)
    assert complaint in str(raised.value)
    assert str(path) in str(raised.value)
    assert ALICE not in str(raised.value), "the error never repeats a token"


def test_a_missing_file_is_a_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot be read"):
        TokensFile.load(tmp_path / "absent.json")
