"""The HTTP API never serves credential secrets; the list of them matches the models."""

from __future__ import annotations

from typing import Any

from adk_runtime.auth.auth_credential import SECRET_FIELDS
from adk_runtime.events._credential_secrets import CREDENTIAL_SECRET_KEYS, redact_credentials


def test_the_core_list_is_the_credential_models_secret_fields() -> None:
    assert CREDENTIAL_SECRET_KEYS == SECRET_FIELDS


def _answer_event() -> dict[str, Any]:
    credential = {
        "authType": "oauth2",
        "oauth2": {
            "clientId": "cid",
            "authUri": "https://idp/authorize?state=s1",
            "state": "s1",
            "authResponseUri": "https://app/cb?code=THE-CODE&state=s1",
            "codeVerifier": "VERIFIER",
            "accessToken": "AT",
        },
    }
    return {
        "author": "user",
        "content": {
            "role": "user",
            "parts": [
                {"text": "here you go"},
                {
                    "functionResponse": {
                        "id": "adk-1",
                        "name": "adk_request_credential",
                        "response": {
                            "authScheme": {"type": "oauth2"},
                            "exchangedAuthCredential": credential,
                        },
                    }
                },
                {
                    "functionResponse": {
                        "id": "t1",
                        "name": "other_tool",
                        "response": {"token": "kept"},
                    }
                },
            ],
        },
        "actions": {
            "requestedAuthConfigs": {"c1": {"exchangedAuthCredential": credential}},
            "stateDelta": {"x": 1},
        },
    }


def test_secrets_are_removed_from_requests_answers_and_actions_only() -> None:
    event = _answer_event()
    redacted = redact_credentials(event)
    text = repr(redacted)
    for secret in ("THE-CODE", "VERIFIER", "'AT'"):
        assert secret not in text
    answered = redacted["content"]["parts"][1]["functionResponse"]["response"]
    assert answered["exchangedAuthCredential"]["oauth2"] == {
        "clientId": "cid",
        "authUri": "https://idp/authorize?state=s1",
        "state": "s1",
    }
    assert redacted["content"]["parts"][0] == {"text": "here you go"}
    assert redacted["content"]["parts"][2]["functionResponse"]["response"] == {"token": "kept"}
    assert redacted["actions"]["stateDelta"] == {"x": 1}
    assert "accessToken" in repr(event)  # the stored event itself is untouched


def test_a_bare_key_an_answer_wraps_is_removed_too() -> None:
    """Found by the served workflow test: ``{"result": "<api key>"}`` (or the JSON text of
    a credential) is an accepted answer, and it was served back whole."""

    def answer(response: dict[str, Any]) -> dict[str, Any]:
        part = {
            "functionResponse": {"id": "a", "name": "adk_request_credential", "response": response}
        }
        return {"author": "user", "content": {"role": "user", "parts": [part]}}

    def served(response: dict[str, Any]) -> Any:
        return redact_credentials(answer(response))["content"]["parts"][0]["functionResponse"]

    assert served({"result": "KEY-1"})["response"] == {}
    assert served({"response": '{"apiKey": "KEY-2"}'})["response"] == {}
    nested = served({"result": {"authType": "apiKey", "apiKey": "KEY-3"}})
    assert nested["response"] == {"result": {"authType": "apiKey"}}
    assert served({"credentialKey": "ledger"})["response"] == {"credentialKey": "ledger"}
