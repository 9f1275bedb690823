"""Boolean switches read from the environment (google-adk's ``utils.env_utils``)."""

from __future__ import annotations

import os
import warnings

__all__ = ["is_enterprise_mode_enabled", "is_env_enabled"]

_ON = frozenset({"1", "true", "yes", "on"})
_GENAI_ON = frozenset({"1", "true"})


def is_env_enabled(env_var_name: str, default: str = "0") -> bool:
    """Whether the variable is on: ``1``, ``true``, ``yes`` or ``on``, in any case.

    Surrounding whitespace is ignored; ``default`` is read the same way when the variable
    is not set.
    """
    return os.environ.get(env_var_name, default).strip().lower() in _ON


def is_enterprise_mode_enabled() -> bool:
    """Whether google-genai talks to Vertex AI (Gemini Enterprise) rather than the Gemini API.

    ``GOOGLE_GENAI_USE_ENTERPRISE`` decides when it is set; otherwise the older
    ``GOOGLE_GENAI_USE_VERTEXAI`` does, with a ``DeprecationWarning``. Only ``true`` and ``1``
    (any case, no whitespace) are on, as google-genai reads them.
    """
    if "GOOGLE_GENAI_USE_ENTERPRISE" in os.environ:
        return os.environ["GOOGLE_GENAI_USE_ENTERPRISE"].lower() in _GENAI_ON
    if "GOOGLE_GENAI_USE_VERTEXAI" in os.environ:
        warnings.warn(
            "GOOGLE_GENAI_USE_VERTEXAI is deprecated; set GOOGLE_GENAI_USE_ENTERPRISE instead.",
            DeprecationWarning,
            stacklevel=2,
        )
        return os.environ["GOOGLE_GENAI_USE_VERTEXAI"].lower() in _GENAI_ON
    return False
