"""The Lua scripts of the Redis session store, read once from the ``lua/`` folder.

redis-py's ``register_script`` runs each by SHA (``EVALSHA``) and loads it again when the
server answers ``NOSCRIPT`` (after a restart or ``SCRIPT FLUSH``).
"""

from __future__ import annotations

import dataclasses
import re
from importlib import resources
from typing import Any

from redis.commands.core import AsyncScript

_NAMES = ("append", "claim", "create", "delete", "fork", "get", "list", "open", "scope")
SOURCES: dict[str, str] = {
    name: resources.files(__name__.rpartition(".")[0])
    .joinpath(f"lua/{name}.lua")
    .read_text("utf-8")
    for name in _NAMES
}

_CALL = re.compile(r"redis\.p?call\(\s*'([A-Za-z]+)'")


def commands_called(source: str) -> set[str]:
    """Return the Redis commands a script calls (upper case)."""
    return {name.upper() for name in _CALL.findall(source)}


@dataclasses.dataclass(frozen=True)
class Scripts:
    """The registered scripts of one client."""

    append: AsyncScript
    claim: AsyncScript
    create: AsyncScript
    delete: AsyncScript
    fork: AsyncScript
    get: AsyncScript
    list: AsyncScript
    open: AsyncScript
    scope: AsyncScript

    @classmethod
    def register(cls, client: Any) -> Scripts:
        """Register every script on ``client`` (nothing is sent until the first call)."""
        return cls(**{name: client.register_script(SOURCES[name]) for name in _NAMES})
