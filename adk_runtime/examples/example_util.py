"""Examples written out as system-instruction text.

Each example shows the user's message, then the answering turn: the model's text, its
function calls as ``name(arg=value, ...)`` with JSON values, and the tools' results as JSON.
"""

from __future__ import annotations

import json
from typing import Any

from google.genai import types

from adk_runtime.examples.base_example_provider import BaseExampleProvider
from adk_runtime.examples.example import Example

__all__ = ["build_example_si", "convert_examples_to_text"]

_OPEN = (
    "<EXAMPLES>\n"
    "Examples of user messages and how the model answered them, with the tools it called "
    "and what they returned. Follow their approach; they are not part of this conversation.\n\n"
)
_CLOSE = "</EXAMPLES>"


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str, sort_keys=True)


def _call(call: types.FunctionCall) -> str:
    args = call.args if isinstance(call.args, dict) else {}
    return f"{call.name}({', '.join(f'{key}={_json(value)}' for key, value in args.items())})"


def _part_lines(part: types.Part) -> list[str]:
    if part.function_call is not None:
        return [f"call: {_call(part.function_call)}"]
    if part.function_response is not None:
        response = part.function_response
        return [f"result of {response.name}: {_json(response.response)}"]
    if part.text and not part.thought:
        return [part.text]
    return []


def _example_text(number: int, example: Example) -> str:
    lines = [f"Example {number}", "[user]"]
    lines += [part.text for part in example.input.parts or [] if part.text]
    speaker = None
    for content in example.output:
        role = "[model]" if content.role == "model" else "[tools]"
        if role != speaker:
            lines.append(role)
            speaker = role
        for part in content.parts or []:
            lines += _part_lines(part)
    return "\n".join(lines) + "\n\n"


def convert_examples_to_text(examples: list[Example], model: str | None = None) -> str:
    """``examples`` as one block of instruction text (``model`` is accepted and unused)."""
    body = "".join(_example_text(number, example) for number, example in enumerate(examples, 1))
    return f"{_OPEN}{body}{_CLOSE}"


def build_example_si(
    examples: list[Example] | BaseExampleProvider, query: str, model: str | None = None
) -> str:
    """The instruction text for ``examples``, or for what a provider gives for ``query``.

    Raises:
        ValueError: ``examples`` is neither a list of examples nor a provider.
    """
    if isinstance(examples, BaseExampleProvider):
        return convert_examples_to_text(examples.get_examples(query), model)
    if isinstance(examples, list):
        return convert_examples_to_text(examples, model)
    raise ValueError(
        f"examples must be a list of Example or a BaseExampleProvider, not {type(examples)}."
    )
