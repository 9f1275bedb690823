"""What of google-adk's public API adk_runtime intentionally does not have, and why.

``tests/parity/test_module_parity.py`` walks google-adk's public modules in :data:`AREAS` and
fails on any module path or name we lack that is not listed here, and on any entry here that
is no longer missing. The parity table of ``docs/reference/parity.md`` is rendered from this
file: ``python -m tests.parity.omissions`` prints it, and ``test_module_parity.py`` checks that
the page holds the current rendering.

A key is either a module path under ``google.adk`` (that module and every module below it) or
``module:Name`` (one name of a module we do have). Each value is the reason.
"""

from __future__ import annotations

AREAS = (
    "agents",
    "apps",
    "artifacts",
    "auth",
    "code_executors",
    "events",
    "flows",
    "memory",
    "models",
    "planners",
    "platform",
    "plugins",
    "runners",
    "sessions",
    "skills",
    "tools",
    "workflow",
)

LIVE = (
    "Live API (bidirectional audio/video streaming): adk_runtime runs request/response and "
    "SSE turns only; `models.base_llm_connection` exists as an interface for typing."
)
LIVE_REFUSED = (
    "Live API names kept so that code naming them imports (google-adk's `testing_utils.py` "
    "does): creating a `LiveRequest` / `LiveRequestQueue` or calling `Runner.run_live` or "
    "`flows.llm_flows.functions.handle_function_calls_live` raises `UnsupportedFeatureError`."
)
WORKFLOW = (
    "google-adk 2 gives every `Context` a workflow node's members; here a node's context is "
    "`workflow.NodeContext`, a `Context` with `node`, `node_path`, `run_id`, "
    "`attempt_count`, `event_author`, `route`, `output` and `run_node` (workflow graphs: "
    "`adk_runtime.workflow`, with `Workflow`, `FunctionNode`, `JoinNode`, `node` with "
    "`parallel_worker`, edges and routes, retries, timeouts, questions to the user, child "
    "runs, `Runner(node=...)`). Delegated tasks are here too (`LlmAgent.mode`, "
    "`isolation_scope`)."
)
GOOGLE_CLOUD = (
    "Google Cloud services (Vertex AI memory and RAG; BigQuery, Bigtable, "
    "Spanner, Pub/Sub, API Hub, Application Integration, Discovery Engine, Google APIs, "
    "Apigee): out of scope; adk_runtime's stores are SQLite, PostgreSQL, Redis and files."
)
MODEL_ADAPTER_INTERNALS = (
    "google-adk's intermediate types inside its Claude, LiteLLM and Gemma adapters (request "
    "wrapper, stream chunk classes, label tables, the text function-call mixin): "
    "adk_runtime's adapters convert between google-genai types and the providers' own "
    "without them."
)
FLOW_INTERNALS = (
    "Internals of google-adk's LLM flow (the other request processors, the rest of the "
    "function-call plumbing): adk_runtime's flow is one loop in `adk_runtime.agents`; the "
    "flow classes (`BaseLlmFlow`, `SingleFlow`, `AutoFlow`), their request and response "
    "processors and the helpers of `flows.llm_flows.functions` are faces over it."
)
AUTHLIB = (
    "Authlib is a requirement of the `auth` extra here, not an optional import: there is no "
    "flag to test."
)
INTEGRATIONS = (
    "Other tool families and framework bridges (CrewAI, "
    "simulators, model consult): not implemented; each is a "
    "`BaseTool` or `BaseAgent` one can write or port. CrewAI 1.15 requires the MCP SDK 1.x "
    "and pydantic below 2.13, which cannot be installed beside the `mcp` extra (MCP SDK 2)."
)
STORAGE = (
    "google-adk's own storage schemas, SQL text and migration scripts: adk_runtime's tables "
    "(`adk_` prefix) are owned by its Alembic migrations (`adk-runtime db upgrade`)."
)
CODE_SANDBOXES = (
    "Code executors that run code in a container, on GKE or in Vertex AI / Agent Engine "
    "sandboxes: not implemented; `BuiltInCodeExecutor` (Gemini runs the code) and "
    "`UnsafeLocalCodeExecutor` (a child process, by explicit opt-in) are, and custom "
    "executors get `CodeExecutionUtils` and `CodeExecutorContext`."
)
MCP_EXTRAS = (
    "MCP pieces beyond client toolsets and serving an agent: google-adk's session "
    "internals (`McpTool` reconnects once by itself; the session task is "
    "`tools/mcp_tool/_connection.py`)."
)
OPENAPI_INTERNALS = (
    "google-adk's OpenAPI internals (its spec and operation parser classes, auth helpers, "
    "credential exchangers and tool auth handler): `OpenAPIToolset` and `RestApiTool` are "
    "here (`tools.openapi_tool`) with a parser of their own, and authenticate through the "
    "agent's credential flow, as `McpToolset` does."
)
REFUSED_CLOUD = (
    "Google Cloud stores (Vertex AI sessions, Cloud Storage artifacts): out of scope. The "
    "modules and the packages' names exist so that code importing them loads (a test file "
    "that also tests the in-memory stores, say); building `VertexAiSessionService` or "
    "`GcsArtifactService` raises `ConfigurationError`."
)
PRESENT_ON_PURPOSE = frozenset({LIVE_REFUSED, REFUSED_CLOUD})
"""Reasons of entries whose modules exist here (so that imports load) but refuse to work."""
GOOGLE_INTERNAL_THREADS = (
    "google-adk's slot for a Google-internal thread factory (None outside Google): "
    "`platform.thread.create_thread` is the entry point, and it makes plain threads here."
)

