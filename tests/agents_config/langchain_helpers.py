"""A LangChain tool a YAML ``LangchainTool`` entry names by dotted path (needs the extra)."""

from __future__ import annotations

from langchain_core.tools import tool


@tool
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())
