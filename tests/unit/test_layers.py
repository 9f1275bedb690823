"""The package's import graph: every import points down, faces aside.

import-linter (``make lint``) enforces the layers contract in ``pyproject.toml``. These tests
hold what it cannot say: that the graph of top-level packages has no cycle when every import
counts (module level, inside functions, under ``TYPE_CHECKING``, ``importlib.import_module``
of a literal name), that every top-level package is placed in the contract, and that the
imports the contract ignores are made only by face modules (modules that re-export names at
google-adk's paths and define nothing), and that a package's table of names loaded on first use
(``__getattr__ = lazy_getattr(__name__, {name: module})``, ``adk_runtime/_lazy.py``) is read
here and seen by import-linter as well.
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest
import tomllib

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "adk_runtime"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, ast.Module]:
    return {_module_name(p): ast.parse(p.read_text(), str(p)) for p in PACKAGE.rglob("*.py")}


MODULES = _modules()


def _is_face_statement(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import | ast.ImportFrom):
        return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant):
        return True  # the docstring
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        return ast.unparse(node.value.func) == "warnings.warn"  # a moved path warns
    if isinstance(node, ast.Assign):
        return [ast.unparse(t) for t in node.targets] == ["__all__"] or bool(_lazy_call(node))
    if isinstance(node, ast.If):
        return ast.unparse(node.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
    if isinstance(node, ast.FunctionDef):
        return node.name in ("__getattr__", "__dir__")  # names loaded on first use
    return False


def _lazy_call(node: ast.stmt) -> ast.Call | None:
    """The call of ``__getattr__ = lazy_getattr(__name__, {...})`` (names loaded on first use,
    as a ``def __getattr__`` loads them), or None if ``node`` is not that statement."""
    if (
        isinstance(node, ast.Assign)
        and [ast.unparse(t) for t in node.targets] == ["__getattr__"]
        and isinstance(node.value, ast.Call)
        and ast.unparse(node.value.func).endswith("lazy_getattr")
    ):
        return node.value
    return None


def _string(node: ast.expr | None, module: str) -> str:
    assert isinstance(node, ast.Constant), f"{module}: a lazy table holds string literals"
    assert isinstance(node.value, str), f"{module}: a lazy table holds string literals"
    return node.value


def lazy_table(module: str) -> dict[str, str]:
    """The names ``module`` loads on first use through ``lazy_getattr``: name → module.

    The table must be a literal of strings, so that this test reads every edge it makes.
    """
    table: dict[str, str] = {}
    for node in MODULES[module].body:
        call = _lazy_call(node)
        if call is None:
            continue
        mapping = call.args[1] if len(call.args) > 1 else None
        assert isinstance(mapping, ast.Dict), f"{module}: lazy_getattr needs a dict literal"
        for key, value in zip(mapping.keys, mapping.values, strict=True):
            table[_string(key, module)] = _string(value, module)
    return table


def is_face(module: str) -> bool:
    """Whether ``module`` only re-exports (imports, ``__all__``, lazy ``__getattr__``)."""
    return all(_is_face_statement(node) for node in MODULES[module].body)


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    package = module.split(".")
    if not MODULES_IS_PACKAGE[module]:
        package.pop()
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


MODULES_IS_PACKAGE = {_module_name(p): p.name == "__init__.py" for p in PACKAGE.rglob("*.py")}


def _nodes(module: str) -> Iterator[ast.AST]:
    """Every node of ``module`` but those of its ``__getattr__`` (names loaded lazily are
    re-exports, as a face's are)."""
    for statement in MODULES[module].body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "__getattr__":
            continue
        yield from ast.walk(statement)


def imports(module: str) -> Iterator[str]:
    """Every ``adk_runtime`` module ``module`` imports, wherever the import stands (faces and
    lazy ``def __getattr__`` re-exports aside), the modules of its lazy table included."""
    yield from (target for target in lazy_table(module).values() if target in MODULES)
    for node in _nodes(module):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            source = _resolve(module, node)
            names = [source] + [f"{source}.{alias.name}" for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and ast.unparse(node.func).endswith("import_module")
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            names = [node.args[0].value]
        for name in names:
            while name and name not in MODULES:
                name = name.rpartition(".")[0]
            if name.startswith("adk_runtime.") and name != module:
                yield name


def top(module: str) -> str:
    return ".".join(module.split(".")[:2])


def package_graph() -> dict[str, dict[str, list[tuple[str, str]]]]:
    """Top-level package → the packages it imports → the module pairs that do (faces aside)."""
    graph: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for module in MODULES:
        if module == "adk_runtime" or is_face(module):
            continue
        for target in imports(module):
            if top(target) != top(module):
                edges = graph.setdefault(top(module), {})
                edges.setdefault(top(target), []).append((module, target))
    return graph


def find_cycle(graph: dict[str, dict[str, list[tuple[str, str]]]]) -> list[str] | None:
    """A cycle of the graph as the list of its nodes, or None."""
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, {})):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state:
                found = visit(target)
                if found:
                    return found
        path.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state:
            found = visit(node)
            if found:
                return found
    return None


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _layers_contract() -> dict[str, object]:
    (layers,) = [c for c in _contracts() if c["type"] == "layers"]
    return layers


