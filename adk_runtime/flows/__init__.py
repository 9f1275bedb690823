"""``google.adk.flows`` → here: the public pieces of the LLM flow.

The flow itself (building the request, calling the model, running the function calls) lives in
``adk_runtime.agents`` (``_llm_flow.py``, ``_functions.py``). :mod:`.llm_flows` keeps
google-adk's module names for the flow classes (``BaseLlmFlow``, ``SingleFlow``,
``AutoFlow``), the request and response processors and the function-call helpers, as faces
over that flow; an agent does not run a flow class.
"""
