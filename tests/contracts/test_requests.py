from __future__ import annotations

import msgspec
import pytest

from contracts import ChatRequest, ResumeRequest


def decode_chat(body: object) -> ChatRequest:
    return msgspec.json.decode(msgspec.json.encode(body), type=ChatRequest)


def test_message_is_trimmed() -> None:
    assert decode_chat({"message": "  How do I reset my password?\n"}).message == "How do I reset my password?"


@pytest.mark.parametrize("message", ["", " ", "\n\t  ", "x" * 4001, "  " + "x" * 4001 + "  "])
def test_message_outside_1_to_4000_characters_after_trimming_is_rejected(message: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.message"):
        decode_chat({"message": message})


@pytest.mark.parametrize("message", ["x", "x" * 4000, "   " + "x" * 4000 + "\n\n", " a" + " " * 3998 + "b "])
def test_message_of_1_to_4000_characters_after_trimming_is_accepted(message: str) -> None:
    assert decode_chat({"message": message}).message == message.strip()


def test_unknown_fields_are_rejected() -> None:
    with pytest.raises(msgspec.ValidationError, match="unknown field `mesage`"):
        decode_chat({"message": "hi", "mesage": "typo"})


@pytest.mark.parametrize("session_id", ["", "has space", "x" * 65, "-leading-dash", "ü"])
def test_session_ids_are_short_and_url_safe(session_id: str) -> None:
    with pytest.raises(msgspec.ValidationError, match=r"\$\.session_id"):
        decode_chat({"message": "hi", "session_id": session_id})


def test_resume_decision_is_approve_or_reject() -> None:
    body = {"run_id": "r_1", "approval_id": "apv_1", "decision": "approve"}
    assert msgspec.convert(body, ResumeRequest).decision == "approve"
    with pytest.raises(msgspec.ValidationError, match=r"\$\.decision"):
        msgspec.convert({**body, "decision": "maybe"}, ResumeRequest)
