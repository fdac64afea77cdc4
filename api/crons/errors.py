"""The crons' refusals, as problem+json (``api.exceptions``)."""

from __future__ import annotations

from api.exceptions import Invalid, NotFound

__all__ = ("CronNotFound", "CronRequestInvalid")


class CronNotFound(NotFound):
    """No cron of the caller's has the id (another subject's is not there to find)."""

    code = "cron_not_found"
    title = "Cron not found"


class CronRequestInvalid(Invalid):
    """A schedule croniter cannot read, a time zone that is no IANA name, an end time without an offset, ..."""

    code = "cron_request_invalid"
    title = "Cron request invalid"