OMITTED: dict[str, str] = {
    # Live API
    "agents.active_streaming_tool": LIVE,
    "agents.transcription_entry": LIVE,
    "models.gemini_llm_connection": LIVE,
    "flows.llm_flows.audio_cache_manager": LIVE,
    "flows.llm_flows.audio_transcriber": LIVE,
    "flows.llm_flows.transcription_manager": LIVE,
    # workflows, task mode
    # Google Cloud
    "memory.vertex_ai_memory_bank_service": GOOGLE_CLOUD,
    "memory.vertex_ai_rag_memory_service": GOOGLE_CLOUD,
    "tools.retrieval.vertex_ai_rag_retrieval": GOOGLE_CLOUD,
    "tools.retrieval:VertexAiRagRetrieval": GOOGLE_CLOUD,
    "memory:VertexAiMemoryBankService": GOOGLE_CLOUD,
    "memory:VertexAiRagMemoryService": GOOGLE_CLOUD,
    "plugins.bigquery_agent_analytics_plugin": GOOGLE_CLOUD,
    "models.apigee_llm": GOOGLE_CLOUD,
    "models:ApigeeLlm": GOOGLE_CLOUD,
    "tools.api_registry": GOOGLE_CLOUD,
    "tools:ApiRegistry": GOOGLE_CLOUD,
    "tools.apihub_tool": GOOGLE_CLOUD,
    "tools:APIHubToolset": GOOGLE_CLOUD,
    "tools.application_integration_tool": GOOGLE_CLOUD,
    "tools.bigquery": GOOGLE_CLOUD,
    "tools.bigtable": GOOGLE_CLOUD,
    "tools.data_agent": GOOGLE_CLOUD,
    "tools.discovery_engine_search_tool": GOOGLE_CLOUD,
    "tools:DiscoveryEngineSearchTool": GOOGLE_CLOUD,
    "tools:SearchResultMode": GOOGLE_CLOUD,
    "tools.google_api_tool": GOOGLE_CLOUD,
    "tools.pubsub": GOOGLE_CLOUD,
    "tools.spanner": GOOGLE_CLOUD,
    "tools.toolbox_toolset": GOOGLE_CLOUD,
    "tools.vertex_ai_load_profiles_tool": GOOGLE_CLOUD,
    "tools:VertexAiLoadProfilesTool": GOOGLE_CLOUD,
    # other models
    "models.gemma_llm:GemmaFunctionCallModel": MODEL_ADAPTER_INTERNALS,
    "models.gemma_llm:GemmaFunctionCallingMixin": MODEL_ADAPTER_INTERNALS,
    "models.anthropic_llm:ClaudeRequest": MODEL_ADAPTER_INTERNALS,
    "models.lite_llm:ChatCompletionFileUrlObject": MODEL_ADAPTER_INTERNALS,
    "models.lite_llm:FunctionChunk": MODEL_ADAPTER_INTERNALS,
    "models.lite_llm:ReasoningChunk": MODEL_ADAPTER_INTERNALS,
    "models.lite_llm:TYPE_LABELS": MODEL_ADAPTER_INTERNALS,
    "models.lite_llm:TextChunk": MODEL_ADAPTER_INTERNALS,
    "models.lite_llm:UsageMetadataChunk": MODEL_ADAPTER_INTERNALS,
    # the flow's internals
    "flows.llm_flows.agent_transfer:line_break": FLOW_INTERNALS,
    "flows.llm_flows.context": FLOW_INTERNALS,
    "flows.llm_flows.core": FLOW_INTERNALS,
    "flows.llm_flows.extensions": FLOW_INTERNALS,
    "flows.llm_flows.identity": FLOW_INTERNALS,
    "flows.llm_flows.prompt": FLOW_INTERNALS,
    "flows.llm_flows.tools": FLOW_INTERNALS,
    "flows.llm_flows.functions:deep_merge_dicts": FLOW_INTERNALS,
    # tool authentication
    "auth.refresher.oauth2_credential_refresher:AUTHLIB_AVAILABLE": AUTHLIB,
    # other tool families, framework bridges
    "tools.agent_simulator": INTEGRATIONS,
    "tools.crewai_tool": INTEGRATIONS,
    "tools.environment_simulation": INTEGRATIONS,
    "tools.model_consult": INTEGRATIONS,
    "tools:ModelConsultContextConfig": INTEGRATIONS,
    "tools:ModelConsultTool": INTEGRATIONS,
    "plugins:ForceEscalationPlugin": INTEGRATIONS,
    "plugins:ModelConsultObservabilityPlugin": INTEGRATIONS,
    "tools.openapi_tool": OPENAPI_INTERNALS,
    # MCP beyond client toolsets
    "tools.mcp_tool.session_context": MCP_EXTRAS,
    "tools.mcp_tool.mcp_toolset:T": MCP_EXTRAS,
    # storage
    "sessions.migration": STORAGE,
    "sessions.schemas": STORAGE,
    "sessions.sqlite_session_service:APP_STATES_TABLE_SCHEMA": STORAGE,
    "sessions.sqlite_session_service:CREATE_SCHEMA_SQL": STORAGE,
    "sessions.sqlite_session_service:EVENTS_TABLE_SCHEMA": STORAGE,
    "sessions.sqlite_session_service:PRAGMA_FOREIGN_KEYS": STORAGE,
    "sessions.sqlite_session_service:SESSIONS_TABLE_SCHEMA": STORAGE,
    "sessions.sqlite_session_service:USER_STATES_TABLE_SCHEMA": STORAGE,
    # code executors
    "code_executors.agent_engine_sandbox_code_executor": CODE_SANDBOXES,
    "code_executors.container_code_executor": CODE_SANDBOXES,
    "code_executors.gke_code_executor": CODE_SANDBOXES,
    "code_executors.vertex_ai_code_executor": CODE_SANDBOXES,
    "code_executors:AgentEngineSandboxCodeExecutor": CODE_SANDBOXES,
    "code_executors:ContainerCodeExecutor": CODE_SANDBOXES,
    "code_executors:GkeCodeExecutor": CODE_SANDBOXES,
    "code_executors:VertexAiCodeExecutor": CODE_SANDBOXES,
    # Google Cloud stores present as modules that refuse to be built
    "artifacts.gcs_artifact_service": REFUSED_CLOUD,
    "sessions.vertex_ai_session_service": REFUSED_CLOUD,
    "platform.thread:internal_thread": GOOGLE_INTERNAL_THREADS,
}


