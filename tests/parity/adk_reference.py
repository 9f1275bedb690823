"""google-adk's public modules and the names each defines, read from its source (never imported).

The reference is google-adk's source distribution installed without its dependencies into
``.venv/adk-reference`` by ``make install`` (``ADK_RUNTIME_ADK_REFERENCE`` names another
directory); a google-adk installed in the running environment (``make bench``) is used when
that directory is absent. The files are parsed with :mod:`ast`, so google-adk's dependencies
(and its pins, which would hold google-genai back) are never needed.

A module is public when no part of its dotted path starts with ``_``. Its public names are the
names it binds at top level (``class``, ``def``, assignments; not under ``if TYPE_CHECKING``)
plus its ``__all__``, less private names, ``logger`` and submodules.
"""

from __future__ import annotations

import ast
import importlib.metadata
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeGuard

REPO = Path(__file__).resolve().parents[2]
PYPROJECT = REPO / "pyproject.toml"
DEFAULT_REFERENCE_DIR = REPO / ".venv" / "adk-reference"


def pinned_version() -> str:
    """The google-adk version the project compares itself with (the ``bench`` extra's pin)."""
    match = re.search(r'"google-adk==([^"]+)"', PYPROJECT.read_text(encoding="utf-8"))
    if match is None:
        raise AssertionError("pyproject.toml pins no google-adk version (bench extra)")
    return match.group(1)


class ReferenceMissingError(AssertionError):
    """google-adk's source is not where the parity test looks for it."""


@dataclass(frozen=True)
class RefModule:
    """One public google-adk module: its path under ``google.adk`` and its public names."""

    path: str
    names: frozenset[str]
    is_package: bool


def reference_distribution() -> importlib.metadata.Distribution:
    """Find google-adk at the pinned version, or fail saying how to get it."""
    version = pinned_version()
    where = Path(os.environ.get("ADK_RUNTIME_ADK_REFERENCE", DEFAULT_REFERENCE_DIR))
    candidates = list(importlib.metadata.distributions(name="google-adk", path=[str(where)]))
    candidates += list(importlib.metadata.distributions(name="google-adk"))
    for dist in candidates:
        if dist.version == version:
            return dist
    found = ", ".join(sorted({d.version for d in candidates})) or "none"
    raise ReferenceMissingError(
        f"google-adk {version} source not found in {where} or the environment (found: "
        f"{found}); run `make install` (it installs it there with --no-deps)"
    )


def reference_modules(areas: tuple[str, ...]) -> Iterator[RefModule]:
    """Yield ``google.adk`` itself (path ``""``) and the public modules of
    ``google.adk.<area>`` for each area, sorted by path."""
    dist = reference_distribution()
    files = sorted(str(f) for f in dist.files or [] if str(f).startswith("google/adk/"))
    sources = {f: Path(str(dist.locate_file(f))) for f in files if f.endswith(".py")}
    module_paths = {_dotted(f) for f in sources}
    for file, source in sources.items():
        path = _dotted(file)  # "" for the package itself (``from google.adk import Agent``)
        parts = path.split(".")
        if path and (parts[0] not in areas or any(p.startswith("_") for p in parts)):
            continue
        names = {
            n for n in _public_names(source) if (f"{path}.{n}" if path else n) not in module_paths
        }
        yield RefModule(path, frozenset(names), file.endswith("__init__.py"))


@dataclass(frozen=True)
class RefClass:
    """One public class of a public google-adk module and the public members of its body."""

    module: str
    name: str
    members: frozenset[str]


_VALIDATORS = frozenset(
    {"field_validator", "model_validator", "validator", "root_validator", "field_serializer"}
)


