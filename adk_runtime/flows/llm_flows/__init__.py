"""``google.adk.flows.llm_flows`` → here: pieces of the LLM flow under google-adk's names.

adk_runtime's flow is one loop (``adk_runtime.agents._llm_flow``). The request processors
here (:mod:`.basic`, :mod:`.instructions`, :mod:`.contents`, :mod:`.agent_transfer`,
:mod:`.context_cache_processor`) and the function-call helpers (:mod:`.functions`) call the
same functions that loop does, for code that builds a request or runs calls by hand.
"""
