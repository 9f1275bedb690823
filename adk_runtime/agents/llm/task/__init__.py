"""Task mode of ``LlmAgent``: a parent delegates a task, the agent ends it with ``finish_task``.

See ``LlmAgent.mode`` and ``docs/how-to/agents/tasks.md`` (delegated tasks).
"""

from adk_runtime.agents.llm.task._task_models import TaskRequest, TaskResult

__all__ = ["TaskRequest", "TaskResult"]
