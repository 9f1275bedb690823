"""``google.adk.labs`` → here: experimental parts whose shape may still change."""
