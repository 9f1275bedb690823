"""The errors of the A2A client agent."""

from __future__ import annotations

from adk_runtime.errors import AdkRuntimeError

__all__ = ["A2AClientError", "AgentCardResolutionError"]


class AgentCardResolutionError(AdkRuntimeError):
    """The remote agent's card could not be fetched, read or accepted (the message says why).

    Nothing was sent to the remote agent. Check the card URL or file, that the server is
    up, and that the card's RPC URL is https (or http on a loopback host) on the card's own
    origin.
    """


class A2AClientError(AdkRuntimeError):
    """A response of the remote agent could not be processed."""
