"""Gemini context caching: store a request's stable prefix once, refer to it afterwards.

The *cacheable prefix* of a request is its system instruction, tools, tool config and the
contents before the last run of user contents (the new message and what goes with it). Its
fingerprint is a hash of those and of the model and endpoint. One model request goes like
this, given the metadata the agent's last response stored (``LlmRequest.cache_metadata``):

1. none (the session's first request): only the fingerprint is returned;
2. an active cache whose prefix still matches, within its TTL and ``cache_intervals``: the
   request refers to it (``config.cached_content``) and leaves out what it holds;
3. otherwise the old cache (if any) is deleted, and when the old prefix still matches a new
   cache is made of the current prefix, provided the previous request reached ``min_tokens``
   and the prefix the model's own minimum; a cache that cannot be made (any error) is logged
   and the request goes uncached, with the fingerprint kept for the next try.

A cache never holds a request's last content: the request must still send one, and sending
a content the cache also holds would show it to the model twice.

The metadata returned goes on the response and so on the stored event: the next invocation,
in this process or another, continues from it.

The private methods carry google-adk's names (``_is_cache_valid``,
``_generate_cache_fingerprint``, ``_create_gemini_cache``, ...), so code and tests written
against google-adk's manager find them here.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import google.genai as genai
from google.genai import errors, types

from adk_runtime.events._cache_metadata import CacheMetadata
from adk_runtime.models._call_ids import without_client_ids
from adk_runtime.models._context_cache_config import ContextCacheConfig
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.platform import time as platform_time

__all__ = ["GeminiContextCacheManager"]

logger = logging.getLogger(__name__)

_MODEL_MINIMUM_TOKENS = (("gemini-2.5-", 2048), ("gemini-3", 4096))
"""Gemini's smallest explicit cache, by model name prefix (other names: the server decides)."""

_EXPIRY_MARGIN_SECONDS = 30.0
"""A cache this close to its end (at most a tenth of the TTL) is replaced, not used."""

_CHARACTERS_PER_TOKEN = 4


