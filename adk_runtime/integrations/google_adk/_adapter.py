"""What the ``Durable*Service`` classes share: built from a URI or around a service object."""

from __future__ import annotations

import abc
from typing import Any, ClassVar, Generic, Protocol, TypeVar

from adk_runtime.integrations.google_adk._uri import check_one_source, store_url

__all__ = ["DurableAdapter"]


class _Closable(Protocol):
    async def close(self) -> None: ...


S = TypeVar("S", bound=_Closable)


class DurableAdapter(abc.ABC, Generic[S]):
    """An adk_runtime service of type ``S`` under a google-adk service class.

    A subclass (which also derives from google-adk's base class) names its ``_kind``, opens its
    store from a URL in :meth:`_open`, and forwards google-adk's methods to ``self._service``.
    """

    _kind: ClassVar[str]
    """``Session``, ``Artifact`` or ``Memory``: how errors name the class."""

    def __init__(
        self,
        uri: str | None = None,
        *,
        service: S | None = None,
        agents_dir: str | None = None,
        **options: Any,
    ) -> None:
        """Open nothing yet: the store is reached on first use."""
        check_one_source(self._kind, uri, service)
        self._owns = service is None
        self._service: S = service or self._open(store_url(uri or ""), **options)

    @abc.abstractmethod
    def _open(self, url: str, **options: Any) -> S:
        """The adk_runtime service for the store at ``url`` (``adkrt+`` removed)."""

    @property
    def service(self) -> S:
        """The adk_runtime service underneath."""
        return self._service

    async def close(self) -> None:
        """Close the adk_runtime service (when this object opened it from a URI)."""
        if self._owns:
            await self._service.close()
