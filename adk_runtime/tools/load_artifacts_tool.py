"""load_artifacts: the model asks for the session's artifacts and sees them in its next call."""

from __future__ import annotations

import asyncio
import base64
import binascii
import html
import inspect
import io
import json
import logging
import re
import zipfile
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, TypeAlias

from google.genai import types

from adk_runtime.models._unshown_media import bare_mime_type, shown_mime_type
from adk_runtime.tools import _spreadsheets
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
_INLINE_PREFIXES = ("image/", "audio/", "video/")
_INLINE_TYPES = frozenset({"application/pdf"})
_XML_IMAGES = frozenset({"image/svg", "image/svg+xml", "image/xml"})
_TEXT_TYPES = (
    frozenset({"application/csv", "application/json", "application/xml", "application/svg+xml"})
    | _XML_IMAGES
)
_TEXT_SUFFIXES = (".csv", ".txt", ".json", ".xml", ".md")


def _inline_ok(mime_type: str) -> bool:
    return mime_type not in _XML_IMAGES and (
        mime_type.startswith(_INLINE_PREFIXES) or mime_type in _INLINE_TYPES
    )


def _as_bytes(data: bytes | str) -> bytes | None:
    return data if isinstance(data, bytes) else _maybe_base64_to_bytes(data)


def _maybe_base64_to_bytes(data: str) -> bytes | None:
    """``data`` decoded as base64, standard or URL-safe; None when it is neither."""
    for altchars in (None, b"-_"):
        try:
            return base64.b64decode(data, altchars=altchars, validate=True)
        except (binascii.Error, ValueError):
            continue
    return None


_DOCX_TYPES = frozenset(
    {
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "application/octet-stream",
    }
)
_WORD_NAMESPACE = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
_MAX_DOCX_XML = 10 * 1024 * 1024  # read at most this much of the document part (zip bombs)


def _docx_text(data: bytes) -> str | None:
    """The text of a Word document (one line per paragraph), or None if ``data`` is not one.

    The document part is scanned with regular expressions, never parsed as XML (no entity
    expansion), and read only up to 10 MB.
    """
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            if "word/document.xml" not in archive.namelist():
                return None
            with archive.open("word/document.xml") as part:
                xml = part.read(_MAX_DOCX_XML).decode("utf-8", errors="ignore")
    except (zipfile.BadZipFile, OSError, ValueError, RuntimeError):
        return None
    declared = re.search(r'xmlns:(\w+)="' + re.escape(_WORD_NAMESPACE) + '"', xml)
    prefix = re.escape(declared.group(1) if declared else "w")
    paragraphs = re.findall(rf"<{prefix}:p[\s>].*?</{prefix}:p>", xml, flags=re.S)
    lines = []
    for paragraph in paragraphs:
        runs = re.findall(rf"<{prefix}:t(?:\s[^>]*)?>(.*?)</{prefix}:t>", paragraph, flags=re.S)
        lines.append(html.unescape("".join(runs)))
    return "\n".join(lines)


def as_safe_part_for_llm(
    artifact: types.Part, artifact_name: str, enable_spreadsheet_parsing: bool = False
) -> types.Part:
    """A part a Gemini model accepts for ``artifact``.

    Text and media Gemini takes inline (images, audio, video, PDF) pass through; text-like
    data (``text/*``, JSON, CSV, XML, SVG) becomes text, and so does a Word document's
    (``.docx``); with ``enable_spreadsheet_parsing``, an Excel workbook (``.xlsx``, ``.xls``)
    becomes one Markdown table per sheet (its first 100 rows; needs the ``spreadsheets``
    extra). Anything else becomes a one-line placeholder naming the artifact, its type and
    size. Parsing a workbook takes CPU time: ``LoadArtifactsTool`` does it in a worker thread.

    Raises:
        ConfigurationError: ``enable_spreadsheet_parsing`` for a workbook without the
            ``spreadsheets`` extra installed.
    """
    inline = artifact.inline_data
    if inline is None:
        return artifact
    mime_type = bare_mime_type(inline.mime_type or "") or "application/octet-stream"
    if inline.mime_type and _inline_ok(mime_type):
        return artifact
    if inline.data is None:
        shown = shown_mime_type(mime_type)
        return types.Part(text=f"[Artifact: {artifact_name}, type: {shown}. No data.]")
    data = _as_bytes(inline.data)
    if data is None:
        return types.Part(text=str(inline.data))
    if mime_type in _DOCX_TYPES or artifact_name.lower().endswith(".docx"):
        text = _docx_text(data)
        if text is not None:
            return types.Part(text=text)
    textual = (
        mime_type.startswith("text/")
        or mime_type in _TEXT_TYPES
        or artifact_name.lower().endswith(_TEXT_SUFFIXES)
    )
    if textual:
        return types.Part(text=data.decode("utf-8", errors="replace"))
    if enable_spreadsheet_parsing and _spreadsheets.is_spreadsheet(mime_type, artifact_name):
        return types.Part(text=_spreadsheets.spreadsheet_text(data, artifact_name))
    return types.Part(
        text=f"[Binary artifact: {artifact_name}, type: {shown_mime_type(mime_type)}, size: "
        f"{len(data) / 1024:.1f} KB. Content cannot be displayed inline.]"
    )


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
