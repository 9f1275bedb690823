"""google-adk 2's ``agents.llm`` package: the task mode of ``LlmAgent`` (``task``)."""
