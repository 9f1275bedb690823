"""BaseTool: something the model may call."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar, TypeVar

from google.genai import types

from adk_runtime.core import _config

if TYPE_CHECKING:
    from adk_runtime.core._tool_configs import ToolArgsConfig
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = ["BaseTool", "SelfTool"]

SelfTool = TypeVar("SelfTool", bound="BaseTool")
"""The tool class a ``from_config`` builds (google-adk's name)."""


class BaseTool:
    """A tool: a declaration the model sees and ``run_async`` that answers a call.

    Attributes:
        name: The function name the model calls.
        description: What the tool does, for the model.
        is_long_running: The call pauses the invocation until its response arrives in a
            later message (see ``LongRunningFunctionTool``).
        custom_metadata: Free-form data about the tool for the application and its plugins
            (a manifest, an owner...); the runtime never reads it.
        behavior: google-adk's Live API setting (blocking or not); request/response turns,
            the only kind here, ignore it, as google-adk's do.
        response_scheduling: When the model should react to the response (google-adk's
            Live API setting): set on the call's function response, as google-adk does;
            request/response turns answer every call at once anyway.
    """

    # Class defaults too, for subclasses that set their own attributes without calling
    # ``BaseTool.__init__``.
    is_long_running: bool = False
    custom_metadata: dict[str, Any] | None = None
    behavior: types.Behavior | None = None
    response_scheduling: types.FunctionResponseScheduling | None = None
    shows_answer_when_final: ClassVar[bool] = False
    """When a call of this tool ends the turn (``skip_summarization``), its answer is added to
    the function-response event as text too, for clients that show only text (``AgentTool``;
    other tools skip summarization for acknowledgements that are not to be shown)."""

    def __init__(
        self,
        *,
        name: str,
        description: str,
        is_long_running: bool = False,
        custom_metadata: dict[str, Any] | None = None,
        behavior: types.Behavior | None = None,
        response_scheduling: types.FunctionResponseScheduling | None = None,
    ) -> None:
        """Create a tool called ``name`` (google-adk's constructor arguments)."""
        self.name = name
        self.description = description
        self.is_long_running = is_long_running
        self.custom_metadata = custom_metadata
        self.behavior = behavior
        self.response_scheduling = response_scheduling

    @classmethod
    def from_config(cls: type[SelfTool], config: ToolArgsConfig, config_abs_path: str) -> SelfTool:
        """Build the tool from the ``args`` of a ``tools:`` entry of an agent YAML file.

        By default each key is a constructor argument (an agent argument takes a YAML path
        or an agent reference, a pydantic-model argument a mapping, a callable argument a
        dotted path); a subclass reads a config model of its own by overriding it.

        Args:
            config: The entry's ``args``.
            config_abs_path: The absolute path of the YAML file (references are relative to
                it).

        Raises:
            AgentConfigError: A key the constructor does not take, or a value it refused.
        """
        tool: SelfTool = _config.loader().build_tool(cls, config, config_abs_path)
        return tool

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        """The declaration offered to the model; None offers nothing."""
        return None

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Answer a call with ``args``; the result becomes the function response."""
        raise NotImplementedError(f"{type(self).__name__} must implement run_async.")

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """Whether a call with ``args`` must be confirmed by the user first; by default not."""
        return False

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Adjust the request before the model call; by default offer the declaration."""
        llm_request.append_tools([self])

    def response_media(
        self, response: dict[str, Any]
    ) -> tuple[dict[str, Any], list[types.FunctionResponsePart]] | None:
        """Media this tool encodes in its own response shape, split out as parts.

        A tool whose results carry media in a form of its own (a computer action's base64
        screenshot) overrides this so the media reaches the model, and the session, as parts
        of the function response. ``types.Part`` media in any result is found without it.

        Args:
            response: The call's result, a dict, after the after-tool callbacks.

        Returns:
            The response without the media and the media as parts; None (the default) when
            there is none, and the response is sent as it is.
        """
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"
