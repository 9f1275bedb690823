"""Tools that answer a query from a body of documents (``google.adk.tools.retrieval`` → here).

``BaseRetrievalTool`` needs nothing more. ``LlamaIndexRetrieval`` (any LlamaIndex retriever)
and ``FilesRetrieval`` (a directory of files, indexed when the tool is built) need the
``retrieval`` extra (``pip install 'adk-runtime[retrieval]'``); naming them without it raises
``ConfigurationError`` with that hint. google-adk's ``VertexAiRagRetrieval`` (Vertex AI RAG
Engine) is a Google Cloud service and is not here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from adk_runtime._lazy import lazy_getattr
from adk_runtime.tools.retrieval.base_retrieval_tool import BaseRetrievalTool

if TYPE_CHECKING:
    from adk_runtime.tools.retrieval.files_retrieval import FilesRetrieval
    from adk_runtime.tools.retrieval.llama_index_retrieval import LlamaIndexRetrieval

__all__ = ["BaseRetrievalTool", "FilesRetrieval", "LlamaIndexRetrieval"]

__getattr__ = lazy_getattr(
    __name__,
    {
        "FilesRetrieval": "adk_runtime.tools.retrieval.files_retrieval",
        "LlamaIndexRetrieval": "adk_runtime.tools.retrieval.llama_index_retrieval",
    },
)
