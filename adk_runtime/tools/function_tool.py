"""FunctionTool: a Python function the model may call."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import pydantic
from google.genai import types

from adk_runtime import _callbacks
from adk_runtime.core.base_tool import BaseTool
from adk_runtime.core.tool_context import ToolContext
from adk_runtime.features import FeatureName, is_feature_enabled
from adk_runtime.tools._automatic_function_calling_util import build_function_declaration
from adk_runtime.tools._confirm import RequireConfirmation, gate, requires_confirmation
from adk_runtime.tools._declaration import (
    CONTEXT_PARAMETER,
    Signature,
    callable_doc,
    callable_name,
    context_parameter,
)
from adk_runtime.utils.variant_utils import GoogleLLMVariant, get_google_llm_variant

__all__ = ["FunctionTool"]


class FunctionTool(BaseTool):
    """Wraps a function (sync or async) as a tool.

    The declaration comes from the signature, the type hints and the docstring. The
    arguments the model sends are validated and coerced to the annotated types (a bad call
    is answered with an error the model sees; a call that leaves out required parameters is
    answered, as in google-adk, by naming them and asking the model to call again with all
    of them). The context parameter (the first one annotated ``ToolContext`` / ``Context``,
    whatever its name, else one named ``tool_context``) is filled in by the runtime and
    never declared. A sync function runs in a worker thread, never on the loop.

    Before validation, :meth:`_preprocess_args` turns each JSON value into its parameter's
    type where it fits (a dict into the annotated pydantic model, say); subclasses may
    override it to prepare the raw arguments their own way.

    With ``require_confirmation`` (True, or a predicate of the arguments) a call first asks
    the user to confirm (``ToolContext.request_confirmation``) and runs only once confirmed.
    """

    def __init__(
        self, func: Callable[..., Any], *, require_confirmation: RequireConfirmation = False
    ) -> None:
        """Wrap ``func``; its ``__name__`` is the tool's name."""
        super().__init__(name=callable_name(func), description=callable_doc(func))
        self.func = func
        self._require_confirmation = require_confirmation
        # One per form (FeatureName.JSON_SCHEMA_FOR_FUNC_DECL on or off) and API variant.
        self._declarations: dict[tuple[bool, GoogleLLMVariant], types.FunctionDeclaration] = {}

    @functools.cached_property
    def _context_param_name(self) -> str:
        """The parameter that receives the ``ToolContext`` (``tool_context`` by default)."""
        return context_parameter(self.func) or CONTEXT_PARAMETER

    @functools.cached_property
    def _ignore_params(self) -> list[str]:
        """Parameters the model never sees: the context, and a live ``input_stream``."""
        return [self._context_param_name, "input_stream"]

    @functools.cached_property
    def _signature(self) -> Signature:
        """The function's signature, read on first use.

        Subclasses that declare and run themselves (``TransferToAgentTool``) never pay for it.
        """
        return Signature(self.func, self.name, self.description, ignore=self._ignore_params)

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        key = (is_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL), get_google_llm_variant())
        declaration = self._declarations.get(key)
        if declaration is None:
            declaration = self._declarations[key] = self._build_declaration()
        return declaration

    def _build_declaration(self) -> types.FunctionDeclaration:
        """Build the declaration (once per form and API variant; it is cached)."""
        declaration = build_function_declaration(
            self.func, ignore_params=list(self._ignore_params), variant=get_google_llm_variant()
        )
        declaration.name = self.name
        declaration.description = self.description or None
        return declaration

    def _preprocess_args(self, args: dict[str, Any]) -> dict[str, Any]:
        """The model's raw ``args``, each converted to its parameter's type where it fits.

        A dict for a pydantic-model parameter (or ``Optional`` of one, a union of models,
        a list of them) becomes the model; a whole float for an ``int`` becomes an int. A
        value that does not fit, and a name the function does not take, are passed on
        unchanged (validation then reports the misfit). Override to prepare arguments
        differently; the result is what gets validated.
        """
        return self._signature.coerce(args)

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Call the function with the validated ``args`` (and the context if it asks for it)."""
        result = await self._call_function(args, tool_context)
        if isinstance(result, types.Part) and (result.inline_data or result.file_data):
            return result  # media: sent to the model as a part of the function response
        if isinstance(result, pydantic.BaseModel):
            return result.model_dump(mode="json")
        return result

    async def _call_function(self, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Validate ``args`` and call the function; its result as it returned it.

        Arguments that do not fit (missing, invalid) and a refused confirmation are answered
        with the ``{"error": ...}`` the model is sent, without calling the function.
        """
        args = self._preprocess_args(args)
        missing = self._signature.missing(args)
        if missing:
            return {"error": _missing_arguments_message(self.name, missing)}
        try:
            kwargs = self._signature.validate(args)
        except pydantic.ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in error['loc'])}: {error['msg']}"
                for error in exc.errors()
            )
            return {"error": f"Invalid arguments for {self.name}: {problems}"}
        refused = await gate(self.name, self._require_confirmation, kwargs, tool_context)
        if refused is not None:
            return refused
        kwargs.update(self._passed_unchecked(args))
        if self._signature.wants_context:
            kwargs[self._signature.context_name] = tool_context
        return await _callbacks.invoke(self.func, **kwargs)

    def _passed_unchecked(self, args: dict[str, Any]) -> dict[str, Any]:
        """The arguments of ignored parameters a subclass supplies, passed on as they are.

        A subclass may add a parameter it fills itself to ``_ignore_params`` (as
        ``AuthenticatedFunctionTool`` does with ``credential``): the model never sees it and
        it is not validated. The context and ``input_stream`` are never taken from ``args``.
        """
        reserved = {self._signature.context_name, "input_stream"}
        return {
            name: args[name]
            for name in self._ignore_params
            if name in args and name not in reserved and name in self._signature.parameter_names
        }

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """Whether a call with ``args`` needs the user's confirmation."""
        args = self._preprocess_args(args)
        try:
            kwargs = self._signature.validate(args)
        except pydantic.ValidationError:
            kwargs = dict(args)
        return await requires_confirmation(self._require_confirmation, kwargs, tool_context)


def _missing_arguments_message(name: str, missing: list[str]) -> str:
    listed = "\n".join(f"- {param}" for param in missing)
    return (
        f"The tool `{name}` did not run: these required parameters were not given:\n{listed}\n"
        f"Call `{name}` again, this time passing every required parameter."
    )
