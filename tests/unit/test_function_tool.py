"""FunctionTool: declarations from signatures, argument validation, context injection."""

from __future__ import annotations

import functools
from typing import Any, Literal

import pydantic

from adk_runtime.tools import FunctionTool, ToolContext


class Address(pydantic.BaseModel):
    city: str
    zip_code: str | None = None


def ship(
    item: str,
    address: Address,
    quantity: int = 1,
    speed: Literal["slow", "fast"] = "slow",
    tool_context: ToolContext | None = None,
) -> dict[str, Any]:
    """Ship an item.

    Args:
        item: What to ship.
    """
    return {"item": item, "city": address.city, "quantity": quantity, "speed": speed}


def test_declaration_from_signature() -> None:
    declaration = FunctionTool(ship)._get_declaration()
    assert declaration is not None
    assert declaration.name == "ship"
    assert (declaration.description or "").startswith("Ship an item.")
    schema = declaration.parameters_json_schema
    assert set(schema["properties"]) == {"item", "address", "quantity", "speed"}  # type: ignore[index]
    assert schema["required"] == ["item", "address"]  # type: ignore[index]
    assert schema["properties"]["speed"]["enum"] == ["slow", "fast"]  # type: ignore[index]


async def test_arguments_are_validated_and_coerced() -> None:
    tool = FunctionTool(ship)
    result = await tool.run_async(
        args={"item": "book", "address": {"city": "Oslo"}, "quantity": "2", "ignored": 1},
        tool_context=None,  # type: ignore[arg-type]
    )
    assert result == {"item": "book", "city": "Oslo", "quantity": 2, "speed": "slow"}
    bad = await tool.run_async(
        args={"item": "book", "address": {"city": "Oslo"}, "speed": "warp"},
        tool_context=None,  # type: ignore[arg-type]
    )
    assert "speed" in bad["error"]
    missing = await tool.run_async(args={"speed": "warp"}, tool_context=None)  # type: ignore[arg-type]
    assert "- item\n- address\n" in missing["error"]  # required parameters first, named
    assert "speed" not in missing["error"]


async def test_a_whole_number_for_a_float_reaches_the_tool_as_the_model_sent_it() -> None:
    """google-adk passes ``200`` to ``amount: float``, not ``200.0``: so does adk_runtime."""
    seen: dict[str, Any] = {}

    def pay(
        amount: float,
        splits: list[float],
        rates: dict[str, float],
        tip: float | None = None,
        fee: float = 0.5,
    ) -> str:
        seen.update(amount=amount, splits=splits, rates=rates, tip=tip, fee=fee)
        return f"paid {amount}"

    result = await FunctionTool(pay).run_async(
        args={"amount": 200, "splits": [100, 99.5], "rates": {"eur": 1}, "tip": 5},
        tool_context=None,  # type: ignore[arg-type]
    )
    assert result == "paid 200"
    assert seen == {"amount": 200, "splits": [100, 99.5], "rates": {"eur": 1}, "tip": 5, "fee": 0.5}
    assert [type(seen[k]) for k in ("amount", "tip")] == [int, int]
    assert [type(v) for v in seen["splits"]] == [int, float]
    assert type(seen["rates"]["eur"]) is int
    # still validated: a value that is no number is answered with an error, not passed on
    bad = await FunctionTool(pay).run_async(
        args={"amount": "lots", "splits": [], "rates": {}},
        tool_context=None,  # type: ignore[arg-type]
    )
    assert "amount" in bad["error"]


async def test_numbers_for_other_types_are_still_converted() -> None:
    seen: dict[str, Any] = {}

    def count(n: int, label: str, ratio: float) -> None:
        seen.update(n=n, label=label, ratio=ratio)

    await FunctionTool(count).run_async(
        args={"n": 3.0, "label": "x", "ratio": 0.25},
        tool_context=None,  # type: ignore[arg-type]
    )
    assert seen == {"n": 3, "label": "x", "ratio": 0.25}
    assert type(seen["n"]) is int


class Converter:
    def __call__(self, amount: float, currency: str) -> float:
        """Convert an amount to euros."""
        return amount


class DocumentedConverter(Converter):
    """Converter with a class docstring."""


def test_a_callable_object_is_described_by_its_call_docstring() -> None:
    tool = FunctionTool(Converter())
    assert tool.name == "Converter"
    assert tool.description == "Convert an amount to euros."
    declaration = tool._get_declaration()
    assert declaration is not None
    assert declaration.description == "Convert an amount to euros."
    assert FunctionTool(DocumentedConverter()).description == "Converter with a class docstring."


def test_a_partial_is_described_by_the_wrapped_function() -> None:
    tool = FunctionTool(functools.partial(ship, quantity=2))
    assert tool.description.startswith("Ship an item.")
