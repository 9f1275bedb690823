"""Without a2a-sdk, importing the A2A agent names the extra to install."""

from __future__ import annotations

import subprocess
import sys

_SCRIPT = """
import sys
sys.modules["a2a"] = None  # as if a2a-sdk were not installed
from adk_runtime.errors import ConfigurationError
try:
    import adk_runtime.agents.remote_a2a_agent
except ConfigurationError as exc:
    print(exc)
else:
    print("imported")
"""


def test_missing_sdk_raises_configuration_error_naming_the_extra() -> None:
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT], capture_output=True, text=True, check=True, timeout=120
    )
    assert "pip install 'adk-runtime[a2a]'" in result.stdout
    assert "imported" not in result.stdout