class GeminiContextCacheManager:
    """Creates, reuses and deletes Gemini cached content for the requests of one model.

    Every call to the API goes through google-genai's async client (``client.aio.caches``).
    """

    def __init__(
        self, genai_client: genai.Client, *, endpoint: Mapping[str, Any] | None = None
    ) -> None:
        """Use ``genai_client`` (the model's own) for the cache calls.

        ``endpoint``: where that client sends its calls (base URL, project, location), as
        its maker configured it; google-genai does not say so publicly. A cache's
        fingerprint covers it, so a cache of one server is not taken for another's. Without
        it only the backend (Vertex AI or not) is covered, and a cache another server does
        not know is refused by that server (the request is then sent uncached).
        """
        self.genai_client = genai_client
        self.endpoint = dict(endpoint or {})

    async def handle_context_caching(self, llm_request: LlmRequest) -> CacheMetadata | None:
        """Apply a cache to ``llm_request`` where one fits; return the metadata to store.

        ``llm_request`` is changed in place when a cache is used: ``config.cached_content``
        is set, and the system instruction, tools, tool config and cached contents are left
        out. Never raises for a failed cache call: the request then goes uncached.

        Returns:
            The active cache's metadata (a copy when an existing cache is reused), or
            fingerprint-only metadata; None when the request has no ``cache_config`` or
            names its own ``cached_content``.
        """
        if llm_request.cache_config is None or llm_request.config.cached_content:
            return None
        contents = llm_request.contents
        longest = max(len(contents) - 1, 0)  # the last content is always sent
        current = min(self._find_count_of_contents_to_cache(contents), longest)
        previous = llm_request.cache_metadata
        if previous is None:
            return self._fingerprint_only(llm_request, current)
        # A cache holding every content would leave nothing to send but a repeat: replace it.
        if len(contents) > previous.contents_count and await self._is_cache_valid(llm_request):
            assert previous.cache_name is not None  # checked by _is_cache_valid
            self._apply_cache_to_request(llm_request, previous.cache_name, previous.contents_count)
            return previous.model_copy()
        if previous.cache_name is not None:
            await self.cleanup_cache(previous.cache_name)
        prefix = self._generate_cache_fingerprint(llm_request, previous.contents_count)
        if prefix != previous.fingerprint:
            return self._fingerprint_only(llm_request, current)
        count = min(max(previous.contents_count, current), longest)
        created = await self._create_new_cache_with_contents(llm_request, count)
        if created is None or created.cache_name is None:
            return self._fingerprint_only(llm_request, count)
        self._apply_cache_to_request(llm_request, created.cache_name, count)
        return created

    async def cleanup_cache(self, cache_name: str) -> None:
        """Delete a cache; a failure is logged (without its message) and otherwise ignored."""
        try:
            await self.genai_client.aio.caches.delete(name=cache_name)
        except Exception as exc:  # a cache left behind expires with its TTL
            logger.warning(
                "Could not delete context cache %s (%s); it expires with its TTL.",
                cache_name,
                _error_kind(exc),
            )
        else:
            logger.debug("Deleted context cache %s.", cache_name)

    def populate_cache_metadata_in_response(
        self, llm_response: LlmResponse, cache_metadata: CacheMetadata
    ) -> None:
        """Record ``cache_metadata`` on ``llm_response`` (and so on its event)."""
        llm_response.cache_metadata = cache_metadata

    def _find_count_of_contents_to_cache(self, contents: list[types.Content]) -> int:
        """Where the prefix ends: the number of contents before the last run of user contents.

        Every content when the last one is not a user content. The caller keeps the request's
        last content out of a cache.
        """
        start = len(contents)
        while start > 0 and contents[start - 1].role == "user":
            start -= 1
        return start

    async def _is_cache_valid(self, llm_request: LlmRequest) -> bool:
        """Whether the request's cache metadata names a cache the request can use.

        It must be an active cache (not fingerprint only), not at or near its expiry, within
        ``cache_intervals`` invocations, and hold the prefix the request still has.
        """
        metadata = llm_request.cache_metadata
        config = llm_request.cache_config
        if metadata is None or config is None:
            return False
        if metadata.expire_time is None or metadata.invocations_used is None:
            return False  # fingerprint only
        margin = min(_EXPIRY_MARGIN_SECONDS, config.ttl_seconds / 10)
        if platform_time.get_time() >= metadata.expire_time - margin:
            logger.info("Context cache %s has (nearly) expired.", metadata.cache_name)
            return False
        if metadata.invocations_used > config.cache_intervals:
            logger.info(
                "Context cache %s served %d invocations (cache_intervals=%d).",
                metadata.cache_name,
                metadata.invocations_used - 1,
                config.cache_intervals,
            )
            return False
        fingerprint = self._generate_cache_fingerprint(llm_request, metadata.contents_count)
        return fingerprint == metadata.fingerprint

    def _generate_cache_fingerprint(
        self, llm_request: LlmRequest, cache_contents_count: int
    ) -> str:
        """A hash of what a cache of the first ``cache_contents_count`` contents would hold.

        It covers the model, the endpoint (``_cache_scope``), the system instruction, the
        tools (order-independent), the tool config and those contents, in canonical JSON.
        """
        config = llm_request.config
        count = cache_contents_count
        data: dict[str, Any] = {
            "model": llm_request.model,
            "endpoint": self._cache_scope(),
            "contents_count": count,
            "contents": [
                content.model_dump(mode="json", exclude_none=True)
                for content in without_client_ids(llm_request.contents[:count])
            ],
        }
        if config.system_instruction is not None:
            data["system_instruction"] = _system_instruction_json(config)
        if config.tools:
            data["tools"] = sorted(_tool_json(tool) for tool in config.tools)
        if config.tool_config is not None:
            data["tool_config"] = config.tool_config.model_dump(mode="json", exclude_none=True)
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def _cache_scope(self) -> dict[str, Any]:
        """Where caches live: a cache of one project, region or server is not another's."""
        return {**self.endpoint, "vertexai": bool(self.genai_client.vertexai)}

    async def _create_new_cache_with_contents(
        self, llm_request: LlmRequest, cache_contents_count: int
    ) -> CacheMetadata | None:
        """Make a cache of the prefix, or return None (too small, nothing to cache, failed).

        A failed create is logged with the error's type and status only.
        """
        config = llm_request.cache_config
        if config is None or not self._worth_caching(llm_request, cache_contents_count, config):
            return None
        try:
            return await self._create_gemini_cache(llm_request, cache_contents_count)
        except Exception as exc:  # any failure: this request goes uncached
            logger.warning(
                "Could not create a context cache (%s); the request is sent uncached.",
                _error_kind(exc),
            )
            return None

    async def _create_gemini_cache(
        self, llm_request: LlmRequest, cache_contents_count: int
    ) -> CacheMetadata:
        """Create the cached content of the prefix and return its (active) metadata.

        The expiry is the server's when it reports one, else the TTL from the call's start.

        Raises:
            ValueError: The request has no ``cache_config``, or the service answered without
                a cache name (``google.genai.errors.UnknownApiResponseError``).
            google.genai.errors.APIError: The service refused the cache.
        """
        config = llm_request.cache_config
        if config is None:
            raise ValueError("A context cache needs the request's cache_config.")
        count = cache_contents_count
        request_config = llm_request.config
        tools = request_config.tools or []
        create_config = types.CreateCachedContentConfig(
            contents=without_client_ids(llm_request.contents[:count]) or None,
            system_instruction=request_config.system_instruction,
            tools=[tool for tool in tools if isinstance(tool, types.Tool)] or None,
            tool_config=request_config.tool_config,
            ttl=config.ttl_string,
            display_name=f"adk-runtime-{count}-contents",
            http_options=config.create_http_options,
        )
        started = platform_time.get_time()
        cached = await self.genai_client.aio.caches.create(
            model=llm_request.model or "", config=create_config
        )
        if not cached.name:
            raise errors.UnknownApiResponseError("The cache service answered without a name.")
        server_expiry = getattr(cached, "expire_time", None)
        if isinstance(server_expiry, datetime):
            expire_time = server_expiry.timestamp()
        else:
            expire_time = started + config.ttl_seconds
        logger.info("Created context cache %s (%d contents).", cached.name, count)
        return CacheMetadata(
            cache_name=cached.name,
            expire_time=expire_time,
            fingerprint=self._generate_cache_fingerprint(llm_request, count),
            invocations_used=1,
            contents_count=count,
            created_at=started,
        )

    def _worth_caching(
        self, llm_request: LlmRequest, count: int, config: ContextCacheConfig
    ) -> bool:
        tokens = llm_request.cacheable_contents_token_count
        request_config = llm_request.config
        if tokens is None or tokens < config.min_tokens:
            logger.debug("Not caching: the previous request is unknown or below min_tokens.")
            return False
        if any(not isinstance(tool, types.Tool) for tool in request_config.tools or []):
            logger.debug("Not caching: the request has tools given as Python functions.")
            return False
        has_prefix = count or request_config.system_instruction or request_config.tools
        if not has_prefix:
            return False
        minimum = _minimum_cache_tokens(llm_request.model)
        estimate = self._estimate_cacheable_prefix_tokens(llm_request, count)
        if minimum is not None and estimate < minimum:
            logger.info(
                "Not caching: the prefix is about %d tokens, below the model's %d.",
                estimate,
                minimum,
            )
            return False
        return True

    def _estimate_request_tokens(
        self, llm_request: LlmRequest, cache_contents_count: int | None = None
    ) -> int:
        """A rough token count (four characters a token) of the request's text.

        The system instruction, the tools and the text of the contents: all of them, or the
        first ``cache_contents_count`` when given.
        """
        config = llm_request.config
        contents = llm_request.contents
        if cache_contents_count is not None:
            contents = contents[:cache_contents_count]
        total = 0
        if config.system_instruction is not None:
            total += len(json.dumps(_system_instruction_json(config), default=str))
        total += sum(len(_tool_json(tool)) for tool in config.tools or [])
        for content in contents:
            total += sum(len(part.text or "") for part in content.parts or [])
        return total // _CHARACTERS_PER_TOKEN

    def _estimate_cacheable_prefix_tokens(
        self, llm_request: LlmRequest, cache_contents_count: int
    ) -> int:
        """The previous request's token count, scaled to the prefix's share of the text.

        The only measured count (``cacheable_contents_token_count``) is of a whole request,
        while a cache holds just the prefix; 0 without a measured count.
        """
        measured = llm_request.cacheable_contents_token_count
        if not measured:
            return 0
        whole = self._estimate_request_tokens(llm_request)
        if whole <= 0:
            return measured  # no text to tell the share by
        prefix = self._estimate_request_tokens(llm_request, cache_contents_count)
        return int(measured * min(1.0, prefix / whole))

    def _apply_cache_to_request(
        self, llm_request: LlmRequest, cache_name: str, cache_contents_count: int
    ) -> None:
        """Make ``llm_request`` refer to the cache and leave out what the cache holds."""
        config = llm_request.config
        config.system_instruction = None
        config.tools = None
        config.tool_config = None
        config.cached_content = cache_name
        llm_request.contents = llm_request.contents[cache_contents_count:]

    def _fingerprint_only(self, llm_request: LlmRequest, count: int) -> CacheMetadata:
        return CacheMetadata(
            fingerprint=self._generate_cache_fingerprint(llm_request, count),
            contents_count=count,
        )


