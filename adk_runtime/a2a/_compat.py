"""The a2a-sdk 1.x types and the small helpers every A2A module here builds on.

google-adk keeps one shim (``google.adk.a2a._compat``) over two generations of the SDK. This
package supports the 1.x generation only (protobuf types: ``Part`` is one flat message,
metadata is a ``Struct``, ``send_message`` yields ``StreamResponse``), so the helpers here are
thin; they keep google-adk's names so code written against its shim imports unchanged.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from collections.abc import AsyncGenerator, Callable
from datetime import datetime, timezone
from typing import Any, TypeAlias

from adk_runtime.errors import ConfigurationError

INSTALL_HINT = "pip install 'adk-runtime[a2a]' (or 'adk-runtime[all]')"

try:
    from a2a.client import A2ACardResolver as A2ACardResolver
    from a2a.client import Client as A2AClient
    from a2a.client import ClientCallContext as ClientCallContext
    from a2a.client import ClientConfig as A2AClientConfig
    from a2a.client import ClientFactory as A2AClientFactory
    from a2a.client.errors import A2AClientError as _SdkClientError
    from a2a.types import (
        AgentCard,
        Artifact,
        Message,
        Part,
        Role,
        SendMessageRequest,
        StreamResponse,
        Task,
        TaskArtifactUpdateEvent,
        TaskState,
        TaskStatus,
        TaskStatusUpdateEvent,
    )
    from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH as AGENT_CARD_WELL_KNOWN_PATH
    from a2a.utils.constants import TransportProtocol as TransportProtocol
    from google.protobuf.json_format import MessageToDict, ParseDict
    from google.protobuf.struct_pb2 import Struct, Value
except ImportError as exc:  # the extra is missing, or a 0.x SDK is installed
    raise ConfigurationError(
        "RemoteA2aAgent and adk_runtime.a2a need a2a-sdk 1.x "
        f"(could not import {exc.name or exc}): {INSTALL_HINT}."
    ) from exc

__all__ = [
    "A2A_HTTP_ERRORS",
    "AGENT_CARD_WELL_KNOWN_PATH",
    "IS_A2A_V1",
    "A2ACardResolver",
    "A2AClient",
    "A2AClientConfig",
    "A2AClientEvent",
    "A2AClientFactory",
    "AgentCard",
    "Artifact",
    "ClientCallContext",
    "Message",
    "Part",
    "Task",
    "TaskArtifactUpdateEvent",
    "TaskStatus",
    "TaskStatusUpdateEvent",
    "TransportProtocol",
]

IS_A2A_V1 = True
"""Always true here: only the 1.x SDK is supported (google-adk's shim also runs on 0.3)."""

ROLE_USER = Role.Value("ROLE_USER")
ROLE_AGENT = Role.Value("ROLE_AGENT")
TS_UNKNOWN = TaskState.Value("TASK_STATE_UNSPECIFIED")
TS_SUBMITTED = TaskState.Value("TASK_STATE_SUBMITTED")
TS_WORKING = TaskState.Value("TASK_STATE_WORKING")
TS_COMPLETED = TaskState.Value("TASK_STATE_COMPLETED")
TS_FAILED = TaskState.Value("TASK_STATE_FAILED")
TS_INPUT_REQUIRED = TaskState.Value("TASK_STATE_INPUT_REQUIRED")
TS_AUTH_REQUIRED = TaskState.Value("TASK_STATE_AUTH_REQUIRED")
TS_CANCELED = TaskState.Value("TASK_STATE_CANCELED")
TS_REJECTED = TaskState.Value("TASK_STATE_REJECTED")
TP_JSONRPC = TransportProtocol.JSONRPC
TP_HTTP_JSON = TransportProtocol.HTTP_JSON
TP_GRPC = TransportProtocol.GRPC

A2AClientEvent: TypeAlias = tuple[Task, TaskStatusUpdateEvent | TaskArtifactUpdateEvent | None]
"""One stream item as the agent handles it: the task so far and the update (None: a task)."""

A2A_HTTP_ERRORS: tuple[type[Exception], ...] = (_SdkClientError,)
"""The SDK's transport errors (they carry ``status_code`` when the server answered)."""


# --- parts -------------------------------------------------------------------------------


def make_text_part(text: str) -> Part:
    """A text part."""
    return Part(text=text)


def is_text_part(part: Part) -> bool:
    """Whether the part holds text."""
    return bool(part.WhichOneof("content") == "text")


def is_file_part(part: Part) -> bool:
    """Whether the part holds a file (bytes or a URL)."""
    return part.WhichOneof("content") in ("raw", "url")


def is_data_part(part: Part) -> bool:
    """Whether the part holds structured data."""
    return bool(part.WhichOneof("content") == "data")


def part_text(part: Part) -> str:
    """The text of a text part."""
    return str(part.text)


def part_metadata(part: Part) -> dict[str, Any]:
    """The part's metadata as a plain dict (empty when it has none)."""
    return struct_to_dict(part.metadata) if part.HasField("metadata") else {}


def set_part_metadata(part: Part, metadata: dict[str, Any]) -> None:
    """Replace the part's metadata."""
    part.metadata.CopyFrom(dict_to_struct(metadata))


def make_file_part_with_uri(*, uri: str, mime_type: str = "", name: str | None = None) -> Part:
    """A file part pointing at a URI."""
    part = Part(url=uri or "", media_type=mime_type or "")
    if name:
        part.filename = name
    return part


def make_file_part_with_bytes(*, data: bytes, mime_type: str = "", name: str | None = None) -> Part:
    """A file part carrying its bytes."""
    part = Part(raw=data or b"", media_type=mime_type or "")
    if name:
        part.filename = name
    return part


def make_data_part(*, data: dict[str, Any], metadata: dict[str, Any] | None = None) -> Part:
    """A structured-data part."""
    part = Part()
    value = Value()
    value.struct_value.CopyFrom(dict_to_struct(data))
    part.data.CopyFrom(value)
    if metadata:
        set_part_metadata(part, metadata)
    return part


def make_data_part_from_blob(
    raw_json: bytes, *, extra_metadata: dict[str, Any] | None = None
) -> Part:
    """The data part a generic inline blob was made from (see ``data_part_blob_bytes``)."""
    return make_data_part(data=json.loads(raw_json), metadata=extra_metadata)


def file_part_uri(part: Part) -> str | None:
    """The URI of a URL file part, else None."""
    return str(part.url) if part.WhichOneof("content") == "url" else None


def file_part_bytes(part: Part) -> bytes | None:
    """The bytes of a bytes file part, else None."""
    return bytes(part.raw) if part.WhichOneof("content") == "raw" else None


def file_part_mime_type(part: Part) -> str | None:
    """The part's media type, or None."""
    return str(part.media_type) or None


def file_part_name(part: Part) -> str | None:
    """The part's file name, or None."""
    return str(part.filename) or None


def data_part_dict(part: Part) -> dict[str, Any]:
    """The data of a data part as a dict (protobuf numbers come back as floats)."""
    value = MessageToDict(part.data)
    return value if isinstance(value, dict) else {"value": value}


def data_part_blob_bytes(part: Part) -> bytes:
    """The data of a data part as JSON bytes (its metadata travels separately)."""
    return json.dumps(data_part_dict(part)).encode("utf-8")


# --- metadata and serialization ----------------------------------------------------------


def dict_to_struct(data: dict[str, Any]) -> Struct:
    """A protobuf ``Struct`` from a JSON-like dict."""
    return ParseDict(dict(data), Struct())


def struct_to_dict(struct: Any) -> dict[str, Any]:
    """A plain dict from a protobuf ``Struct``."""
    result = MessageToDict(struct)
    return result if isinstance(result, dict) else {}


def meta_to_dict(metadata: Any) -> dict[str, Any]:
    """A2A metadata (a ``Struct`` or a dict) as a plain dict."""
    if metadata is None:
        return {}
    if hasattr(metadata, "DESCRIPTOR"):
        return struct_to_dict(metadata)
    return dict(metadata) if isinstance(metadata, dict) else {}


def metadata_get(metadata: Any, key: str, default: Any = None) -> Any:
    """One key of A2A metadata (a ``Struct`` has no ``get``)."""
    if not metadata:
        return default
    try:  # a protobuf Struct has `in` and indexing, but no `get`
        return metadata[key] if key in metadata else default  # noqa: SIM401
    except (TypeError, ValueError):
        return default


def set_struct_metadata(obj: Any, metadata: dict[str, Any]) -> None:
    """Set the ``metadata`` field of an A2A message, event or artifact."""
    if metadata:
        obj.metadata.CopyFrom(dict_to_struct(metadata))


def set_event_metadata(event: Any, metadata: dict[str, Any]) -> None:
    """Set the metadata of an A2A event (google-adk's name)."""
    set_struct_metadata(event, metadata)


def a2a_to_dict(obj: Any, *, exclude_file_bytes: bool = False) -> dict[str, Any]:
    """An A2A message as a JSON-ready dict (protobuf's JSON mapping, camelCase keys)."""
    result: dict[str, Any] = MessageToDict(obj)
    if exclude_file_bytes:
        result.pop("raw", None)
    return result


def role_to_str(role: Any) -> str:
    """The genai content role for an A2A role (``user`` or ``model``)."""
    return "user" if role == ROLE_USER else "model"


def normalize_message(message: Any) -> Any:
    """None for an unset message (protobuf gives an empty one), else the message."""
    if message is not None and hasattr(message, "message_id") and not message.message_id:
        return None
    return message


def part_kind_label(part: Any) -> str:
    """A short label for a part that is neither text nor data (for logs)."""
    return type(part).__name__


# --- builders ----------------------------------------------------------------------------


def _role(role: Any) -> Any:
    return (
        {"user": ROLE_USER, "agent": ROLE_AGENT}.get(role, role) if isinstance(role, str) else role
    )


def make_message(*, message_id: str, role: Any, parts: Any = None, **kwargs: Any) -> Message:
    """A message (``role`` may be ``"user"``/``"agent"``)."""
    return Message(message_id=message_id, role=_role(role), parts=list(parts or []), **kwargs)


def make_task(*, id: str, status: Any, **kwargs: Any) -> Task:
    """A task (0.3-only keywords are dropped)."""
    kwargs.pop("kind", None)
    kwargs.pop("metadata_version", None)
    return Task(id=id, status=status, **kwargs)


def make_artifact(*, artifact_id: str, parts: Any = None, **kwargs: Any) -> Artifact:
    """An artifact (0.3-only keywords are dropped)."""
    kwargs.pop("artifact_type", None)
    if parts is not None:
        kwargs["parts"] = list(parts)
    return Artifact(artifact_id=artifact_id, **kwargs)


def make_task_status(state: Any, *, message: Any = None, timestamp: Any = None) -> TaskStatus:
    """A task status stamped with ``timestamp`` (an ISO string, datetime or now)."""
    status = TaskStatus(state=state)
    if isinstance(timestamp, str):
        timestamp = datetime.fromisoformat(timestamp)
    if hasattr(timestamp, "seconds"):
        status.timestamp.CopyFrom(timestamp)
    else:
        status.timestamp.FromDatetime(timestamp or datetime.now(timezone.utc))
    if message is not None:
        status.message.CopyFrom(message)
    return status


def make_task_status_update_event(
    task_id: Any, context_id: Any, status: Any, *, final: bool = True, metadata: Any = None
) -> TaskStatusUpdateEvent:
    """A status update (``final`` is a 0.3 field: the stream's end says it in 1.x)."""
    del final
    event = TaskStatusUpdateEvent(task_id=task_id, context_id=context_id, status=status)
    if metadata:
        set_struct_metadata(event, dict(metadata))
    return event


def parse_agent_card(data: dict[str, Any]) -> AgentCard:
    """An agent card from its JSON form (either protocol generation's field names)."""
    from a2a.client.card_resolver import parse_agent_card as sdk_parse

    return sdk_parse(copy.deepcopy(data))


def agent_card_url(card: AgentCard, *, protocol_binding: str = TP_JSONRPC) -> str | None:
    """The card's RPC URL for ``protocol_binding`` (else its first interface's), or None."""
    interfaces = list(card.supported_interfaces)
    for interface in interfaces:
        if interface.protocol_binding == protocol_binding:
            return str(interface.url)
    return str(interfaces[0].url) if interfaces else None


def agent_card_rpc_urls(card: AgentCard) -> list[str]:
    """Every distinct RPC URL the card names, in order."""
    return list(dict.fromkeys(str(i.url) for i in card.supported_interfaces if i.url))


# --- client ------------------------------------------------------------------------------


def make_client_config(*, httpx_client: Any, **kwargs: Any) -> A2AClientConfig:
    """A client config preferring JSON-RPC, then HTTP+JSON."""
    kwargs.setdefault("supported_protocol_bindings", [TP_JSONRPC, TP_HTTP_JSON])
    return A2AClientConfig(httpx_client=httpx_client, **kwargs)


def rebind_client_factory_httpx(factory: Any, httpx_client: Any) -> Any:
    """A copy of ``factory`` whose clients use ``httpx_client`` (the original is untouched)."""
    config = getattr(factory, "_config", None)
    if config is None:
        config = make_client_config(httpx_client=httpx_client)
    else:
        config = dataclasses.replace(config, httpx_client=httpx_client)
        if not config.supported_protocol_bindings:
            config = dataclasses.replace(
                config, supported_protocol_bindings=[TP_JSONRPC, TP_HTTP_JSON]
            )
    rebound = copy.copy(factory)
    rebound._config = config
    if getattr(rebound, "_registry", None) is not None:
        rebound._registry = dict(factory._registry)
    if hasattr(rebound, "_register_defaults"):
        rebound._register_defaults(config.supported_protocol_bindings)
    return rebound


def stream_item_kind(item: StreamResponse) -> tuple[str, Any]:
    """``(kind, payload)`` of a stream item: task, message, status_update or artifact_update."""
    for kind in ("task", "message", "status_update", "artifact_update"):
        if item.HasField(kind):
            return kind, getattr(item, kind)
    raise ValueError("A2A stream item carries no task, message or update.")


class _StreamAggregator:
    """The task as it stands after each item of one stream (see ``make_stream_normalizer``)."""

    def __init__(self) -> None:
        self._task: Task | None = None

    @staticmethod
    def _copy(task: Task) -> Task:
        snapshot = Task()
        snapshot.CopyFrom(task)
        return snapshot

    def _whole_task(self, task: Task) -> A2AClientEvent:
        merged = self._copy(task)
        if self._task is not None:  # keep artifacts streamed before this snapshot
            known = {artifact.artifact_id for artifact in merged.artifacts}
            merged.artifacts.extend(a for a in self._task.artifacts if a.artifact_id not in known)
        self._task = merged
        return (self._copy(task), None)

    def _update(self, kind: str, update: Any) -> A2AClientEvent:
        from a2a.server.tasks.task_manager import append_artifact_to_task

        if self._task is None:
            self._task = Task(id=update.task_id or "", context_id=update.context_id or "")
        task = self._task
        if kind == "artifact_update" and update.HasField("artifact"):
            append_artifact_to_task(task, update)
        elif kind == "status_update" and update.HasField("status"):
            if update.status.HasField("message"):
                task.history.append(update.status.message)
            task.status.CopyFrom(update.status)
        if update.HasField("metadata"):
            task.metadata.MergeFrom(update.metadata)
        return (self._copy(task), update)

    def __call__(self, item: StreamResponse) -> Message | A2AClientEvent:
        kind, payload = stream_item_kind(item)
        if kind == "message":
            message: Message = payload
            return message
        if kind == "task":
            return self._whole_task(payload)
        return self._update(kind, payload)


def make_stream_normalizer() -> Callable[[StreamResponse], Message | A2AClientEvent]:
    """A function turning each stream item into a message or ``(task so far, update)``.

    The SDK's 1.x client yields bare updates; the agent wants each one next to the task as
    it stands after it (artifacts appended chunk by chunk, status and metadata merged), as
    the 0.3 client gave. Each returned task is a copy.
    """
    return _StreamAggregator()


async def send_message(
    client: Any,
    *,
    request: Message,
    request_metadata: dict[str, Any] | None = None,
    context: Any = None,
) -> AsyncGenerator[StreamResponse, None]:
    """Send ``request`` and yield the raw stream items the client returns."""
    from contextlib import aclosing

    wrapped = SendMessageRequest()
    wrapped.message.CopyFrom(request)
    if request_metadata:
        wrapped.metadata.CopyFrom(dict_to_struct(request_metadata))
    async with aclosing(client.send_message(wrapped, context=context)) as items:
        async for item in items:
            yield item
