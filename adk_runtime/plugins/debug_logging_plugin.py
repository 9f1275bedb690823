"""DebugLoggingPlugin: a full record of every invocation, appended to a YAML file.

The record holds whole payloads, so it goes to a file the application names and never to the
``logging`` module (which would spread it to every handler of the process); what this module
logs names invocations, tools and error types only.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.events._credential_secrets import answer_without_secrets, is_credential_part
from adk_runtime.plugins._debug_data import plain, to_yaml
from adk_runtime.plugins._tool_results import (
    ToolResultClassification,
    ToolResultClassifier,
    check_classifier,
    failure_of,
)

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.base_tool import BaseTool
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.invocation_context import InvocationContext
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.events import Event
    from adk_runtime.models.llm_request import LlmRequest
    from adk_runtime.models.llm_response import LlmResponse

__all__ = ["DebugLoggingPlugin", "ToolResultClassification", "ToolResultClassifier"]

logger = logging.getLogger(__name__)

_FILE_MODE = 0o600  # the record holds whole prompts: readable by its owner only


@dataclasses.dataclass
class _Entry:
    timestamp: str
    entry_type: str
    invocation_id: str | None = None
    agent_name: str | None = None
    data: dict[str, Any] = dataclasses.field(default_factory=dict)


@dataclasses.dataclass
class _InvocationRecord:
    invocation_id: str
    session_id: str
    app_name: str
    user_id: str | None
    start_time: str
    entries: list[_Entry] = dataclasses.field(default_factory=list)
    # the calls whose error on_tool_error_callback recorded (their answer is not recorded again)
    errored_calls: set[str] = dataclasses.field(default_factory=set)

    def document(self) -> dict[str, Any]:
        fields = dataclasses.asdict(self)
        del fields["errored_calls"]
        fields["entries"] = [
            {key: value for key, value in entry.items() if value is not None}
            for entry in fields["entries"]
        ]
        return {key: value for key, value in fields.items() if value is not None}


class DebugLoggingPlugin(BasePlugin):
    """Writes a complete record of each invocation to a YAML file, for local debugging.

    **The file holds full payloads**: user messages, every model request (contents, system
    instruction, tool names) and response, tool arguments and results, events with their
    state deltas, and the session state at the end. Use it on a developer machine, not in
    production, and do not share the file. Values under keys that name a secret (``password``,
    ``api_key``, ``*_token``, ``authorization``, ...) and armored private-key blocks inside
    strings are replaced by ``[REDACTED]``; inline bytes are recorded by size only. The file is
    created readable by its owner only (mode 600). Nothing of the record is sent to
    ``logging``.

    Each invocation is appended as one YAML document (``---``) when it ends, normally or with
    an error (an ``invocation_error`` entry then precedes ``invocation_end``): its ids, then
    entries of type ``user_message``, ``invocation_start``, ``agent_start``/``agent_end``,
    ``llm_request``, ``llm_response``, ``llm_error``, ``event``, ``tool_call``,
    ``tool_response``, ``tool_error`` and ``session_state_snapshot``. A tool call is recorded
    as a ``tool_error`` when it raises, and also when its result reports a failure without
    raising: an answer of ``ReflectAndRetryToolPlugin``, a result with an MCP ``isError`` (or
    ``is_error``) flag set to True, or a result ``tool_result_classifier`` says is an error.

    Example:
        >>> app = App(name="shop", root_agent=agent,
        ...           plugins=[DebugLoggingPlugin(output_path="debug.yaml")])
    """

    def __init__(
        self,
        *,
        name: str = "debug_logging_plugin",
        output_path: str = "adk_debug.yaml",
        include_session_state: bool = True,
        include_system_instruction: bool = True,
        tool_result_classifier: ToolResultClassifier | None = None,
    ) -> None:
        """Create the plugin.

        Args:
            name: The plugin's name.
            output_path: The file the records are appended to (created if missing).
            include_session_state: Record the session state at the end of each invocation.
            include_system_instruction: Record the system instruction of each request (False:
                its length only).
            tool_result_classifier: Says which results of the application's tools report a
                failure (see :class:`ToolResultClassifier`). One that raises or answers
                something else at run time is skipped with a warning naming the tool.

        Raises:
            ValueError: ``tool_result_classifier`` is not callable, is asynchronous, or cannot
                take the keyword arguments ``tool``, ``tool_args``, ``tool_context`` and
                ``result``.
        """
        super().__init__(name)
        check_classifier(tool_result_classifier)
        self._output_path = Path(output_path)
        self._include_session_state = include_session_state
        self._include_system_instruction = include_system_instruction
        self._tool_result_classifier = tool_result_classifier
        self._invocation_states: dict[str, _InvocationRecord] = {}
        self._warned_about_mode = False

    # -- the record --------------------------------------------------------------------------

    def _start(self, ctx: InvocationContext) -> _InvocationRecord:
        record = self._invocation_states.get(ctx.invocation_id)
        if record is None:
            record = _InvocationRecord(
                invocation_id=ctx.invocation_id,
                session_id=ctx.session.id,
                app_name=ctx.session.app_name,
                user_id=ctx.user_id,
                start_time=_now(),
            )
            self._invocation_states[ctx.invocation_id] = record
        return record

    def _add(
        self, invocation_id: str, entry_type: str, agent_name: str | None = None, **data: Any
    ) -> None:
        record = self._invocation_states.get(invocation_id)
        if record is None:  # a hook outside an invocation the plugin saw start
            logger.debug("No debug record for invocation %s; entry skipped.", invocation_id)
            return
        entry = _Entry(_now(), entry_type, invocation_id, agent_name, self._safe_serialize(data))
        record.entries.append(entry)

    def _add_tool(
        self, entry_type: str, tool: BaseTool, tool_context: ToolContext, **data: Any
    ) -> None:
        """Record a tool hook's entry: the tool's name and the call's id, then ``data``."""
        self._add(
            tool_context.invocation_id,
            entry_type,
            tool_context.agent_name,
            tool_name=tool.name,
            function_call_id=tool_context.function_call_id,
            **data,
        )

    async def _finish(self, ctx: InvocationContext) -> None:
        record = self._invocation_states.get(ctx.invocation_id)
        if record is None:
            return
        if self._include_session_state:
            session = ctx.session
            self._add(
                ctx.invocation_id,
                "session_state_snapshot",
                state=dict(session.state),
                event_count=len(session.events),
            )
        self._add(ctx.invocation_id, "invocation_end")
        del self._invocation_states[ctx.invocation_id]
        text = "---\n" + to_yaml(record.document())
        try:
            await asyncio.to_thread(self._append, text)
        except OSError as exc:  # a debugging aid must not fail the application's turn
            logger.error(
                "Writing the debug record of invocation %s to %s failed: %s",
                ctx.invocation_id,
                self._output_path,
                type(exc).__name__,
            )

    def _append(self, text: str) -> None:
        fd = os.open(self._output_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, _FILE_MODE)
        try:
            if not self._warned_about_mode and os.fstat(fd).st_mode & 0o077:
                self._warned_about_mode = True
                logger.warning(
                    "The debug file %s is readable by others than its owner; it holds whole "
                    "prompts and responses: chmod 600 it.",
                    self._output_path,
                )
            data = text.encode("utf-8")
            while data:  # one document per write: concurrent appends do not interleave
                data = data[os.write(fd, data) :]
        finally:
            os.close(fd)

    def _serialize_content(self, content: types.Content | None) -> dict[str, Any] | None:
        """The content as plain data (inline bytes by size only)."""
        if content is None:
            return None
        return {"role": content.role, "parts": [_part(part) for part in content.parts or []]}

    def _safe_serialize(self, value: Any) -> Any:
        """``value`` as plain YAML-ready data, with secrets redacted."""
        return plain(value)

    # -- invocation hooks --------------------------------------------------------------------

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """Record the user's message (the invocation's record starts here)."""
        self._start(invocation_context)
        self._add(
            invocation_context.invocation_id,
            "user_message",
            content=self._serialize_content(user_message),
        )
        return None

    async def before_run_callback(
        self, *, invocation_context: InvocationContext
    ) -> types.Content | None:
        """Record the start of the invocation."""
        self._start(invocation_context)
        self._add(
            invocation_context.invocation_id,
            "invocation_start",
            agent_name=invocation_context.agent.name,
            branch=invocation_context.branch,
        )
        return None

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Record an event the agents yielded."""
        self._add(invocation_context.invocation_id, "event", event.author, **_event(self, event))
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """Append the invocation's record to the file."""
        await self._finish(invocation_context)

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """Record the error and append the failed invocation's record to the file."""
        self._add(
            invocation_context.invocation_id,
            "invocation_error",
            error_type=type(error).__name__,
            error_message=str(error),
        )
        await self._finish(invocation_context)

    # -- agent and model hooks ---------------------------------------------------------------

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Record an agent starting."""
        branch = callback_context._invocation_context.branch
        self._add(
            callback_context.invocation_id,
            "agent_start",
            callback_context.agent_name,
            branch=branch,
        )
        return None

    async def after_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Record an agent finishing."""
        self._add(callback_context.invocation_id, "agent_end", callback_context.agent_name)
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Record a model request: model, contents, tool names and settings."""
        data: dict[str, Any] = {
            "model": llm_request.model,
            "content_count": len(llm_request.contents),
            "contents": [self._serialize_content(c) for c in llm_request.contents],
        }
        if llm_request.tools_dict:
            data["tools"] = list(llm_request.tools_dict)
        config = _config(llm_request.config, self._include_system_instruction)
        if config:
            data["config"] = config
        self._add(
            callback_context.invocation_id, "llm_request", callback_context.agent_name, **data
        )
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """Record a model response (its finish reason and error only when it is final)."""
        data: dict[str, Any] = {
            "content": self._serialize_content(llm_response.content),
            "partial": llm_response.partial,
            "turn_complete": llm_response.turn_complete,
        }
        final = llm_response.partial is not True
        if final and llm_response.error_code:
            data["error_code"] = llm_response.error_code
            data["error_message"] = llm_response.error_message
        if llm_response.usage_metadata:
            data["usage_metadata"] = _usage(llm_response.usage_metadata, cached=True)
        if llm_response.grounding_metadata:
            data["has_grounding_metadata"] = True
        if final and llm_response.finish_reason:
            data["finish_reason"] = str(llm_response.finish_reason)
        if llm_response.model_version:
            data["model_version"] = llm_response.model_version
        agent = callback_context.agent_name
        self._add(callback_context.invocation_id, "llm_response", agent, **data)
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """Record a failed model call."""
        self._add(
            callback_context.invocation_id,
            "llm_error",
            callback_context.agent_name,
            error_type=type(error).__name__,
            error_message=str(error),
            model=llm_request.model,
        )
        return None

    # -- tool hooks --------------------------------------------------------------------------

    async def before_tool_callback(
        self, *, tool: BaseTool, tool_args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Record a tool call and its arguments."""
        self._add_tool("tool_call", tool, tool_context, args=tool_args)
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        result: Any,
    ) -> dict[str, Any] | None:
        """Record a tool's result, or the failure it reports (see the class docstring)."""
        record = self._invocation_states.get(tool_context.invocation_id)
        call_key = _call_key(tool_context)
        if record is not None and call_key in record.errored_calls:
            record.errored_calls.discard(call_key)  # the answer to an error recorded already
            return None
        message = failure_of(self._tool_result_classifier, tool, tool_args, tool_context, result)
        if message is None:
            self._add_tool("tool_response", tool, tool_context, result=result)
        else:
            self._add_tool(
                "tool_error",
                tool,
                tool_context,
                args=tool_args,
                result=result,
                error_message=message,
            )
        return None

    async def on_tool_error_callback(
        self,
        *,
        tool: BaseTool,
        tool_args: dict[str, Any],
        tool_context: ToolContext,
        error: Exception,
    ) -> dict[str, Any] | None:
        """Record a tool that raised."""
        self._add_tool(
            "tool_error",
            tool,
            tool_context,
            args=tool_args,
            error_type=type(error).__name__,
            error_message=str(error),
        )
        record = self._invocation_states.get(tool_context.invocation_id)
        if record is not None:
            record.errored_calls.add(_call_key(tool_context))
        return None