SKILLS_GCS = (
    "Loading Agent Skills from Google Cloud Storage: the loaders exist so that code naming "
    "them imports, and raise `ConfigurationError`; load skills from a local directory."
)

REFUSED: dict[str, str] = {
    # Present so that modules naming them import; using them raises UnsupportedFeatureError.
    "agents.live_request_queue": LIVE_REFUSED,
    "agents:LiveRequest": LIVE_REFUSED,
    "agents:LiveRequestQueue": LIVE_REFUSED,
    "runners:Runner.run_live": LIVE_REFUSED,
    "flows.llm_flows.functions:handle_function_calls_live": LIVE_REFUSED,
    "skills:list_skills_in_gcs_dir": SKILLS_GCS,
    "skills:list_skills_in_gcs_dir_async": SKILLS_GCS,
    "skills:load_skill_from_gcs_dir": SKILLS_GCS,
    "skills:load_skill_from_gcs_dir_async": SKILLS_GCS,
}
"""Names that exist here only to refuse clearly when used (an out-of-scope feature)."""


ADK_BOOKKEEPING = (
    "google-adk's own bookkeeping on public classes (its per-invocation tool cache and "
    "compaction flag, the in-memory artifact store's dict, the slot its set_model_response "
    "tool fills, the synchronous LiteLLM call behind its streaming): adk_runtime keeps the "
    "like inside its loop, stores and adapters, with nothing there for users to read."
)
PER_RUN_TELEMETRY = (
    "Per-invocation telemetry switches (`RunConfig.telemetry`, experimental in google-adk): "
    "telemetry here is set up per process, by the OpenTelemetry SDK the application "
    "configures."
)

