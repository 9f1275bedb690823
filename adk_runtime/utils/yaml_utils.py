"""Read a YAML file; write a pydantic model as readable YAML (google-adk's ``utils.yaml_utils``)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from pydantic import BaseModel

if TYPE_CHECKING:
    from pydantic.main import IncEx

__all__ = ["dump_pydantic_to_yaml", "load_yaml_file"]


def load_yaml_file(file_path: str | Path) -> Any:
    """The content of a YAML file (``yaml.safe_load``: plain data only, no Python objects).

    Raises:
        FileNotFoundError: There is no file at ``file_path``.
    """
    path = Path(file_path)
    if not path.is_file():
        raise FileNotFoundError(f"There is no YAML file at {path}.")
    with path.open(encoding="utf-8") as stream:
        return yaml.safe_load(stream)


class _ReadableDumper(yaml.SafeDumper):
    """A safe dumper that indents lists under their key and writes multi-line text as blocks."""

    def increase_indent(self, flow: bool = False, indentless: bool = False) -> None:
        """Indent a list nested in a mapping (PyYAML writes it flush with its key)."""
        del indentless
        super().increase_indent(flow, False)


def _represent_str(dumper: yaml.SafeDumper, data: str) -> yaml.ScalarNode:
    """Text with a line break or a quote as a ``|`` block, so it reads as written."""
    style = "|" if any(mark in data for mark in ("\n", '"', "'")) else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)


_ReadableDumper.add_representer(str, _represent_str)


def dump_pydantic_to_yaml(
    model: BaseModel,
    file_path: str | Path,
    *,
    indent: int = 2,
    sort_keys: bool = True,
    exclude_none: bool = True,
    exclude_defaults: bool = True,
    exclude: IncEx | None = None,
) -> None:
    """Write ``model`` (its JSON-mode dump) to a YAML file, creating the parent directories.

    Lists are indented under their key, text with line breaks or quotes is written as a
    ``|`` block, lines are never wrapped and non-ASCII characters are kept as they are.

    Args:
        model: The model to write.
        file_path: The file to write (replaced if it exists).
        indent: Spaces per nesting level.
        sort_keys: Write mapping keys in sorted order.
        exclude_none: Leave out fields whose value is None.
        exclude_defaults: Leave out fields that have their default value.
        exclude: Fields to leave out (pydantic's ``exclude``).
    """
    data = model.model_dump(
        mode="json", exclude_none=exclude_none, exclude_defaults=exclude_defaults, exclude=exclude
    )
    path = Path(file_path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as stream:
        yaml.dump(
            data,
            stream,
            Dumper=_ReadableDumper,
            indent=indent,
            sort_keys=sort_keys,
            width=float("inf"),
            allow_unicode=True,
        )
