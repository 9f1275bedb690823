"""BuiltInCodeExecutor: Gemini runs the code itself (the ``code_execution`` tool)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.code_executors.base_code_executor import BaseCodeExecutor
from adk_runtime.code_executors.code_execution_utils import CodeExecutionInput, CodeExecutionResult
from adk_runtime.errors import ConfigurationError
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.utils.model_name_utils import (
    is_gemini_eap_or_2_or_above,
    is_gemini_model_id_check_disabled,
)

if TYPE_CHECKING:
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["BuiltInCodeExecutor"]


class BuiltInCodeExecutor(BaseCodeExecutor):
    """Declare Gemini's built-in code execution tool; the model runs the code on its side.

    Nothing runs in this process: the model's ``executable_code`` and
    ``code_execution_result`` parts come back in its response and are stored with it.
    """

    async def execute_code(
        self, invocation_context: InvocationContext, code_execution_input: CodeExecutionInput
    ) -> CodeExecutionResult:
        """Never called: the model executes the code."""
        raise NotImplementedError("BuiltInCodeExecutor's code runs on the model's side.")

    def process_llm_request(self, llm_request: LlmRequest) -> None:
        """Add the ``code_execution`` tool to a request for Gemini 2 or later.

        ``ADK_DISABLE_GEMINI_MODEL_ID_CHECK=true`` skips the model check (for model ids that
        do not follow the public ``gemini-…`` names).

        Raises:
            ConfigurationError: The request's model is not Gemini 2 or later.
        """
        model = llm_request.model
        if not is_gemini_eap_or_2_or_above(model) and not is_gemini_model_id_check_disabled():
            raise ConfigurationError(
                f"BuiltInCodeExecutor needs Gemini 2 or later (it declares Gemini's "
                f"code_execution tool); this agent's model is {model!r}. Set "
                f"ADK_DISABLE_GEMINI_MODEL_ID_CHECK=true if the id names such a model."
            )
        tools = list(llm_request.config.tools or [])
        tools.append(types.Tool(code_execution=types.ToolCodeExecution()))
        llm_request.config.tools = tools