MEMBERS_OMITTED: dict[str, str] = {
    # Live API
    "agents.invocation_context:InvocationContext.active_non_blocking_tool_tasks": LIVE,
    "agents.invocation_context:InvocationContext.active_streaming_tools": LIVE,
    "agents.invocation_context:InvocationContext.input_realtime_cache": LIVE,
    "agents.invocation_context:InvocationContext.live_request_queue": LIVE,
    "agents.invocation_context:InvocationContext.live_session_resumption_handle": LIVE,
    "agents.invocation_context:InvocationContext.output_realtime_cache": LIVE,
    "agents.invocation_context:InvocationContext.transcription_cache": LIVE,
    "agents.llm_agent:LlmAgent.canonical_live_model_async": LIVE,
    "agents.run_config:RunConfig.avatar_config": LIVE,
    "agents.run_config:RunConfig.context_window_compression": LIVE,
    "agents.run_config:RunConfig.enable_affective_dialog": LIVE,
    "agents.run_config:RunConfig.explicit_vad_signal": LIVE,
    "agents.run_config:RunConfig.history_config": LIVE,
    "agents.run_config:RunConfig.input_audio_transcription": LIVE,
    "agents.run_config:RunConfig.output_audio_transcription": LIVE,
    "agents.run_config:RunConfig.proactivity": LIVE,
    "agents.run_config:RunConfig.realtime_input_config": LIVE,
    "agents.run_config:RunConfig.save_live_audio": LIVE,
    "agents.run_config:RunConfig.save_live_blob": LIVE,
    "agents.run_config:RunConfig.session_resumption": LIVE,
    "agents.run_config:RunConfig.translation_config": LIVE,
    "models.base_llm:BaseLlm.connect": LIVE,
    "models.google_llm:Gemini.connect": LIVE,
    "models:FallbackModel.connect": LIVE,
    "models.google_llm:Gemini.speech_config": LIVE,
    "models.llm_request:LlmRequest.live_connect_config": LIVE,
    "models.llm_response:LlmResponse.go_away": LIVE,
    "models.llm_response:LlmResponse.live_session_id": LIVE,
    "models.llm_response:LlmResponse.live_session_resumption_update": LIVE,
    "models.llm_response:LlmResponse.turn_complete_reason": LIVE,
    "models.llm_response:LlmResponse.voice_activity": LIVE,
    # the Gemini Interactions API
    "models.llm_response:LlmResponse.interaction_status": LIVE,
    # google-adk 2 workflow graphs
    "agents.context:Context.attempt_count": WORKFLOW,
    "agents.context:Context.error": WORKFLOW,
    "agents.context:Context.error_node_path": WORKFLOW,
    "agents.context:Context.event_author": WORKFLOW,
    "agents.context:Context.interrupt_ids": WORKFLOW,
    "agents.context:Context.node": WORKFLOW,
    "agents.context:Context.node_path": WORKFLOW,
    "agents.context:Context.output": WORKFLOW,
    "agents.context:Context.parent_ctx": WORKFLOW,
    "agents.context:Context.route": WORKFLOW,
    "agents.context:Context.run_id": WORKFLOW,
    "agents.context:Context.run_node": WORKFLOW,
    "agents.context:Context.telemetry_context": WORKFLOW,
    "agents.invocation_context:InvocationContext.node_path": WORKFLOW,
    # the tools' YAML config classes
    # google-adk's bookkeeping
    "agents.invocation_context:InvocationContext.canonical_tools_cache": ADK_BOOKKEEPING,
    "agents.invocation_context:InvocationContext.token_compaction_checked": ADK_BOOKKEEPING,
    "artifacts.in_memory_artifact_service:InMemoryArtifactService.artifacts": ADK_BOOKKEEPING,
    "events.event_actions:EventActions.set_model_response": ADK_BOOKKEEPING,
    "models.lite_llm:LiteLLMClient.completion": ADK_BOOKKEEPING,
    "agents.run_config:RunConfig.telemetry": PER_RUN_TELEMETRY,
}
"""Members of google-adk's public classes not here (``module:Class.member``), with the reason."""


