"""Bridges to other agent frameworks (each one behind an extra of its own)."""
