"""Limits and the instruction of the environment tools."""

from __future__ import annotations

DEFAULT_TIMEOUT = 30
"""Seconds an ``Execute`` command may run before it is killed."""

MAX_OUTPUT_CHARS = 30_000
"""Characters of output or file content a tool call returns to the model by default."""

ENVIRONMENT_INSTRUCTION = """\
You work in an environment whose working directory is {working_dir}/

Using its tools:
- Read files with `ReadFile`, change parts of them with `EditFile`, create or rewrite them \
with `WriteFile`; do not use `Execute` with cat, head or tail to read a file.
- `Execute` runs programs, tests and builds. Calls in one response run at the same time, so \
put commands that depend on each other into one `Execute` call, joined with `&&`.
- Do not call a file tool and `Execute` in the same response: call the file tool, then \
`Execute` in the next step.
"""
