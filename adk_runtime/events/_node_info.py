"""NodeInfo (public as ``adk_runtime.events.event.NodeInfo``): where in a graph an event was made.

google-adk 2 records on every event the workflow node that produced it; so do adk_runtime's
workflows (``adk_runtime.workflow``). Agents run outside a workflow leave it empty; an event
that carries it is stored with it on every backend.
"""

from __future__ import annotations

from pydantic import BaseModel

from adk_runtime.events._json_fields import STORED_FORM

__all__ = ["NodeInfo"]

_RUN_MARK = "@"
_SEPARATOR = "/"


class NodeInfo(BaseModel):
    """The workflow node an event comes from.

    A path is the chain of node runs from the workflow down to the node, separated by ``/``;
    each segment is ``name@run_id``, or ``name`` alone (e.g. ``"wf@1/review@3"``).

    Attributes:
        path: The node's path; empty when the event does not come from a workflow node.
        output_for: Paths of the node runs (in the same invocation) this event's ``output``
            is the output of: its own first, then each enclosing workflow whose output it
            also is (a terminal node's).
        message_as_output: The event's content is the node's output (no separate output
            event follows).
    """

    model_config = STORED_FORM.copy()

    path: str = ""
    output_for: list[str] | None = None
    message_as_output: bool | None = None

    @property
    def name(self) -> str:
        """The node's name: the last segment of the path without its run id."""
        return _name_and_run(_last_segment(self.path))[0]

    @property
    def run_id(self) -> str:
        """The run id of the node (the last segment's), or ``""`` when the path has none."""
        return _name_and_run(_last_segment(self.path))[1] or ""

    @property
    def parent_run_id(self) -> str | None:
        """The run id of the node that scheduled this one (the second-to-last segment's).

        None when the path has a single segment, or the parent segment has no run id.
        """
        segments = self.path.split(_SEPARATOR) if self.path else []
        if len(segments) < 2:
            return None
        return _name_and_run(segments[-2])[1]


def _last_segment(path: str) -> str:
    return path.rsplit(_SEPARATOR, 1)[-1]


def _name_and_run(segment: str) -> tuple[str, str | None]:
    name, mark, run_id = segment.rpartition(_RUN_MARK)
    return (name, run_id) if mark else (segment, None)
