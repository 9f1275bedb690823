"""``google.adk.flows`` → here: the public pieces of the LLM flow.

The flow itself (building the request, calling the model, running the function calls) lives in
``adk_runtime.agents`` (``_llm_flow.py``, ``_functions.py``); google-adk's request processors
and flow classes are internals with no counterpart here (see the README's parity table).
"""
