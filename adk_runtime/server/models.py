"""Request bodies of the HTTP API (google-adk's shapes; camelCase and snake_case accepted)."""

from __future__ import annotations

from typing import Any

from google.genai import types
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ModelWrapValidatorHandler,
    alias_generators,
    model_validator,
)

from adk_runtime import codec
from adk_runtime.events import Event
from adk_runtime.events._credential_secrets import redact_credentials
from adk_runtime.events._internal_metadata import public_event
from adk_runtime.sessions import Session

__all__ = [
    "CreateSessionRequest",
    "RunAgentRequest",
    "SaveArtifactRequest",
    "UpdateMemoryRequest",
    "UpdateSessionRequest",
    "session_json",
]


class _Request(BaseModel):
    model_config = ConfigDict(
        alias_generator=alias_generators.to_camel, populate_by_name=True, extra="ignore"
    )

    @model_validator(mode="wrap")
    @classmethod
    def _input_errors_are_validation_errors(
        cls, data: Any, handler: ModelWrapValidatorHandler[Any]
    ) -> Any:
        # Some google-genai validators raise AttributeError or TypeError on a value of the
        # wrong type (e.g. an object where an enum name belongs) instead of ValueError; that
        # is bad input (422), never a server error.
        try:
            return handler(data)
        except (AttributeError, TypeError) as exc:
            raise ValueError(f"a value has the wrong type ({type(exc).__name__})") from None


class RunAgentRequest(_Request):
    """Body of ``POST /run`` and ``POST /run_sse``.

    Attributes:
        app_name: The app (defaults to the one this server serves).
        user_id: The user.
        session_id: The session to run on (it must exist).
        new_message: The user's message.
        streaming: With ``/run_sse``, stream the model's chunks as partial events.
        state_delta: State changes committed with the user's message.
        invocation_id: Resume this invocation (long-running tools).
        custom_metadata: Free-form metadata for the invocation.
    """

    app_name: str | None = None
    user_id: str
    session_id: str
    new_message: types.Content | None = None
    streaming: bool = False
    state_delta: dict[str, Any] | None = None
    invocation_id: str | None = None
    custom_metadata: dict[str, Any] | None = None


class ForkSessionRequest(_Request):
    """Body of ``POST …/sessions/{session}/fork`` (every field optional).

    Attributes:
        new_session_id: The new session's id (default: a fresh uuid4).
        at_event_id: The last event to copy (default: every event).
    """

    new_session_id: str | None = None
    at_event_id: str | None = None


class CreateSessionRequest(_Request):
    """Body of ``POST /apps/{app}/users/{user}/sessions`` (every field optional)."""

    session_id: str | None = None
    state: dict[str, Any] | None = None
    events: list[Event] | None = Field(
        default=None,
        description=(
            "Events to start with: history, stored marked as restored (the runtime's own "
            "metadata keys they carry are dropped), written with the session in one atomic "
            "step. None may carry a state delta (give the state as 'state'); ids are distinct."
        ),
    )


class UpdateSessionRequest(_Request):
    """Body of ``PATCH /apps/{app}/users/{user}/sessions/{session}``."""

    state_delta: dict[str, Any]


class SaveArtifactRequest(_Request):
    """Body of ``POST …/artifacts``: a new version of ``filename``."""

    filename: str
    artifact: types.Part
    custom_metadata: dict[str, Any] | None = None


class UpdateMemoryRequest(_Request):
    """Body of ``PATCH /apps/{app}/users/{user}/memory``: the session to remember."""

    session_id: str


def event_json(event: Event) -> dict[str, Any]:
    """An event as the API returns it (camelCase, no nulls, no credential secrets).

    The runtime's own ``custom_metadata`` keys (``__adk_internal_…``) stay in the store.
    """
    dumped = public_event(event).model_dump(mode="json", by_alias=True, exclude_none=True)
    return redact_credentials(dumped)


def session_json(session: Session) -> dict[str, Any]:
    """A session as the API returns it (camelCase, no nulls, state values via the codec)."""
    return {
        "id": session.id,
        "appName": session.app_name,
        "userId": session.user_id,
        "state": codec.encode_state(session.state),
        "events": [event_json(event) for event in session.events],
        "lastUpdateTime": session.last_update_time,
        "revision": session.revision,
    }
