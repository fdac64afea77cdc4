"""The names of the service's Redis keys, all under one prefix (``HARNESS_REDIS_PREFIX``)."""

from __future__ import annotations

__all__ = ("RunKeys",)


class RunKeys:
    """The names of the service's Redis keys under one prefix."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.running = f"{prefix}:running"
        self.waiting = f"{prefix}:waiting"
        self.control = f"{prefix}:control"
        self.queued = f"{prefix}:queued"
        """The sessions that have runs queued."""

    def run(self, run_id: str) -> str:
        return f"{self.prefix}:run:{run_id}"

    def events(self, run_id: str) -> str:
        return f"{self.prefix}:run:{run_id}:events"

    def lease(self, run_id: str) -> str:
        return f"{self.prefix}:run:{run_id}:lease"

    def subscribers(self, run_id: str) -> str:
        return f"{self.prefix}:run:{run_id}:subs"

    def instance(self, instance: str) -> str:
        """An instance's presence: there while it renews it (``api.runs.cluster.redis``)."""
        return f"{self.prefix}:instance:{instance}"

    def cancel(self, run_id: str) -> str:
        return f"{self.prefix}:run:{run_id}:cancel"

    def session(self, session_id: str) -> str:
        return f"{self.prefix}:session:{session_id}"

    def owner(self, session_id: str) -> str:
        return f"{self.prefix}:session:{session_id}:owner"

    def session_runs(self, session_id: str) -> str:
        return f"{self.prefix}:session:{session_id}:runs"

    def queue(self, session_id: str) -> str:
        """The session's queued (``pending``) runs, oldest first: a list."""
        return f"{self.prefix}:session:{session_id}:queue"

    def erasing(self, session_id: str) -> str:
        return f"{self.prefix}:session:{session_id}:erasing"

    def session_of_owner(self, key: bytes) -> str:
        return key.decode()[len(self.prefix) + len(":session:") : -len(":owner")]

    def run_id_of_events(self, key: bytes | str) -> str:
        name = key.decode() if isinstance(key, bytes) else key
        return name[len(self.prefix) + len(":run:") : -len(":events")]
