"""``FilesRetrieval``: the files of a directory as a searchable tool (the ``retrieval`` extra).

Building the tool reads every file under ``input_dir`` (LlamaIndex's
``SimpleDirectoryReader``: text, Markdown, PDF, Word... with ``llama-index-readers-file``),
embeds them and keeps the vector index in memory; build it at start-up, not on a running
event loop's hot path (the embedding calls are synchronous there). A call embeds the query
asynchronously and answers with the closest passage (``LlamaIndexRetrieval``).

Without ``embedding_model`` the documents are embedded by Gemini (``gemini-embedding-2-preview``
through ``llama-index-embeddings-google-genai``, with google-genai's usual API key and
endpoint settings such as ``GOOGLE_API_KEY`` and ``GOOGLE_GEMINI_BASE_URL``).
"""

from __future__ import annotations

import logging
from pathlib import Path

from adk_runtime.errors import ConfigurationError
from adk_runtime.tools.retrieval._llama_index import (
    BaseEmbedding,
    SimpleDirectoryReader,
    VectorStoreIndex,
)
from adk_runtime.tools.retrieval.llama_index_retrieval import LlamaIndexRetrieval

__all__ = ["FilesRetrieval"]

logger = logging.getLogger(__name__)

DEFAULT_EMBEDDING_MODEL = "gemini-embedding-2-preview"


def _get_default_embedding_model() -> BaseEmbedding:
    """Gemini's embedding model through LlamaIndex (google-adk's default).

    Raises:
        ImportError: ``llama-index-embeddings-google-genai`` is not installed.
    """
    try:
        from llama_index.embeddings.google_genai import GoogleGenAIEmbedding
    except ImportError as exc:
        raise ImportError(
            "FilesRetrieval embeds with Gemini by default, which needs the "
            "llama-index-embeddings-google-genai package: pip install "
            "llama-index-embeddings-google-genai (or 'adk-runtime[retrieval]'), or pass "
            "embedding_model."
        ) from exc
    model: BaseEmbedding = GoogleGenAIEmbedding(
        model_name=DEFAULT_EMBEDDING_MODEL, embed_batch_size=1
    )
    return model


class FilesRetrieval(LlamaIndexRetrieval):
    """Answers the model's query from the files of a directory (see the module docstring).

    Attributes:
        input_dir: The directory whose files were indexed.
    """

    def __init__(
        self,
        *,
        name: str,
        description: str,
        input_dir: str,
        embedding_model: BaseEmbedding | None = None,
    ) -> None:
        """Read and index the files of ``input_dir``.

        Raises:
            ConfigurationError: ``input_dir`` is not a directory, or holds no files.
        """
        if not Path(input_dir).is_dir():
            raise ConfigurationError(f"FilesRetrieval: {input_dir!r} is not a directory.")
        self.input_dir = input_dir
        if embedding_model is None:
            embedding_model = _get_default_embedding_model()
        logger.info("FilesRetrieval %s: indexing the files of %s", name, input_dir)
        try:
            documents = SimpleDirectoryReader(input_dir).load_data()
        except ValueError as exc:  # LlamaIndex's "No files found in ..."
            raise ConfigurationError(f"FilesRetrieval: {exc}") from exc
        index = VectorStoreIndex.from_documents(documents, embed_model=embedding_model)
        super().__init__(name=name, description=description, retriever=index.as_retriever())
