"""Which modules an agent YAML file may not name (google-adk's module denylist).

A config file names Python objects to import and use. That is running code by design, so
the files must be trusted; the denylist only closes the shortest paths from a file to a
shell: no object of the standard library (``os.system``, ``subprocess.Popen``,
``builtins.exec``, ``pickle.loads``...) and none of a few installed packages that run code
given as data (PyYAML's unsafe loaders, ruamel.yaml). It cannot cover every third-party
package: it is a guard rail, not a sandbox.
"""

from __future__ import annotations

import sys

from adk_runtime.errors import AgentConfigError

__all__ = ["check_module_reference", "set_enforced"]

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
