"""AgentTool: an agent the model may call like a function."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.platform import uuid as platform_uuid
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools._forwarding_artifacts import ForwardingArtifactService
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.tool_context import ToolContext

if TYPE_CHECKING:
    from adk_runtime.agents.base_agent import BaseAgent

__all__ = ["AgentTool"]


class AgentTool(BaseTool):
    """Runs an agent on the caller's request and answers with the agent's last text.

    The agent runs in a fresh in-memory session seeded with a copy of the caller's state.
    The state changes its events commit come back through the tool context, so they ride on
    the caller's function-response event and are committed there, atomically with the answer.
    Artifacts it saves go to the caller's session and into that event's ``artifact_delta``.
    An agent with an ``input_schema`` is declared with that schema's fields (the validated
    arguments are its message, as JSON); one with an ``output_schema`` answers with the
    parsed value instead of text.

    Attributes:
        agent: The agent to run.
        skip_summarization: Return the agent's answer as the final response, without another
            model call.
        include_plugins: Run the agent with the calling Runner's plugins (they see its
            invocation as one more run); False runs it without plugins.
    """

    def __init__(
        self, agent: BaseAgent, *, skip_summarization: bool = False, include_plugins: bool = True
    ) -> None:
        """Wrap ``agent``; the tool has the agent's name and description."""
        super().__init__(name=agent.name, description=agent.description)
        self.agent = agent
        self.skip_summarization = skip_summarization
        self.include_plugins = include_plugins

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        schema = getattr(self.agent, "input_schema", None)
        parameters: dict[str, Any] = (
            schema.model_json_schema()
            if schema is not None
            else {
                "type": "object",
                "properties": {"request": {"type": "string"}},
                "required": ["request"],
            }
        )
        return function_declaration(self.name, self.description, parameters)

    def _message(self, args: dict[str, Any]) -> str:
        """The agent's input: the ``request`` text, or ``args`` as JSON after validation.

        With an ``input_schema`` the arguments are validated by it (an error is answered to
        the model) and sent as the schema's JSON.
        """
        schema = getattr(self.agent, "input_schema", None)
        if schema is None:
            return str(args.get("request", ""))
        return str(schema.model_validate(args).model_dump_json(exclude_none=True))

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Run the agent on ``args["request"]`` and return its final text."""
        from adk_runtime.runners import Runner
        from adk_runtime.sessions.memory import InMemorySessionService

        if self.skip_summarization:
            tool_context.actions.skip_summarization = True
        ctx = tool_context.invocation_context
        service = InMemorySessionService()
        runner = Runner(
            app_name=ctx.app_name,
            agent=self.agent,
            session_service=service,
            artifact_service=(
                ForwardingArtifactService(tool_context) if ctx.artifact_service else None
            ),
            memory_service=ctx.memory_service,
        )
        if self.include_plugins:  # shared, not copied: the calling Runner owns and closes them
            runner.plugin_manager = ctx.plugin_manager
        session = await service.create_session(
            app_name=ctx.app_name,
            user_id=ctx.user_id,
            session_id=platform_uuid.new_uuid(),
            state=tool_context.state.to_dict(),
        )
        message = types.Content(role="user", parts=[types.Part(text=self._message(args))])
        last: types.Content | None = None
        async for event in runner.run_async(
            user_id=ctx.user_id, session_id=session.id, new_message=message
        ):
            tool_context.state.update(event.actions.state_delta)
            if event.content is not None and event.content.parts:
                last = event.content
        if last is None:
            return ""
        text = "\n".join(part.text for part in last.parts or [] if part.text and not part.thought)
        output_schema = getattr(self.agent, "output_schema", None)
        if output_schema is None or not text.strip():
            return text
        from adk_runtime.agents._structured_output import validate_output

        return validate_output(output_schema, text)
