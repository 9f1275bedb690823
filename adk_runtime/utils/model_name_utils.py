"""Model names: the bare id in every spelling, and the family (google-adk's model_name_utils)."""

from __future__ import annotations

import re

__all__ = ["extract_model_name", "is_gemini_1_model", "is_gemini_model"]

_VERTEX_PATH = re.compile(r"^projects/[^/]+/locations/[^/]+/publishers/[^/]+/models/(.+)$")


def extract_model_name(model: str) -> str:
    """The bare model id in ``model``: ``gemini-2.5-flash`` for every spelling of it.

    A Vertex AI resource path (``projects/p/locations/l/publishers/google/models/<id>``)
    gives its last segment, ``models/<id>`` gives ``<id>``, and a provider-prefixed Gemini
    name (``gemini/gemini-2.5-flash``, ``apigee/.../gemini-…``) its last segment. Anything
    else, other ``projects/…`` paths included, comes back unchanged.
    """
    match = _VERTEX_PATH.match(model)
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


_GEMINI_1 = re.compile(r"gemini-1\.\d")


def is_gemini_1_model(model: str | None) -> bool:
    """Whether ``model`` names a Gemini 1.x model (``gemini-1.5-flash``, also as a path)."""
    return bool(model) and _GEMINI_1.match(extract_model_name(model or "")) is not None
