"""``adk-runtime serve``: the HTTP API (google-adk ``api_server`` routes) for one agent.

The listening socket is bound before anything is announced (:mod:`._listen`): a port in use
or a host that does not resolve is one error line, and "serving on" names the port bound.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import click

from adk_runtime.cli._common import (
    AUTH_TOKEN_ENV,
    DEFAULT_CHAT_URL,
    MEMORY_URL_ENV,
    agent_option,
    artifact_url_option,
    ensure_sqlite_dir,
    load_agent,
    run_async,
    session_url_option,
    show_url,
)
from adk_runtime.cli._listen import bind, url_host
from adk_runtime.cli._services import artifact_service_for, memory_service_for
from adk_runtime.errors import ConfigurationError
from adk_runtime.sessions import BaseSessionService, session_service_from_url
from adk_runtime.sessions._cache import DEFAULT_SERVER_CACHE_BYTES
from adk_runtime.utils._hosts import is_loopback

# adk_runtime.server._gate.DEFAULT_MAX_BODY_BYTES (not imported: the server extra is optional)
DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024


@click.command()
@agent_option()
@session_url_option("--session-url", "--url")
@artifact_url_option()
@click.option(
    "--memory-url",
    envvar=MEMORY_URL_ENV,
    show_envvar=True,
    default=None,
    metavar="URL",
    help="Memory store (default: none).",
)
@click.option("--app", "app_name", default=None, help="App name in URLs (default: agent name).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Interface to bind.")
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True)
@click.option(
    "--auth-token",
    envvar=AUTH_TOKEN_ENV,
    show_envvar=True,
    default=None,
    help="Require 'Authorization: Bearer <token>' on every request.",
)
@click.option(
    "--cache-bytes",
    type=click.IntRange(0),
    default=DEFAULT_SERVER_CACHE_BYTES,
    show_default=True,
    help="Session cache for SQL and Redis stores (bytes of event JSON; 0 turns it off).",
)
@click.option(
    "--max-body-bytes",
    type=click.IntRange(1),
    default=DEFAULT_MAX_BODY_BYTES,
    show_default=True,
    help="Largest request body accepted (413 beyond it).",
)
@click.option(
    "--session-wait",
    type=click.FloatRange(0, 3600),
    default=5.0,
    show_default=True,
    metavar="SECONDS",
    help="How long a message waits for its session while another turn runs on it (on any "
    "replica) before it gets 409 with Retry-After.",
)
@click.option(
    "--session-lease",
    type=click.FloatRange(0.1, 3600),
    default=20.0,
    show_default=True,
    metavar="SECONDS",
    help="Lease of a turn's claim on its session (renewed while the turn runs): how long a "
    "crashed replica keeps its sessions busy.",
)
@click.option(
    "--metrics",
    is_flag=True,
    default=False,
    help="Serve /metrics (Prometheus text; behind the bearer token if one is set). Needs the "
    "'metrics' extra.",
)
@click.option(
    "--record-traces",
    is_flag=True,
    default=False,
    help="Keep this process's recent spans in memory and answer the dev UI's trace routes "
    "(/dev/apps/APP/debug/trace/...) from them. Needs the 'metrics' extra (the OTel SDK).",
)
@click.option(
    "--dev-ui",
    is_flag=True,
    default=False,
    help="Serve google-adk's web UI at /dev-ui/ (needs the 'google-adk' extra); records "
    "traces for it when the OTel SDK is installed.",
)
@click.option(
    "--allow-origins",
    multiple=True,
    metavar="ORIGIN",
    help="Let browser pages from ORIGIN call the API (CORS; repeatable; '*' for any). Off "
    "by default.",
)
@click.option(
    "--allowed-host",
    "allowed_hosts",
    multiple=True,
    metavar="HOST",
    help="A host name the requests' Host header may name (repeatable; '*.example.com' for "
    "subdomains; '*' for any); others get 400. Default: on a loopback --host, the loopback "
    "names only (no DNS rebinding from web pages); otherwise any.",
)
@click.option(
    "--resume-interrupted",
    is_flag=True,
    default=False,
    help="At start-up, resume (in the background) every invocation of the app that a failure "
    "or a crash left unfinished.",
)
@click.option(
    "--abort-on-disconnect",
    is_flag=True,
    default=False,
    help="Stop an invocation when its /run or /run_sse client disconnects (as google-adk's "
    "server does); by default it runs to completion and its answer is stored.",
)
@click.option("--log-level", default="info", show_default=True, help="uvicorn log level.")
def serve(
    agent_spec: str,
    session_url: str,
    artifact_url: str | None,
    memory_url: str | None,
    app_name: str | None,
    host: str,
    port: int,
    auth_token: str | None,
    cache_bytes: int,
    max_body_bytes: int,
    session_wait: float,
    session_lease: float,
    metrics: bool,
    record_traces: bool,
    resume_interrupted: bool,
    abort_on_disconnect: bool,
    dev_ui: bool,
    allow_origins: tuple[str, ...],
    allowed_hosts: tuple[str, ...],
    log_level: str,
) -> None:
    """Serve an agent over HTTP (binds 127.0.0.1 unless --host says otherwise)."""
    try:
        import uvicorn

        from adk_runtime.server import create_app
    except ImportError as exc:
        raise ConfigurationError(
            f"The HTTP server needs the 'server' extra ({exc.name} is missing): "
            "pip install 'adk-runtime[server]'"
        ) from None
    bundle = _web_bundle() if dev_ui else None
    if dev_ui and not record_traces:
        record_traces = _sdk_installed()
    agent = load_agent(agent_spec)
    run_async(_probe(session_url, app_name or agent.name))
    services: dict[str, Any] = {
        "session_service": _session_service(session_url, cache_bytes),
        "artifact_service": artifact_service_for(artifact_url, session_url),
        "memory_service": memory_service_for(memory_url),
    }
    app = create_app(
        agent=agent,
        app_name=app_name,
        auth_token=auth_token,
        owns_services=True,
        max_body_bytes=max_body_bytes,
        session_wait_seconds=session_wait,
        session_lease_seconds=session_lease,
        metrics=_metrics_available("--metrics") if metrics else False,
        record_traces=_metrics_available("--record-traces") if record_traces else False,
        resume_interrupted=resume_interrupted,
        abort_on_disconnect=abort_on_disconnect,
        dev_ui=bundle,
        allow_origins=allow_origins,
        allowed_hosts=_allowed_hosts(host, allowed_hosts),
        **services,
    )
    listener = bind(host, port)
    where = f"http://{url_host(host)}:{listener.getsockname()[1]}"
    click.echo(
        f"serving {app.state.adk.app_name!r} on {where} "
        f"(sessions: {show_url(session_url)}"
        + (", bearer token required" if auth_token else "")
        + ")"
        + (f"; dev UI: {where}/dev-ui/" if bundle else ""),
        err=True,
    )
    server = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level=log_level))
    server.run(sockets=[listener])


def _alias(name: str, help: str, **defaults: Any) -> click.Command:
    """``serve`` by one of google-adk's command names: its options, with ``defaults``.

    The session store defaults to ``DEFAULT_CHAT_URL`` (that of ``run`` and ``chat``), as
    google-adk's commands default to local storage.
    """
    defaults = {"session_url": DEFAULT_CHAT_URL, **defaults}
    params = [_with_default(p, defaults[p.name]) if p.name in defaults else p for p in serve.params]
    serve_callback = serve.callback
    assert serve_callback is not None

    def callback(**options: Any) -> None:
        ensure_sqlite_dir(options["session_url"])
        serve_callback(**options)

    return click.Command(name, callback=callback, params=params, help=help)


def _with_default(param: click.Parameter, default: Any) -> click.Parameter:
    """A copy of ``param`` (``serve`` keeps its own) that is optional, with ``default``."""
    changed = copy.copy(param)
    changed.default = default
    changed.required = False
    if isinstance(changed, click.Option) and not changed.is_flag:
        changed.show_default = True
    return changed


api_server = _alias(
    "api_server",
    "Serve an agent over HTTP: serve by google-adk's name (adk api_server), its options, "
    "the sessions of run and chat by default.",
)
web = _alias(
    "web",
    "Serve an agent with google-adk's web UI at /dev-ui/: serve --dev-ui by google-adk's name "
    "(adk web; needs the 'google-adk' extra), the sessions of run and chat by default.",
    dev_ui=True,
)


def _allowed_hosts(host: str, given: tuple[str, ...]) -> tuple[str, ...]:
    """The Host header names to accept: those given, or the loopback names on a loopback bind.

    A server on this machine's loopback is still reachable from a web page through DNS
    rebinding (a name of the page's that resolves to 127.0.0.1): its requests name that
    host, so accepting the loopback names only refuses them.
    """
    if given:
        return given
    if not is_loopback(host):
        return ()
    bare = host.strip("[]")
    names = ["localhost", "127.0.0.1", "[::1]"]
    named = f"[{bare}]" if ":" in bare else bare  # a Host header brackets an IPv6 address
    return (*names, named) if named not in names else tuple(names)


def _web_bundle() -> Path:
    """google-adk's web UI bundle (``ConfigurationError`` naming the extra if absent)."""
    from adk_runtime.server.dev_ui import find_web_bundle

    return find_web_bundle()


def _sdk_installed() -> bool:
    try:
        import opentelemetry.sdk.trace  # noqa: F401
    except ImportError:
        return False
    return True


def _metrics_available(option: str) -> bool:
    """True, or ``ConfigurationError`` with the install hint when the extra is missing."""
    try:
        import opentelemetry.sdk.metrics  # noqa: F401
        import prometheus_client  # noqa: F401
    except ImportError as exc:
        raise ConfigurationError(
            f"{option} needs the 'metrics' extra ({exc.name} is missing): "
            "pip install 'adk-runtime[metrics]'"
        ) from None
    return True


def _session_service(session_url: str, cache_bytes: int) -> BaseSessionService:
    """The served store, with the session cache on for the durable stores (unless 0)."""
    if cache_bytes and not session_url.lower().startswith("memory:"):
        return session_service_from_url(session_url, cache_bytes=cache_bytes)
    return session_service_from_url(session_url)


async def _probe(session_url: str, app_name: str) -> None:
    """Fail before serving, in one line, if the store is unreachable or its schema is behind.

    A separate service object is used and closed, so no connection crosses event loops.
    """
    async with session_service_from_url(session_url) as service:
        await service.list_sessions(app_name=app_name, user_id="adk-runtime-probe", page_size=1)
