"""Credential secrets in events, and removing them from what is served to clients.

A credential request (``adk_request_credential``) and the user's answer travel in events:
the answer holds what the user gave (an API key, the redirect URI carrying an authorization
code, a token) and the stored request holds the PKCE verifier. The session store keeps them,
so that an invocation can be resumed from storage; a client reading events back over the
HTTP API never needs them, and never gets them (:func:`redact_credentials`).

Kept in the core (no ``auth`` extra needed); ``tests/unit/test_credential_secrets.py``
checks the names against the secret fields of ``adk_runtime.auth``'s credential models.
"""

from __future__ import annotations

from typing import Any

from google.genai import types

__all__ = [
    "CREDENTIAL_REQUEST",
    "CREDENTIAL_SECRET_KEYS",
    "answer_without_secrets",
    "is_credential_part",
    "redact_credentials",
]

_SECRET_NAMES = (
    "password",
    "token",
    "additional_headers",
    "client_secret",
    "auth_response_uri",
    "auth_code",
    "access_token",
    "refresh_token",
    "id_token",
    "code_verifier",
    "private_key_id",
    "private_key",
    "api_key",
)


def _camel(name: str) -> str:
    first, *rest = name.split("_")
    return first + "".join(word.title() for word in rest)


CREDENTIAL_SECRET_KEYS = frozenset(_SECRET_NAMES) | {_camel(name) for name in _SECRET_NAMES}
"""The secret fields of the credential models, by name and by JSON (camelCase) alias."""

CREDENTIAL_REQUEST = "adk_request_credential"
"""The runtime's credential request; its calls and their answers carry the user's secrets."""
_CARRIERS = ("requestedAuthConfigs", "requested_auth_configs")
_WRAPPERS = ("result", "response")
"""Keys an answer may wrap a bare credential in (``{"result": "<api key>"}``)."""


def _stripped(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _stripped(v) for k, v in value.items() if k not in CREDENTIAL_SECRET_KEYS}
    if isinstance(value, list):
        return [_stripped(item) for item in value]
    return value


def is_credential_part(part: types.Part) -> bool:
    """Whether ``part`` is a credential request or the user's answer to one.

    Such parts go to the client and back only: never to a model (a summarizer's prompt),
    into memory, or unredacted into a log.
    """
    item = part.function_call or part.function_response
    return item is not None and item.name == CREDENTIAL_REQUEST


def answer_without_secrets(response: Any) -> Any:
    """The ``response`` of an ``adk_request_credential`` answer without its secrets.

    Besides the credential fields, a bare value the answer wraps (``{"result": "<key>"}``,
    or the JSON text of a credential) is the secret itself: it is dropped.
    """
    stripped = _stripped(response)
    if not isinstance(stripped, dict):
        return stripped
    return {
        key: value
        for key, value in stripped.items()
        if key not in _WRAPPERS or isinstance(value, dict | list)
    }


def _stripped_answer(item: dict[str, Any]) -> dict[str, Any]:
    """An ``adk_request_credential`` function response (JSON) without its secrets."""
    stripped: dict[str, Any] = _stripped(item)
    if "response" in stripped:
        stripped["response"] = answer_without_secrets(stripped["response"])
    return stripped


def redact_credentials(event: dict[str, Any]) -> dict[str, Any]:
    """A copy of an event's JSON without credential secrets (the rest unchanged).

    Stripped: inside ``adk_request_credential`` calls and responses (a bare key an answer
    carries included), and inside ``actions.requestedAuthConfigs``. Other content is left
    as it is: a secret the application put in an ordinary message or state is the
    application's to manage.
    """
    result = dict(event)
    content = event.get("content")
    if isinstance(content, dict) and isinstance(content.get("parts"), list):
        parts = []
        for part in content["parts"]:
            if isinstance(part, dict):
                part = dict(part)
                call = part.get("functionCall")
                if isinstance(call, dict) and call.get("name") == CREDENTIAL_REQUEST:
                    part["functionCall"] = _stripped(call)
                answer = part.get("functionResponse")
                if isinstance(answer, dict) and answer.get("name") == CREDENTIAL_REQUEST:
                    part["functionResponse"] = _stripped_answer(answer)
            parts.append(part)
        result["content"] = {**content, "parts": parts}
    actions = event.get("actions")
    if isinstance(actions, dict):
        result["actions"] = {
            key: (_stripped(value) if key in _CARRIERS else value) for key, value in actions.items()
        }
    return result
