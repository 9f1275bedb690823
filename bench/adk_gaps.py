"""Why a google-adk unit test that passes on google-adk 2.13 does not pass here.

``python -m bench.adk_unit_tests ... --compare BASELINE.json --explain GAPS.json`` sorts every
such test into one category, from its failure (the exception pytest reports, or the import
error that kept its file from loading), so that the port's gap is an accounting rather than
one number: what is out of scope, what tests google-adk's private internals or its exact
wording, what differs here on purpose, and what is left to review (``unexplained``).

The rules read the failure only, never the test's code. Failures they cannot read were looked
at one by one and are listed by test name (:data:`REVIEWED`; an entry whose test passes again
is reported as stale), and a few whole files are known by name (Google Cloud ones, one that
patches google-adk's telemetry). A failure nothing explains is ``unexplained``, and so is a
rule's match that the parity table does not back (a public name we lack that
``tests/parity/omissions.py`` does not list).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from tests.parity import omissions

CATEGORIES: dict[str, str] = {
    "live": "the Live API (bidirectional streaming): out of scope",
    "google-cloud": "Google Cloud services (GCS, Vertex AI, BigQuery, ...): out of scope",
    "omitted": "a public name docs/reference/parity.md lists as not here, with its reason",
    "private": "a private name of google-adk (`_name`), imported, patched or read",
    "mocked-internals": "a mock of google-adk's internal calls or objects, which we do not make",
    "wording": "google-adk's exact message, warning or log text (never copied here)",
    "difference": (
        "a behaviour that differs on purpose "
        "(docs/tutorials/porting-from-google-adk.md: 'What behaves differently')"
    ),
    "unexplained": "no rule explains it: to review",
}


@dataclass(frozen=True)
class Gap:
    category: str
    detail: str


_LIVE_WORDS = (
    "Live API|live_session_id|live_connect_config|audio_transcription|avatar_config|"
    "affective_dialog|proactivity|translation_config|realtime_input|session_resumption|"
    "save_live|speech_config|LiveRequest|run_live|handle_function_calls_live"
)
_CLOUD_WORDS = (
    r"google\.cloud|GCS|Cloud Storage|Vertex ?AI|vertexai|BigQuery|Spanner|Bigtable|"
    r"Discovery ?Engine|Apigee|Agent Engine|cachedContents"
)
# A quoted literal (single or double quotes), as pytest prints a str.
_LITERAL = r"""(?:'[^']*'|"[^"]*")"""

# Rules on the failure message, first match wins: (category, pattern, detail).
_RULES: tuple[tuple[str, re.Pattern[str], str], ...] = tuple(
    (category, re.compile(pattern, re.S), detail)
    for category, pattern, detail in (
        ("live", _LIVE_WORDS, "Live API"),
        ("google-cloud", _CLOUD_WORDS, "Google Cloud"),
        ("wording", r"Regex pattern did not match", "an error or warning's text"),
        ("wording", r"DID NOT WARN", "a deprecation warning google-adk gives"),
        ("wording", r"LogCaptureFixture", "a log line's text"),
        ("wording", rf"^(?:AssertionError: )?\s*assert {_LITERAL} (?:not )?in ", "a text's words"),
        (
            "mocked-internals",
            r"Expected '[\w.]+' to (?:be called|have been)|expected call not found|"
            r"call_count|Mock object has no attribute|Mock name=",
            "a mock of an internal call",
        ),
        (
            "difference",
            r"UnsafeLocalCodeExecutor runs model-written code",
            "a local code executor needs an explicit opt-in",
        ),
        ("difference", r"cannot pickle|DynamicPickleType", "no pickle"),
    )
)

