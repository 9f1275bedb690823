"""Every public member of google-adk's public classes exists on ours, or is listed.

A member is what a class's own body defines in google-adk (methods, properties, fields,
class attributes; not validators). It exists here as a class attribute, a pydantic or
dataclass field, or an attribute the class (or a base of ours) sets on ``self``. A gap not
in ``omissions.MEMBERS_OMITTED`` fails, and so does an entry there that is no longer a gap.
"""

from __future__ import annotations

import inspect
import re
from functools import cache

from tests.parity.adk_reference import reference_classes
from tests.parity.omissions import AREAS, MEMBERS_OMITTED, OMITTED
from tests.parity.test_module_parity import _omitted_module, _ours

_SELF_ASSIGNED = re.compile(r"self\.([A-Za-z]\w*)\s*(?::[^=\n]+)?=[^=]")


@cache
def _instance_attributes(cls: type) -> frozenset[str]:
    names: set[str] = set()
    for klass in inspect.getmro(cls):
        if klass.__module__.startswith("adk_runtime"):
            names.update(_SELF_ASSIGNED.findall(inspect.getsource(klass)))
    return frozenset(names)


def _has(cls: type, name: str) -> bool:
    fields = {*getattr(cls, "model_fields", {}), *getattr(cls, "__dataclass_fields__", {})}
    return hasattr(cls, name) or name in fields or name in _instance_attributes(cls)


def _member_gaps() -> tuple[list[str], set[str]]:
    """The member gaps not listed, and the listed entries that matched a gap."""
    unlisted: list[str] = []
    used: set[str] = set()
    for ref in reference_classes(AREAS):
        if _omitted_module(ref.module) or f"{ref.module}:{ref.name}" in OMITTED:
            continue
        module = _ours(ref.module)
        cls = getattr(module, ref.name, None) if module is not None else None
        if not isinstance(cls, type):
            continue  # a missing class is the module parity test's to report
        for member in sorted(ref.members):
            key = f"{ref.module}:{ref.name}.{member}"
            if _has(cls, member):
                continue
            if key in MEMBERS_OMITTED:
                used.add(key)
            else:
                unlisted.append(f"google.adk.{ref.module}.{ref.name}.{member}")
    return unlisted, used


def test_every_public_member_exists_here_or_is_listed() -> None:
    unlisted, _ = _member_gaps()
    assert not unlisted, (
        "members of google-adk classes missing here; add them or list them with a reason "
        "in tests/parity/omissions.py (MEMBERS_OMITTED):\n" + "\n".join(unlisted)
    )


def test_every_listed_member_is_still_missing() -> None:
    _, used = _member_gaps()
    stale = sorted(set(MEMBERS_OMITTED) - used)
    assert not stale, f"listed as missing but present (or gone from google-adk): {stale}"
