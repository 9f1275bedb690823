"""SaveFilesAsArtifactsPlugin: files a user sends are stored as artifacts, not in the session."""

from __future__ import annotations

import logging
import urllib.parse
from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.core.base_plugin import BasePlugin
from adk_runtime.sessions.state import State

if TYPE_CHECKING:
    from adk_runtime.core.base_agent import BaseAgent
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["SaveFilesAsArtifactsPlugin"]

logger = logging.getLogger(__name__)

# URI schemes a model can read a file from by itself (Vertex AI reads gs://, hosted models
# fetch http(s)://). The stores of adk_runtime have URIs of their own, which no model reads.
_MODEL_READABLE_SCHEMES = frozenset({"gs", "https", "http"})

# The largest file a request may carry inline (the Gemini API's limit for inline data).
_MAX_INLINE_BYTES = 20 * 1024 * 1024


class SaveFilesAsArtifactsPlugin(BasePlugin):
    """Saves each inline file of a user's message as an artifact and puts a note in its place.

    The file's name is its ``inline_data.display_name`` (a name starting with ``user:`` makes
    it a user artifact, shared by the user's sessions), else ``artifact_<invocation id>_<part
    index>``; a file of the same name gets a new version. The message that is stored (and
    that the model sees) holds, instead of the bytes, a text part naming the artifact and,
    when the artifact store gives a URI a model can read itself (``gs://``, ``http(s)://``), a
    ``file_data`` part pointing at it. Agents read the files with ``load_artifacts`` or
    ``tool_context.load_artifact``. The saved versions are reported in the ``artifact_delta``
    of an event of the first agent that runs.

    A file over 20 MB is not saved: a text part saying so replaces it. A file the store
    fails to save stays in the message as it was. Without an artifact service on the Runner
    the plugin changes nothing (and warns).
    """

    def __init__(
        self, name: str = "save_files_as_artifacts_plugin", *, attach_file_reference: bool = True
    ) -> None:
        """Create the plugin.

        Args:
            name: The plugin's name.
            attach_file_reference: Add a ``file_data`` part with the artifact's URI when a
                model can read it (False: only the text note).
        """
        super().__init__(name)
        self._attach_file_reference = attach_file_reference

    @property
    def _pending_key(self) -> str:
        # temp: the saved versions travel from the message to the first agent's event within
        # the invocation, and are never stored as session state.
        return f"{State.TEMP_PREFIX}{self.name}:pending_delta"

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: types.Content
    ) -> types.Content | None:
        """Save the message's inline files; the message with notes in their place, or None."""
        if invocation_context.artifact_service is None:
            logger.warning(
                "SaveFilesAsArtifactsPlugin %r does nothing: the Runner has no artifact service.",
                self.name,
            )
            return user_message
        if not user_message.parts:
            return None
        parts: list[types.Part] = []
        saved: dict[str, int] = {}
        changed = False
        for index, part in enumerate(user_message.parts):
            replacement = await self._replace(invocation_context, index, part, saved)
            changed = changed or replacement is not None
            parts.extend([part] if replacement is None else replacement)
        if not changed:
            return None
        if saved:
            state = invocation_context.session.state
            state[self._pending_key] = {**state.get(self._pending_key, {}), **saved}
        return types.Content(role=user_message.role, parts=parts)

    async def before_agent_callback(
        self, *, agent: BaseAgent, callback_context: CallbackContext
    ) -> types.Content | None:
        """Report the versions saved from the message on this (the first) agent's event."""
        pending = callback_context.state.get(self._pending_key)
        if pending:
            callback_context.actions.artifact_delta.update(pending)
            callback_context.state[self._pending_key] = {}
        return None

    async def _replace(
        self, ctx: InvocationContext, index: int, part: types.Part, saved: dict[str, int]
    ) -> list[types.Part] | None:
        """The parts that stand for ``part`` (saved in ``saved``), or None to keep it."""
        blob = part.inline_data
        if blob is None:
            return None
        filename = blob.display_name or f"artifact_{ctx.invocation_id}_{index}"
        size = len(blob.data or b"")
        if size > _MAX_INLINE_BYTES:
            logger.warning("An uploaded file of %d bytes is over the 20 MB limit.", size)
            return [
                types.Part(
                    text=f"[The file {filename!r} was not uploaded: it is {size / 2**20:.1f} "
                    "MB, more than the 20 MB allowed. Ask for a smaller file.]"
                )
            ]
        assert ctx.artifact_service is not None
        try:
            version = await ctx.artifact_service.save_artifact(
                app_name=ctx.app_name,
                user_id=ctx.user_id,
                session_id=ctx.session.id,
                filename=filename,
                artifact=part.model_copy(),
            )
        except Exception as exc:  # the file stays in the message; the turn goes on
            logger.error("Saving uploaded file #%d failed: %s", index, type(exc).__name__)
            return None
        saved[filename] = version
        # google-adk's marker, so prompts written for it read the same message.
        note = types.Part(text=f'[Uploaded Artifact: "{filename}"]')
        reference = await self._reference(ctx, filename, version, blob.mime_type)
        return [note] if reference is None else [note, reference]

    async def _reference(
        self, ctx: InvocationContext, filename: str, version: int, mime_type: str | None
    ) -> types.Part | None:
        """A ``file_data`` part for the saved version, if a model can read its URI."""
        if not self._attach_file_reference or ctx.artifact_service is None:
            return None
        try:
            info = await ctx.artifact_service.get_artifact_version(
                app_name=ctx.app_name,
                user_id=ctx.user_id,
                session_id=ctx.session.id,
                filename=filename,
                version=version,
            )
        except Exception as exc:
            logger.warning("Reading an uploaded file's version failed: %s", type(exc).__name__)
            return None
        if info is None or not _model_readable(info.canonical_uri):
            return None
        return types.Part(
            file_data=types.FileData(
                file_uri=info.canonical_uri,
                mime_type=mime_type or info.mime_type,
                display_name=filename,
            )
        )


def _model_readable(uri: str | None) -> bool:
    if not uri:
        return False
    try:
        scheme = urllib.parse.urlparse(uri).scheme
    except ValueError:
        return False
    return scheme.lower() in _MODEL_READABLE_SCHEMES
