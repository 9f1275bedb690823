"""Every parameter of google-adk's public functions and methods is taken here, or is listed.

Code written for google-adk passes arguments by keyword (``run_async(abort_signal=...)``,
``McpToolset(elicitation_callback=...)``); a parameter missing here is a ``TypeError`` at the
call. A function of ours that takes ``**kwargs`` takes them all. A gap not in
``omissions.SIGNATURES_OMITTED`` (``module:qualname(parameter)``) fails, and so does an entry
there that is no longer a gap.
"""

from __future__ import annotations

import inspect
from typing import Any

from tests.parity.adk_reference import reference_functions
from tests.parity.omissions import AREAS, MEMBERS_OMITTED, OMITTED, SIGNATURES_OMITTED
from tests.parity.test_module_parity import _omitted_module, _ours


def _ours_of(module: Any, qualname: str) -> Any:
    target = module
    for part in qualname.split("."):
        target = getattr(target, part, None)
        if target is None:
            return None
    return target


def _taken(function: Any) -> set[str] | None:
    """The keyword names ``function`` takes; None when it takes any (``**kwargs``)."""
    try:
        parameters = inspect.signature(function).parameters.values()
    except (TypeError, ValueError):
        return None
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters):
        return None
    return {p.name for p in parameters}


def _signature_gaps() -> tuple[list[str], set[str]]:
    unlisted: list[str] = []
    used: set[str] = set()
    for ref in reference_functions(AREAS):
        owner = ref.qualname.split(".")[0]
        if _omitted_module(ref.module) or f"{ref.module}:{owner}" in OMITTED:
            continue
        if f"{ref.module}:{ref.qualname}" in MEMBERS_OMITTED:
            continue
        module = _ours(ref.module)
        function = _ours_of(module, ref.qualname) if module is not None else None
        taken = _taken(function) if callable(function) else None
        if taken is None:
            continue  # missing names are the module and member tests' to report
        for parameter in ref.parameters:
            if parameter in taken:
                continue
            key = f"{ref.module}:{ref.qualname}({parameter})"
            if key in SIGNATURES_OMITTED:
                used.add(key)
            else:
                unlisted.append(f"google.adk.{ref.module}.{ref.qualname}({parameter}=...)")
    return unlisted, used


def test_every_parameter_is_taken_here_or_listed() -> None:
    unlisted, _ = _signature_gaps()
    assert not unlisted, (
        "parameters of google-adk functions not taken here; add them or list them with a "
        "reason in tests/parity/omissions.py (SIGNATURES_OMITTED):\n" + "\n".join(unlisted)
    )


def test_every_listed_parameter_is_still_missing() -> None:
    _, used = _signature_gaps()
    stale = sorted(set(SIGNATURES_OMITTED) - used)
    assert not stale, f"listed as missing but taken now (or gone from google-adk): {stale}"
