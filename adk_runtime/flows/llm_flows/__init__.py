"""``google.adk.flows.llm_flows`` → here (only :mod:`.functions` has public names we keep)."""
