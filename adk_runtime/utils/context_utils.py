"""``google.adk.utils.context_utils``: ``Aclosing``, an async generator closed on exit."""

from __future__ import annotations

from contextlib import aclosing

__all__ = ["Aclosing"]

Aclosing = aclosing
"""``async with Aclosing(agen):`` closes ``agen`` when the block ends (``contextlib.aclosing``)."""
