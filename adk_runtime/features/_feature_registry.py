"""Feature switches (``google.adk.features._feature_registry`` → here).

The public names are re-exported by :mod:`adk_runtime.features`.

google-adk gates experimental behaviour behind named switches that code turns on with
:func:`override_feature_enabled` or the environment (``ADK_ENABLE_<NAME>`` /
``ADK_DISABLE_<NAME>``). adk_runtime has no experimental behaviour behind switches, so
:class:`FeatureName` lists only the google-adk switches whose meaning holds here, and each
says what it does here:

- ``IN_MEMORY_SESSION_SERVICE_LIGHT_COPY``: in google-adk, sessions returned by the in-memory
  service share nested values with the stored ones instead of being deep copies. Here every
  session the in-memory service returns is decoded afresh from its stored JSON, so it never
  shares anything with the store whether the switch is on or off; the switch is accepted so
  that code setting it keeps working, and it changes nothing.
- ``JSON_SCHEMA_FOR_FUNC_DECL`` (on by default, as in google-adk): function declarations
  built by the runtime's tools carry their parameters as a JSON schema
  (``parameters_json_schema``). Off: as a google-genai ``types.Schema`` (``parameters``),
  Gemini's older form, with ``$ref`` definitions written out in place.
- ``MCP_AGENT_SERVER`` (on by default, as in google-adk): ``tools.mcp_tool.to_mcp_server``
  serves an agent over MCP. Off: calling it raises ``RuntimeError``.
- ``PROGRESSIVE_SSE_STREAMING`` (on by default, as in google-adk): a streamed model reply
  (``StreamingMode.SSE``) arrives as partial chunks of every kind (text, thoughts, function
  calls, streamed function-call arguments) and then one complete reply holding all of its
  parts in the order they came, which is the only one acted on and stored. Off: google-adk's
  earlier streaming, where only text is gathered across chunks; a chunk of anything else is
  passed on at once as a complete reply, after the text gathered up to it.
- ``SKILL_LIFECYCLE`` (off by default, as in google-adk): ``SkillToolset`` also offers
  ``unload_skill``, and later requests replace an unloaded skill's instructions by a notice.
- ``SNAKE_CASE_SKILL_NAME`` (off by default, as in google-adk): skill names may be
  ``snake_case`` as well as ``kebab-case``.

A switch google-adk has and this list lacks names a feature adk_runtime does not implement:
``FeatureName.<that name>`` is an ``AttributeError``, so such code fails where it names it.
"""

from __future__ import annotations

import contextlib
import enum
import os
from collections.abc import Iterator

__all__ = [
    "FeatureName",
    "is_feature_enabled",
    "override_feature_enabled",
    "temporary_feature_override",
]

_TRUE = frozenset({"1", "true", "yes", "on"})


class FeatureName(str, enum.Enum):
    """The switches adk_runtime knows (see the module docstring for what each does)."""

    IN_MEMORY_SESSION_SERVICE_LIGHT_COPY = "IN_MEMORY_SESSION_SERVICE_LIGHT_COPY"
    JSON_SCHEMA_FOR_FUNC_DECL = "JSON_SCHEMA_FOR_FUNC_DECL"
    MCP_AGENT_SERVER = "MCP_AGENT_SERVER"
    PROGRESSIVE_SSE_STREAMING = "PROGRESSIVE_SSE_STREAMING"
    SKILL_LIFECYCLE = "SKILL_LIFECYCLE"
    SNAKE_CASE_SKILL_NAME = "SNAKE_CASE_SKILL_NAME"


_DEFAULTS: dict[FeatureName, bool] = {
    FeatureName.IN_MEMORY_SESSION_SERVICE_LIGHT_COPY: False,
    FeatureName.JSON_SCHEMA_FOR_FUNC_DECL: True,
    FeatureName.MCP_AGENT_SERVER: True,
    FeatureName.PROGRESSIVE_SSE_STREAMING: True,
    FeatureName.SKILL_LIFECYCLE: False,
    FeatureName.SNAKE_CASE_SKILL_NAME: False,
}
_OVERRIDES: dict[FeatureName, bool] = {}


def override_feature_enabled(feature_name: FeatureName, enabled: bool) -> None:
    """Turn a switch on or off for this process, ahead of the environment and the default.

    Args:
        feature_name: The switch.
        enabled: Its new value.
    """
    _OVERRIDES[FeatureName(feature_name)] = bool(enabled)


def is_feature_enabled(feature_name: FeatureName) -> bool:
    """Whether a switch is on: an override, else ``ADK_ENABLE_``/``ADK_DISABLE_``, else default.

    Args:
        feature_name: The switch.

    Returns:
        The switch's current value.
    """
    name = FeatureName(feature_name)
    if name in _OVERRIDES:
        return _OVERRIDES[name]
    if os.environ.get(f"ADK_ENABLE_{name.value}", "").strip().lower() in _TRUE:
        return True
    if os.environ.get(f"ADK_DISABLE_{name.value}", "").strip().lower() in _TRUE:
        return False
    return _DEFAULTS[name]


@contextlib.contextmanager
def temporary_feature_override(feature_name: FeatureName, enabled: bool) -> Iterator[None]:
    """Turn a switch on or off inside a ``with`` block; its earlier override comes back after.

    Args:
        feature_name: The switch.
        enabled: Its value inside the block.
    """
    name = FeatureName(feature_name)
    had, earlier = name in _OVERRIDES, _OVERRIDES.get(name, False)
    _OVERRIDES[name] = bool(enabled)
    try:
        yield
    finally:
        if had:
            _OVERRIDES[name] = earlier
        else:
            _OVERRIDES.pop(name, None)
