"""The cron store's base: what a cron is as stored (``CronRecord``), what every backend does (``CronStore``), and the
sealing of what a cron's runs are asked with.

A cron's scheduling columns (``enabled``, ``next_run_ms``, ``firing_ms``, ``claimed_until_ms``) are plain, so that
the claim reads them in SQL; the rest (the run it starts, its metadata) is one JSON body, sealed under
``HARNESS_ENCRYPTION_KEY`` when one is set, bound to the cron's id.

The claim (``CronStore.claim_due``) is the one step of exactly-once: in one transaction it takes the due crons
(enabled, ``next_run_ms`` passed, no firing in flight), moves each one's ``next_run_ms`` on and marks the firing it
took (``firing_ms``) with a lease (``claimed_until_ms``). The instance that took it starts the run, renewing the
lease while it does (``renew``), then clears the mark (``fired``). A firing whose instance died before that is
taken again once the lease has run out: it is the same firing (``CronRecord.retaken``), so the scheduler first looks
whether its run exists.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, Protocol

import msgspec

from agent import place

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from agent import Sealer

__all__ = ("CronRecord", "CronStore", "claim", "decode_body", "encode_body", "owner_key")


class CronRecord(msgspec.Struct, kw_only=True):
    cron_id: str
    owner: str | None
    """The subject that made it (None with identity off): its runs are started as this subject."""
    account_id: str | None = None
    auth_user: dict[str, Any] | None = None
    """What langgraph.json's ``@auth.authenticate`` said of its maker (``Principal.user``; None with the service's
    own identity): its runs get it as ``configurable["langgraph_auth_user"]``, as a run its maker started would."""
    thread_id: str | None
    """Its thread; None: each firing runs on a new thread."""
    assistant_id: str
    schedule: str
    timezone: str | None = None
    end_time_ms: int | None = None
    enabled: bool = True
    next_run_ms: int | None = None
    """When it fires next; None once it has ended (past ``end_time_ms``) or while disabled."""
    on_run_completed: Literal["delete", "keep"] | None = None
    payload: dict[str, Any] = msgspec.field(default_factory=dict)
    """The run it starts, as a ``RunCreate``'s body."""
    metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    thread_metadata: dict[str, Any] = msgspec.field(default_factory=dict)
    """A cron without a thread: what langgraph.json's ``@auth.on.threads`` handler stamped on a thread made for
    the request that made the cron, which each firing's new thread gets (no request reaches a handler then)."""
    created_at: str
    updated_at: str
    firing_ms: int | None = None
    """The firing an instance has claimed and not yet started (its scheduled time)."""
    claimed_until_ms: int | None = None
    retaken: bool = False
    """Claimed again after its instance's lease ran out: its run may exist already."""


_BODY_FIELDS = frozenset({"firing_ms", "claimed_until_ms", "retaken", "enabled", "next_run_ms"})
_encoder = msgspec.json.Encoder()
_decoder = msgspec.json.Decoder(CronRecord)


def encode_body(record: CronRecord, sealer: Sealer | None) -> bytes:
    body = {k: v for k, v in msgspec.structs.asdict(record).items() if k not in _BODY_FIELDS}
    data = _encoder.encode(body)
    return data if sealer is None else sealer.seal(data, place("cron", record.cron_id))


def decode_body(
    cron_id: str,
    body: bytes,
    sealer: Sealer | None,
    *,
    enabled: bool,
    next_run_ms: int | None,
    firing_ms: int | None = None,
    claimed_until_ms: int | None = None,
) -> CronRecord:
    data = body if sealer is None else sealer.unseal(bytes(body), place("cron", cron_id))
    record = _decoder.decode(data)
    record.enabled = bool(enabled)
    record.next_run_ms = next_run_ms
    record.firing_ms = firing_ms
    record.claimed_until_ms = claimed_until_ms
    return record


def owner_key(owner: str | None) -> str:
    """The owner column: a subject, or '' for the one user of a service with identity off."""
    return owner if owner is not None else ""


def claim(
    record: CronRecord, now_ms: int, lease_ms: int, advance: Callable[[CronRecord, int], int | None]
) -> CronRecord:
    """``record`` as claimed now: a new firing (its due time) with its next one moved on, or a firing in flight
    whose lease ran out, taken again as it was."""
    if record.firing_ms is not None:
        record.retaken = True
    else:
        record.firing_ms = record.next_run_ms
        record.next_run_ms = advance(record, now_ms)
    record.claimed_until_ms = now_ms + lease_ms
    return record


class CronStore(Protocol):
    """One file per backend: ``sqlite`` (embedded) and ``postgres`` (shared)."""

    async def put(self, record: CronRecord, *, reschedule: bool = True) -> None:
        """Insert the cron, or replace what a client may change of it (not a firing in flight; its next firing only
        with ``reschedule``, so that a change of its run made while it fires cannot set back what the claim moved on).
        """
        ...

    async def get(self, cron_id: str) -> CronRecord | None: ...

    async def of_owner(self, owner: str | None) -> list[CronRecord]:
        """Every cron of ``owner``'s."""
        ...

    async def delete(self, cron_id: str) -> bool: ...

    async def claim_due(
        self, now_ms: int, lease_ms: int, advance: Callable[[CronRecord, int], int | None], limit: int
    ) -> list[CronRecord]:
        """Take up to ``limit`` due firings (and firings in flight whose lease ran out) for this instance alone;
        ``advance`` gives a claimed cron's next firing after now (None: it fires no more)."""
        ...

    async def renew(self, cron_id: str, firing_ms: int, until_ms: int) -> None:
        """Hold the firing's claim until ``until_ms`` (its run is still starting); nothing once it is cleared."""
        ...

    async def fired(self, cron_id: str, firing_ms: int) -> None:
        """The firing's run exists (or it was given up): clear its mark."""
        ...

    async def forget_threads(self, thread_ids: Sequence[str]) -> int:
        """Remove the crons of the threads (deleted threads); how many went."""
        ...

    async def forget_owners(self, owners: Sequence[str]) -> int:
        """Remove the crons the subjects made (an erasure); how many went."""
        ...

    async def close(self) -> None: ...