_MISSING_MODULE = re.compile(r"No module named '(adk_runtime(?:\.\w+)*)'")
_MISSING_NAME = re.compile(r"cannot import name '(\w+)' from '(adk_runtime(?:\.\w+)*)'")
_PATCHED_IN_MODULE = re.compile(r"<module '[\w.]+' from '[^']*'> does not have the attribute")
# A private attribute, whatever it is read on (``AttributeError: _NAME`` included).
_PRIVATE_ATTRIBUTE = re.compile(
    r"(?:has no attribute|does not have the attribute) '(_(?!_)\w+)'|AttributeError: (_(?!_)\w+)$"
)
_UNEXPECTED_ARGUMENT = re.compile(r"got an unexpected keyword argument '(\w+)'")
# An attribute our module or class lacks (not one of None, a dict or another builtin).
_MISSING_ATTRIBUTE = re.compile(
    r"(?:<module '[\w.]+'.*?>|'(?!NoneType')[A-Z]\w*' object|<class '[\w.]+'>|module '[\w.]+') "
    r"(?:has no attribute|does not have the attribute) '(\w+)'"
)


def _table_category(reason: str) -> str:
    if reason in (omissions.LIVE, omissions.LIVE_REFUSED):
        return "live"
    if reason in (omissions.GOOGLE_CLOUD, omissions.REFUSED_CLOUD, omissions.SKILLS_GCS):
        return "google-cloud"
    return "omitted"


def _listed_module(path: str) -> str | None:
    """The parity table's reason for a module path under ``google.adk`` (or a parent)."""
    tables = (omissions.OMITTED, omissions.REFUSED)
    for table in tables:
        for key, reason in table.items():
            if ":" not in key and (path == key or path.startswith(key + ".")):
                return reason
    return None


def _listed_name(module: str, name: str) -> str | None:
    for table in (omissions.OMITTED, omissions.REFUSED):
        reason = table.get(f"{module}:{name}")
        if reason is not None:
            return reason
    return _listed_module(f"{module}.{name}") or _listed_module(module)


def _listed_member(name: str) -> str | None:
    """The reason for a member (``Class.name``) or module-level name listed anywhere."""
    for table in (omissions.MEMBERS_OMITTED, omissions.OMITTED, omissions.REFUSED):
        for key, reason in table.items():
            if key.endswith((f".{name}", f":{name}")):
                return reason
    return None


def _listed_parameter(name: str) -> str | None:
    """The reason for a parameter listed as not taken here (``function(name)``)."""
    for key, reason in omissions.SIGNATURES_OMITTED.items():
        if key.endswith(f"({name})"):
            return reason
    return None


def _missing(message: str) -> Gap | None:
    """A module, name or attribute google-adk has and we lack."""
    found = _MISSING_NAME.search(message)
    if found:
        name, module = found.group(1), found.group(2).removeprefix("adk_runtime").lstrip(".")
        if name.startswith("_") or any(part.startswith("_") for part in module.split(".")):
            return Gap("private", f"{module}:{name}")
        reason = _listed_name(module, name)
        return _from_table(reason, f"{module}:{name}")
    found = _MISSING_MODULE.search(message)
    if found:
        module = found.group(1).removeprefix("adk_runtime").lstrip(".")
        if any(part.startswith("_") for part in module.split(".")):
            return Gap("private", module)
        return _from_table(_listed_module(module), module)
    found = _PRIVATE_ATTRIBUTE.search(message)
    if found:
        return Gap("private", found.group(1) or found.group(2))
    found = _UNEXPECTED_ARGUMENT.search(message)
    if found:
        reason = _listed_parameter(found.group(1))
        return _from_table(reason, f"parameter {found.group(1)}")
    found = _MISSING_ATTRIBUTE.search(message)
    if found:
        name = found.group(1)
        if name.startswith("_"):
            return Gap("private", name)
        listed = _listed_member(name)
        if listed is None and _PATCHED_IN_MODULE.search(message):
            # mock.patch("google.adk.x.name"): a name google-adk's module imports or keeps.
            return Gap("mocked-internals", f"patches {name} inside a module")
        return _from_table(listed, name)
    return None


def _from_table(reason: str | None, what: str) -> Gap:
    if reason is None:
        return Gap("unexplained", f"{what} is missing and not in the parity table")
    return Gap(_table_category(reason), what)


_STUBBED = re.compile(r"google-adk's private ([\w.]+) is not in adk_runtime")


