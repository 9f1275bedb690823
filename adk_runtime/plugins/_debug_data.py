"""Plain, YAML-ready data with secrets redacted, written with PyYAML."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, time
from enum import Enum
from typing import Any

import yaml
from pydantic import BaseModel

__all__ = ["REDACTED", "plain", "to_yaml"]

REDACTED = "[REDACTED]"
_MAX_DEPTH = 20  # deeper values (or a value that contains itself) are cut

_SECRET_NAMES = frozenset(
    {
        "access_token",
        "api_key",
        "auth_code",
        "authorization",
        "client_secret",
        "code_verifier",
        "cookie",
        "id_token",
        "password",
        "private_key",
        "proxy_authorization",
        "refresh_token",
        "secret",
        "set_cookie",
        "sig",
        "signature",
        "token",
    }
)
_SECRET_WORDS = ("api_key", "apikey", "credential", "passwd", "password", "private_key", "secret")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
_PRIVATE_KEY = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?"
    r"(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
    re.DOTALL,
)
_SCOPES = ("app:", "user:", "temp:")


def _is_secret_key(key: str) -> bool:
    name = _CAMEL.sub("_", key).lower().replace("-", "_")
    for scope in _SCOPES:
        name = name.removeprefix(scope)
    return (
        name in _SECRET_NAMES
        or name.endswith("_token")
        or any(word in name for word in _SECRET_WORDS)
    )


def plain(value: Any, depth: int = 0) -> Any:  # noqa: C901 - one branch per kind of value
    if value is None or (isinstance(value, (bool, int, float)) and not isinstance(value, Enum)):
        return value
    if isinstance(value, str):
        return _PRIVATE_KEY.sub(REDACTED, value)
    if isinstance(value, (bytes, bytearray)):
        return f"<{len(value)} bytes>"
    if depth > _MAX_DEPTH:
        return f"<{type(value).__name__}: nested too deep>"
    if isinstance(value, Enum):
        return plain(value.value, depth + 1)
    if isinstance(value, (datetime, date, time)):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {
            str(key): REDACTED if _is_secret_key(str(key)) else plain(item, depth + 1)
            for key, item in value.items()
        }
    if isinstance(value, (list, tuple, set, frozenset)):
        return [plain(item, depth + 1) for item in value]
    if isinstance(value, BaseModel):
        return plain(value.model_dump(exclude_none=True), depth + 1)
    try:
        return _PRIVATE_KEY.sub(REDACTED, str(value))
    except Exception:
        return f"<{type(value).__name__}>"


def to_yaml(value: Any) -> str:
    """``value`` (plain data: dicts, lists, strings, numbers, booleans, None) as YAML.

    Block style, keys in their order; ``yaml.safe_load`` returns ``value``. Non-ASCII text is
    written as escapes: PyYAML's unicode output folds a NEL (U+0085) in a quoted scalar into
    a space, so the file would not read back as what was logged.
    """
    return yaml.safe_dump(value, sort_keys=False, allow_unicode=False, default_flow_style=False)
