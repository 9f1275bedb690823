"""FunctionTool: a Python function the model may call."""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any

import pydantic
from google.genai import types

from adk_runtime import _callbacks
from adk_runtime.features import FeatureName, is_feature_enabled
from adk_runtime.tools._confirm import RequireConfirmation, gate, requires_confirmation
from adk_runtime.tools._declaration import Signature
from adk_runtime.tools.base_tool import BaseTool
from adk_runtime.tools.tool_context import ToolContext

__all__ = ["FunctionTool"]


class FunctionTool(BaseTool):
    """Wraps a function (sync or async) as a tool.

    The declaration comes from the signature, the type hints and the docstring. The
    arguments the model sends are validated and coerced to the annotated types (a bad call
    is answered with an error the model sees; a call that leaves out required parameters is
    answered, as in google-adk, by naming them and asking the model to call again with all
    of them). A ``tool_context: ToolContext`` parameter is
    filled in by the runtime. A sync function runs in a worker thread, never on the loop.

    With ``require_confirmation`` (True, or a predicate of the arguments) a call first asks
    the user to confirm (``ToolContext.request_confirmation``) and runs only once confirmed.
    """

    def __init__(
        self, func: Callable[..., Any], *, require_confirmation: RequireConfirmation = False
    ) -> None:
        """Wrap ``func``; its ``__name__`` is the tool's name."""
        name = getattr(func, "__name__", None) or type(func).__name__
        super().__init__(name=name, description=_docstring(func))
        self.func = func
        self._require_confirmation = require_confirmation
        # One per form (FeatureName.JSON_SCHEMA_FOR_FUNC_DECL on or off).
        self._declarations: dict[bool, types.FunctionDeclaration] = {}

    @functools.cached_property
    def _signature(self) -> Signature:
        """The function's signature, read on first use.

        Subclasses that declare and run themselves (``TransferToAgentTool``) never pay for it.
        """
        return Signature(self.func, self.name, self.description)

    def _get_declaration(self) -> types.FunctionDeclaration | None:
        form = is_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL)
        declaration = self._declarations.get(form)
        if declaration is None:
            declaration = self._declarations[form] = self._build_declaration()
        return declaration

    def _build_declaration(self) -> types.FunctionDeclaration:
        """Build the declaration (once per form; it is cached)."""
        return self._signature.declaration()

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Call the function with the validated ``args`` (and the context if it asks for it)."""
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
        if self._signature.wants_context:
            kwargs[self._signature.context_name] = tool_context
        result = await _callbacks.invoke(self.func, **kwargs)
        if isinstance(result, pydantic.BaseModel):
            return result.model_dump(mode="json")
        return result

    async def check_require_confirmation(
        self, args: dict[str, Any], tool_context: ToolContext
    ) -> bool:
        """Whether a call with ``args`` needs the user's confirmation."""
        try:
            kwargs = self._signature.validate(args)
        except pydantic.ValidationError:
            kwargs = dict(args)
        return await requires_confirmation(self._require_confirmation, kwargs, tool_context)


def _docstring(func: Callable[..., Any]) -> str:
    """The description the model sees, as google-adk finds it.

    A function's docstring; for a ``functools.partial``, the wrapped callable's; for a
    callable object, its class's docstring or else its ``__call__``'s.
    """
    if isinstance(func, functools.partial):
        wrapped: Callable[..., Any] = func.func
        return _docstring(wrapped)
    doc = inspect.getdoc(func)
    if not doc and not inspect.isroutine(func) and not inspect.isclass(func):
        doc = inspect.getdoc(type(func).__call__)
    return doc or ""


def _missing_arguments_message(name: str, missing: list[str]) -> str:
    listed = "\n".join(f"- {param}" for param in missing)
    return (
        f"The tool `{name}` did not run: these required parameters were not given:\n{listed}\n"
        f"Call `{name}` again, this time passing every required parameter."
    )
