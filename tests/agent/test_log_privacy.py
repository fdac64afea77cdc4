from __future__ import annotations

import logging
from typing import TYPE_CHECKING

import pytest

from agent.config import AgentConfig
from agent.log_privacy import LogRedactor, configured_secrets, install_log_redaction

if TYPE_CHECKING:
    from collections.abc import Iterator

SECRET = "gsk_ProviderKeyOfNoKnownShape42"


@pytest.fixture
def restore_factory() -> Iterator[None]:
    factory = logging.getLogRecordFactory()
    yield
    logging.setLogRecordFactory(factory)


def record(msg: object, *args: object, exc: BaseException | None = None) -> logging.LogRecord:
    exc_info = (type(exc), exc, exc.__traceback__) if exc else None
    made = logging.LogRecord("t", logging.INFO, __file__, 1, msg, args or None, exc_info)
    LogRedactor([SECRET]).mask_record(made)
    return made


def test_text_arguments_are_masked_one_by_one_and_numbers_kept() -> None:
    access = record('%s - "%s %s HTTP/%s" %d', "127.0.0.1:1", "GET", "/runs/sk-proj-abcdefghijklmnop1234", "1.1", 404)

    assert access.args == ("127.0.0.1:1", "GET", "/runs/[REDACTED KEY]", "1.1", 404)
    assert access.getMessage() == '127.0.0.1:1 - "GET /runs/[REDACTED KEY] HTTP/1.1" 404'


def test_other_arguments_are_formatted_and_masked_whole() -> None:
    masked = record("turn %r failed with %s", {"message": "card 4111 1111 1111 1111"}, ValueError(SECRET))

    assert masked.args is None
    assert masked.getMessage() == "turn {'message': 'card [REDACTED CARD]'} failed with [REDACTED SECRET]"


def test_a_traceback_is_masked() -> None:
    try:
        raise RuntimeError(f"provider said: bad key {SECRET} for IBAN DE89 3704 0044 0532 0130 00")
    except RuntimeError as exc:
        masked = record("run %s failed", "r_1", exc=exc)

    assert masked.exc_text is not None
    assert "RuntimeError: provider said: bad key [REDACTED SECRET] for IBAN [REDACTED ACCOUNT]" in masked.exc_text
    assert logging.Formatter().format(masked).endswith(masked.exc_text)


def test_the_configured_secrets_are_the_provider_keys_and_the_written_forms_of_the_encryption_key() -> None:
    key = bytes(range(32))
    config = AgentConfig.from_env(
        {
            "HARNESS_LLM_API_KEY": SECRET,
            "HARNESS_LLM_ANTHROPIC_API_KEY": "anthropic-key-1",
            "HARNESS_ENCRYPTION_KEY": key.hex(),
        }
    )

    secrets = configured_secrets(config)

    assert {SECRET, "anthropic-key-1", key.hex(), key.hex().upper()} <= set(secrets)
    assert "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=" in secrets
    assert configured_secrets(AgentConfig()) == []


def test_every_logger_is_masked_once_installed(restore_factory: None, caplog: pytest.LogCaptureFixture) -> None:
    install_log_redaction([SECRET])
    install_log_redaction(["second-secret-value"])

    with caplog.at_level(logging.INFO):
        logging.getLogger("uvicorn.error").info("key %s, %s", SECRET, "second-secret-value")

    assert caplog.messages == ["key [REDACTED SECRET], [REDACTED SECRET]"]
