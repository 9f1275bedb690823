"""Conversions between A2A messages, tasks and parts and this runtime's events and parts."""
