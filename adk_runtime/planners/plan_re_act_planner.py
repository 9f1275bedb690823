"""PlanReActPlanner: plan, reason and act in tagged text, for models without built-in thinking."""

from __future__ import annotations

from typing import TYPE_CHECKING

from google.genai import types

from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.planners.base_planner import BasePlanner

if TYPE_CHECKING:
    from adk_runtime.core.callback_context import CallbackContext
    from adk_runtime.core.readonly_context import ReadonlyContext

__all__ = [
    "ACTION_TAG",
    "FINAL_ANSWER_TAG",
    "PLANNING_TAG",
    "REASONING_TAG",
    "REPLANNING_TAG",
    "PlanReActPlanner",
]

PLANNING_TAG = "/*PLANNING*/"
REPLANNING_TAG = "/*REPLANNING*/"
REASONING_TAG = "/*REASONING*/"
ACTION_TAG = "/*ACTION*/"
FINAL_ANSWER_TAG = "/*FINAL_ANSWER*/"

_THINKING_TAGS = (PLANNING_TAG, REASONING_TAG, ACTION_TAG, REPLANNING_TAG)

_INSTRUCTION = f"""\
Work in three stages and mark each with its tag.

1. Under {PLANNING_TAG}, write a short numbered plan for answering the question with the tools
   you have. If the plan has to change after you see a tool's result, write the new plan under
   {REPLANNING_TAG}.
2. Carry the plan out: under {ACTION_TAG}, call the tools the current step needs (function
   calls, not code written as text); under {REASONING_TAG}, say briefly what you learned from
   their results and what comes next.
3. When you can answer, write the answer under {FINAL_ANSWER_TAG}. Everything after that tag is
   shown to the user; everything before it is kept as your own notes.

Use only the tools you were given, with the parameters they declare. If the question cannot be
answered with them, say so under {FINAL_ANSWER_TAG} and say what is missing."""


class PlanReActPlanner(BasePlanner):
    """Make the model write a plan, then reasoning and actions, then a final answer.

    The text before ``/*FINAL_ANSWER*/`` and any text part that starts with a planning tag
    become thought parts (kept in the event, not shown as the answer, never sent back to a
    model as plain text); only the first group of function calls of a response is kept.
    """

    def build_planning_instruction(
        self, readonly_context: ReadonlyContext, llm_request: LlmRequest
    ) -> str:
        """The instruction that asks for tagged planning, reasoning, actions and answer."""
        return _INSTRUCTION

    def process_planning_response(
        self, callback_context: CallbackContext, response_parts: list[types.Part]
    ) -> list[types.Part] | None:
        """Split the answer from the notes; keep the first group of function calls only."""
        if not response_parts:
            return None
        kept: list[types.Part] = []
        calling = False
        for part in response_parts:
            call = part.function_call
            if call is not None:
                if call.name:
                    kept.append(part)
                    calling = True
                continue
            if calling:
                break
            kept.extend(_split_text(part))
        return kept


def _split_text(part: types.Part) -> list[types.Part]:
    text = part.text or ""
    if FINAL_ANSWER_TAG in text:
        index = text.rfind(FINAL_ANSWER_TAG)
        notes = _strip_tags(text[:index])
        answer = text[index + len(FINAL_ANSWER_TAG) :]
        split = [types.Part(text=notes, thought=True)] if notes else []
        return [*split, types.Part(text=answer)] if answer else split
    if text.startswith(_THINKING_TAGS):
        return [part.model_copy(update={"text": _strip_tags(text), "thought": True})]
    return [part]


def _strip_tags(text: str) -> str:
    for tag in _THINKING_TAGS:
        text = text.replace(tag, "")
    return text
