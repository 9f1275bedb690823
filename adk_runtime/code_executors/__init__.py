"""Code executors: run code the model writes (``google.adk.code_executors``)."""

from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.built_in_code_executor import BuiltInCodeExecutor
from adk_runtime.code_executors.code_execution_utils import (
    CodeExecutionInput,
    CodeExecutionResult,
    CodeExecutionUtils,
    File,
)
from adk_runtime.code_executors.code_executor_context import CodeExecutorContext
from adk_runtime.code_executors.unsafe_local_code_executor import UnsafeLocalCodeExecutor

__all__ = [
    "BaseCodeExecutor",
    "BuiltInCodeExecutor",
    "CodeExecutionInput",
    "CodeExecutionResult",
    "CodeExecutionUtils",
    "CodeExecutorContext",
    "File",
    "UnsafeLocalCodeExecutor",
]