PYDANTIC_NAMES = (
    "pydantic's own `model_validate` (its first parameter is `obj`); google-adk overrides it "
    "on `HttpCredentials` to name it `data`."
)
MCP_TOOL_AUTH = (
    "An `McpTool` is made by its toolset, which carries the authentication "
    "(`McpToolset(auth_scheme=..., auth_credential=...)`) and applies it to every tool."
)

SIGNATURES_OMITTED: dict[str, str] = {
    "agents.context:Context.__init__(attempt_count)": WORKFLOW,
    "agents.context:Context.__init__(node)": WORKFLOW,
    "agents.context:Context.__init__(node_path)": WORKFLOW,
    "agents.context:Context.__init__(parent_ctx)": WORKFLOW,
    "agents.context:Context.__init__(run_id)": WORKFLOW,
    "agents.context:Context.__init__(use_as_output)": WORKFLOW,
    "auth.auth_credential:HttpCredentials.model_validate(data)": PYDANTIC_NAMES,
    "tools.mcp_tool.mcp_tool:McpTool.__init__(auth_scheme)": MCP_TOOL_AUTH,
    "tools.mcp_tool.mcp_tool:McpTool.__init__(auth_credential)": MCP_TOOL_AUTH,
}
"""Parameters of google-adk functions not taken here (``module:qualname(parameter)``)."""


def parity_table() -> str:
    """The table of ``docs/reference/parity.md``: one row per reason, with what it covers.

    What a row covers is listed as paths under ``google.adk.``.
    """
    rows: dict[str, list[str]] = {}
    listed = [*OMITTED.items(), *REFUSED.items(), *MEMBERS_OMITTED.items()]
    listed += [(key, reason) for key, reason in SIGNATURES_OMITTED.items()]
    for key, reason in listed:
        module, _, name = key.partition(":")
        shown = f"`{module}.{name}`" if name else f"`{module}`"
        rows.setdefault(reason, []).append(shown)
    lines = ["| google-adk 2.13 (under `google.adk.`) | why it is not here |", "|---|---|"]
    lines += [f"| {', '.join(items)} | {reason} |" for reason, items in rows.items()]
    return "\n".join(lines)


if __name__ == "__main__":
    print(parity_table())
