"""RemoteA2aAgent: an agent of the tree whose work is done by a remote A2A agent.

Each run sends the session's new turns (see ``_history``) as one A2A message and turns the
peer's answer into events. Streamed artifact chunks are yielded as partial events, which the
Runner shows but never stores; the artifact's last chunk is yielded whole (every chunk
joined), so the stored event holds the complete answer even though each partial showed only
its own chunk. A stream that ends mid-artifact gets that closing event too.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import uuid
from collections.abc import AsyncGenerator, Callable
from contextlib import aclosing
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlparse

import httpx
from google.genai import types as genai_types
from pydantic import PrivateAttr

from adk_runtime.a2a import _compat
from adk_runtime.a2a._compat import (
    AGENT_CARD_WELL_KNOWN_PATH,
    A2ACardResolver,
    A2AClient,
    A2AClientFactory,
    AgentCard,
    Message,
)
from adk_runtime.a2a.agent import _card, _history, _responses
from adk_runtime.a2a.agent._artifacts import ArtifactStreams
from adk_runtime.a2a.agent._errors import A2AClientError, AgentCardResolutionError
from adk_runtime.a2a.agent._history import A2A_METADATA_PREFIX
from adk_runtime.a2a.agent.config import A2aRemoteAgentConfig, RequestInterceptor
from adk_runtime.a2a.agent.utils import (
    execute_after_request_interceptors,
    execute_before_card_request_interceptors,
    execute_before_request_interceptors,
)
from adk_runtime.a2a.converters.event_converter import convert_event_to_a2a_message
from adk_runtime.a2a.converters.part_converter import (
    A2APartToGenAIPartConverter,
    GenAIPartToA2APartConverter,
    convert_a2a_part_to_genai_part,
    convert_genai_part_to_a2a_part,
)
from adk_runtime.agents._storable import storable_strings
from adk_runtime.core.base_agent import BaseAgent
from adk_runtime.core.invocation_context import InvocationContext
from adk_runtime.errors import UnsupportedFeatureError
from adk_runtime.events import Event
from adk_runtime.flows.llm_flows.functions import find_matching_function_call

__all__ = [
    "AGENT_CARD_WELL_KNOWN_PATH",
    "A2AClientError",
    "AgentCardResolutionError",
    "RemoteA2aAgent",
]

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 600.0
_UNFINISHED = frozenset({_compat.TS_UNKNOWN, _compat.TS_SUBMITTED, _compat.TS_WORKING})
_NEW_INTEGRATION_EXTENSION = "https://google.github.io/adk-docs/a2a/a2a-extension/"
_EXTENSION_HEADER = "X-A2A-Extensions"


def _session_context_id(session: Any, mode: bool | Literal["namespaced"]) -> str | None:
    session_id = getattr(session, "id", None)
    if not mode or not isinstance(session_id, str) or not session_id:
        return None
    if mode != "namespaced":
        return session_id
    fields = (getattr(session, "app_name", ""), getattr(session, "user_id", ""), session_id)
    joined = "\x1f".join(f"{len(str(f))}:{f}" for f in fields)
    return hashlib.sha256(joined.encode("utf-8")).hexdigest()


async def _mark_new_integration(
    ctx: InvocationContext, request: Any, params: Any
) -> tuple[Any, Any]:
    del ctx
    if params.client_call_context is None:
        params.client_call_context = _compat.ClientCallContext()
    call_context = params.client_call_context
    service = dict(call_context.service_parameters or {})
    present = [e for e in service.get(_EXTENSION_HEADER, "").split(",") if e]
    if _NEW_INTEGRATION_EXTENSION not in present:
        present.append(_NEW_INTEGRATION_EXTENSION)
    service[_EXTENSION_HEADER] = ",".join(present)
    call_context.service_parameters = service
    return request, params


def _error_event(
    name: str, ctx: InvocationContext, message: str, metadata: dict[str, Any] | None = None
) -> Event:
    return _storable(
        Event(
            author=name,
            error_message=message,
            invocation_id=ctx.invocation_id,
            branch=ctx.branch,
            custom_metadata=metadata,
        )
    )


def _storable(event: Event) -> Event:
    """``event`` with the peer's strings storable: a NUL or a lone surrogate made U+FFFD.

    The peer's text reaches the content, the error message and the metadata (its whole
    answer, under ``a2a:response``); a PostgreSQL store refuses NUL characters, and no JSON
    store takes a lone surrogate, so committing them as sent would fail the turn.
    """
    if event.content is not None:
        event.content = storable_strings(event.content)
    if event.custom_metadata is not None:
        event.custom_metadata = storable_strings(event.custom_metadata)
    if event.error_message is not None:
        event.error_message = storable_strings(event.error_message)
    return event


class RemoteA2aAgent(BaseAgent):
    """An agent answered by a remote agent over the A2A protocol.

    The remote agent is named by its agent card: an ``AgentCard``, the URL of its JSON
    (https, or http on a loopback host) or a file path. The card is fetched on the first
    run. Session state stays on this side: only event content is sent, and the peer's
    answers are committed as events authored by this agent (their A2A task and context ids
    in ``custom_metadata``, under ``a2a:``). A peer pausing for input becomes a
    long-running call the user answers like any other.

    Requires the ``a2a`` extra (a2a-sdk 1.x).
    """

    _agent_card: AgentCard | None = PrivateAttr(default=None)
    _agent_card_source: str | None = PrivateAttr(default=None)
    _a2a_client: Any = PrivateAttr(default=None)
    _httpx_client: Any = PrivateAttr(default=None)
    _httpx_client_needs_cleanup: bool = PrivateAttr(default=True)
    _timeout: float = PrivateAttr(default=DEFAULT_TIMEOUT)
    _is_resolved: bool = PrivateAttr(default=False)
    _genai_part_converter: Any = PrivateAttr(default=None)
    _a2a_part_converter: Any = PrivateAttr(default=None)
    _a2a_client_factory: Any = PrivateAttr(default=None)
    _a2a_request_meta_provider: Any = PrivateAttr(default=None)
    _full_history_when_stateless: bool = PrivateAttr(default=False)
    _context_builder: Any = PrivateAttr(default=None)
    _config: A2aRemoteAgentConfig = PrivateAttr(default_factory=A2aRemoteAgentConfig)

    def __init__(
        self,
        name: str,
        agent_card: AgentCard | str,
        *,
        description: str = "",
        httpx_client: httpx.AsyncClient | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        genai_part_converter: GenAIPartToA2APartConverter = convert_genai_part_to_a2a_part,
        a2a_part_converter: A2APartToGenAIPartConverter = convert_a2a_part_to_genai_part,
        a2a_client_factory: A2AClientFactory | None = None,
        a2a_request_meta_provider: Callable[[InvocationContext, Message], dict[str, Any]]
        | None = None,
        full_history_when_stateless: bool = False,
        context_builder: _history.ContextBuilder | None = None,
        config: A2aRemoteAgentConfig | None = None,
        use_legacy: bool = True,
        **kwargs: Any,
    ) -> None:
        """Create the agent (nothing is fetched until the first run).

        Args:
            name: The agent's name.
            agent_card: An ``AgentCard``, the URL of the card's JSON, or a file path.
            description: Defaults to the card's description.
            httpx_client: A shared HTTP client (not closed by ``cleanup``); prefer
                ``a2a_client_factory``.
            timeout: Seconds per HTTP request, for a client the agent makes itself.
            genai_part_converter: Our parts to A2A parts (requests).
            a2a_part_converter: A2A parts to ours (responses).
            a2a_client_factory: The a2a-sdk client factory to use.
            a2a_request_meta_provider: ``(ctx, message) -> dict`` sent as request metadata.
            full_history_when_stateless: Send the whole session to a peer that keeps no
                context (gives no context id), instead of the turns since its last answer.
            context_builder: ``(ctx, name, part_converter) -> (parts, context_id)``
                replacing the default choice of what to send.
            config: Converters and interceptors (``A2aRemoteAgentConfig``).
            use_legacy: False asks the peer for google-adk's newer A2A integration.
            **kwargs: ``BaseAgent`` fields.

        Raises:
            ValueError: ``agent_card`` is None or an empty string.
            TypeError: ``agent_card`` is neither a card nor a string.
            UnsupportedFeatureError: ``mode``, ``auth_scheme``, ``auth_credential`` or
                ``credential_key`` was given (not supported here).
        """
        unsupported = sorted(
            {"mode", "auth_scheme", "auth_credential", "credential_key"} & set(kwargs)
        )
        if unsupported:
            raise UnsupportedFeatureError(
                f"RemoteA2aAgent does not support {', '.join(unsupported)} in adk_runtime; "
                "attach credentials with a RequestInterceptor (config.request_interceptors)."
            )
        super().__init__(name=name, description=description, **kwargs)
        if agent_card is None:
            raise ValueError("agent_card cannot be None")
        if isinstance(agent_card, AgentCard):
            self._agent_card = agent_card
            if not self.description and agent_card.description:
                self.description = agent_card.description
        elif isinstance(agent_card, str):
            if not agent_card.strip():
                raise ValueError("agent_card string cannot be empty")
            self._agent_card_source = agent_card.strip()
        else:
            raise TypeError(
                "agent_card must be AgentCard, a URL or a file path string, "
                f"not {type(agent_card).__name__}"
            )
        self._httpx_client = httpx_client
        if a2a_client_factory is not None and a2a_client_factory._config.httpx_client:
            self._httpx_client = a2a_client_factory._config.httpx_client
        self._httpx_client_needs_cleanup = self._httpx_client is None
        self._timeout = timeout
        self._genai_part_converter = genai_part_converter
        self._a2a_part_converter = a2a_part_converter
        self._a2a_client_factory = a2a_client_factory
        self._a2a_request_meta_provider = a2a_request_meta_provider
        self._full_history_when_stateless = full_history_when_stateless
        self._context_builder = context_builder
        self._config = config or A2aRemoteAgentConfig()
        if not use_legacy:
            interceptors = list(self._config.request_interceptors or [])
            interceptors.append(RequestInterceptor(before_request=_mark_new_integration))
            self._config.request_interceptors = interceptors

    # --- resolution ----------------------------------------------------------------------

    async def _ensure_httpx_client(self) -> httpx.AsyncClient:
        """The HTTP client (made on first use, owned then) and a factory using it."""
        if not self._httpx_client:
            self._httpx_client = httpx.AsyncClient(timeout=httpx.Timeout(timeout=self._timeout))
            self._httpx_client_needs_cleanup = True
            if self._a2a_client_factory:
                self._a2a_client_factory = _compat.rebind_client_factory_httpx(
                    self._a2a_client_factory, self._httpx_client
                )
        if not self._a2a_client_factory:
            self._a2a_client_factory = A2AClientFactory(
                config=_compat.make_client_config(httpx_client=self._httpx_client)
            )
        client: httpx.AsyncClient = self._httpx_client
        return client

    async def _resolve_agent_card_from_url(
        self, url: str, ctx: InvocationContext | None = None
    ) -> AgentCard:
        """Fetch the card at ``url``.

        Raises:
            AgentCardResolutionError: A malformed URL, or the fetch or parse failed.
        """
        parsed = urlparse(url)
        if not parsed.scheme or not parsed.netloc:
            raise AgentCardResolutionError(f"Invalid URL format for an agent card: {url}")
        try:
            client = await self._ensure_httpx_client()
            resolver = A2ACardResolver(
                httpx_client=client, base_url=f"{parsed.scheme}://{parsed.netloc}"
            )
            http_kwargs = (
                await execute_before_card_request_interceptors(
                    self._config.card_request_interceptors, ctx
                )
                or {}
            )
            if self._httpx_client_needs_cleanup:
                http_kwargs.setdefault("timeout", self._timeout)
            return await resolver.get_agent_card(
                relative_card_path=parsed.path, http_kwargs=http_kwargs
            )
        except Exception as exc:
            raise AgentCardResolutionError(
                f"Failed to resolve AgentCard from URL {url}: {type(exc).__name__}: {exc}"
            ) from exc

    async def _resolve_agent_card_from_file(self, file_path: str) -> AgentCard:
        """Read the card from a JSON file.

        Raises:
            AgentCardResolutionError: Missing file, bad JSON or not a card.
        """
        path = Path(file_path)
        if not await asyncio.to_thread(path.is_file):
            raise AgentCardResolutionError(f"Agent card file not found: {file_path}")
        try:
            data = json.loads(await asyncio.to_thread(path.read_text, encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise AgentCardResolutionError(
                f"Invalid JSON in agent card file {file_path}: {exc}"
            ) from exc
        try:
            return _compat.parse_agent_card(data)
        except Exception as exc:
            raise AgentCardResolutionError(
                f"Agent card file {file_path} does not hold an agent card: {exc}"
            ) from exc

    async def _resolve_agent_card(self, ctx: InvocationContext | None = None) -> AgentCard:
        """The card named by the agent's source (URL or file).

        Raises:
            AgentCardResolutionError: No source, or it could not be resolved.
        """
        source = self._agent_card_source
        if source is None:
            raise AgentCardResolutionError("No agent card source was configured.")
        if source.startswith(("http://", "https://")):
            _card.check_transport(source, "An agent card URL")
            return await self._resolve_agent_card_from_url(source, ctx)
        return await self._resolve_agent_card_from_file(source)

    async def _validate_agent_card(self, agent_card: AgentCard) -> None:
        """Check the card names a usable RPC URL.

        A card fetched from a URL may only point at https (or loopback http) on the origin
        it was fetched from.

        Raises:
            AgentCardResolutionError: The card fails a check.
        """
        card_url = _compat.agent_card_url(agent_card)
        if not card_url:
            raise AgentCardResolutionError("Agent card must have a valid URL for RPC communication")
        parsed = urlparse(card_url)
        if not parsed.scheme or not parsed.netloc:
            raise AgentCardResolutionError(f"Invalid RPC URL in agent card: {card_url}")
        source = self._agent_card_source
        if not source or not source.startswith(("http://", "https://")):
            return
        for url in _compat.agent_card_rpc_urls(agent_card):
            _card.check_transport(url, "An agent card RPC URL")
            try:
                same_origin = _card.origin(url) == _card.origin(source)
            except ValueError as exc:
                raise AgentCardResolutionError(f"Invalid RPC URL in agent card: {url}") from exc
            if not same_origin:
                raise AgentCardResolutionError(
                    f"Agent card RPC URL {url} is not on the origin the card came from ({source})"
                )

    async def _ensure_resolved(self, ctx: InvocationContext | None = None) -> A2AClient:
        """The A2A client, resolving and checking the card first if needed.

        With card request interceptors (per-invocation headers, e.g. credentials), a card
        fetched from a URL is resolved for each invocation and not kept on the agent.

        Raises:
            AgentCardResolutionError: The card or the client could not be set up.
        """
        per_invocation = bool(
            ctx is not None
            and self._config.card_request_interceptors
            and (self._agent_card_source or "").startswith(("http://", "https://"))
        )
        if not per_invocation and self._is_resolved and self._a2a_client:
            client: A2AClient = self._a2a_client
            return client
        try:
            if per_invocation:
                card = await self._resolve_agent_card(ctx)
                await self._validate_agent_card(card)
                await self._ensure_httpx_client()
                return self._a2a_client_factory.create(card)  # type: ignore[no-any-return]
            if self._agent_card is None:
                card = await self._resolve_agent_card(ctx)
                await self._validate_agent_card(card)
                self._agent_card = card
            if not self.description and self._agent_card.description:
                self.description = _card.adopted_description(
                    self._agent_card.description, self._agent_card_source
                )
            if not self._a2a_client:
                await self._ensure_httpx_client()
                self._a2a_client = self._a2a_client_factory.create(self._agent_card)
        except AgentCardResolutionError as exc:
            logger.warning("Remote A2A agent %s could not be resolved: %s", self.name, exc)
            raise
        except Exception as exc:
            raise AgentCardResolutionError(
                f"Failed to initialize remote A2A agent {self.name}: {type(exc).__name__}: {exc}"
            ) from exc
        self._is_resolved = True
        client = self._a2a_client
        return client

    # --- the request ---------------------------------------------------------------------

    def _create_a2a_request_for_user_function_response(
        self, ctx: InvocationContext
    ) -> Message | None:
        """The message answering the peer's pending call, when the user just answered one."""
        events = ctx.session.events
        if not events or events[-1].author != "user":
            return None
        call_event = find_matching_function_call(events)
        if call_event is None:
            return None
        answer = _history.answer_for_peer(events[-1], call_event)
        message = convert_event_to_a2a_message(
            answer, ctx, _compat.ROLE_USER, self._genai_part_converter
        )
        if message is None:
            return None
        metadata = call_event.custom_metadata or {}
        task_id = metadata.get(A2A_METADATA_PREFIX + "task_id")
        context_id = metadata.get(A2A_METADATA_PREFIX + "context_id")
        if isinstance(task_id, str):
            message.task_id = task_id
        if isinstance(context_id, str):
            message.context_id = context_id
        return message

    def _construct_message_parts_from_session(
        self, ctx: InvocationContext
    ) -> tuple[list[Any], str | None]:
        """The parts of the next request and the peer's context id (see ``_history``)."""
        return _history.message_parts_from_session(
            ctx.session.events,
            self.name,
            self._genai_part_converter,
            full_history_when_stateless=self._full_history_when_stateless,
        )

    def _build_request(self, ctx: InvocationContext) -> Message | None:
        message = self._create_a2a_request_for_user_function_response(ctx)
        if message is not None:
            return message
        if self._context_builder is not None:
            parts, context_id = self._context_builder(ctx, self.name, self._genai_part_converter)
        else:
            parts, context_id = self._construct_message_parts_from_session(ctx)
        if not parts:
            return None
        session = getattr(ctx, "session", None)
        forwarded = _session_context_id(session, self._config.forward_session_id_as_context_id)
        task_id = _history.resumable_task_id(
            getattr(session, "events", None) or [], self.name, context_id
        )
        message = _compat.make_message(
            message_id=str(uuid.uuid4()),
            role="user",
            parts=parts,
            context_id=context_id or forwarded or "",
        )
        if task_id:
            message.task_id = task_id
        return message

    # --- the responses -------------------------------------------------------------------

    async def _handle_a2a_response(self, a2a_response: Any, ctx: InvocationContext) -> Event | None:
        """The event for one stream item (google-adk's own reading), or None."""
        try:
            return _responses.convert_response(
                a2a_response, self.name, ctx, self._a2a_part_converter
            )
        except A2AClientError as exc:
            return _error_event(self.name, ctx, f"Failed to process A2A response: {exc}")

    async def _handle_a2a_response_v2(
        self, a2a_response: Any, ctx: InvocationContext
    ) -> Event | None:
        """The event for one stream item of a peer using the newer integration, or None."""
        try:
            return _responses.convert_response_v2(a2a_response, self.name, ctx, self._config)
        except A2AClientError as exc:
            return _error_event(self.name, ctx, f"Failed to process A2A response: {exc}")

    # --- the run -------------------------------------------------------------------------

    async def _run_async_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        try:
            client = await self._ensure_resolved(ctx)
        except Exception as exc:
            yield _error_event(self.name, ctx, f"Failed to initialize remote A2A agent: {exc}")
            return
        request = self._build_request(ctx)
        if request is None:
            logger.warning("Nothing to send to remote A2A agent %s.", self.name)
            yield Event(
                author=self.name,
                content=genai_types.Content(),
                invocation_id=ctx.invocation_id,
                branch=ctx.branch,
            )
            return
        request_dict: dict[str, Any] = {}
        try:
            intercepted, params = await execute_before_request_interceptors(
                self._config.request_interceptors, ctx, request
            )
            if isinstance(intercepted, Event):
                yield intercepted
                return
            request = intercepted
            request_dict = _compat.a2a_to_dict(request)
            if self._a2a_request_meta_provider:
                params.request_metadata = self._a2a_request_meta_provider(ctx, request)
            async with aclosing(self._exchange(client, request, params, ctx)) as events:
                async for event in events:
                    yield _storable(event)
        except _compat.A2A_HTTP_ERRORS as exc:
            message = f"A2A request failed: {exc}"
            metadata = {
                A2A_METADATA_PREFIX + "error": message,
                A2A_METADATA_PREFIX + "status_code": str(getattr(exc, "status_code", None)),
            }
            if request_dict:
                metadata[A2A_METADATA_PREFIX + "request"] = request_dict  # type: ignore[assignment]
            logger.warning("A2A request of %s failed: %s", self.name, type(exc).__name__)
            yield _error_event(self.name, ctx, message, metadata)
        except Exception as exc:
            message = f"A2A request failed: {exc}"
            metadata = {A2A_METADATA_PREFIX + "error": message}
            if request_dict:
                metadata[A2A_METADATA_PREFIX + "request"] = request_dict  # type: ignore[assignment]
            logger.warning("A2A request of %s failed: %s", self.name, type(exc).__name__)
            yield _error_event(self.name, ctx, message, metadata)

    async def _exchange(
        self, client: Any, request: Message, params: Any, ctx: InvocationContext
    ) -> AsyncGenerator[Event, None]:
        """Send ``request`` and yield the events of the answer."""
        request_dict = _compat.a2a_to_dict(request)
        normalize = _compat.make_stream_normalizer()
        stream = ArtifactStreams(self.name, self._a2a_part_converter, ctx)
        last_task: Any = None
        items = _compat.send_message(
            client,
            request=request,
            request_metadata=params.request_metadata,
            context=params.client_call_context,
        )
        async with aclosing(items) as raw_items:
            async for raw in raw_items:
                response = normalize(raw)
                if isinstance(response, tuple):
                    last_task = response[0]
                event = await self._event_for(response, ctx)
                if event is None:
                    continue
                stream.complete(event, response)
                event.custom_metadata = {
                    **(event.custom_metadata or {}),
                    A2A_METADATA_PREFIX + "request": request_dict,
                    A2A_METADATA_PREFIX + "response": _compat.a2a_to_dict(
                        response[0] if isinstance(response, tuple) else response
                    ),
                }
                yield event
        for event in stream.unfinished(last_task, request_dict):
            yield event
        if last_task is not None and last_task.status.state in _UNFINISHED:
            message = (
                f"A2A response stream ended before task {last_task.id} reached a terminal state."
            )
            yield _error_event(
                self.name, ctx, message, {A2A_METADATA_PREFIX + "request": request_dict}
            )

    async def _event_for(self, response: Any, ctx: InvocationContext) -> Event | None:
        if isinstance(response, tuple):
            metadata = response[0].metadata if response[0] is not None else None
        else:
            metadata = response.metadata
        if _compat.metadata_get(metadata, _NEW_INTEGRATION_EXTENSION):
            event = await self._handle_a2a_response_v2(response, ctx)
        else:
            event = await self._handle_a2a_response(response, ctx)
        if event is None:
            return None
        return await execute_after_request_interceptors(
            self._config.request_interceptors, ctx, response, event
        )

    def _run_live_impl(self, ctx: InvocationContext) -> AsyncGenerator[Event, None]:
        """Refused: A2A has no live (bidirectional streaming) mode.

        Raises:
            UnsupportedFeatureError: Always.
        """
        raise UnsupportedFeatureError(
            f"_run_live_impl is not implemented for {type(self).__name__}: A2A has no live mode."
        )

    async def cleanup(self) -> None:
        """Close the HTTP client if the agent made it (a failure is logged, not raised)."""
        if self._httpx_client_needs_cleanup and self._httpx_client:
            try:
                await self._httpx_client.aclose()
            except Exception as exc:
                logger.warning(
                    "Closing the HTTP client of %s failed: %s", self.name, type(exc).__name__
                )
            finally:
                self._httpx_client = None

    async def close(self) -> None:
        """Release the agent's resources (the same as ``cleanup``)."""
        await self.cleanup()