def test_no_cycle_among_top_level_packages_counting_every_import() -> None:
    graph = package_graph()
    cycle = find_cycle(graph)
    if cycle is not None:
        pairs = [graph[a][b][0] for a, b in itertools.pairwise(cycle)]
        pytest.fail(f"import cycle {' -> '.join(cycle)}; e.g. {pairs}")


def test_every_top_level_package_has_a_layer() -> None:
    contract = _layers_contract()
    placed = {
        name.strip()
        for layer in contract["layers"]  # type: ignore[attr-defined]
        for name in layer.replace("|", ":").split(":")
    }
    tops = {top(m) for m in MODULES if m != "adk_runtime"}
    assert tops - placed == set(), "place these packages in the layers contract"
    assert placed - tops == set(), "the contract names packages that do not exist"


def test_the_contract_counts_type_only_imports() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    assert not config.get("exclude_type_checking_imports", False)


def _lazy_only(module: str, target: str) -> bool:
    """Whether ``module`` imports ``target`` (or below it) only inside its ``__getattr__``."""
    prefix = target.rstrip("*").rstrip(".")
    for node in MODULES[module].body:
        if isinstance(node, ast.FunctionDef) and node.name == "__getattr__":
            continue
        for inner in ast.walk(node):
            if isinstance(inner, ast.ImportFrom) and (inner.module or "").startswith(prefix):
                return False
            if isinstance(inner, ast.Import) and any(
                a.name.startswith(prefix) for a in inner.names
            ):
                return False
    return True


def test_only_faces_are_excused_from_the_layers() -> None:
    excused = [
        [side.strip() for side in rule.split("->")]
        for contract in _contracts()
        for rule in contract.get("ignore_imports", [])  # type: ignore[attr-defined]
    ]
    assert excused, "the contract excuses no import: drop this test's premise"
    not_faces = [
        (module, target)
        for module, target in excused
        if module not in MODULES or not (is_face(module) or _lazy_only(module, target))
    ]
    assert not_faces == [], (
        "an excused importer must be a face module (re-exports only), or load the name "
        "lazily (in its module __getattr__)"
    )


def _type_checking_imports(module: str) -> set[tuple[str, str]]:
    """(module, name) of each ``from module import name`` under ``if TYPE_CHECKING:``."""
    found: set[tuple[str, str]] = set()
    for node in MODULES[module].body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for inner in ast.walk(node):
                if isinstance(inner, ast.ImportFrom):
                    found |= {(_resolve(module, inner), a.name) for a in inner.names}
    return found


def test_a_lazy_table_names_what_the_type_checker_imports() -> None:
    """Each name of a lazy table is imported under ``TYPE_CHECKING`` too: type checkers know
    it, and import-linter (which reads no table) sees the edge, so a table points only where
    a plain import may (no ``ignore_imports`` line can excuse it: the import is not lazy)."""
    tables = {module: lazy_table(module) for module in MODULES}
    tables = {module: table for module, table in tables.items() if table}
    assert "adk_runtime.sessions" in tables, "no lazy table found: drop this test's premise"
    missing = [
        (module, name, target)
        for module, table in sorted(tables.items())
        for name, target in table.items()
        if target not in MODULES or (target, name) not in _type_checking_imports(module)
    ]
    assert missing == [], "import these names under TYPE_CHECKING, from these modules"


def test_a_lazy_table_is_read_as_imports() -> None:
    assert lazy_table("adk_runtime.sessions") == {
        "RedisSessionService": "adk_runtime.sessions.redis",
        "DatabaseSessionService": "adk_runtime.sessions.sql",
        "VertexAiSessionService": "adk_runtime.sessions.vertex_ai_session_service",
    }
    assert {"adk_runtime.sessions.redis", "adk_runtime.sessions.sql"} <= set(
        imports("adk_runtime.sessions")
    )
    assert is_face("adk_runtime.sessions")


def test_the_cycle_finder_finds_a_cycle() -> None:
    graph = {"a": {"b": [("a.x", "b.y")]}, "b": {"c": [("b.y", "c.z")]}, "c": {"a": [("c", "a")]}}
    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": []}, "b": {}}) is None


def test_a_module_that_defines_something_is_no_face() -> None:
    assert is_face("adk_runtime.agents.base_agent")
    assert not is_face("adk_runtime.core.base_agent")


def _google_adk_importers() -> list[str]:
    found = []
    for module, tree in MODULES.items():
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and not node.level:
                names = [node.module or ""]
            elif isinstance(node, ast.Call) and ast.unparse(node.func).endswith("import_module"):
                names = [ast.unparse(arg).strip("'\"") for arg in node.args[:1]]
            if any(name == "google.adk" or name.startswith("google.adk.") for name in names):
                found.append(module)
    return found


def test_google_adk_is_imported_only_under_integrations() -> None:
    importers = _google_adk_importers()
    assert importers, "no module imports google.adk: the bridge must be somewhere"
    assert [m for m in importers if not m.startswith("adk_runtime.integrations.")] == []
