"""A plugin that records every hook it sees, and can answer chosen hooks."""

from __future__ import annotations

import inspect
from typing import Any

from adk_runtime.plugins import BasePlugin

HOOKS = (
    "on_user_message_callback",
    "before_run_callback",
    "on_event_callback",
    "after_run_callback",
    "on_run_error_callback",
    "before_agent_callback",
    "after_agent_callback",
    "on_agent_error_callback",
    "before_model_callback",
    "after_model_callback",
    "on_model_error_callback",
    "before_tool_callback",
    "after_tool_callback",
    "on_tool_error_callback",
)


class Recorder(BasePlugin):
    """Records ``(plugin name, hook)`` in a shared log; ``answers[hook]`` is returned."""

    def __init__(
        self, name: str = "recorder", log: list[tuple[str, str]] | None = None, **answers: Any
    ) -> None:
        super().__init__(name)
        self.log: list[tuple[str, str]] = [] if log is None else log
        self.answers = answers
        self.kwargs: dict[str, list[dict[str, Any]]] = {}
        self.closed = False
        for hook in HOOKS:
            setattr(self, hook, self._recording(hook))

    def _recording(self, hook: str) -> Any:
        async def record(**kwargs: Any) -> Any:
            self.log.append((self.name, hook))
            self.kwargs.setdefault(hook, []).append(kwargs)
            answer = self.answers.get(hook)
            if not callable(answer):
                return answer
            result = answer(**kwargs)
            return await result if inspect.isawaitable(result) else result

        return record

    def hooks(self) -> list[str]:
        return [hook for name, hook in self.log if name == self.name]

    async def close(self) -> None:
        self.closed = True