def _public_trees(areas: tuple[str, ...]) -> Iterator[tuple[str, list[ast.stmt]]]:
    """Each public module of the areas with the top-level statements that define its names.

    Those are its own body plus the definitions of the names it re-exports from a private
    module (``from ._node import Node``, or a lazy ``{"Node": "._node"}`` table, as
    ``google.adk.workflow`` does): such a class is public under the public module's path.
    """
    dist = reference_distribution()
    files = sorted(str(f) for f in dist.files or [] if str(f).startswith("google/adk/"))
    sources = {_dotted(f): Path(str(dist.locate_file(f))) for f in files if f.endswith(".py")}
    packages = {_dotted(f) for f in files if f.endswith("/__init__.py")}
    for path, source in sources.items():
        parts = path.split(".")
        if not path or parts[0] not in areas or any(p.startswith("_") for p in parts):
            continue
        tree = ast.parse(source.read_text(encoding="utf-8"), str(source))
        package = path if path in packages else path.rpartition(".")[0]
        body = list(tree.body)
        defined = {s.name for s in body if isinstance(s, _DEFINITIONS)}
        public = _public_names(source)
        for name, origin in sorted(_private_origins(tree, package).items()):
            if name in defined or name not in public or origin not in sources:
                continue
            origin_tree = ast.parse(sources[origin].read_text(encoding="utf-8"))
            body += [s for s in origin_tree.body if isinstance(s, _DEFINITIONS) and s.name == name]
        yield path, body


_DEFINITIONS = (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)


def _private_origins(tree: ast.Module, package: str) -> dict[str, str]:
    """Names a module imports from a private module of its own package, and that module."""
    origins: dict[str, str] = {}
    for stmt in ast.walk(tree):
        if isinstance(stmt, ast.ImportFrom) and stmt.level == 1 and stmt.module:
            for alias in stmt.names:
                origins[alias.asname or alias.name] = f"{package}.{stmt.module}"
    for stmt in tree.body:  # lazy tables: {"Node": "._node", ...}
        if isinstance(stmt, ast.Assign | ast.AnnAssign) and isinstance(stmt.value, ast.Dict):
            for key, value in zip(stmt.value.keys, stmt.value.values, strict=True):
                if _is_str(key) and _is_str(value) and str(value.value).startswith("."):
                    origins[str(key.value)] = f"{package}.{str(value.value)[1:]}"
    return {
        name: module
        for name, module in origins.items()
        if any(part.startswith("_") for part in module.split("."))
    }


def _is_str(node: ast.expr | None) -> TypeGuard[ast.Constant]:
    return isinstance(node, ast.Constant) and isinstance(node.value, str)


def reference_classes(areas: tuple[str, ...]) -> Iterator[RefClass]:
    """Yield each public class defined at the top of a public module of the areas.

    Its members are what its own body defines: methods and properties, annotated fields and
    class attributes, less private names, ``model_config`` and pydantic validators (which
    are not called by users). Inherited members belong to the base class's entry.
    """
    for path, body in _public_trees(areas):
        for node in body:
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                yield RefClass(path, node.name, frozenset(_members(node)))


@dataclass(frozen=True)
class RefFunction:
    """A public function or method of google-adk and the names of its parameters."""

    module: str
    qualname: str  # ``function`` or ``Class.method``
    parameters: tuple[str, ...]


def reference_functions(areas: tuple[str, ...]) -> Iterator[RefFunction]:
    """Yield the public functions of public modules and the public methods (and
    ``__init__``) of their public classes, less validators and ``model_post_init``."""
    for path, body in _public_trees(areas):
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if not node.name.startswith("_"):
                    yield RefFunction(path, node.name, _parameters(node))
            elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                for method in filter(_called_by_users, node.body):
                    assert isinstance(method, (ast.FunctionDef, ast.AsyncFunctionDef))
                    yield RefFunction(path, f"{node.name}.{method.name}", _parameters(method))


def _called_by_users(stmt: ast.stmt) -> bool:
    if not isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return False
    if stmt.name == "model_post_init" or (stmt.name.startswith("_") and stmt.name != "__init__"):
        return False
    return not any(_decorator_name(d) in _VALIDATORS for d in stmt.decorator_list)


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    arguments = node.args
    names = [a.arg for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]]
    return tuple(n for n in names if n not in ("self", "cls"))


