"""Helpers of the command line that applications use too (google-adk's ``cli.utils``)."""
