"""Small helpers at google-adk's ``utils`` paths."""
