"""google-adk's path of the A2A client agent (implemented in :mod:`adk_runtime.a2a.agent`).

Needs the ``a2a`` extra: without a2a-sdk, importing this module raises ``ConfigurationError``
with the install command.
"""

from adk_runtime.a2a._compat import AGENT_CARD_WELL_KNOWN_PATH
from adk_runtime.a2a.agent._errors import A2AClientError, AgentCardResolutionError
from adk_runtime.a2a.agent._history import A2A_METADATA_PREFIX
from adk_runtime.a2a.agent._remote_a2a_agent import DEFAULT_TIMEOUT, RemoteA2aAgent

__all__ = [
    "A2A_METADATA_PREFIX",
    "AGENT_CARD_WELL_KNOWN_PATH",
    "DEFAULT_TIMEOUT",
    "A2AClientError",
    "AgentCardResolutionError",
    "RemoteA2aAgent",
]