def _now() -> str:
    return datetime.now(timezone.utc).isoformat()


def _call_key(tool_context: ToolContext) -> str:
    return tool_context.function_call_id or f"<context {id(tool_context)}>"


# -- what is recorded -------------------------------------------------------------------------


def _part(part: types.Part) -> dict[str, Any]:
    data: dict[str, Any] = {}
    if part.text:
        data["text"] = part.text
    if part.thought:
        data["thought"] = True
    if call := part.function_call:
        data["function_call"] = {"id": call.id, "name": call.name, "args": call.args}
    if response := part.function_response:
        answer: Any = response.response
        if is_credential_part(part):  # a bare key it wraps is the secret
            answer = answer_without_secrets(answer)
        data["function_response"] = {"id": response.id, "name": response.name, "response": answer}
    if blob := part.inline_data:
        data["inline_data"] = {
            "mime_type": blob.mime_type,
            "display_name": blob.display_name,
            "size_bytes": len(blob.data or b""),
        }
    if file := part.file_data:
        data["file_data"] = {"file_uri": file.file_uri, "mime_type": file.mime_type}
    if result := part.code_execution_result:
        data["code_execution_result"] = {"outcome": str(result.outcome), "output": result.output}
    if code := part.executable_code:
        data["executable_code"] = {"language": str(code.language), "code": code.code}
    return data


