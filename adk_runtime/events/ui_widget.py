"""UiWidget: a widget the client renders next to an event (google-adk's MCP Apps and others)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from adk_runtime.events._json_fields import STORED_FORM, JsonDict

__all__ = ["UiWidget"]


class UiWidget(BaseModel):
    """What a client needs to render a widget: who renders it, and with what.

    Recorded in ``EventActions.render_ui_widgets`` (``tool_context.render_ui_widget``) and
    committed with the event, so a client reloading the session shows it again.

    Attributes:
        id: Unique among the widgets of one step.
        provider: Which renderer the client uses (``"mcp"``: an MCP App in an iframe).
        payload: The renderer's data (for ``"mcp"``: ``resource_uri``, ``tool``,
            ``tool_args``).
    """

    model_config = STORED_FORM.copy()

    id: str
    provider: str
    payload: JsonDict = Field(default_factory=dict)