def classify(message: str) -> Gap:
    """The category of one failure, from its message (an exception, or an import error)."""
    stubbed = _STUBBED.search(message)
    if stubbed:  # a placeholder of --stub-private, used
        return Gap("private", stubbed.group(1).removeprefix("adk_runtime."))
    missing = _missing(message)
    if missing is not None and missing.category != "unexplained":
        return missing
    for category, pattern, detail in _RULES:
        if pattern.search(message):
            return Gap(category, detail)
    if missing is not None:
        return missing
    return Gap("unexplained", message.strip().splitlines()[0][:160] if message.strip() else "")


# google-adk tests whose failure no rule above can read, looked at one by one (google-adk 2.13,
# against this repository): file -> test function (every parametrization) -> (category, why).
# An entry whose test passes here again, or is gone from a file that was run, is reported as
# stale by ``python -m bench.adk_unit_tests ... --explain``.
_RAISES = (
    "difference",
    "a tool (or transfer) that raises is answered to the model with an error "
    "(docs/tutorials/porting-from-google-adk.md)",
)
_CREDENTIALS = (
    "difference",
    "auth configs and credentials are kept as JSON, the secret left out "
    "(docs/tutorials/porting-from-google-adk.md)",
)
_CONFIRM = ("wording", "the confirmation's waiting message is our own words")
_MCP_MOCKED = ("mocked-internals", "replaces google-adk's private MCP session manager with a mock")
_NON_TEXT = ("wording", "the note that stands for a non-text part")
_NODE_ROOT = (
    "difference",
    "a node given as an App's root runs inside a NodeAgent (docs/how-to/agents/workflows.md)",
)
_PENDING = (
    "difference",
    "after a long-running tool's pending result the turn stops "
    "(docs/tutorials/porting-from-google-adk.md)",
)
_SQL_MOCKED = ("mocked-internals", "mocks google-adk's SQLAlchemy session factory")
_BRANCH = (
    "difference",
    "a tool call's run is scoped by isolation_scope and path, not a `name@id` branch",
)
_MISSING_ARGS = ("wording", "the missing-arguments error (ours also tells the model to call again)")
_SAMPLING = (
    "difference",
    "anthropic 2.14's create() takes no temperature: sampling goes in extra_body",
)
_UNSTORABLE = (
    "difference",
    "a value that cannot be stored raises SerializationError naming its key path "
    "(docs/tutorials/porting-from-google-adk.md)",
)
_MCP_SDK_2 = (
    "difference",
    "MCP SDK 2's tool fields (input_schema); the test's stand-in has SDK 1's",
)
_NOT_DEPRECATED = (
    "difference",
    "LoopAgent, SequentialAgent and ParallelAgent are not deprecated here "
    "(docs/tutorials/porting-from-google-adk.md)",
)
_RECORD_IO = (
    "difference",
    "spans carry arguments and results only with record_io=True (docs/how-to/observability.md)",
)
_REVIEWS: dict[str, dict[str, tuple[str, str]]] = {
    "agents/test_loop_agent.py": {
        "test_deprecation_mentions_sub_agent_limitation": _NOT_DEPRECATED
    },
    "agents/test_parallel_agent.py": {
        "test_deprecation_mentions_sub_agent_limitation": _NOT_DEPRECATED
    },
    "agents/test_sequential_agent.py": {
        "test_deprecation_mentions_sub_agent_limitation": _NOT_DEPRECATED
    },
    "plugins/test_save_files_as_artifacts.py": {
        "test_artifact_delta_reporting": (
            "difference",
            "the plugin's pending delta is kept under a temp: key, for the invocation only",
        ),
    },
    "events/test_event_actions.py": {
        "test_non_serializable_agent_state_does_not_raise": _UNSTORABLE,
        "test_non_serializable_agent_state_logs_warning": _UNSTORABLE,
        "test_datetime_preserved_when_fallback_triggered": _UNSTORABLE,
        "test_exclude_is_respected_in_fallback_path": _UNSTORABLE,
        "test_non_serializable_state_delta_does_not_raise": _UNSTORABLE,
        "test_non_serializable_state_delta_logs_warning": _UNSTORABLE,
    },
    "flows/llm_flows/test_code_execution.py": {
        "test_data_file_helper_lib_defines_crop": ("private", "the data-file helper's source text"),
        "test_pre_processor_runs_execute_code_off_the_loop": (
            "difference",
            "optimize_data_file (CSV parts pre-processed into code) is refused, with its reason",
        ),
    },
    "tools/mcp_tool/test_mcp_tool.py": {
        "test_run_async_require_confirmation_callable_true_no_confirmation": _CONFIRM,
        "test_run_async_require_confirmation_true_no_confirmation": _CONFIRM,
        "test_run_async_require_confirmation_true_confirmed": (
            "mocked-internals",
            "the mocked MCP session answers with an AsyncMock",
        ),
        "test_get_declaration": _MCP_SDK_2,
        "test_get_declaration_with_empty_output_schema_and_json_schema_for_func_decl_enabled": (
            _MCP_SDK_2
        ),
        "test_get_declaration_with_json_schema_for_func_decl_enabled": _MCP_SDK_2,
        "test_get_declaration_with_output_schema_and_json_schema_for_func_decl_enabled": _MCP_SDK_2,
    },
    "agents/test_context.py": {
        "test_get_invocation_context_propagates_isolation_scope": (
            "difference",
            "a context's isolation_scope is its invocation's, read-only",
        ),
        "test_run_node_internal_returns_ctx_and_handles_resume_inputs": (
            "private",
            "Context._run_node_internal",
        ),
    },
    "agents/test_context_cache_config.py": {
        "test_field_descriptions": ("wording", "the config fields' descriptions"),
    },
    "agents/test_invocation_context.py": {
        "test_should_not_pause_when_user_resumes_in_sub_branch": _BRANCH,
        "test_should_not_pause_when_user_resumes_in_deeply_nested_sub_branch": _BRANCH,
    },
    "agents/test_llm_agent_fields.py": {
        "test_handle_vais_with_other_tools": ("google-cloud", "Vertex AI Search"),
    },
    "agents/test_readonly_context.py": {
        "test_agent_name_without_agent": (
            "mocked-internals",
            "a mocked invocation without an agent (an invocation always has one here)",
        ),
    },
    "apps/test_apps.py": {
        "test_app_with_root_node": _NODE_ROOT,
    },
    "test_runners.py": {
        "test_resolve_app_with_node_wraps_in_app": _NODE_ROOT,
        "test_resolve_app_extracts_node_from_app": _NODE_ROOT,
    },
    "apps/test_compaction.py": {
        "test_run_compaction_for_token_threshold_uses_latest_ordered_seed": (
            "difference",
            "with summaries stored out of order, a later range's summary stands for its events",
        ),
    },
    "apps/test_llm_event_summarizer.py": {
        "test_format_events_for_prompt": ("wording", "the summarizer's prompt text"),
        "test_format_events_for_prompt_includes_thoughts": (
            "wording",
            "the summarizer's prompt text",
        ),
    },
    "auth/test_auth_handler.py": {
        "test_oauth_scheme": _CREDENTIALS,
    },
    "auth/test_credential_manager.py": {
        "test_request_credential_does_not_leak_across_users": _CREDENTIALS,
    },
    "flows/llm_flows/test_functions_request_euc.py": {
        "test_function_get_auth_response": _CREDENTIALS,
        "test_function_get_auth_response_partial": _CREDENTIALS,
    },
    "tools/test_base_google_credentials_manager.py": {
        "test_oauth_flow_completion_with_caching": _CREDENTIALS,
        "test_cache_persistence_across_manager_instances": _CREDENTIALS,
    },
    "auth/test_oauth2_credential_util.py": {
        "test_refresh_request_omits_scope": (
            "mocked-internals",
            "reads the arguments of a mocked authlib request",
        ),
        "test_token_exchange_omits_scope": (
            "mocked-internals",
            "reads the arguments of a mocked authlib request",
        ),
    },
    "code_executors/test_built_in_code_executor.py": {
        "test_process_llm_request_no_model_name": (
            "difference",
            "BuiltInCodeExecutor refuses an agent whose model is not Gemini 2 or later",
        ),
    },
    "code_executors/test_unsafe_local_code_executor.py": {
        "test_init_optimize_data_file_raises_error": (
            "wording",
            "refused too, with ConfigurationError and our own words",
        ),
    },
    "agents/test_managed_agent.py": {
        **dict.fromkeys(
            (
                "test_resolve_rejects_plain_callable",
                "test_resolve_rejects_raw_mcp_server",
                "test_resolve_rejects_raw_tool_with_function_declarations",
                "test_resolve_rejects_unsupported_raw_tool",
                "test_run_async_raises_on_unsupported_tool",
            ),
            (
                "difference",
                "a tool the API cannot run is refused when the agent is built, not at its "
                "first turn (the same UnsupportedFeatureError, a NotImplementedError)",
            ),
        ),
        **dict.fromkeys(
            (
                "test_run_impl_bridges_node_input_to_user_content",
                "test_string_instruction_injects_session_state",
            ),
            (
                "difference",
                "builds an InvocationContext without an agent (google-adk 2's workflow "
                "nodes); one here always has its agent",
            ),
        ),
    },
    "agents/test_llm_agent_single_turn_subagents.py": {
        "test_single_turn_managed_agent_is_wrapped_as_tool": (
            "difference",
            "a delegated sub-agent is offered as a tool in each request, not added to the "
            "parent's tools field",
        ),
    },
    "models/test_interactions_utils.py": {
        "test_function_call_streaming_json_parse_error": (
            "wording",
            "the same JSON_PARSE_ERROR, with a message naming the function",
        ),
        "test_generate_content_via_interactions_forwards_request_headers": (
            "difference",
            "requests carry the caller's headers, not google-adk's x-goog-api-client label",
        ),
    },
    "flows/llm_flows/test_functions_long_running.py": {
        "test_async_function": _PENDING,
        "test_async_function_with_none_response": _PENDING,
    },
    "flows/llm_flows/test_functions_parallel_error.py": {
        "test_parallel_function_call_error_fail_fast": _RAISES,
    },
    "flows/llm_flows/test_plugin_tool_callbacks.py": {
        "test_async_on_tool_error_fallback_to_runner": _RAISES,
    },
    "flows/llm_flows/test_tool_callbacks.py": {
        "test_on_tool_error_callback_tool_error_noop": _RAISES,
    },
    "workflow/test_agent_transfer.py": {
        "test_transfer_to_self_raises_error": _RAISES,
        "test_transfer_to_unrelated_agent_raises_error": _RAISES,
        "test_auto_to_sequential_to_auto": (
            "difference",
            "a transferring agent's end_of_agent is stored before its target runs "
            "(docs/tutorials/porting-from-google-adk.md)",
        ),
    },
    "flows/llm_flows/test_functions_simple.py": {
        "test_sync_function_blocks_async_functions": (
            "difference",
            "sync tools run in a worker thread and do not block the event loop "
            "(docs/how-to/agents/tools.md)",
        ),
    },
    "flows/llm_flows/test_functions_thread_pool.py": {
        "test_sync_tool_missing_mandatory_args": (
            "mocked-internals",
            "replaces google-adk's tool thread pool with a dict",
        ),
        "test_async_tool_runs_in_thread_pool": (
            "mocked-internals",
            "its teardown shuts down google-adk's pools by size; ours are per event loop "
            "(a pool made by the run before it fails the teardown)",
        ),
    },
    "flows/llm_flows/test_instructions.py": {
        "test_static_instruction_non_text_parts_moved_to_user_content": _NON_TEXT,
        "test_static_instruction_only_non_text_parts": _NON_TEXT,
        "test_static_instruction_reference_id_generation": _NON_TEXT,
        "test_static_instruction_with_files_and_text": _NON_TEXT,
    },
    "models/test_llm_request.py": {
        "test_append_instructions_content_no_text_parts": _NON_TEXT,
        "test_append_instructions_content_with_non_text_parts": _NON_TEXT,
        "test_append_instructions_with_mixed_content": _NON_TEXT,
        "test_append_instructions_warning_unsupported_system_instruction_type": (
            "difference",
            "a system instruction of an unknown type raises TypeError instead of a warning",
        ),
    },
    "models/test_anthropic_llm.py": {
        "test_claude_vertex_client_uses_tracking_headers": ("google-cloud", "Claude on Vertex AI"),
        "test_build_anthropic_thinking_param_no_config": (
            "difference",
            "no thinking setting is None here, not anthropic's NOT_GIVEN",
        ),
        "test_generate_content_async_with_generation_config": _SAMPLING,
        "test_generate_content_streaming_with_generation_config": _SAMPLING,
    },
    "models/test_gemma_llm.py": {
        "test_gemma3_ollama_supported_models": (
            "difference",
            "ollama_chat/gemma3 names resolve too (docs/tutorials/porting-from-google-adk.md)",
        ),
    },
    "models/test_litellm_import.py": {
        "test_ensure_litellm_imported_defaults_to_production": (
            "private",
            "lite_llm._ensure_litellm_imported",
        ),
        "test_ensure_litellm_imported_does_not_override": (
            "private",
            "lite_llm._ensure_litellm_imported",
        ),
    },
    "plugins/test_auto_tracing_plugin.py": {
        "test_records_io": _RECORD_IO,
        "test_records_exception": _RECORD_IO,
        "test_async_gen_caps_buffered_items": _RECORD_IO,
        "test_sync_gen_caps_buffered_items": _RECORD_IO,
    },
    "plugins/test_debug_logging_plugin.py": {
        "test_safe_serialize_handles_bytes": ("wording", "how bytes are shown in the log"),
    },
    "plugins/test_multimodal_tool_results_plugin.py": {
        "test_tool_returning_non_list_of_parts_is_unchanged": (
            "difference",
            "the callback returns None (keep the result) rather than the same result",
        ),
    },
    "runners/test_run_tool_confirmation.py": {
        "test_confirmation_flow": _CONFIRM,
        "test_pause_and_resume_on_request_confirmation": _CONFIRM,
        "test_pause_and_resume_on_request_confirmation_without_invocation_id": _CONFIRM,
    },
    "tools/test_function_tool.py": {
        "test_run_async_with_require_confirmation": _CONFIRM,
        "test_run_async_1_missing_arg_async_func": _MISSING_ARGS,
        "test_run_async_1_missing_arg_sync_func": _MISSING_ARGS,
        "test_run_async_3_missing_arg_async_func": _MISSING_ARGS,
        "test_run_async_3_missing_arg_sync_func": _MISSING_ARGS,
        "test_run_async_missing_all_arg_async_func": _MISSING_ARGS,
        "test_run_async_missing_all_arg_sync_func": _MISSING_ARGS,
        "test_run_async_with_context_type_annotation": (
            "difference",
            "a tool gets a ToolContext (a Context subclass); google-adk 2 aliases the two",
        ),
    },
    "sessions/test_session_service.py": {
        "test_append_event_calls_rollback_on_commit_failure": _SQL_MOCKED,
        "test_create_session_calls_rollback_on_commit_failure": _SQL_MOCKED,
        "test_delete_session_calls_rollback_on_commit_failure": _SQL_MOCKED,
        "test_service_recovers_after_multiple_failures": _SQL_MOCKED,
        "test_database_session_service_sqlite_file_timestamp_read_after_reopen": (
            "omitted",
            "reads google-adk's own `events` table (its storage schema)",
        ),
        "test_create_and_list_sessions": (
            "difference",
            "list_sessions gives newest update first, not creation order "
            "(docs/tutorials/porting-from-google-adk.md)",
        ),
        "test_session_last_update_time_updates_on_event": (
            "difference",
            "last_update_time is the store's commit time, not the event's timestamp "
            "(docs/tutorials/porting-from-google-adk.md)",
        ),
        "test_sqlite_session_service_preserves_uri_query_parameters": (
            "difference",
            "a read-only SQLite database is refused up front",
        ),
    },
    "streaming/test_live_streaming_configs.py": {
        "test_streaming_with_context_window_compression_config": ("live", "Live API"),
    },
    "tools/mcp_tool/test_mcp_toolset.py": {
        "test_connection_params": (
            "difference",
            "StdioServerParameters given are kept as StdioConnectionParams",
        ),
        "test_get_tools_retry_decorator": ("private", "google-adk's retry decorator on get_tools"),
        "test_mcp_toolset_with_prefix": ("mocked-internals", "MagicMock connection parameters"),
        "test_get_tools_passes_factory_to_mcp_tools": _MCP_MOCKED,
        "test_get_tools_passes_progress_callback_to_mcp_tools": _MCP_MOCKED,
        "test_get_tools_returns_sorted_by_name": _MCP_MOCKED,
        "test_get_tools_with_async_header_provider": _MCP_MOCKED,
        "test_get_tools_with_function_filter": _MCP_MOCKED,
        "test_get_tools_with_header_provider": _MCP_MOCKED,
        "test_get_tools_with_list_filter": _MCP_MOCKED,
        "test_get_tools_with_timeout": _MCP_MOCKED,
        "test_list_resources": _MCP_MOCKED,
        "test_read_resource": _MCP_MOCKED,
    },
    "tools/retrieval/test_base_retrieval_tool.py": {
        "test_get_declaration_with_json_schema_feature_enabled": (
            "wording",
            "the query parameter's description",
        ),
    },
    "tools/test_base_toolset.py": {
        "test_get_tools_with_prefix_caching": ("private", "BaseToolset._use_invocation_cache"),
    },
    "tools/test_gemini_schema_util.py": {
        "test_to_gemini_schema_circular_ref": ("wording", "the recursive-reference error"),
    },
    "tools/test_long_running_tool.py": {
        "test_get_declaration_without_description": (
            "wording",
            "the long-running note in the declaration",
        ),
        "test_warning_message_format": ("wording", "the long-running note in the declaration"),
    },
    "tools/test_skill_path_traversal.py": {
        "test_execute_with_traversal_paths_raises": (
            "difference",
            "a skill with an escaping path is refused before any code runs",
        ),
    },
    "tools/test_skill_toolset.py": {
        "test_load_resource_run_async": ("wording", "the note for a binary resource"),
    },
    "utils/test_variant_utils.py": {
        "test_get_google_llm_variant_vertexai_fallback": ("google-cloud", "Vertex AI"),
    },
    "workflow/test_agent_node.py": {
        "test_base_agent_as_node_run": ("difference", "an InvocationContext needs its agent"),
    },
    "workflow/test_workflow_bytes.py": {
        "test_raw_bytes_output": (
            "difference",
            "a node output of raw bytes is refused: it would not read back as bytes "
            "(docs/how-to/agents/workflows.md)",
        ),
    },
}
REVIEWED: dict[str, tuple[str, str]] = {
    f"{file}::{test}": why for file, tests in _REVIEWS.items() for test, why in tests.items()
}
"""``"<file>::<test function>"`` -> (category, why), from :data:`_REVIEWS`."""


