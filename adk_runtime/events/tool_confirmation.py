"""ToolConfirmation: a tool call's request for the user's approval, and the user's answer.

Defined with the events because ``EventActions.requested_tool_confirmations`` holds it;
``adk_runtime.tools.tool_confirmation`` is its public home, as in google-adk.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, alias_generators

from adk_runtime.events._json_fields import JsonValue

__all__ = ["ToolConfirmation"]


class ToolConfirmation(BaseModel):
    """What a tool asks the user to confirm, and what the user answered.

    Attributes:
        hint: Why the confirmation is needed (shown to the user).
        confirmed: The user's answer: True runs the tool, False rejects the call.
        payload: Free JSON data the tool asks for, or the user sends back with the answer.
    """

    model_config = ConfigDict(
        extra="forbid", alias_generator=alias_generators.to_camel, populate_by_name=True
    )

    hint: str = ""
    confirmed: bool = False
    payload: JsonValue = None

    @classmethod
    def from_response_dict(cls, response: dict[str, Any]) -> ToolConfirmation:
        """Read the user's answer from a function response's ``response``.

        Accepts the confirmation itself (``{"confirmed": true, ...}``) and the form the ADK
        web client sends (``{"response": "<the same as a JSON string>"}``).

        Raises:
            pydantic.ValidationError: The response is not a confirmation.
        """
        if response and len(response) == 1 and "response" in response:
            return cls.model_validate(json.loads(response["response"]))
        return cls.model_validate(response)
