"""``LlamaIndexRetrieval``: a LlamaIndex retriever as a tool (the ``retrieval`` extra).

A call asks the retriever for the query and answers with the text of the best match, or
says that nothing matched. Retrievers with their own asynchronous retrieval (a vector
index's, whose embedding model then embeds the query asynchronously) are awaited; a
retriever that only retrieves synchronously runs in a worker thread, never on the event
loop.
"""

from __future__ import annotations

import asyncio
import inspect
from typing import TYPE_CHECKING, Any

from adk_runtime.tools.retrieval._llama_index import BaseRetriever
from adk_runtime.tools.retrieval.base_retrieval_tool import BaseRetrievalTool

if TYPE_CHECKING:
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["LlamaIndexRetrieval"]


def _retrieves_asynchronously(retriever: object) -> bool:
    if isinstance(retriever, BaseRetriever):
        # the base class's asynchronous retrieval calls the synchronous one in place
        # (_aretrieve is llama-index's documented hook for a subclass's own async retrieval)
        return type(retriever)._aretrieve is not BaseRetriever._aretrieve
    return inspect.iscoroutinefunction(getattr(retriever, "aretrieve", None))


class LlamaIndexRetrieval(BaseRetrievalTool):
    """Answers the model's query from a LlamaIndex retriever (see the module docstring).

    Attributes:
        retriever: The LlamaIndex retriever (``index.as_retriever()``, or any object with
            ``retrieve(query)`` returning nodes that have ``text``).
    """

    def __init__(self, *, name: str, description: str, retriever: BaseRetriever | Any) -> None:
        """Offer ``retriever`` to the model as the tool ``name``."""
        super().__init__(name=name, description=description)
        self.retriever = retriever

    async def run_async(self, *, args: dict[str, Any], tool_context: ToolContext) -> Any:
        """Retrieve for ``args["query"]``: the best match's text, or a no-match message."""
        query = args.get("query")
        if not isinstance(query, str) or not query.strip():
            return {"error": f"{self.name} needs a non-empty `query` string; call it again."}
        if _retrieves_asynchronously(self.retriever):
            nodes = await self.retriever.aretrieve(query)
        else:
            nodes = await asyncio.to_thread(self.retriever.retrieve, query)
        if not nodes:
            return f"Nothing matched the query {query!r}."
        return nodes[0].text
