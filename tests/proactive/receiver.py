"""A real HTTP receiver on 127.0.0.1 for the webhook and WhatsApp channels.

It records every request (path, headers, body). ``script`` is the status codes it answers
with, in order; after the script runs out it answers 200. With ``hold``, it takes the first
request and answers it only once ``hold`` is set (``holding`` says it has one): a sender that
dies while it waits.
"""

from __future__ import annotations

import contextlib
import threading
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

    def __init__(self, script: list[int], hold: threading.Event | None = None) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.script = list(script)
        self.received: list[Received] = []
        self.hold = hold
        self.holding = threading.Event()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"


class _Handler(BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers.get("content-length", "0")))
        self.server.received.append(Received(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
        if self.server.hold is not None and len(self.server.received) == 1:
            self.server.holding.set()
            self.server.hold.wait(60)
        code = self.server.script.pop(0) if self.server.script else 200
        payload = b'{"ok": true}' if code < 400 else b'{"error": "scripted"}'
        with contextlib.suppress(OSError):  # a sender that died has closed the connection
            self.send_response(code)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

    def log_message(self, *_: Any) -> None:
        pass


def receiver(*script: int, hold: threading.Event | None = None) -> AbstractContextManager[Receiver]:
    return serving(Receiver(list(script), hold))
