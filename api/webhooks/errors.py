"""The webhooks' refusal, as problem+json (``api.exceptions``)."""

from __future__ import annotations

from api.exceptions import Invalid

__all__ = ("WebhookNotAllowed",)


class WebhookNotAllowed(Invalid):
    """A run's ``webhook`` that is no http(s) URL, or names a host ``HARNESS_WEBHOOK_ALLOWED_HOSTS`` does not."""

    code = "webhook_not_allowed"
    title = "Webhook not allowed"