def _minimum_cache_tokens(model: str | None) -> int | None:
    """The model's smallest explicit cache, or None when its name does not tell."""
    name = (model or "").rsplit("/", 1)[-1]
    for prefix, minimum in _MODEL_MINIMUM_TOKENS:
        if name.startswith(prefix):
            return minimum
    return None


def _system_instruction_json(config: types.GenerateContentConfig) -> Any:
    try:
        return config.model_dump(mode="json", include={"system_instruction"}, exclude_none=True)
    except Exception:  # e.g. an image google-genai has no JSON form for
        return str(config.system_instruction)


def _tool_json(tool: Any) -> str:
    """A canonical text of one tool (function declarations in name order)."""
    if not isinstance(tool, types.Tool):
        return f"<{type(tool).__name__}>"
    data = tool.model_dump(mode="json", exclude_none=True)
    declarations = data.get("function_declarations")
    if isinstance(declarations, list):
        declarations.sort(key=lambda item: str(item.get("name", "")))
    return json.dumps(data, sort_keys=True, separators=(",", ":"))


def _error_kind(exc: Exception) -> str:
    """An error's type and HTTP status, never its message (it may echo the request)."""
    if isinstance(exc, errors.APIError):
        return f"{type(exc).__name__} {exc.code}"
    return type(exc).__name__
