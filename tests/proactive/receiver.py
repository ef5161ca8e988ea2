"""A real HTTP receiver on 127.0.0.1 for the webhook and WhatsApp channels.

It records every request (path, headers, body). ``script`` is the status codes it answers
with, in order; after the script runs out it answers 200.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.loopback import serving


@dataclass(frozen=True)
class Received:
    path: str
    headers: dict[str, str]
    body: bytes


class Receiver(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, script: list[int]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = list(script)
        self.received: list[Received] = []

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        self.server.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        code = self.server.script.pop(0) if self.server.script else 200
        payload = b'{"ok": true}' if code < 400 else b'{"error": "scripted"}'
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, *_: Any) -> None:
        pass


def receiver(*script: int) -> AbstractContextManager[Receiver]:
    return serving(Receiver(list(script)))
