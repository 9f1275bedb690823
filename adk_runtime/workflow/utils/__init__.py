"""Helpers for workflow clients (google-adk's ``workflow.utils`` path)."""
