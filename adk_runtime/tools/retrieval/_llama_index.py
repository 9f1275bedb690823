"""The LlamaIndex names the retrieval tools use, or a ``ConfigurationError`` naming the extra."""

from adk_runtime.errors import ConfigurationError

try:
    from llama_index.core import SimpleDirectoryReader, VectorStoreIndex
    from llama_index.core.base.base_retriever import BaseRetriever
    from llama_index.core.base.embeddings.base import BaseEmbedding
except ImportError as exc:  # pragma: no cover - exercised in a subprocess without the extra
    raise ConfigurationError(
        "LlamaIndexRetrieval and FilesRetrieval need LlamaIndex, which is not installed: "
        "pip install 'adk-runtime[retrieval]'."
    ) from exc

__all__ = ["BaseEmbedding", "BaseRetriever", "SimpleDirectoryReader", "VectorStoreIndex"]
