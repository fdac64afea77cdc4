"""A cron's schedule read in its time zone: five fields or six (seconds last), IANA names, daylight saving time."""

from __future__ import annotations

from datetime import datetime

import pytest

from api.crons.schedule import Schedule, ScheduleInvalid, from_ms, to_ms


def _at(text: str) -> int:
    return to_ms(datetime.fromisoformat(text))


def test_five_fields_fire_on_the_minute_in_utc_by_default() -> None:
    schedule = Schedule("*/15 * * * *", None)
    assert from_ms(schedule.next_after(_at("2026-12-07T14:07:30+00:00"))) == "2026-12-07T14:15:00+00:00"


def test_a_sixth_field_is_seconds() -> None:
    schedule = Schedule("* * * * * */2", None)
    assert from_ms(schedule.next_after(_at("2026-12-07T14:07:30+00:00"))) == "2026-12-07T14:07:32+00:00"


def test_the_next_firing_is_strictly_after() -> None:
    schedule = Schedule("0 9 * * *", None)
    assert from_ms(schedule.next_after(_at("2026-12-07T09:00:00+00:00"))) == "2026-12-08T09:00:00+00:00"


def test_the_schedule_is_read_in_its_time_zone_across_daylight_saving_time() -> None:
    paris = Schedule("0 9 * * *", "Europe/Paris")
    assert from_ms(paris.next_after(_at("2026-07-01T00:00:00+00:00"))) == "2026-07-01T07:00:00+00:00"  # CEST
    assert from_ms(paris.next_after(_at("2026-12-01T00:00:00+00:00"))) == "2026-12-01T08:00:00+00:00"  # CET
    new_york = Schedule("30 2 * * *", "America/New_York")
    # 2:30 does not exist on 2027-03-14 in New York: that day fires at 3:00 EDT, not never, and once
    firings = [new_york.next_after(_at("2027-03-13T12:00:00+00:00"))]
    firings.append(new_york.next_after(firings[-1]))
    firings.append(new_york.next_after(firings[-1]))
    assert [from_ms(ms) for ms in firings] == [
        "2027-03-14T07:00:00+00:00",
        "2027-03-15T06:30:00+00:00",
        "2027-03-16T06:30:00+00:00",
    ]


@pytest.mark.parametrize(
    ("expression", "timezone", "field"),
    [
        ("* * * *", None, "schedule"),
        ("* * * * * * 2027", None, "schedule"),
        ("61 * * * *", None, "schedule"),
        ("every day", None, "schedule"),
        ("0 0 30 2 *", None, "schedule"),
        ("@daily", None, "schedule"),
        ("0 9 * * *", "Mars/Olympus", "timezone"),
        ("0 9 * * *", "../../etc/passwd", "timezone"),
        ("0 9 * * *", "Europe", "timezone"),
        ("0 9 * * *", "", "timezone"),
    ],
)
def test_what_cannot_be_read_is_refused_with_the_field_named(expression: str, timezone: str | None, field: str) -> None:
    with pytest.raises(ScheduleInvalid) as raised:
        Schedule(expression, timezone)
    assert raised.value.field == field
