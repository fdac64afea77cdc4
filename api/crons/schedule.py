"""A cron's schedule: its expression read by croniter in its IANA time zone, and the firing after a moment.

Five fields (minute, hour, day of month, month, day of week) as the Agent Server reads them, or six, the last one
seconds (croniter's order), which a schedule shorter than a minute needs (and the tests). Seven (a year) are
refused: the Agent Server has none. Times are held as milliseconds since the epoch, UTC, in the stores.
"""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from croniter import CroniterError, croniter

__all__ = ("Schedule", "ScheduleInvalid", "from_ms", "to_ms")


class ScheduleInvalid(ValueError):
    """The expression or the time zone cannot be read; ``field`` names which, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class Schedule:
    __slots__ = ("_zone", "expression", "timezone")

    def __init__(self, expression: str, timezone: str | None) -> None:
        """Raise ``ScheduleInvalid`` unless ``expression`` has five or six fields croniter reads, and ``timezone``
        (None: UTC) is an IANA name this machine's time zone database has."""
        fields = expression.split()
        if len(fields) not in (5, 6):
            raise ScheduleInvalid(
                "schedule", f"has {len(fields)} fields: a cron expression has 5 (or 6, the last one seconds)"
            )
        if not croniter.is_valid(" ".join(fields)):
            raise ScheduleInvalid("schedule", f"{expression!r} is not a cron expression croniter reads")
        try:
            zone = ZoneInfo(timezone) if timezone is not None else UTC
        except (ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder of the database ("Europe")
            raise ScheduleInvalid("timezone", f"{timezone!r} is not an IANA time zone name") from None
        self.expression = " ".join(fields)
        self.timezone = timezone
        self._zone = zone
        try:
            self.next_after(0)
        except ScheduleInvalid:
            raise ScheduleInvalid("schedule", f"{expression!r} names no date that exists (as 30 February)") from None

    def next_after(self, after_ms: int) -> int:
        """The first firing strictly after ``after_ms`` (ms since the epoch); ``ScheduleInvalid`` when there is
        none croniter finds."""
        start = datetime.fromtimestamp(after_ms / 1000, tz=UTC).astimezone(self._zone)
        try:
            following: datetime = croniter(self.expression, start).get_next(datetime)
        except CroniterError as exc:
            raise ScheduleInvalid("schedule", f"{self.expression!r} has no firing after {start}: {exc}") from None
        return to_ms(following)


def to_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


def from_ms(ms: int) -> str:
    """RFC 3339 in UTC."""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat()
