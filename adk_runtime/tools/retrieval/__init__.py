"""Tools that answer a query from a body of documents (``google.adk.tools.retrieval`` → here).

``BaseRetrievalTool`` needs nothing more. ``LlamaIndexRetrieval`` (any LlamaIndex retriever)
and ``FilesRetrieval`` (a directory of files, indexed when the tool is built) need the
``retrieval`` extra (``pip install 'adk-runtime[retrieval]'``); naming them without it raises
``ConfigurationError`` with that hint. google-adk's ``VertexAiRagRetrieval`` (Vertex AI RAG
Engine) is a Google Cloud service and is not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime.tools.retrieval.base_retrieval_tool import BaseRetrievalTool

if TYPE_CHECKING:
    from adk_runtime.tools.retrieval.files_retrieval import FilesRetrieval
    from adk_runtime.tools.retrieval.llama_index_retrieval import LlamaIndexRetrieval

__all__ = ["BaseRetrievalTool", "FilesRetrieval", "LlamaIndexRetrieval"]


def __getattr__(name: str) -> object:
    if name == "FilesRetrieval":
        from adk_runtime.tools.retrieval.files_retrieval import FilesRetrieval

        return FilesRetrieval
    if name == "LlamaIndexRetrieval":
        from adk_runtime.tools.retrieval.llama_index_retrieval import LlamaIndexRetrieval

        return LlamaIndexRetrieval
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
