"""Model names: the bare id in every spelling, and the family (google-adk's model_name_utils)."""

from __future__ import annotations

import re

from adk_runtime.utils.env_utils import is_env_enabled

__all__ = [
    "extract_model_name",
    "is_gemini_1_model",
    "is_gemini_3_5_live_translate",
    "is_gemini_eap_or_2_or_above",
    "is_gemini_model",
    "is_gemini_model_id_check_disabled",
]

_VERTEX_PATH = re.compile(r"^projects/[^/]+/locations/[^/]+/publishers/[^/]+/models/(.+)$")
_APIGEE_PATH = re.compile(r"^apigee/(?:[^/]+/){0,2}(.+)$")
_GEMINI_1 = re.compile(r"gemini-1\.\d")
_EARLY_ACCESS = re.compile(r"gemini-(?:[a-z0-9_]+(?:-[a-z0-9_]+)*-)?early-exp\d*")
_RELEASE = re.compile(r"v?(\d+)(?:\.\d+)*")
_CHECK_DISABLED_VARIABLE = "ADK_DISABLE_GEMINI_MODEL_ID_CHECK"


def extract_model_name(model: str) -> str:
    """The bare model id in ``model``: ``gemini-2.5-flash`` for every spelling of it.

    A Vertex AI resource path (``projects/p/locations/l/publishers/google/models/<id>``)
    gives its last segment, an Apigee path (``apigee/[provider/][version/]<id>``) its model
    id, ``models/<id>`` gives ``<id>``, and a provider-prefixed Gemini name
    (``gemini/gemini-2.5-flash``, ``openrouter/google/gemini-…``) its last segment. Anything
    else, other ``projects/…`` paths included, comes back unchanged.
    """
    for path in (_VERTEX_PATH, _APIGEE_PATH):
        match = path.match(model)
        if match:
            return match.group(1)
    if model.startswith("models/"):
        return model.removeprefix("models/")
    if model.startswith("projects/"):
        return model
    last = model.rsplit("/", 1)[-1]
    return last if last.startswith("gemini-") else model


def is_gemini_model(model: str | None) -> bool:
    """Whether ``model`` names a Gemini model (``gemini-…``, also as a resource path)."""
    if not model:
        return False
    return extract_model_name(model).startswith("gemini-")


def is_gemini_1_model(model: str | None) -> bool:
    """Whether ``model`` names a Gemini 1.x model (``gemini-1.5-flash``, also as a path)."""
    return bool(model) and _GEMINI_1.match(extract_model_name(model or "")) is not None


def is_gemini_eap_or_2_or_above(model: str | None) -> bool:
    """Whether ``model`` names Gemini 2 or later, or an early-access Gemini model.

    The version is the part after ``gemini-`` up to the next ``-`` (``2.5`` in
    ``gemini-2.5-flash``; ``2`` in ``gemini-2``); a name whose version does not parse
    (``gemini-2.``, ``gemini-one``) is not. Early-access ids carry no version:
    ``gemini-[<variant>-]early-exp[<n>]`` (``gemini-flash-early-exp3``).
    """
    if not model:
        return False
    name = extract_model_name(model)
    if _EARLY_ACCESS.fullmatch(name):
        return True
    if not name.startswith("gemini-"):
        return False
    version = name.removeprefix("gemini-").split("-", 1)[0]
    release = _RELEASE.fullmatch(version)
    return release is not None and int(release.group(1)) >= 2


def is_gemini_model_id_check_disabled() -> bool:
    """Whether ``ADK_DISABLE_GEMINI_MODEL_ID_CHECK`` is on.

    Gemini-only features then accept model ids that do not follow the public ``gemini-…``
    names (internal deployments).
    """
    return is_env_enabled(_CHECK_DISABLED_VARIABLE)


def is_gemini_3_5_live_translate(model: str | None) -> bool:
    """Whether ``model`` names a Gemini 3.5 Live Translate model.

    A Live API model, which adk_runtime does not run; the name check is here for code that
    asks.
    """
    return bool(model) and extract_model_name(model or "").startswith("gemini-3.5-live-translate")
