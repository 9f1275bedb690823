"""FallbackModel (public as ``adk_runtime.models.FallbackModel``): backup models, in order."""

from __future__ import annotations

import logging
import sys
from collections.abc import AsyncGenerator
from contextlib import aclosing
from typing import ClassVar

from google.genai import errors
from pydantic import Field, PrivateAttr, model_validator

from adk_runtime.models._capabilities import LlmCapabilities
from adk_runtime.models.base_llm import BaseLlm
from adk_runtime.models.llm_request import LlmRequest
from adk_runtime.models.llm_response import LlmResponse
from adk_runtime.models.registry import LLMRegistry

__all__ = ["FallbackModel"]

logger = logging.getLogger(__name__)

_LITELLM_CLIENT_SIDE = ("APIConnectionError", "APIResponseValidationError")
"""LiteLLM errors that carry status 500 without a server having answered 500."""


class FallbackModel(BaseLlm):
    """Models tried in order: the next one answers when one fails with a retriable status.

    A model fails over when its call ends, before any response of the turn reached the
    caller, with an error response (``error_code``) or an exception carrying an HTTP status
    in ``retriable_status_codes``. Anything else — another status, no status (a connection
    that never reached the service), or a failure after a streamed chunk was yielded — is
    the caller's: passed on as it is, never spliced with another model's output. Each model
    is tried once; retrying one model is its own ``retry_options``' job. Every attempt gets
    its own copy of the request, so one model's edits never reach the next.

    Example::

        LlmAgent(name="support", model=FallbackModel(models=["gemini-2.5-pro", "gemini-2.5-flash"]))

    Attributes:
        models: The models to try, in order: names (resolved through ``LLMRegistry``) or
            model instances (for settings of their own). The first is the primary.
        retriable_status_codes: The HTTP statuses that move on to the next model: 429 and
            500/502/503/504 by default. 408 is left out: a timed-out request may have been
            served, and a second model would act on it twice.
        model: The primary model's name, derived from ``models`` (setting another is an
            error).
    """

    DEFAULT_STATUS_CODES: ClassVar[frozenset[int]] = frozenset({429, 500, 502, 503, 504})

    models: list[str | BaseLlm] = Field(min_length=1)
    retriable_status_codes: frozenset[int] = DEFAULT_STATUS_CODES
    model: str = ""

    _built: dict[str, BaseLlm] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _primary_is_the_model(self) -> FallbackModel:
        primary = _name(self.models[0])
        if self.model and self.model != primary:
            raise ValueError(
                f"FallbackModel.model comes from the first of `models` ({primary!r}), not "
                f"{self.model!r}: list the models to try in `models`."
            )
        self.model = primary
        return self

    @property
    def capabilities(self) -> LlmCapabilities:
        """What every one of the models can do.

        The request is built before it is known which model answers it, so a capability
        counts only when each model has it (google-adk takes the first model's alone, and a
        backup without it would get a request it cannot serve).
        """
        reported = [self._delegate(entry).capabilities for entry in self.models]
        return LlmCapabilities(
            output_schema_and_tools=all(c.output_schema_and_tools for c in reported)
        )

    def _delegate(self, entry: str | BaseLlm) -> BaseLlm:
        if isinstance(entry, BaseLlm):
            return entry
        if entry not in self._built:
            self._built[entry] = LLMRegistry.new_llm(entry)
        return self._built[entry]

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        """Answer with the first model that does not fail over (``llm_request`` is kept).

        Yields:
            That model's responses. When every model fails over, the last one's error
            response (or its exception is raised).

        Raises:
            Exception: What a model raised, when it does not fail over or is the last.
        """
        last = len(self.models) - 1
        for index, entry in enumerate(self.models):
            delegate = self._delegate(entry)
            may_fall_back = index < last
            attempt = llm_request.model_copy(
                update={
                    "model": delegate.model,
                    "contents": list(llm_request.contents),
                    "config": llm_request.config.model_copy(deep=True),
                }
            )
            status: int | None = None
            started = False
            try:
                async with aclosing(delegate.generate_content_async(attempt, stream)) as replies:
                    async for response in replies:
                        if not started and may_fall_back:
                            status = self._retriable(_response_status(response))
                            if status is not None:
                                break
                        started = True
                        yield response
            except Exception as exc:
                status = None if started or not may_fall_back else self._retriable(_status(exc))
                if status is None:
                    raise
            if status is None:
                return
            logger.warning(
                "Model %s failed with status %s; trying %s next.",
                delegate.model,
                status,
                _name(self.models[index + 1]),
            )

    def _retriable(self, status: int | None) -> int | None:
        return status if status in self.retriable_status_codes else None

    async def aclose(self) -> None:
        """Close the models built from names (instances given in ``models`` are the caller's)."""
        built, self._built = self._built, {}
        for model in built.values():
            close = getattr(model, "aclose", None)
            if close is not None:
                await close()


def _name(entry: str | BaseLlm) -> str:
    return entry if isinstance(entry, str) else entry.model


def _response_status(response: LlmResponse) -> int | None:
    code = response.error_code
    return int(code) if code is not None and code.isdigit() else None


def _status(error: BaseException) -> int | None:
    """The HTTP status an exception of any provider's SDK carries, if it carries one."""
    if isinstance(error, errors.APIError):
        return error.code
    # LiteLLM's own errors can only come from a process that imported it.
    exceptions = getattr(sys.modules.get("litellm"), "exceptions", None)
    client_side = tuple(
        kind
        for name in _LITELLM_CLIENT_SIDE
        if isinstance(kind := getattr(exceptions, name, None), type)
    )
    if client_side and isinstance(error, client_side):
        return None
    for holder in (error, getattr(error, "response", None)):
        status = getattr(holder, "status_code", None)
        if isinstance(status, int):
            return status
    return None
