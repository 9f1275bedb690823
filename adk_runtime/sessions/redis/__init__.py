"""Durable sessions on Redis (``redis://`` and ``rediss://`` URLs); see :mod:`.service`."""

from adk_runtime.sessions.redis.service import RedisSessionService

__all__ = ["RedisSessionService"]
