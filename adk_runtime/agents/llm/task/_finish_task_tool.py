"""``finish_task``: how a task-mode agent hands its result back to the agent that delegated."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import pydantic
from google.genai import types

from adk_runtime.agents.llm.task._task_models import _DefaultTaskOutput
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.tools._declaration import function_declaration
from adk_runtime.tools.set_model_response_tool import conform
from adk_runtime.utils._problems import problems

if TYPE_CHECKING:
    from adk_runtime.agents.llm_agent import LlmAgent
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest

__all__ = [
    "FINISH_TASK_DEFAULT_WRAPPER_KEY",
    "FINISH_TASK_ERROR_RESULT",
    "FINISH_TASK_SUCCESS_RESULT",
    "FINISH_TASK_TOOL_NAME",
    "FinishTaskTool",
    "get_output_wrapper_key",
    "is_finish_task_terminal_fr",
]

FINISH_TASK_TOOL_NAME: Final = "finish_task"
FINISH_TASK_SUCCESS_RESULT: Final = "Task completed."
"""The response of a ``finish_task`` call whose result was accepted."""
FINISH_TASK_ERROR_RESULT: Final = "Task failed."
FINISH_TASK_DEFAULT_WRAPPER_KEY: Final = "result"
"""The argument that carries a result whose schema is not an object."""

_INSTRUCTION = (
    "You were given a task. Work on it with your tools until every part of it is done; if "
    "the task is unclear, ask the user and wait for the answer. When it is done, call "
    f"`{FINISH_TASK_TOOL_NAME}` with the result, on its own and without any text."
)


def _json_schema(schema: Any) -> dict[str, Any]:
    if isinstance(schema, dict):
        return dict(schema)
    if isinstance(schema, types.Schema):
        dumped: dict[str, Any] = schema.model_dump(mode="json", exclude_none=True)
        return dumped
    return pydantic.TypeAdapter(schema).json_schema()


def get_output_wrapper_key(output_schema: Any) -> str | None:
    """The argument a result of ``output_schema`` is passed in: None when it is an object.

    A result that is an object (a pydantic model, an object JSON schema) is passed as the
    call's arguments themselves; any other (a string, a list...) under ``result``.
    """
    schema = output_schema if output_schema is not None else _DefaultTaskOutput
    kind = _json_schema(schema).get("type")
    return None if str(kind).lower() == "object" else FINISH_TASK_DEFAULT_WRAPPER_KEY


class FinishTaskTool(BaseTool):
    """Ends a task-mode agent's task with a result that follows its ``output_schema``.

    Offered to every agent with ``mode="task"``. A call whose arguments follow the schema
    (without one: ``{"result": "<summary>"}``) is answered ``"Task completed."`` and ends the
    agent's run; the validated result goes back to the delegating agent as the response to
    its call. Arguments that do not follow it are answered ``{"error": ...}`` naming the
    problems, and the model may call again.
    """

    def __init__(self, task_agent: LlmAgent) -> None:
        """The ``finish_task`` tool of ``task_agent``."""
        description = "Hand the result of your task back and end the task."
        if task_agent.output_schema is not None:
            description += " Pass the result in the parameters, in the required structure."
        super().__init__(name=FINISH_TASK_TOOL_NAME, description=description)
        self.task_agent_name = task_agent.name
        schema = task_agent.output_schema
        if isinstance(schema, types.Schema):
            schema = schema.model_dump(mode="json", exclude_none=True)
        self.output_schema: Any = schema if schema is not None else _DefaultTaskOutput
        self._wrapper_key = get_output_wrapper_key(self.output_schema)

    def _get_declaration(self) -> types.FunctionDeclaration:
        inner = _json_schema(self.output_schema)
        if self._wrapper_key is None:
            parameters = inner
        else:
            definitions = inner.pop("$defs", None)  # kept at the root for ``$ref``s
            parameters = {
                "type": "object",
                "properties": {self._wrapper_key: inner},
                "required": [self._wrapper_key],
            }
            if definitions:
                parameters["$defs"] = definitions
        return function_declaration(self.name, self.description, parameters)

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Declare the tool and tell the model when to call it."""
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        llm_request.append_instructions([_INSTRUCTION])

    def result_of(self, args: dict[str, Any]) -> Any:
        """The task's result in a call's ``args``, validated, as plain JSON-like data.

        An object schema's result is the arguments (without an ``output_schema``:
        ``{"result": "<summary>"}``); any other is the value under ``result``.

        Raises:
            pydantic.ValidationError: The arguments do not follow the schema.
        """
        raw = args if self._wrapper_key is None else args.get(self._wrapper_key)
        if isinstance(self.output_schema, dict):
            return raw  # a JSON schema is the model's to follow, as for set_model_response
        return conform(self.output_schema, raw)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Accept the result (and end the agent's run), or answer what is wrong with it."""
        try:
            self.result_of(args)
        except pydantic.ValidationError as exc:
            return {
                "error": (
                    f"`{self.name}` was not accepted: {problems(exc)}. Call it again with "
                    "every required parameter, each of the right type."
                )
            }
        tool_context.actions.skip_summarization = True  # the task is over: no further step
        return FINISH_TASK_SUCCESS_RESULT


def is_finish_task_terminal_fr(event: Event) -> bool:
    """Whether ``event`` answers a ``finish_task`` call with an accepted (or failed) result.

    A refused result (``{"error": ...}``) is not terminal: the agent goes on.
    """
    for response in event.get_function_responses():
        if response.name == FINISH_TASK_TOOL_NAME:
            result = (response.response or {}).get("result")
            return result in (FINISH_TASK_SUCCESS_RESULT, FINISH_TASK_ERROR_RESULT)
    return False
