"""``Runner.run_debug``: send messages on one session and print the events as google-adk does."""

from __future__ import annotations

import logging
import sys
from contextlib import aclosing
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.core.run_config import RunConfig
from adk_runtime.events import Event

if TYPE_CHECKING:
    from adk_runtime.runtime.runner import Runner

__all__ = ["format_event", "run_debug"]

logger = logging.getLogger("adk_runtime.runners")


async def run_debug(
    runner: Runner,
    user_messages: str | list[str],
    *,
    user_id: str,
    session_id: str,
    run_config: RunConfig | None,
    quiet: bool,
    verbose: bool,
) -> list[Event]:
    """Send each message in turn on one session (created if missing); return every event."""
    run_config = run_config or RunConfig()
    service = runner.session_service
    session = await service.get_session(
        app_name=runner.app_name,
        user_id=user_id,
        session_id=session_id,
        config=run_config.get_session_config,
    )
    if session is None:
        session = await service.create_session(
            app_name=runner.app_name, user_id=user_id, session_id=session_id
        )
        if not quiet:
            logger.info("Created new session: %s", session_id)
    elif not quiet:
        logger.info("Continue session: %s", session_id)
    messages = [user_messages] if isinstance(user_messages, str) else list(user_messages)
    collected: list[Event] = []
    for message in messages:
        if not quiet:
            logger.info("User > %s", message)
        content = types.UserContent(parts=[types.Part(text=message)])
        events = runner.run_async(
            user_id=user_id, session_id=session.id, new_message=content, run_config=run_config
        )
        async with aclosing(events) as stream:
            async for event in stream:
                if not quiet:
                    text = format_event(event, verbose=verbose)
                    if text:
                        sys.stdout.write(text + "\n")
                collected.append(event)
    return collected


def format_event(event: Event, *, verbose: bool) -> str:
    """One event as console lines, in google-adk's ``run_debug`` format.

    Consecutive text parts make one ``author > text`` line. With ``verbose``, thoughts are
    shown too and every other part gets a bracketed line (``[Calling tool: f({...})]``,
    ``[Tool result: ...]``, ``[Executing python code...]``, ``[Code output: ...]``,
    ``[Inline data: mime]``, ``[File: uri]``); without it they are left out.
    """
    content = event.content
    if content is None or not content.parts:
        return ""
    lines: list[str] = []
    text: list[str] = []
    for part in content.parts:
        if part.thought and not verbose:
            continue
        if part.text:
            text.append(part.text)
            continue
        if text:
            lines.append(f"{event.author} > {''.join(text)}")
            text = []
        note = _describe(part) if verbose else None
        if note is not None:
            lines.append(f"{event.author} > [{note}]")
    if text:
        lines.append(f"{event.author} > {''.join(text)}")
    return "\n".join(lines)


def _short(value: object, limit: int) -> str:
    text = str(value)
    return text[:limit] + "..." if len(text) > limit else text


def _describe(part: types.Part) -> str | None:
    if part.function_call:
        call = part.function_call
        return f"Calling tool: {call.name}({_short(call.args, 50)})"
    if part.function_response:
        return f"Tool result: {_short(part.function_response.response, 100)}"
    if part.executable_code:
        return f"Executing {part.executable_code.language or 'code'} code..."
    if part.code_execution_result:
        return f"Code output: {_short(part.code_execution_result.output or 'result', 100)}"
    if part.inline_data:
        return f"Inline data: {part.inline_data.mime_type or 'data'}"
    if part.file_data:
        return f"File: {part.file_data.file_uri or 'file'}"
    return None
