"""VertexAiSearchTool: Gemini grounds its answer in a Vertex AI Search data store or engine."""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from google.genai import types

from adk_runtime.tools._builtin import BuiltInTool

if TYPE_CHECKING:
    from adk_runtime.core._tool_configs import ToolArgsConfig
    from adk_runtime.core.readonly_context import ReadonlyContext
    from adk_runtime.core.tool_context import ToolContext

__all__ = ["VertexAiSearchTool"]

logger = logging.getLogger(__name__)

DataStoreSpec = types.VertexAISearchDataStoreSpec | Mapping[str, Any]


class VertexAiSearchTool(BuiltInTool):
    """Lets a Gemini model search a Vertex AI Search data store or engine (a built-in tool).

    It is declared as the request's ``retrieval`` tool: the model runs the search itself and
    the answer's ``grounding_metadata`` (stored on the model-response event) names what it
    used. Give exactly one of ``data_store_id`` and ``search_engine_id``. To choose the search
    settings per request (a filter built from the session state, say), subclass it and
    override ``_build_vertex_ai_search_config``.

    Attributes:
        data_store_id: The data store's resource name
            (``projects/…/locations/…/collections/…/dataStores/…``).
        data_store_specs: With an engine: which of its data stores to search, each with an
            optional filter.
        search_engine_id: The engine's resource name
            (``projects/…/locations/…/collections/…/engines/…``).
        filter: A Vertex AI Search filter expression applied to the results.
        max_results: The most results the search returns.
        bypass_multi_tools_limit: Accepted for google-adk compatibility. When the agent has
            other tools, google-adk swaps this tool for a Discovery Engine client tool
            (Google Cloud, not part of adk_runtime); adk_runtime declares it next to them,
            which Gemini 3 and later accept (earlier models refuse built-in tools beside
            function declarations).
    """

    label = "Vertex AI search tool"

    def __init__(
        self,
        *,
        data_store_id: str | None = None,
        data_store_specs: Sequence[DataStoreSpec] | None = None,
        search_engine_id: str | None = None,
        filter: str | None = None,
        max_results: int | None = None,
        bypass_multi_tools_limit: bool = False,
        name: str | None = None,
        description: str | None = None,
    ) -> None:
        """Create the tool.

        ``data_store_specs`` items may be ``types.VertexAISearchDataStoreSpec`` objects or
        mappings of their fields (as an agent YAML file gives them).

        Raises:
            ValueError: Neither or both of ``data_store_id`` and ``search_engine_id`` are
                given, or ``data_store_specs`` is given without ``search_engine_id``.
        """
        super().__init__(
            name=name or "vertex_ai_search", description=description or "vertex_ai_search"
        )
        if (data_store_id is None) == (search_engine_id is None):
            raise ValueError(
                "Either data_store_id or search_engine_id must be specified, not both: "
                "VertexAiSearchTool searches one place."
            )
        if data_store_specs is not None and search_engine_id is None:
            raise ValueError(
                "search_engine_id must be specified if data_store_specs is specified: the "
                "specs select data stores of an engine (or pass one data_store_id alone)."
            )
        self.data_store_id = data_store_id
        self.data_store_specs = (
            None
            if data_store_specs is None
            else [types.VertexAISearchDataStoreSpec.model_validate(s) for s in data_store_specs]
        )
        self.search_engine_id = search_engine_id
        self.filter = filter
        self.max_results = max_results
        self.bypass_multi_tools_limit = bypass_multi_tools_limit

    @classmethod
    def from_config(cls, config: ToolArgsConfig, config_abs_path: str) -> VertexAiSearchTool:
        """Build the tool from the ``args`` of an agent YAML ``tools:`` entry.

        Args:
            config: The entry's ``args``: this constructor's keyword arguments.
            config_abs_path: The YAML file's path (unused: nothing here is a file reference).
        """
        del config_abs_path
        return cls(**(config.model_extra or {}))

    def _build_vertex_ai_search_config(
        self, readonly_context: ReadonlyContext
    ) -> types.VertexAISearch:
        """The search settings for one request; override to derive them from the context.

        Args:
            readonly_context: The calling tool's context (state, session, agent).
        """
        del readonly_context
        return types.VertexAISearch(
            datastore=self.data_store_id,
            data_store_specs=self.data_store_specs,
            engine=self.search_engine_id,
            filter=self.filter,
            max_results=self.max_results,
        )

    def _request_tool(self, tool_context: ToolContext) -> types.Tool:
        search = self._build_vertex_ai_search_config(tool_context)
        stores = [
            (spec.data_store or "?").rsplit("/", 1)[-1] for spec in search.data_store_specs or ()
        ]
        logger.debug(
            "Declaring Vertex AI Search retrieval: datastore=%s engine=%s filter=%s "
            "max_results=%s data_stores=%s",
            search.datastore,
            search.engine,
            search.filter,
            search.max_results,
            stores or None,
        )
        return types.Tool(retrieval=types.Retrieval(vertex_ai_search=search))
