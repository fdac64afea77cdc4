"""Errors of language-model providers.

LLMError                      any provider failure; ``code`` and ``retryable`` go into the error event
├── ProviderUnavailable       could not get an answer started (connection, 5xx, 429, timeout)
├── ProviderStreamFailed      the answer broke off after it had started
└── ProviderRejected          the provider refused the request (bad key, bad model, 4xx)
"""

from __future__ import annotations

__all__ = ("LLMError", "ProviderRejected", "ProviderStreamFailed", "ProviderUnavailable")


class LLMError(Exception):
    code = "provider_error"
    retryable = True


class ProviderUnavailable(LLMError):
    code = "provider_unavailable"


class ProviderStreamFailed(LLMError):
    code = "provider_stream_failed"


class ProviderRejected(LLMError):
    code = "provider_rejected"
    retryable = False
