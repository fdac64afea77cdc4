"""A Redis client for the service: a bounded pool, timeouts, and a clear error when Redis cannot be reached."""

from __future__ import annotations

from redis.asyncio import BlockingConnectionPool, Redis
from redis.exceptions import RedisError

from agent import redact_url
from agent.stores import StoreUnavailable

__all__ = ("connect_redis",)

_CONNECT_TIMEOUT_S = 5
_COMMAND_TIMEOUT_S = 10
_MAX_CONNECTIONS = 64


async def connect_redis(url: str, *, single_connection: bool = False) -> Redis:
    """A client on ``url``; fails at once with ``StoreUnavailable`` when the server cannot be reached."""
    # a bounded pool that makes a burst of commands wait for a connection rather than fail
    pool = BlockingConnectionPool.from_url(
        url,
        max_connections=1 if single_connection else _MAX_CONNECTIONS,
        timeout=_COMMAND_TIMEOUT_S,
        socket_connect_timeout=_CONNECT_TIMEOUT_S,
        socket_timeout=_COMMAND_TIMEOUT_S,
        health_check_interval=15,
    )
    redis = Redis(connection_pool=pool, single_connection_client=single_connection)
    redis.auto_close_connection_pool = True  # the client owns its pool: closing one closes the other
    try:
        await redis.ping()
    except (RedisError, OSError) as exc:
        await redis.aclose()
        raise StoreUnavailable(f"cannot connect to Redis at {redact_url(url)}: {exc}") from None
    return redis