# Whole test files whose every failure has one cause, whether or not the file loads.
_FILES: dict[str, tuple[str, str]] = {
    "flows/llm_flows/test_tool_telemetry.py": (
        "mocked-internals",
        "patches the tracer of google-adk's telemetry.tracing module",
    ),
}
# Whole test files about a Google Cloud service, whatever their failures say.
_CLOUD_FILE = re.compile(r"vertex_ai|bigquery|spanner|gcs|google_tool|discovery_engine|apigee")


def _function(test: str) -> str:
    """``test_x`` of ``tests.unittests.area.test_file.TestClass::test_x[params]``."""
    return test.split("[", 1)[0].rsplit("::", 1)[-1]


def explain(file: str, test: str, message: str, ran: bool = True) -> Gap:
    """The category of one google-adk test (``file``, full test id) failing here; ``ran``
    is False when its file did not load (``message`` is then the import error)."""
    reviewed = REVIEWED.get(f"{file}::{_function(test)}") if ran else None
    if reviewed is not None:
        return Gap(*reviewed)
    if file in _FILES:
        return Gap(*_FILES[file])
    if _CLOUD_FILE.search(file):
        return Gap("google-cloud", file)
    return classify(message)


def stale(explained: dict[str, dict[str, str]], files: set[str]) -> list[str]:
    """Entries of :data:`REVIEWED` whose test no longer fails here (or whose file is gone)."""
    used = {f"{gap['file']}::{_function(test)}" for test, gap in explained.items()}
    return sorted(key for key in REVIEWED if key.split("::")[0] in files and key not in used)
