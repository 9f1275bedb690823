"""The stored event of a streamed artifact holds the whole artifact.

The Runner shows partial events and never stores them, so the event that closes an artifact
(its last chunk, or the end of a stream that stopped mid-artifact) is given every part the
artifact received; each partial showed only its own chunk.
"""

from __future__ import annotations

from typing import Any

from google.genai import types as genai_types

from adk_runtime.a2a import _compat
from adk_runtime.a2a._compat import TaskArtifactUpdateEvent
from adk_runtime.a2a.agent._history import A2A_METADATA_PREFIX, as_list
from adk_runtime.a2a.converters.part_converter import A2APartToGenAIPartConverter
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.events import Event


class ArtifactStreams:
    """Makes the stored event of a streamed artifact hold the whole artifact.

    Partial chunks are never stored; the event closing an artifact (its last chunk) is,
    so it is given every part the artifact received. Ids are kept unique among the
    events stored in the run.
    """

    def __init__(
        self, agent_name: str, part_converter: A2APartToGenAIPartConverter, ctx: InvocationContext
    ) -> None:
        self._agent_name = agent_name
        self._converter = part_converter
        self._ctx = ctx
        self._open: dict[str, str] = {}  # artifact id -> event id of its partial chunks
        self._stored_ids: set[str] = set()

    def _parts(self, task: Any, artifact_id: str) -> list[genai_types.Part]:
        converter = self._converter
        parts: list[genai_types.Part] = []
        for artifact in task.artifacts if task is not None else []:
            if artifact.artifact_id == artifact_id:
                for a2a_part in artifact.parts:
                    parts.extend(as_list(converter(a2a_part)))
        return [part for part in parts if not part.thought] or parts

    def complete(self, event: Event, response: Any) -> None:
        """Give the event closing an artifact the whole artifact; keep stored ids unique."""
        update = response[1] if isinstance(response, tuple) else None
        if isinstance(response, tuple) and update is None and not event.partial:
            # A whole task's event already holds the artifacts it carries.
            for artifact in response[0].artifacts:
                self._open.pop(artifact.artifact_id, None)
        if isinstance(update, TaskArtifactUpdateEvent):
            artifact_id = update.artifact.artifact_id
            if event.partial:
                self._open[artifact_id] = event.id
                return
            if artifact_id in self._open and update.append:
                parts = self._parts(response[0], artifact_id)
                if parts:
                    event.content = genai_types.Content(role="model", parts=parts)
            self._open.pop(artifact_id, None)
        if event.partial:
            return
        if event.id in self._stored_ids:
            event.id = Event.new_id()
        self._stored_ids.add(event.id)

    def unfinished(self, last_task: Any, request_dict: dict[str, Any]) -> list[Event]:
        """Closing events for artifacts whose last chunk never came."""
        events: list[Event] = []
        for artifact_id, event_id in self._open.items():
            parts = self._parts(last_task, artifact_id)
            if not parts:
                continue
            event = Event(
                id=event_id if event_id not in self._stored_ids else Event.new_id(),
                author=self._agent_name,
                invocation_id=self._ctx.invocation_id,
                branch=self._ctx.branch,
                content=genai_types.Content(role="model", parts=parts),
                custom_metadata={
                    A2A_METADATA_PREFIX + "task_id": last_task.id,
                    A2A_METADATA_PREFIX + "request": request_dict,
                    A2A_METADATA_PREFIX + "response": _compat.a2a_to_dict(last_task),
                },
            )
            if last_task.context_id:
                event.custom_metadata[A2A_METADATA_PREFIX + "context_id"] = last_task.context_id  # type: ignore[index]
            self._stored_ids.add(event.id)
            events.append(event)
        self._open.clear()
        return events
