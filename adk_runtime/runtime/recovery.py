"""``Runner.resume_interrupted``: run every invocation a failure or a crash left open."""

from __future__ import annotations

from contextlib import aclosing
from typing import TYPE_CHECKING

from adk_runtime.sessions.invocations import OpenInvocation

if TYPE_CHECKING:
    from adk_runtime.runtime.runner import Runner

__all__ = ["resume_interrupted"]


async def resume_interrupted(
    runner: Runner, user_id: str | None, session_id: str | None
) -> list[tuple[OpenInvocation, BaseException | None]]:
    """Each open invocation found, resumed to its end, with None or the error that stopped it."""
    found = await runner.session_service.list_interrupted_invocations(
        app_name=runner.app_name, user_id=user_id, session_id=session_id
    )
    outcomes: list[tuple[OpenInvocation, BaseException | None]] = []
    for item in found:
        try:
            async with aclosing(
                runner.run_async(
                    user_id=item.user_id,
                    session_id=item.session_id,
                    invocation_id=item.invocation_id,
                )
            ) as events:
                async for _ in events:
                    pass
        except Exception as exc:
            outcomes.append((item, exc))
        else:
            outcomes.append((item, None))
    return outcomes
