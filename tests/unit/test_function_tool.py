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
