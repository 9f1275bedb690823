"""Gemini: Google's models through google-genai's async client."""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import AsyncGenerator
from contextlib import aclosing
from functools import cached_property
from typing import Any, ClassVar

import google.genai as genai
from google.genai import errors, types
from pydantic import Field

from adk_runtime.errors import ConfigurationError
from adk_runtime.events._cache_metadata import CacheMetadata
from adk_runtime.models._call_ids import without_client_ids
from adk_runtime.models._capabilities import LlmCapabilities, gemini_output_schema_and_tools
from adk_runtime.models._stream_aggregator import StreamingResponseAggregator
from adk_runtime.models._thought_signatures import (
    signs_calls,
    with_current_turn_signed,
    without_foreign_signatures,
)
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.gemini_context_cache_manager import GeminiContextCacheManager
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse

__all__ = ["Gemini"]


def _interactions_error_type() -> type[Exception]:
    """The Interactions API client's HTTP error (google-genai keeps it in its generated client)."""
    try:
        from google.genai._gaos.lib.compat_errors import APIError
    except ImportError:  # a google-genai without the Interactions API: nothing to catch
        return _NeverRaised
    return APIError


class _NeverRaised(Exception):
    """Stands for an error type this google-genai does not have."""


logger = logging.getLogger(__name__)

_RETRYABLE_STATUSES = [408, 429, 500, 502, 503, 504]
_CACHE_REFUSED_STATUSES = (400, 403, 404)
"""Statuses of a request naming a cache the server no longer has (or never let us use)."""


def default_retry_options() -> types.HttpRetryOptions:
    """Up to 4 attempts on 408/429/5xx, exponential backoff with jitter (google-genai's retry)."""
    return types.HttpRetryOptions(
        attempts=4, initial_delay=1.0, max_delay=30.0, http_status_codes=_RETRYABLE_STATUSES
    )


