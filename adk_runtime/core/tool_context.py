"""ToolContext: what a tool (and its callbacks) may read and write while it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from adk_runtime.core.callback_context import CallbackContext
from adk_runtime.events import EventActions
from adk_runtime.events.tool_confirmation import ToolConfirmation
from adk_runtime.sessions.state import State

if TYPE_CHECKING:
    from pydantic import BaseModel

    from adk_runtime.auth.auth_tool import AuthConfig
    from adk_runtime.core.invocation_context import InvocationContext

__all__ = ["ToolContext"]


class ToolContext(CallbackContext):
    """The context of one function call.

    ``state`` writes, saved artifacts and control flow (``actions.transfer_to_agent``,
    ``actions.escalate``, ``actions.skip_summarization``) land in ``actions``, which is merged
    into the function-response event that carries the call's result and is committed with it.

    Attributes:
        function_call_id: The id of the function call being answered: stable across a
            retry, so a tool with side effects can use it as an idempotency key.
        tool_confirmation: The user's answer to this call's confirmation request, when the
            call is run again after the user answered (see :meth:`request_confirmation`).
        resume_inputs: The user's answers to the input requests a generator tool made in
            this call (``yield RequestInput(...)``), by ``interrupt_id``, when the call runs
            again after the user answered; empty otherwise.
    """

    def __init__(
        self,
        invocation_context: InvocationContext,
        *,
        function_call_id: str | None = None,
        event_actions: EventActions | None = None,
        tool_confirmation: ToolConfirmation | None = None,
        resume_inputs: dict[str, Any] | None = None,
        state_schema: type[BaseModel] | None = None,
    ) -> None:
        """Create the context of the call ``function_call_id``.

        ``state_schema`` checks the state writes instead of the agent's ``state_schema``
        (a workflow node's own).
        """
        super().__init__(invocation_context, event_actions=event_actions)
        self.function_call_id = function_call_id
        self.tool_confirmation = tool_confirmation
        self.resume_inputs: dict[str, Any] = dict(resume_inputs or {})
        self._state = _UndoableState(
            invocation_context.session.state,
            self.actions.state_delta,
            schema=state_schema or self._state.schema,
        )

    def discard_changes(self) -> None:
        """Forget this call's writes: restore the state it changed and clear its actions.

        Used when the tool fails, so that nothing it wrote is visible or committed.
        """
        assert isinstance(self._state, _UndoableState)
        self._state.undo()
        self._event_actions = EventActions()

    def take_changes(self) -> EventActions:
        """Hand over the state and artifact writes so far, to be committed now.

        A generator tool's progress event carries them. They are no longer this call's to
        undo: :meth:`discard_changes` then forgets only what was written after.
        """
        taken = EventActions(
            state_delta=dict(self.actions.state_delta),
            artifact_delta=dict(self.actions.artifact_delta),
        )
        self.actions.state_delta.clear()  # the state view records into this same dict
        self.actions.artifact_delta.clear()
        assert isinstance(self._state, _UndoableState)
        self._state.forget()
        return taken

    def request_confirmation(self, *, hint: str | None = None, payload: Any = None) -> None:
        """Ask the user to confirm this call before it takes effect (human in the loop).

        The tool returns as usual (typically a "waiting for approval" result). Before its
        function-response event the agent yields an ``adk_request_confirmation`` function
        call (a long-running call, see ``REQUEST_CONFIRMATION_FUNCTION_CALL_NAME``); then the
        invocation pauses. The user answers with a ``FunctionResponse`` of that name and id
        whose response is a ``ToolConfirmation`` (``{"confirmed": true, "payload": ...}``);
        then the same call runs again with :attr:`tool_confirmation` set, in that same
        invocation, also after a restart on a durable session store.

        Args:
            hint: Why confirmation is needed, for the user.
            payload: JSON data the user may fill in and send back.

        Raises:
            ValueError: This context answers no function call.
        """
        if not self.function_call_id:
            raise ValueError(
                "request_confirmation requires function_call_id: use it inside a tool."
            )
        self.actions.requested_tool_confirmations[self.function_call_id] = ToolConfirmation(
            hint=hint or "", payload=payload
        )

    def request_credential(self, auth_config: AuthConfig) -> None:
        """Ask the user for the credential ``auth_config`` describes (tool authentication).

        The tool returns as usual (typically a "waiting for sign-in" result). Before its
        function-response event the agent yields an ``adk_request_credential`` function call
        (long-running; see ``REQUEST_EUC_FUNCTION_CALL_NAME``) whose arguments carry the
        request without the agent's secrets, and for OAuth2 the URI to send the user to;
        then the invocation pauses. When the user answers, this call runs again in the same
        invocation (also after a restart on a durable store) and
        :meth:`get_auth_response` returns the credential.

        Raises:
            ValueError: This context answers no function call.
        """
        if not self.function_call_id:
            raise ValueError(
                "request_credential requires function_call_id: use it inside a tool "
                "(callbacks use save_credential / load_credential)."
            )
        from adk_runtime.auth.auth_handler import AuthHandler, remember_client_secret

        remember_client_secret(auth_config)
        request = AuthHandler(auth_config).generate_auth_request()
        self.actions.requested_auth_configs[self.function_call_id] = request.model_dump(
            mode="json", by_alias=True, exclude_none=True
        )

    @property
    def attempt(self) -> int:
        """1 on the first run of this call; 2 when a resumed invocation runs it again.

        A call committed without its response (the process died while the tool ran) is run
        again on resume (at-least-once): the tool may already have done its work once.
        """
        return self._invocation_context.call_attempt(self.function_call_id)

    @property
    def invocation_context(self) -> InvocationContext:
        """The running invocation."""
        return self._invocation_context


_MISSING = object()


class _UndoableState(State):
    """A state view that remembers the values it overwrote, so the writes can be undone."""

    def __init__(
        self, value: dict[str, Any], delta: dict[str, Any], schema: type[BaseModel] | None = None
    ) -> None:
        super().__init__(value, delta, schema)
        self._originals: dict[str, Any] = {}

    def __setitem__(self, key: str, value: Any) -> None:
        if key not in self._originals:
            self._originals[key] = self._value.get(key, _MISSING)
        super().__setitem__(key, value)

    def forget(self) -> None:
        """Keep the writes so far: a later :meth:`undo` leaves them."""
        self._originals.clear()

    def undo(self) -> None:
        for key, original in self._originals.items():
            if original is _MISSING:
                self._value.pop(key, None)
            else:
                self._value[key] = original
            self._delta.pop(key, None)
        self._originals.clear()
