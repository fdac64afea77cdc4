"""Server logs that carry no secrets and no personal data, whoever writes them.

The service's own log lines name runs, sessions, codes and exception types, never a message, an answer or
a token. What others write cannot be vetted line by line: uvicorn's access log prints request paths (where
a client may put anything, a key included), and a traceback prints whatever its exception says. So every
log record, of every logger, is masked when it is made (a ``LogRecord`` factory, which no handler or
logging configuration can bypass): card numbers, national ids, bank accounts and key-shaped strings are
redacted, and the configured secrets themselves (provider keys, the encryption key in its written forms)
are replaced wherever they appear, shape or not.

uvicorn's access log prints the path percent-encoded and the query string as sent, so a number can hide
behind escapes there (``4111%E2%80%8B1111...``, ``?card=4111%2F1111...``): a line whose decoded form holds
one is logged decoded and masked, with control and invisible characters left escaped.
"""

from __future__ import annotations

import base64
import logging
import traceback
import unicodedata
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote_plus

from agent.guardrails import redact

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from agent.config import AgentConfig

__all__ = ("LogRedactor", "configured_secrets", "install_log_redaction")

_MIN_SECRET_CHARS = 8
"""Shorter values are no secrets worth the name, and replacing them would garble ordinary words."""
_PLAIN_TYPES = (int, float, bool, type(None))
_UNSEEN_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


class LogRedactor:
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted({s for s in secrets if len(s) >= _MIN_SECRET_CHARS}, key=len, reverse=True)

    def mask(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, "[REDACTED SECRET]")
        if "%" in text or "+" in text:
            decoded = unquote_plus(text)
            if decoded != text and redact(decoded) != decoded:
                return _escape_unseen(redact(decoded))
        return redact(text)

    def mask_record(self, record: logging.LogRecord) -> None:
        """Mask ``record`` in place. Text arguments are masked one by one, so formatters that read them (uvicorn's
        access log) keep working; a record with other arguments is formatted now and masked whole."""
        args = record.args
        values = args.values() if isinstance(args, dict) else args or ()
        if all(isinstance(value, (str, *_PLAIN_TYPES)) for value in values):
            record.msg = self.mask(str(record.msg))
            if isinstance(args, dict):
                record.args = {name: self._mask_text(value) for name, value in args.items()}
            elif args:
                record.args = tuple(self._mask_text(value) for value in args)
        else:
            record.msg, record.args = self.mask(record.getMessage()), None
        if record.exc_info and not record.exc_text:
            record.exc_text = self.mask("".join(traceback.format_exception(*record.exc_info)).rstrip("\n"))
        if record.stack_info:
            record.stack_info = self.mask(record.stack_info)

    def _mask_text(self, value: object) -> object:
        return self.mask(value) if isinstance(value, str) else value


def _escape_unseen(text: str) -> str:
    """Control and invisible characters percent-encoded again: a decoded line may not forge a line break."""
    if text.isprintable():
        return text
    return "".join(
        quote(char) if char != "\t" and unicodedata.category(char) in _UNSEEN_CATEGORIES else char for char in text
    )


def configured_secrets(config: AgentConfig) -> list[str]:
    """The agent's own secrets as they may be written: provider keys, and the encryption key in hex and
    base64 (standard and URL-safe, with and without padding), the old keys of a rotation as well."""
    found = [config.llm.api_key or "", *(settings.api_key or "" for settings in config.llm.per_provider.values())]
    for key in (config.encryption_key, *config.old_encryption_keys):
        if key is None:
            continue
        secret = key.secret
        for written in (base64.b64encode(secret).decode(), base64.urlsafe_b64encode(secret).decode()):
            found += [written, written.rstrip("=")]
        found += [secret.hex(), secret.hex().upper()]
    return [value for value in found if value]


def install_log_redaction(secrets: Iterable[str] = ()) -> LogRedactor:
    """Mask every log record made from now on in this process (once; a second call only adds secrets)."""
    current = logging.getLogRecordFactory()
    previous: Callable[..., logging.LogRecord] = getattr(current, "unmasked", current)
    known: list[str] = list(getattr(current, "secrets", ()))
    redactor = LogRedactor([*known, *secrets])

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        redactor.mask_record(record)
        return record

    factory.unmasked = previous  # type: ignore[attr-defined]
    factory.secrets = [*known, *secrets]  # type: ignore[attr-defined]
    logging.setLogRecordFactory(factory)
    return redactor
