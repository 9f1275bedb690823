"""Writing skill directories for the tests."""

from __future__ import annotations

from pathlib import Path


def write_skill(
    base: Path,
    name: str,
    *,
    description: str = "Fills PDF forms.",
    body: str = "Step 1: read references/guide.md.",
    extra_front: str = "",
    files: dict[str, str | bytes] | None = None,
) -> Path:
    """A skill directory ``base/name`` with ``SKILL.md`` and ``files`` (relative paths)."""
    root = base / name
    root.mkdir(parents=True, exist_ok=True)
    (root / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: {description}\n{extra_front}---\n{body}\n",
        encoding="utf-8",
    )
    for relative, content in (files or {}).items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root
