"""``adk-runtime create NAME``: a new agent folder, google-adk's layout, that runs offline.

``NAME/agent.py`` defines ``root_agent`` on a stand-in model (a ``ScriptedModel`` that
answers without network or key); one line, ``MODEL = ...``, switches it to Gemini.
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from adk_runtime.errors import ConfigurationError

OFFLINE_MODEL = "ScriptedModel(handler=offline_reply)"
GEMINI_EXAMPLE = "gemini-2.5-flash"

_AGENT_PY = '''\
"""The {name} agent. adk-runtime loads root_agent from this file; from the folder above:

    adk-runtime run {name}                 # chat in the terminal
    adk-runtime web --agent {name}         # the browser UI (needs adk-runtime[google-adk])
    adk-runtime api_server --agent {name}  # the HTTP API
"""

from adk_runtime.agents import Agent
from adk_runtime.models import LlmRequest
from adk_runtime.testing import ScriptedModel


def offline_reply(request: LlmRequest) -> str:
    """A stand-in for a real model: answers at once, with no network and no key."""
    last = request.contents[-1] if request.contents else None
    said = " ".join(part.text or "" for part in (last.parts or [])).strip() if last else ""
    return f"(offline model) You said: {{said!r}}. Set MODEL in agent.py to use a real model."


{model_comment}
MODEL = {model}

root_agent = Agent(
    name="{name}",
    model=MODEL,
    description="A helpful assistant.",
    instruction="Answer the user's questions clearly and briefly.",
)
'''

_OFFLINE_COMMENT = f'''\
# The model: the offline stand-in above. For Gemini, set GOOGLE_API_KEY in .env and make this
# line:  MODEL = "{GEMINI_EXAMPLE}"'''

_NAMED_COMMENT = f"""\
# The model (its key in .env). Offline, with no key: MODEL = {OFFLINE_MODEL}"""

_INIT_PY = '''\
"""The {name} agent package (root_agent is in agent.py)."""

from . import agent  # the package exposes agent.root_agent
'''

_ENV = """\
# Read when adk-runtime loads this folder (run, chat, serve, web, api_server);
# a variable already set in the environment wins. Keep this file out of version control.
# Gemini with an API key:
# GOOGLE_API_KEY=...
# or on Vertex AI:
# GOOGLE_GENAI_USE_VERTEXAI=true
# GOOGLE_CLOUD_PROJECT=...
# GOOGLE_CLOUD_LOCATION=us-central1
"""

_GITIGNORE = ".env\n.adk_runtime/\n__pycache__/\n"


def agent_files(name: str, model: str | None = None) -> dict[str, str]:
    """The files of a new agent folder called ``name``, by file name."""
    if model is None:
        model_line, comment = OFFLINE_MODEL, _OFFLINE_COMMENT
    else:
        model_line, comment = json.dumps(model), _NAMED_COMMENT
    return {
        "__init__.py": _INIT_PY.format(name=name),
        "agent.py": _AGENT_PY.format(name=name, model=model_line, model_comment=comment),
        ".env": _ENV,
        ".gitignore": _GITIGNORE,
    }


@click.command()
@click.argument("path", metavar="NAME", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--model",
    default=None,
    metavar="NAME",
    help=f"The model, e.g. {GEMINI_EXAMPLE} (default: an offline stand-in that needs no key).",
)
def create(path: Path, model: str | None) -> None:
    """Create an agent folder NAME: agent.py (root_agent), __init__.py, .env, .gitignore."""
    name = path.resolve().name
    if not name.isidentifier() or not name[0].isalpha() or name == "user":
        raise ConfigurationError(
            f"{name!r} cannot name an agent (its package and its app): use a letter, then "
            "letters, digits and underscores (e.g. my_agent); 'user' is reserved."
        )
    if path.exists() and any(path.iterdir()):
        raise ConfigurationError(f"{path} already exists and is not empty; pick another NAME.")
    path.mkdir(parents=True, exist_ok=True)
    for file_name, text in agent_files(name, model).items():
        (path / file_name).write_text(text, encoding="utf-8")
    click.echo(f"Created {path}/: agent.py (root_agent), __init__.py, .env, .gitignore.")
    where = "on an offline stand-in model" if model is None else f"on {model}"
    click.echo(f"The agent runs {where}; MODEL in agent.py picks another.\n\nNext:")
    for command, what in (
        (f"adk-runtime run {path}", "chat in the terminal"),
        (f"adk-runtime web --agent {path}", "the web UI (needs the google-adk extra)"),
        (f"adk-runtime api_server --agent {path}", "the HTTP API"),
    ):
        click.echo(f"  {command:<44} {what}")
