"""FeatureName.JSON_SCHEMA_FOR_FUNC_DECL: declarations as a JSON schema (default) or a Schema."""

from __future__ import annotations

import pydantic
import pytest
from google.genai import types

from adk_runtime.features import FeatureName, is_feature_enabled
from adk_runtime.features._feature_registry import temporary_feature_override
from adk_runtime.tools import FunctionTool, TransferToAgentTool


class Item(pydantic.BaseModel):
    sku: str
    count: int = 1


def order(customer: str, items: list[Item], note: str | None = None) -> str:
    """Place an order."""
    return customer


def test_the_default_form_is_a_json_schema() -> None:
    assert is_feature_enabled(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL)
    declaration = FunctionTool(order)._get_declaration()
    assert declaration is not None
    assert declaration.parameters is None
    schema = declaration.parameters_json_schema
    assert schema["required"] == ["customer", "items"]
    assert "$defs" in schema  # the nested model stays a reference


def test_switched_off_declarations_carry_a_schema_with_references_resolved() -> None:
    with temporary_feature_override(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, False):
        declaration = FunctionTool(order)._get_declaration()
        transfer = TransferToAgentTool(["billing", "support"])._get_declaration()
    assert declaration is not None
    assert declaration.parameters_json_schema is None
    parameters = declaration.parameters
    assert parameters is not None
    assert parameters.type == types.Type.OBJECT
    assert parameters.required == ["customer", "items"]
    assert parameters.properties is not None
    items = parameters.properties["items"]
    assert items.type == types.Type.ARRAY
    assert items.items is not None
    assert items.items.properties is not None
    assert items.items.properties["count"].type == types.Type.INTEGER
    assert parameters.properties["note"].nullable is True
    assert transfer is not None
    assert transfer.parameters is not None
    assert transfer.parameters.properties is not None
    assert transfer.parameters.properties["agent_name"].enum == ["billing", "support"]


def test_an_override_ends_with_its_block_and_restores_an_outer_one() -> None:
    name = FeatureName.JSON_SCHEMA_FOR_FUNC_DECL
    with temporary_feature_override(name, False):
        with temporary_feature_override(name, True):
            assert is_feature_enabled(name)
        assert not is_feature_enabled(name)
        with pytest.raises(RuntimeError), temporary_feature_override(name, True):
            raise RuntimeError("boom")
        assert not is_feature_enabled(name)
    assert is_feature_enabled(name)


def test_a_tool_declared_once_follows_a_later_switch() -> None:
    tool = FunctionTool(order)
    with temporary_feature_override(FeatureName.JSON_SCHEMA_FOR_FUNC_DECL, False):
        first = tool._get_declaration()
    second = tool._get_declaration()
    assert first is not None
    assert second is not None
    assert (first.parameters is not None, first.parameters_json_schema is None) == (True, True)
    assert (second.parameters is None, second.parameters_json_schema is not None) == (True, True)
    assert tool._get_declaration() is second  # built once per form
