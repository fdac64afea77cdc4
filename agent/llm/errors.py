"""Errors of language-model providers.

LLMError                      any provider failure; ``code`` and ``retryable`` go into the error event
├── ProviderUnavailable       could not get an answer started (connection, 5xx, 429, timeout)
├── ProviderStreamFailed      the answer broke off after it had started
└── ProviderRejected          the provider refused the request (bad key, bad model, 4xx)

The message of every one of them is shown to users in an ``error`` event: it names the provider and what
went wrong, never a key, an ``Authorization`` header or the prompt.
"""

from __future__ import annotations

from agent.errors import AgentError

__all__ = ("LLMError", "ProviderRejected", "ProviderStreamFailed", "ProviderUnavailable")


class LLMError(AgentError):
    code = "provider_error"
    retryable = True

    def __init__(self, message: str, *, status_code: int | None = None, body: str = "") -> None:
        super().__init__(message)
        self.status_code = status_code
        """The provider's HTTP status, when the failure was an HTTP answer."""
        self.body = body
        """The start of the provider's error body, keys redacted: for the adapters to read which field was
        rejected (the message keeps only its first line)."""


class ProviderUnavailable(LLMError):
    code = "provider_unavailable"

    def __init__(
        self, message: str, *, status_code: int | None = None, retry_after_s: float | None = None, body: str = ""
    ) -> None:
        super().__init__(message, status_code=status_code, body=body)
        self.retry_after_s = retry_after_s
        """How long the provider asked us to wait (``Retry-After``), when it said."""


class ProviderStreamFailed(LLMError):
    code = "provider_stream_failed"


class ProviderRejected(LLMError):
    code = "provider_rejected"
    retryable = False
