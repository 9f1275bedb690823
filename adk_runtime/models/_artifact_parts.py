"""Artifacts as parts a Gemini model accepts: media inline, documents as text, else a note.

The conversion ``load_artifacts`` and ``{artifact.name}`` instruction placeholders share
(``as_safe_part_for_llm``, google-adk's ``tools.load_artifacts_tool`` name).
"""

from __future__ import annotations

import base64
import binascii
import html
import io
import re
import zipfile

from google.genai import types

from adk_runtime.models import _spreadsheets
from adk_runtime.models._unshown_media import bare_mime_type, shown_mime_type

__all__ = ["as_safe_part_for_llm"]

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
