"""load_artifacts: the model asks for the session's artifacts and sees them in its next call."""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeAlias

from google.genai import types

from adk_runtime.models import _spreadsheets
from adk_runtime.models._artifact_parts import as_safe_part_for_llm
from adk_runtime.tools._names_tool import NamesTool, names_of

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext
    from adk_runtime.models.llm_request import LlmRequest

__all__ = [
    "LoadArtifactsTool",
    "ProcessArtifactCallback",
    "as_safe_part_for_llm",
    "load_artifacts_tool",
]

logger = logging.getLogger(__name__)

ProcessArtifactCallback: TypeAlias = Callable[
    [types.Part, str], types.Part | Awaitable[types.Part | None] | None
]
"""``(artifact, artifact_name) -> part`` (sync or async): what the model is shown; None skips."""

_USER_PREFIX = "user:"


def _resolve_name(requested: str, available: set[str]) -> str | None:
    """The listed name the model meant (it often drops or adds ``user:``); None if unlisted.

    The model's choice is untrusted: only a name the artifact service listed for this
    session is ever loaded.
    """
    if requested in available:
        return requested
    if requested.startswith(_USER_PREFIX):
        bare = requested.removeprefix(_USER_PREFIX)
        return bare if bare in available else None
    prefixed = _USER_PREFIX + requested
    return prefixed if prefixed in available else None


class LoadArtifactsTool(NamesTool):
    """Offers the session's artifacts to the model and shows the ones it asks for.

    Before each model call the instruction lists the artifact names. When the model calls
    ``load_artifacts(artifact_names=[...])``, the next model call carries those artifacts'
    contents after the function response (in the request only, never stored in the
    session), converted by ``process_artifact`` or :func:`as_safe_part_for_llm`.
    """

    def __init__(
        self,
        *,
        process_artifact: ProcessArtifactCallback | None = None,
        enable_spreadsheet_parsing: bool = False,
    ) -> None:
        """Create the tool.

        Args:
            process_artifact: Replaces the default conversion: ``(artifact, name)`` returns
                the part to show, or None to leave the artifact out. If it raises, the
                artifact is left out and the error logged.
            enable_spreadsheet_parsing: The default conversion shows Excel workbooks
                (``.xlsx``, ``.xls``) as Markdown tables, parsed in a worker thread (see
                :func:`as_safe_part_for_llm`); needs the ``spreadsheets`` extra.

        Raises:
            ConfigurationError: ``enable_spreadsheet_parsing`` without the ``spreadsheets``
                extra installed.
        """
        if enable_spreadsheet_parsing:
            _spreadsheets.check_installed()
        super().__init__(name="load_artifacts", parameter="artifact_names", things="artifacts")
        self._process_artifact = process_artifact
        self._enable_spreadsheet_parsing = enable_spreadsheet_parsing

    async def process_llm_request(
        self, *, tool_context: ToolContext, llm_request: LlmRequest
    ) -> None:
        """Offer the tool, list the artifacts, and attach the ones just asked for."""
        await super().process_llm_request(tool_context=tool_context, llm_request=llm_request)
        listed = await tool_context.list_artifacts()
        if not listed:
            return
        llm_request.append_instructions(
            [
                f"You have a list of artifacts:\n  {json.dumps(listed)}\n\nWhen the user asks "
                "about any of them, call the `load_artifacts` function to load it first, "
                "every time, even if it was loaded before; do not rely on earlier answers "
                "about the artifacts."
            ]
        )
        for requested in self._requested(llm_request):
            content = await self._content_for(requested, set(listed), tool_context)
            if content is not None:
                llm_request.contents.append(content)

    @staticmethod
    def _requested(llm_request: LlmRequest) -> list[str]:
        """The names in the ``load_artifacts`` responses of the request's last content."""
        last = llm_request.contents[-1] if llm_request.contents else None
        requested: list[str] = []
        for part in (last.parts if last else None) or []:
            response = part.function_response
            if response is None or response.name != "load_artifacts":
                continue
            names = names_of((response.response or {}).get("artifact_names", []))
            if names is None:
                logger.warning("Ignoring invalid artifact_names in a load_artifacts response.")
                continue
            requested.extend(names)
        return requested

    async def _content_for(
        self, requested: str, listed: set[str], tool_context: ToolContext
    ) -> types.Content | None:
        name = _resolve_name(requested, listed)
        artifact = await tool_context.load_artifact(name) if name is not None else None
        if name is None or artifact is None:
            logger.warning("Artifact %r is not available in this session; skipped.", requested)
            return None
        part = await self._shown(artifact, name, requested)
        if part is None:
            return None
        return types.Content(
            role="user", parts=[types.Part(text=f"Artifact {requested} is:"), part]
        )

    async def _shown(self, artifact: types.Part, name: str, requested: str) -> types.Part | None:
        if self._process_artifact is None:
            if self._enable_spreadsheet_parsing:  # a workbook is parsed off the event loop
                return await asyncio.to_thread(as_safe_part_for_llm, artifact, requested, True)
            return as_safe_part_for_llm(artifact, requested)
        try:
            shown = self._process_artifact(artifact, name)
            if inspect.isawaitable(shown):
                shown = await shown
        except Exception:
            logger.exception("process_artifact failed for artifact %r; skipped.", name)
            return None
        return shown


load_artifacts_tool = LoadArtifactsTool()