def _event(plugin: DebugLoggingPlugin, event: Event) -> dict[str, Any]:
    data: dict[str, Any] = {
        "event_id": event.id,
        "author": event.author,
        "content": plugin._serialize_content(event.content),
        "is_final_response": event.is_final_response(),
        "partial": event.partial,
        "turn_complete": event.turn_complete,
        "branch": event.branch,
    }
    actions = event.actions
    recorded = {
        "state_delta": actions.state_delta,
        "artifact_delta": actions.artifact_delta,
        "transfer_to_agent": actions.transfer_to_agent,
        "escalate": actions.escalate,
        "requested_auth_configs": len(actions.requested_auth_configs),
    }
    if any(recorded.values()):
        data["actions"] = {key: value for key, value in recorded.items() if value}
    if event.grounding_metadata:
        data["has_grounding_metadata"] = True
    if event.usage_metadata:
        data["usage_metadata"] = _usage(event.usage_metadata, cached=False)
    if event.error_code:
        data["error_code"] = event.error_code
        data["error_message"] = event.error_message
    if event.long_running_tool_ids:
        data["long_running_tool_ids"] = sorted(event.long_running_tool_ids)
    return data


def _usage(usage: types.GenerateContentResponseUsageMetadata, *, cached: bool) -> dict[str, Any]:
    data = {
        "prompt_token_count": usage.prompt_token_count,
        "candidates_token_count": usage.candidates_token_count,
        "total_token_count": usage.total_token_count,
    }
    if cached:
        data["cached_content_token_count"] = usage.cached_content_token_count
    return data


def _config(config: types.GenerateContentConfig, with_instruction: bool) -> dict[str, Any]:
    data: dict[str, Any] = {}
    instruction = config.system_instruction
    if instruction and with_instruction:
        data["system_instruction"] = instruction
    elif isinstance(instruction, str) and instruction:
        data["system_instruction_length"] = len(instruction)
    elif instruction:
        data["has_system_instruction"] = True
    for name in ("temperature", "top_p", "top_k", "max_output_tokens"):
        if (value := getattr(config, name)) is not None:
            data[name] = value
    if config.response_mime_type:
        data["response_mime_type"] = config.response_mime_type
    if config.response_schema:
        data["has_response_schema"] = True
    return data
