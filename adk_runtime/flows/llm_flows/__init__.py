"""``google.adk.flows.llm_flows`` → here: pieces of the LLM flow under google-adk's names.

adk_runtime's flow is one loop (``adk_runtime.agents._llm_flow``). The request processors
here (:mod:`.basic`, :mod:`.instructions`, :mod:`.contents`, :mod:`.agent_transfer`,
:mod:`.request_confirmation`, :mod:`.context_cache_processor` and the private planning,
code-execution and output-schema steps), the response processors, the flow classes that
list them (:mod:`.base_llm_flow`, :mod:`.single_flow`, :mod:`.auto_flow`) and the
function-call helpers (:mod:`.functions`) call the same functions that loop does, for code
that builds a request or runs calls by hand.
"""
