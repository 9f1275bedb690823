"""The OTLP example of docs/how-to/observability.md sends a turn's spans to a real collector.

The block is read from the page (the one marked ``docs-test: own`` with this file's path) and
run as printed in a fresh interpreter in an empty directory, with
``OTEL_EXPORTER_OTLP_ENDPOINT`` pointing at a small OTLP/HTTP receiver started here on a free
port. The receiver decodes each ``POST /v1/traces`` body as OTLP's
``ExportTraceServiceRequest`` protobuf; the test checks that the turn's spans arrived.
"""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from tests.serving import ROOT, cli_env

PAGE = ROOT / "docs" / "how-to" / "observability.md"
_OWN = re.compile(
    r"^<!-- docs-test: own tests/telemetry/test_otlp_example\.py [^>]*-->\n```python\n(.*?)^```$",
    re.S | re.M,
)


class _Collector(ThreadingHTTPServer):
    """An OTLP/HTTP trace receiver: keeps every request it is sent, decoded."""

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Receive)
        self.requests: list[ExportTraceServiceRequest] = []
        self.paths: list[str] = []

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    def span_names(self) -> list[str]:
        return [
            span.name
            for request in self.requests
            for resource_spans in request.resource_spans
            for scope_spans in resource_spans.scope_spans
            for span in scope_spans.spans
        ]

    def service_names(self) -> set[str]:
        return {
            attribute.value.string_value
            for request in self.requests
            for resource_spans in request.resource_spans
            for attribute in resource_spans.resource.attributes
            if attribute.key == "service.name"
        }


class _Receive(BaseHTTPRequestHandler):
    server: _Collector

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.server.paths.append(self.path)
        if (
            self.path != "/v1/traces"
            or self.headers.get("Content-Type") != "application/x-protobuf"
        ):
            self.send_response(404)
            self.end_headers()
            return
        request = ExportTraceServiceRequest()
        request.ParseFromString(body)
        self.server.requests.append(request)
        reply = b""  # an empty ExportTraceServiceResponse: everything accepted
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the test reads what arrived, not the access log."""


@pytest.fixture
def collector() -> Iterator[_Collector]:
    server = _Collector()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _example() -> str:
    (code,) = _OWN.findall(PAGE.read_text(encoding="utf-8"))
    return code


def test_the_page_marks_exactly_one_block_for_this_test() -> None:
    code = _example()
    assert "OTLPSpanExporter()" in code
    assert "provider.shutdown()" in code


def test_the_otlp_example_sends_the_turns_spans_to_the_collector(
    collector: _Collector, tmp_path: Path
) -> None:
    env = cli_env(
        OTEL_EXPORTER_OTLP_ENDPOINT=collector.endpoint,
        OTEL_SERVICE_NAME="chat-backend",
    )
    env = {k: v for k, v in env.items() if k not in ("OTEL_TRACES_EXPORTER", "OTEL_SDK_DISABLED")}
    result = subprocess.run(
        [sys.executable, "-c", _example()],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert "notes Noted." in result.stdout
    assert "Failed to export" not in result.stderr, result.stderr
    assert set(collector.paths) == {"/v1/traces"}
    names = collector.span_names()
    for expected in (
        "invocation",
        "invoke_agent notes",
        "generate_content scripted",
        "session_store.create",
        "session_store.start",
    ):
        assert expected in names, names
    assert collector.service_names() == {"chat-backend"}
