"""Plain, YAML-ready data with secrets redacted, and a small YAML writer for it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date, datetime, time
from enum import Enum
from typing import Any

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


_PLAIN_KEY = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_KEYWORDS = frozenset({"y", "n", "yes", "no", "true", "false", "on", "off", "null"})
_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}


def to_yaml(value: Any) -> str:
    """``value`` (plain data: dicts, lists, strings, numbers, booleans, None) as YAML.

    Block style, every string double-quoted (so no value is read back as another type);
    ``yaml.safe_load`` returns ``value``.
    """
    return "\n".join(_lines(value, 0)) + "\n"


def _lines(value: Any, indent: int) -> list[str]:
    pad = " " * indent
    if isinstance(value, dict) and value:
        lines: list[str] = []
        for key, item in value.items():
            name = _key(str(key))
            if isinstance(item, (dict, list)) and item:
                lines.append(f"{pad}{name}:")
                lines += _lines(item, indent + 2)
            else:
                lines.append(f"{pad}{name}: {_scalar(item)}")
        return lines
    if isinstance(value, list) and value:
        lines = []
        for item in value:
            nested = _lines(item, indent + 2)
            lines.append(f"{pad}- {nested[0][indent + 2 :]}")
            lines += nested[1:]
        return lines
    return [pad + _scalar(value)]


def _key(key: str) -> str:
    return key if _PLAIN_KEY.match(key) and key.lower() not in _KEYWORDS else _quoted(key)


def _scalar(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value:
            return ".nan"
        if value in (float("inf"), float("-inf")):
            return ".inf" if value > 0 else "-.inf"
        text = repr(value)
        if "e" in text and "." not in text:  # YAML 1.1 floats need a dot: 1e+300 -> 1.0e+300
            mantissa, exponent = text.split("e")
            text = f"{mantissa}.0e{exponent}"
        return text
    if isinstance(value, dict):
        return "{}"
    if isinstance(value, list):
        return "[]"
    return _quoted(str(value))


def _quoted(text: str) -> str:
    return '"' + "".join(_escape(char) for char in text) + '"'


def _escape(char: str) -> str:
    if char in _ESCAPES:
        return _ESCAPES[char]
    code = ord(char)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xD7FF or 0xE000 <= code <= 0xFFFD:
        return char if code not in (0xFEFF, 0x2028, 0x2029) else f"\\u{code:04x}"
    if code >= 0x10000:
        return char
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"