class Gemini(BaseLlm):
    """Gemini models on google-genai's async client.

    The client reads its credentials from the environment as google-genai does
    (``GOOGLE_API_KEY`` / ``GEMINI_API_KEY``, or ``GOOGLE_GENAI_USE_VERTEXAI`` with
    ``GOOGLE_CLOUD_PROJECT`` and ``GOOGLE_CLOUD_LOCATION``).

    Attributes:
        model: The model name, e.g. ``"gemini-2.5-flash"``.
        base_url: Send requests to another endpoint (a proxy, or a fake server in tests).
        retry_options: Retries on retryable HTTP statuses (408, 429, 5xx) with backoff;
            ``None`` uses :func:`default_retry_options`.
        api_version: The API version in request paths (``"v1"`` for Vertex AI's GA API);
            None: google-genai's default.
        client: A google-genai client of your own, used as it is (``base_url``,
            ``retry_options``, ``api_version`` and ``client_kwargs`` are then not applied,
            and ``aclose`` leaves it open: its owner closes it).
        client_kwargs: More arguments for the ``genai.Client`` this model builds (``api_key``,
            ``project``, ``location``...); an ``http_options`` there replaces the one built
            from the fields above.
        use_interactions_api: Call Gemini's Interactions API (``interactions.create``)
            instead of ``generate_content``. The API keeps the conversation: each request
            names the agent's previous interaction (stored on its events as
            ``interaction_id``) and sends only the new turn. Context caching does not apply
            there; ``RunConfig.service_tier`` does. See
            :mod:`adk_runtime.models.interactions_utils`.
    """

    model: str = "gemini-2.5-flash"
    base_url: str | None = None
    retry_options: types.HttpRetryOptions | None = None
    api_version: str | None = None
    client: genai.Client | None = Field(default=None, exclude=True, repr=False)
    client_kwargs: dict[str, Any] | None = Field(default=None, exclude=True, repr=False)
    use_interactions_api: bool = False

    _vertexai: ClassVar[bool | None] = None
    """Vertex AI (True) or the Gemini API (False); None: as the environment says."""

    @property
    def capabilities(self) -> LlmCapabilities:
        """Gemini's own report: a response schema with tools on Vertex AI only."""
        return LlmCapabilities(output_schema_and_tools=gemini_output_schema_and_tools(self.model))

    @classmethod
    def supported_models(cls) -> list[str]:
        """Gemini model names (Gemma 4 and later too) and Vertex AI model resource paths."""
        return [
            r"gemini-.*",
            r"gemma-4.*",
            r"model-optimizer-.*",
            r"projects/.+/locations/.+/endpoints/.+",
            r"projects/.+/locations/.+/publishers/google/models/gemini.+",
        ]

    @cached_property
    def api_client(self) -> genai.Client:
        """The google-genai client: ``client`` if given, else one built on first use."""
        if self.client is not None:
            return self.client
        options = types.HttpOptions(
            base_url=self.base_url,
            api_version=self.api_version,
            retry_options=self.retry_options or default_retry_options(),
        )
        arguments: dict[str, Any] = {"vertexai": self._vertexai, "http_options": options}
        arguments.update(self.client_kwargs or {})
        return genai.Client(**arguments)

    def _endpoint(self, client: genai.Client) -> dict[str, Any] | None:
        """Where a client this model built sends its calls, from what it was built with.

        None for a client of the caller's: google-genai does not tell its endpoint publicly.
        """
        if client is self.client:
            return None
        given = self.client_kwargs or {}
        options: Any = given.get("http_options")
        if isinstance(options, dict):
            options = types.HttpOptions.model_validate(options)
        endpoint: dict[str, Any] = {
            "base_url": options.base_url if options is not None else self.base_url
        }
        if client.vertexai:
            endpoint["project"] = given.get("project") or os.environ.get("GOOGLE_CLOUD_PROJECT")
            endpoint["location"] = given.get("location") or os.environ.get("GOOGLE_CLOUD_LOCATION")
        return endpoint

    async def _client(self) -> genai.Client:
        client: genai.Client | None = self.__dict__.get("api_client")
        if client is None:
            # Building the client reads certificates from disk: keep that off the event loop.
            client = await asyncio.to_thread(lambda: self.api_client)
        return client

    async def aclose(self) -> None:
        """Close the HTTP connections of the client (a later call opens new ones)."""
        # functools.cached_property keeps the client in the instance dict: forget it there.
        client = vars(self).get("api_client")
        if client is not None:
            delattr(self, "api_client")
        if client is not None and client is not self.client:
            await client.aio.aclose()

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Call the model; an API error becomes a response with ``error_code`` set.

        With ``llm_request.cache_config`` set, the request's stable prefix is cached
        (:class:`GeminiContextCacheManager`) and the complete response carries the cache's
        ``cache_metadata``. A request whose cache the server refuses (400, 403, 404) is sent
        once more uncached.

        Yields:
            The reply, or when streaming each chunk as a partial response and then the
            aggregated reply.
        """
        client = await self._client()
        if self.use_interactions_api:
            async with aclosing(self._interact(client, llm_request, stream)) as responses:
                async for response in responses:
                    yield response
            return
        if llm_request.cache_config is None or llm_request.config.cached_content:
            async with aclosing(self._generate(client, llm_request, stream)) as responses:
                async for response in responses:
                    yield response
            return
        async with aclosing(self._generate_cached(client, llm_request, stream)) as responses:
            async for response in responses:
                yield response

    async def _generate_cached(
        self, client: genai.Client, llm_request: LlmRequest, stream: bool
    ) -> AsyncGenerator[LlmResponse, None]:
        uncached = (list(llm_request.contents), llm_request.config.model_copy())
        manager = GeminiContextCacheManager(client, endpoint=self._endpoint(client))
        metadata = await manager.handle_context_caching(llm_request)
        refused: LlmResponse | None = None
        sent = False  # once a response (or chunk) went out, it is too late to resend
        async with aclosing(self._generate(client, llm_request, stream)) as responses:
            async for response in responses:
                if not sent and _cache_refused(response, llm_request):
                    refused = response
                    break
                if metadata is not None and not response.partial:
                    manager.populate_cache_metadata_in_response(response, metadata)
                sent = True
                yield response
        if refused is None or metadata is None:
            return
        logger.warning(
            "Gemini refused context cache %s (HTTP %s); sending the request uncached.",
            llm_request.config.cached_content,
            refused.error_code,
        )
        llm_request.contents, llm_request.config = uncached
        # Fingerprint only: the next request makes a new cache instead of naming this one.
        retry = CacheMetadata(
            fingerprint=metadata.fingerprint, contents_count=metadata.contents_count
        )
        async with aclosing(self._generate(client, llm_request, stream)) as responses:
            async for response in responses:
                if not response.partial:
                    manager.populate_cache_metadata_in_response(response, retry)
                yield response

    async def _generate(
        self, client: genai.Client, llm_request: LlmRequest, stream: bool
    ) -> AsyncGenerator[LlmResponse, None]:
        model = llm_request.model or self.model
        # Ids and signatures the API did not issue stay out of the request.
        contents = without_foreign_signatures(without_client_ids(llm_request.contents))
        if signs_calls(model):
            contents = with_current_turn_signed(contents)
        config = llm_request.config
        if config.labels is not None and not client.vertexai:
            config = config.model_copy(update={"labels": None})  # only Vertex AI takes labels
        try:
            if not stream:
                response = await client.aio.models.generate_content(
                    model=model,
                    contents=contents,
                    config=config,
                )
                yield LlmResponse.create(response)
                return
            chunks = await client.aio.models.generate_content_stream(
                model=model,
                contents=contents,
                config=config,
            )
            aggregator = StreamingResponseAggregator()
            async for chunk in chunks:
                async for partial in aggregator.process_response(chunk):
                    yield partial
            if (complete := aggregator.close()) is not None:
                yield complete
        except errors.APIError as exc:
            yield _error_response(exc)

    async def _interact(
        self, client: genai.Client, llm_request: LlmRequest, stream: bool
    ) -> AsyncGenerator[LlmResponse, None]:
        try:
            from adk_runtime.models.interactions_utils import generate_content_via_interactions
        except ImportError as exc:
            raise ConfigurationError(
                "use_interactions_api needs a google-genai with the Interactions API "
                f"(google.genai.interactions): {exc}. Upgrade google-genai."
            ) from exc

        llm_request.model = llm_request.model or self.model
        calls = generate_content_via_interactions(
            client, llm_request, stream, service_tier=llm_request.service_tier
        )
        try:
            async with aclosing(calls) as responses:
                async for response in responses:
                    yield response
        except Exception as exc:
            failed = api_error_response(exc)
            if failed is None:
                raise
            yield failed


def _cache_refused(response: LlmResponse, llm_request: LlmRequest) -> bool:
    """Whether ``response`` is the server refusing the cache the request named."""
    codes = {str(code) for code in _CACHE_REFUSED_STATUSES}
    return bool(llm_request.config.cached_content) and response.error_code in codes


def _error_response(exc: errors.APIError) -> LlmResponse:
    code: Any = exc.code if exc.code else exc.status
    return LlmResponse(
        error_code=str(code or "UNKNOWN_ERROR"),
        error_message=exc.message or exc.status or "The model call failed.",
    )


def api_error_response(exc: BaseException) -> LlmResponse | None:
    """The error response for an HTTP error of the Gemini or Interactions API; else None."""
    if isinstance(exc, errors.APIError):
        return _error_response(exc)
    if isinstance(exc, _interactions_error_type()):
        return _interactions_error_response(exc)
    return None


def _interactions_error_response(exc: BaseException) -> LlmResponse:
    """The error response for an Interactions API call the server refused."""
    body: Any = getattr(exc, "body", None)
    error: Any = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else None
    status = getattr(exc, "status_code", None)
    return LlmResponse(
        error_code=str(status or "UNKNOWN_ERROR"),
        error_message=str(message or getattr(exc, "message", None) or "The model call failed."),
    )
