"""Which modules an agent YAML file may not name (google-adk's module denylist).

A config file names Python objects to import and use. That is running code by design, so
the files must be trusted; the denylist only closes the shortest paths from a file to a
shell: no object of the standard library (``os.system``, ``subprocess.Popen``,
``builtins.exec``, ``pickle.loads``...) and none of a few installed packages that run code
given as data (PyYAML's unsafe loaders, ruamel.yaml). It cannot cover every third-party
package: it is a guard rail, not a sandbox.

A second switch, off by default (google-adk turns it on for its web UI, whose builder writes
YAML files), refuses the ``args`` key: ``args`` call a constructor or a function the file
names. The one exception is an ``McpToolset`` tool entry of a built-in ``LlmAgent`` whose
``args`` are plain data (the connection, a list of tool names, a prefix...).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from typing import Any

from adk_runtime.errors import AgentConfigError

__all__ = ["check_config_keys", "check_module_reference", "set_enforced", "set_keys_enforced"]

# The standard library in full: too much of it executes a string it is handed.
_STDLIB = frozenset(sys.stdlib_module_names) | frozenset(sys.builtin_module_names)
# Modules outside `sys.stdlib_module_names` on some supported Python: those removed from the
# standard library but still installable, CPython's test packages, and code-running loaders.
_ALSO_BLOCKED = frozenset(
    {
        "asynchat",
        "asyncore",
        "cgi",
        "commands",
        "crypt",
        "distutils",
        "imp",
        "mailcap",
        "nntplib",
        "pipes",
        "smtpd",
        "telnetlib",
        "uu",
        "test",
        "_testcapi",
        "_testinternalcapi",
        "yaml",
        "ruamel",
        "dill",
        "cloudpickle",
        "joblib",
    }
)

_enforced = True
_keys_enforced = False

_BLOCKED_KEYS = frozenset({"args"})
# LlmAgent's and McpToolset's names: bare, or a path under google-adk's package or ours.
_LLM_AGENT_NAMES = frozenset(
    {"Agent", "LlmAgent"}
    | {
        f"{package}.{module}{name}"
        for package in ("google.adk", "adk_runtime")
        for module in ("agents.", "agents.llm_agent.")
        for name in ("Agent", "LlmAgent")
    }
)
_MCP_TOOLSET_NAMES = frozenset(
    {"McpToolset", "MCPToolset"}
    | {
        f"{package}.{module}{name}"
        for package in ("google.adk", "adk_runtime")
        for module in ("tools.", "tools.mcp_tool.", "tools.mcp_tool.mcp_toolset.")
        for name in ("McpToolset", "MCPToolset")
    }
)
# The McpToolset arguments that take data only (no code reference, no stream object).
_MCP_DATA_ARGS = frozenset(
    {
        "connection_params",
        "tool_filter",
        "tool_name_prefix",
        "tool_list_cache_ttl_seconds",
        "use_mcp_resources",
        "auth_scheme",
        "auth_credential",
        "credential_key",
    }
)


def set_enforced(value: bool) -> None:
    """Turn the denylist on or off (on by default; off only in tests that need it)."""
    global _enforced
    _enforced = value


def check_module_reference(dotted_name: str) -> None:
    """Refuse ``dotted_name`` when its top-level module is blocked.

    Raises:
        AgentConfigError: The reference names the standard library or a blocked package.
    """
    if not _enforced:
        return
    top = dotted_name.split(".", 1)[0]
    if top in _STDLIB or top in _ALSO_BLOCKED:
        raise AgentConfigError(
            f"Blocked module reference: {dotted_name!r}. An agent config may not import from "
            f"{top!r}: the standard library and code-running loaders are refused because they "
            "can execute arbitrary code. Name your own package, 'adk_runtime', or a "
            "third-party package instead."
        )


def set_keys_enforced(value: bool) -> None:
    """Turn the ``args`` key denylist on or off (off by default)."""
    global _keys_enforced
    _keys_enforced = value


def check_config_keys(data: Mapping[str, Any], path: str) -> None:
    """Refuse an ``args`` key anywhere in a config file's ``data`` (when turned on).

    ``args`` of an ``McpToolset`` entry in the ``tools`` of a built-in ``LlmAgent`` are
    allowed when they are data only.

    Raises:
        AgentConfigError: The file has a refused ``args`` key (the message names the file).
    """
    if not _keys_enforced:
        return
    is_llm_agent = _names(data.get("agent_class", "LlmAgent"), _LLM_AGENT_NAMES)
    for key, value in data.items():
        if key == "tools" and is_llm_agent and isinstance(value, list):
            for tool in value:
                _check_tool(tool, path)
        else:
            _check_node({key: value}, path)


def _check_tool(tool: Any, path: str) -> None:
    if not isinstance(tool, Mapping) or not _names(tool.get("name"), _MCP_TOOLSET_NAMES):
        _check_node(tool, path)
        return
    for key, value in tool.items():
        if key in _BLOCKED_KEYS:  # data only (a stdio server's own `args` are its argv)
            _check_mcp_args(value, path)
        else:
            _check_node(value, path)


def _names(value: Any, names: frozenset[str]) -> bool:
    return isinstance(value, str) and value in names


def _check_mcp_args(args: Any, path: str) -> None:
    if args is None:
        return
    if not isinstance(args, Mapping):
        raise AgentConfigError("McpToolset `args` must be a mapping.", path=path)
    for name, value in args.items():
        if name not in _MCP_DATA_ARGS:
            raise AgentConfigError(
                f"McpToolset `args` key {name!r} is not allowed while the config key "
                f"denylist is on; allowed: {', '.join(sorted(_MCP_DATA_ARGS))}.",
                path=path,
            )
        names_only = isinstance(value, list) and all(isinstance(v, str) for v in value)
        if name == "tool_filter" and value is not None and not names_only:
            raise AgentConfigError(
                "McpToolset `args.tool_filter` must be a list of tool names while the config "
                "key denylist is on (a dotted path would import code).",
                path=path,
            )


def _check_node(node: Any, path: str) -> None:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in _BLOCKED_KEYS:
                raise AgentConfigError(
                    f"Blocked key {key!r} found: `{key}` can run arbitrary code, so it is "
                    "refused while the config key denylist is on.",
                    path=path,
                )
            _check_node(value, path)
    elif isinstance(node, list):
        for item in node:
            _check_node(item, path)
