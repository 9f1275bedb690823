"""AgentTool: an agent the model may call like a function."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from google.genai import types

from adk_runtime.core._config import loader, located
from adk_runtime.core._tool_configs import BaseToolConfig
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.common_configs import AgentRefConfig
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools._tool_run import tool_run
from adk_runtime.utils.variant_utils import GoogleLLMVariant, get_google_llm_variant

if TYPE_CHECKING:
    from adk_runtime.core._tool_configs import ToolArgsConfig
    from adk_runtime.core.base_agent import BaseAgent

__all__ = ["GROUNDING_STATE_KEY", "AgentTool", "AgentToolConfig", "DelegationTool"]

GROUNDING_STATE_KEY: Final = "temp:_adk_grounding_metadata"
"""Where an agent tool that passes grounding on keeps it for the rest of the invocation."""


class AgentTool(BaseTool):
    """Runs an agent on the caller's request and answers with the agent's last text.

    The agent runs in a fresh in-memory session seeded with a copy of the caller's state.
    The state changes its events commit come back through the tool context, so they ride on
    the caller's function-response event and are committed there, atomically with the answer.
    Artifacts it saves go to the caller's session and into that event's ``artifact_delta``.
    An agent with an ``input_schema`` is declared with that schema's fields (the validated
    arguments are its message, as JSON); one with an ``output_schema`` answers with the
    parsed value instead of text. A workflow agent takes its first sub-agent's input schema
    and its last one's output schema. The answer is the text of the agent's last event with
    content (thoughts left out, code it ran and that code's output included), else the last
    error message; an agent that stops to wait for a long-running call is answered with an
    error, since its session is discarded. With ``skip_summarization`` the caller's
    function-response event also carries the answer as text, for clients that show only text.

    Attributes:
        agent: The agent to run.
        skip_summarization: Return the agent's answer as the final response, without another
            model call.
        include_plugins: Run the agent with the calling Runner's plugins (they see its
            invocation as one more run); False runs it without plugins.
        propagate_grounding_metadata: Pass the ``grounding_metadata`` of the agent's last
            grounded response on to the caller: it is kept for the rest of the invocation in
            the ``temp:_adk_grounding_metadata`` state key, and the calling agent's next
            model responses carry it (``GoogleSearchAgentTool`` sets this).
    """

    shows_answer_when_final = True

    def __init__(
        self,
        agent: BaseAgent,
        *,
        skip_summarization: bool = False,
        include_plugins: bool = True,
        propagate_grounding_metadata: bool = False,
    ) -> None:
        """Wrap ``agent``; the tool has the agent's name and description."""
        super().__init__(name=agent.name, description=agent.description)
        self.agent = agent
        self.skip_summarization = skip_summarization
        self.include_plugins = include_plugins
        self.propagate_grounding_metadata = propagate_grounding_metadata

    @classmethod
    def from_config(cls, config: ToolArgsConfig, config_abs_path: str) -> AgentTool:
        """Build the tool from an agent YAML file's ``args`` (an :class:`AgentToolConfig`).

        Raises:
            pydantic.ValidationError: A key ``AgentToolConfig`` does not have, or a wrong
                value.
            AgentConfigError: The agent reference does not resolve.
        """
        settings = AgentToolConfig.model_validate(config.model_dump())
        with located("agent"):
            agent = loader().resolve_agent_reference(settings.agent, config_abs_path)
        return cls(
            agent,
            skip_summarization=settings.skip_summarization,
            include_plugins=settings.include_plugins,
            propagate_grounding_metadata=settings.propagate_grounding_metadata,
        )

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        schema = _input_schema(self.agent)
        parameters: dict[str, Any] = (
            schema.model_json_schema()
            if schema is not None
            else {
                "type": "object",
                "properties": {"request": {"type": "string"}},
                "required": ["request"],
            }
        )
        declaration = function_declaration(self.name, self.description, parameters)
        if get_google_llm_variant() is GoogleLLMVariant.VERTEX_AI:
            # Vertex AI takes the answer's type too: an object for a structured answer.
            kind = "object" if _output_schema(self.agent) is not None else "string"
            if declaration.parameters_json_schema is not None:
                declaration.response_json_schema = {"type": kind}
            else:
                declaration.response = types.Schema(type=types.Type(kind.upper()))
        return declaration

    def _message(self, args: dict[str, Any]) -> str:
        """The agent's input: the ``request`` text, or ``args`` as JSON after validation.

        With an ``input_schema`` the arguments are validated by it (an error is answered to
        the model) and sent as the schema's JSON. Without one, arguments the model sent in
        place of ``request`` are passed on as JSON (sorted keys), as google-adk does.
        """
        schema = _input_schema(self.agent)
        if schema is None:
            if "request" in args:
                return str(args["request"])
            return json.dumps(args, ensure_ascii=False, sort_keys=True, default=str)
        return str(schema.model_validate(args).model_dump_json(exclude_none=True))

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the agent on ``args["request"]`` and return its final text."""
        if self.skip_summarization:
            tool_context.actions.skip_summarization = True
        ctx = tool_context.invocation_context
        runner, session = await tool_run(
            tool_context, self.agent, share_plugins=self.include_plugins
        )
        message = types.Content(role="user", parts=[types.Part(text=self._message(args))])
        last: types.Content | None = None
        error: str | None = None
        pending: set[str] = set()
        grounding: types.GroundingMetadata | None = None
        async for event in runner.run_async(
            user_id=ctx.user_id, session_id=session.id, new_message=message
        ):
            tool_context.state.update(event.actions.state_delta)
            grounding = event.grounding_metadata or grounding
            if event.error_message:
                error = event.error_message
            pending |= event.long_running_tool_ids or set()
            if event.content is not None and event.content.parts:
                last = event.content
                pending -= {r.id for r in event.get_function_responses() if r.id}
        if pending:
            # Its session is thrown away, so nobody could ever answer those calls.
            tool_context.actions.skip_summarization = None
            return (
                f"Error: agent {self.agent.name!r} stopped to wait for long-running tool "
                f"calls {sorted(pending)}, which an AgentTool cannot resume; make it a "
                "sub-agent instead if it has to wait."
            )
        if self.propagate_grounding_metadata and grounding is not None:
            tool_context.state[GROUNDING_STATE_KEY] = grounding
        texts = [_text(part) for part in (last.parts or []) if not part.thought] if last else []
        text = "\n".join(t for t in texts if t)
        if not text:
            return error or ""
        output_schema = _output_schema(self.agent)
        if output_schema is None or not text.strip():
            return text
        from adk_runtime.tools.set_model_response_tool import validate_output

        return validate_output(output_schema, text)


class AgentToolConfig(BaseToolConfig):
    """The ``args`` of an ``AgentTool`` entry in an agent YAML file (google-adk's model).

    ``agent`` is a reference (``config_path: sub.yaml`` or ``code: pkg.agent``; here also
    the path or the dotted name alone); the rest are ``AgentTool``'s settings.
    """

    agent: AgentRefConfig
    skip_summarization: bool = False
    include_plugins: bool = True
    propagate_grounding_metadata: bool = False


class DelegationTool(AgentTool):
    """A sub-agent in ``task`` or ``single_turn`` mode, offered to its parent as a function.

    The parent's model calls it with the task's arguments (the sub-agent's ``input_schema``,
    else ``request``); the parent's run hands the call to the sub-agent, in the same session
    (``adk_runtime.agents._tasks``), and answers it with the sub-agent's result.
    ``run_async`` is never reached that way.
    """

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        declaration = super()._get_declaration()
        if declaration is not None:
            note = (
                "This hands the task over to a specialised agent: do not call it together "
                "with other tools."
            )
            declaration.description = f"{self.description}\n{note}".strip()
        return declaration

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Only the delegating agent's run may run the task (see the class)."""
        return {"error": f"{self.name!r} is a delegated agent: its parent's run hands it the task."}


class _TaskAgentTool(DelegationTool):
    """A ``task``-mode sub-agent as its parent's tool (google-adk 2's name)."""


class _SingleTurnAgentTool(DelegationTool):
    """A ``single_turn``-mode sub-agent as its parent's tool (google-adk 2's name)."""


def _text(part: types.Part) -> str:
    """What of ``part`` the caller is answered with: text, or code and its output."""
    if part.text:
        return part.text
    if part.code_execution_result is not None and part.code_execution_result.output:
        return part.code_execution_result.output.rstrip("\n")
    if part.executable_code is not None and part.executable_code.code:
        return part.executable_code.code
    return ""


def _input_schema(agent: BaseAgent) -> Any:
    """The agent's ``input_schema``; a workflow's is its first sub-agent's."""
    if hasattr(agent, "input_schema"):  # an LlmAgent (this module cannot import it)
        return getattr(agent, "input_schema")  # noqa: B009
    return _input_schema(agent.sub_agents[0]) if agent.sub_agents else None


def _output_schema(agent: BaseAgent) -> Any:
    """The agent's ``output_schema``; a workflow's is its last sub-agent's."""
    if hasattr(agent, "output_schema"):
        return getattr(agent, "output_schema")  # noqa: B009
    return _output_schema(agent.sub_agents[-1]) if agent.sub_agents else None
