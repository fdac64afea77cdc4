"""The deliveries of every instance: a run with a ``webhook`` is written to the outbox before it starts
(``expect``), and POSTed once its record shows it ended, as ``GET /threads/{thread_id}/runs/{run_id}`` shows it.

Why the outbox row is written when the run is asked for, and the end read from the run's record: a run ends in many
places (its executor, a cancel, a queued run cancelled, a lost instance's runs ended by a survivor, a restart), on
two log backends; a row written at each would be a write to miss. Here the row exists from the start, and a delivery
is made when the run's *stored* record is finished, whoever wrote it. The instance a run ends on says so at once
(``ended``, from the log's commit), so the delivery goes without waiting; a run ended by an instance that died
before saying so is found by the row's next check (at most ``CHECK_MAX_S`` later). A pause at an interrupt is not
an end: the run is ``waiting``, and its row is checked again later.

Each attempt is one POST, no redirect followed, within ``timeout_s`` in all (resolving the name included), to the
address checked (``api.webhooks.targets``). A 2xx is delivered; a 408, a 429, a 5xx, a connection error or a timeout
is retried after ``retry_delay``; any other answer (a 3xx, a 4xx) and a refused target are final. Up to
``max_attempts``, then given up. The outcomes are counted (``harness_webhook_deliveries``).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import socket
from typing import TYPE_CHECKING

import httpx
import msgspec

from api.agent_protocol.views import SUPPORT_ASSISTANT_ID, run_view
from api.runs.log.records import FINISHED
from api.stopping import stop_task
from api.webhooks.base import Delivery, retry_delay
from api.webhooks.signing import signing_key, webhook_headers
from api.webhooks.targets import Target, TargetRefused, check_url, parse, resolve

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from agent import Clock
    from api.runs.log.records import RunRecord
    from api.webhooks.base import WebhookOutbox
    from api.webhooks.settings import WebhookSettings

__all__ = ("CHECK_MAX_S", "MAX_BODY_BYTES", "ORPHAN_S", "WebhookSender", "delivery_body")

logger = logging.getLogger(__name__)

CHECK_MAX_S = 30.0
"""The longest wait between two looks at a run that has not ended (the first waits ``tick_s``, each next twice
as long)."""
ORPHAN_S = 120.0
"""A delivery whose run has no record this long after it was written is dropped: the run was never started (its
thread was busy), or was removed (rolled back, deleted, erased)."""
MAX_BODY_BYTES = 1024 * 1024
"""A run larger than this as JSON is not sent (given up): a receiver is not sent megabytes per run."""
_BATCH = 32
_LEASE_MARGIN_S = 5.0

_encode = msgspec.json.Encoder().encode


def delivery_body(record: RunRecord) -> bytes:
    """The run as ``GET /threads/{thread_id}/runs/{run_id}`` answers it."""
    return _encode(run_view(record, SUPPORT_ASSISTANT_ID))


class WebhookSender:
    """The runs' ``Webhooks`` (``api.runs.webhooks``): records the deliveries, and makes those due on this instance."""

    def __init__(
        self,
        outbox: WebhookOutbox,
        settings: WebhookSettings,
        *,
        load_run: Callable[[str], Awaitable[RunRecord | None]],
        clock: Clock,
        counted: Callable[[str], None] = lambda outcome: None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        """``counted``: called with each outcome (``delivered``, ``retried``, ``failed``, ``dropped``)."""
        self._outbox = outbox
        self._settings = settings
        self._load_run = load_run
        self._clock = clock
        self._counted = counted
        self._key = signing_key(settings.secret) if settings.secret else None
        self.holder = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"
        """Who this instance is in the outbox's ``holder`` column (host, process id, a random tag)."""
        self._client = httpx.AsyncClient(
            transport=transport, follow_redirects=False, trust_env=False, timeout=settings.timeout_s
        )
        self._ended: set[str] = set()
        self._wake = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    # --- what the runs ask for ---

    def check(self, url: str) -> None:
        """Refuse a ``webhook`` not allowed (422 ``webhook_not_allowed``)."""
        check_url(url, self._settings.allowed_hosts)

    async def expect(self, record: RunRecord) -> None:
        """Record the delivery of a run with a ``webhook``."""
        url = record.graph.webhook if record.graph is not None else None
        if url is None:
            return
        self.check(url)  # a guard for a caller that did not check: api.graph_runs does, before the thread exists
        now = self._now_ms()
        delivery = Delivery(run_id=record.run_id, session_id=record.snapshot.session_id, created_ms=now)
        await self._outbox.add(delivery, now + int(self._settings.tick_s * 1000))

    def ended(self, run_id: str) -> None:
        """The run's end is recorded: deliver it now."""
        self._ended.add(run_id)
        self._wake.set()

    async def forget(self, run_ids: Sequence[str], session_ids: Sequence[str]) -> int:
        return await self._outbox.forget(run_ids, session_ids)

    # --- the loop ---

    def start(self) -> None:
        self._task = asyncio.create_task(self._loop(), name="webhooks")

    async def stop(self) -> None:
        if self._task is not None:
            await stop_task(self._task)
            self._task = None
        with contextlib.suppress(Exception):
            await self._outbox.release(self.holder)
        await self._client.aclose()

    async def _loop(self) -> None:
        while True:
            try:
                await self.deliver_due()
            except Exception:
                logger.warning("webhook deliveries could not be looked at; trying again", exc_info=True)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self._settings.tick_s)
            self._wake.clear()

    async def deliver_due(self) -> None:
        """Make every delivery due now (the loop's one pass)."""
        if self._ended:
            ended, self._ended = list(self._ended), set()
            await self._outbox.make_due(ended, self._now_ms())
        lease_ms = int((self._settings.timeout_s + _LEASE_MARGIN_S) * 1000)
        while claimed := await self._outbox.claim(self._now_ms(), lease_ms, self.holder, _BATCH):
            await asyncio.gather(*(self._handle(delivery) for delivery in claimed))
            if len(claimed) < _BATCH:
                break

    async def _handle(self, delivery: Delivery) -> None:
        try:
            await self._deliver(delivery)
        except Exception:
            logger.warning("webhook delivery of run %s failed here; retrying", delivery.run_id, exc_info=True)
            await self._outbox.later(delivery, self.holder, self._now_ms() + int(self._settings.tick_s * 1000))

    async def _deliver(self, delivery: Delivery) -> None:
        record = await self._load_run(delivery.run_id)
        if record is None or record.graph is None or record.graph.webhook is None:
            if self._now_ms() - delivery.created_ms > ORPHAN_S * 1000 and await self._outbox.done(
                delivery.run_id, self.holder
            ):
                self._counted("dropped")
            else:
                await self._check_later(delivery)
            return
        if record.snapshot.status not in FINISHED:
            await self._check_later(delivery)
            return
        delivery.attempts += 1
        retry, why = await self._attempt(record.graph.webhook, delivery, delivery_body(record))
        if why is None:
            if await self._outbox.done(delivery.run_id, self.holder):
                self._counted("delivered")
        elif retry is not None and delivery.attempts < self._settings.max_attempts:
            await self._outbox.later(delivery, self.holder, self._now_ms() + int(retry * 1000))
            self._counted("retried")
            logger.info("webhook of run %s: %s; next attempt in %.1f s", delivery.run_id, why, retry)
        elif await self._outbox.done(delivery.run_id, self.holder):
            self._counted("failed")
            logger.warning("webhook of run %s given up after %d attempts: %s", delivery.run_id, delivery.attempts, why)

    async def _check_later(self, delivery: Delivery) -> None:
        delivery.checks += 1
        wait_s = min(CHECK_MAX_S, self._settings.tick_s * 2.0 ** min(60, delivery.checks - 1))
        await self._outbox.later(delivery, self.holder, self._now_ms() + int(wait_s * 1000))

    async def _attempt(self, url: str, delivery: Delivery, body: bytes) -> tuple[float | None, str | None]:
        """Attempt ``delivery.attempts``: ``(None, None)`` when delivered, else the wait before a retry (None: it is
        final) and why."""
        settings = self._settings
        retry_s = retry_delay(delivery.attempts, settings.backoff_s, settings.backoff_max_s)
        if len(body) > MAX_BODY_BYTES:
            return None, f"the run is {len(body)} bytes as JSON, more than {MAX_BODY_BYTES}"
        try:
            target = parse(url, settings.allowed_hosts)
            async with asyncio.timeout(settings.timeout_s):
                address = await resolve(target, settings.allowed_hosts)
                status, retry_after = await self._post(target, address, delivery.run_id, body)
        except TargetRefused as exc:
            return (retry_s if exc.retryable else None), str(exc)
        except (httpx.TransportError, TimeoutError) as exc:
            return retry_s, f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        if 200 <= status < 300:
            return None, None
        if status in (408, 429) or status >= 500:
            return retry_delay(delivery.attempts, settings.backoff_s, settings.backoff_max_s, retry_after), (
                f"answered {status}"
            )
        return None, f"answered {status}" + (" (redirects are not followed)" if 300 <= status < 400 else "")

    async def _post(self, target: Target, address: str, run_id: str, body: bytes) -> tuple[int, float | None]:
        url = httpx.URL(target.url)
        headers = webhook_headers(self._key, run_id, self._clock.now_ns() // 1_000_000_000, body)
        headers["host"] = url.netloc.decode("ascii")
        extensions = {"sni_hostname": target.host} if target.scheme == "https" else {}
        request = self._client.build_request(
            "POST", url.copy_with(host=address), content=body, headers=headers, extensions=extensions
        )
        response = await self._client.send(request, stream=True)
        await response.aclose()  # the answer's body is not read: a status is all a delivery needs
        return response.status_code, _seconds(response.headers.get("retry-after"))

    def _now_ms(self) -> int:
        return self._clock.now_ns() // 1_000_000


def _seconds(value: str | None) -> float | None:
    """A ``Retry-After`` in seconds (its date form is not read)."""
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
