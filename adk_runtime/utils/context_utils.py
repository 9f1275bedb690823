"""google-adk's path; the names live in :mod:`adk_runtime.core._context_parameter` and stdlib.

``Aclosing`` is ``contextlib.aclosing``: ``async with Aclosing(agen):`` closes ``agen`` when
the block ends.
"""

from contextlib import aclosing as Aclosing

from adk_runtime.core._context_parameter import find_context_parameter

__all__ = ["Aclosing", "find_context_parameter"]