def _members(node: ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for stmt in node.body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not any(_decorator_name(d) in _VALIDATORS for d in stmt.decorator_list):
                names.add(stmt.name)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            names.add(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            names.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    return {n for n in names if not n.startswith("_") and n != "model_config"}


def _decorator_name(decorator: ast.expr) -> str:
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    if isinstance(target, ast.Attribute):
        return target.attr
    return target.id if isinstance(target, ast.Name) else ""


def _dotted(file: str) -> str:
    parts = file.removesuffix(".py").split("/")[2:]
    if parts and parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _public_names(source: Path) -> set[str]:
    tree = ast.parse(source.read_text(encoding="utf-8"), str(source))
    bound: set[str] = set()
    exported: list[str] = []
    _collect(tree.body, bound, exported, _dict_literals(tree.body))
    return {n for n in bound | set(exported) if not n.startswith("_") and n != "logger"}


def _collect(
    body: list[ast.stmt], bound: set[str], exported: list[str], dicts: dict[str, list[str]]
) -> None:
    for stmt in body:
        if isinstance(stmt, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            bound.add(stmt.name)
        elif isinstance(stmt, ast.Assign):
            _assigned(stmt, bound, exported, dicts)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            bound.add(stmt.target.id)
        elif _extends_all(stmt):  # __all__.extend([...]) / .append("x") / += [...]
            exported.extend(_all_additions(stmt, dicts))
        elif isinstance(stmt, ast.If) and "TYPE_CHECKING" not in ast.unparse(stmt.test):
            _collect(stmt.body + stmt.orelse, bound, exported, dicts)
        elif isinstance(stmt, ast.Try):
            _collect(stmt.body, bound, exported, dicts)


def _assigned(
    stmt: ast.Assign, bound: set[str], exported: list[str], dicts: dict[str, list[str]]
) -> None:
    for target in stmt.targets:
        if isinstance(target, ast.Name) and target.id == "__all__":
            exported.extend(_all_value(stmt.value, dicts))
        elif isinstance(target, ast.Name):
            bound.add(target.id)


def _extends_all(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.AugAssign):
        return isinstance(stmt.target, ast.Name) and stmt.target.id == "__all__"
    if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
        return False
    func = stmt.value.func
    return (
        isinstance(func, ast.Attribute)
        and func.attr in {"extend", "append"}
        and isinstance(func.value, ast.Name)
        and func.value.id == "__all__"
    )


def _all_additions(stmt: ast.stmt, dicts: dict[str, list[str]]) -> list[str]:
    if isinstance(stmt, ast.AugAssign):
        return _all_value(stmt.value, dicts)
    assert isinstance(stmt, ast.Expr)
    assert isinstance(stmt.value, ast.Call)
    call = stmt.value
    if not call.args:
        return []
    argument = call.args[0]
    if isinstance(call.func, ast.Attribute) and call.func.attr == "append":
        return (
            [argument.value]
            if isinstance(argument, ast.Constant) and isinstance(argument.value, str)
            else []
        )
    return _all_value(argument, dicts)


def _dict_literals(body: list[ast.stmt]) -> dict[str, list[str]]:
    """Top-level ``NAME = {"key": ...}`` assignments whose keys are all strings."""
    found: dict[str, list[str]] = {}
    for stmt in body:
        if not (isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict)):
            continue
        keys = [k.value for k in stmt.value.keys if isinstance(k, ast.Constant)]
        target = stmt.targets[0]
        if isinstance(target, ast.Name) and all(isinstance(k, str) for k in keys):
            found[target.id] = [str(k) for k in keys]
    return found


def _all_value(value: ast.expr, dicts: dict[str, list[str]]) -> list[str]:
    """``__all__`` as a literal list, or ``list(<dict literal>)`` / ``list(<dict>.keys())``."""
    if isinstance(value, (ast.List, ast.Tuple)):
        return [ast.literal_eval(e) for e in value.elts]
    text = ast.unparse(value)
    match = re.fullmatch(r"list\((\w+)(?:\.keys\(\))?\)", text)
    if match is not None and match.group(1) in dicts:
        return dicts[match.group(1)]
    raise AssertionError(f"cannot read __all__ = {text}: teach tests/parity/adk_reference.py")
