"""A real iCalendar feed on 127.0.0.1 with one event (the calendar polls of the proactive tests)."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.loopback import serving


class Feed(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, uid: str, summary: str, start: Callable[[], datetime]) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.uid, self.summary, self.start = uid, summary, start

    def url(self, name: str = "me") -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{name}.ics"


class _Handler(BaseHTTPRequestHandler):
    server: Feed

    def do_GET(self) -> None:
        start = self.server.start()
        body = (
            "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//phronesis tests//EN\r\nBEGIN:VEVENT\r\n"
            f"UID:{self.server.uid}\r\nSUMMARY:{self.server.summary}\r\nDTSTART:{start:%Y%m%dT%H%M%SZ}\r\n"
            f"DTEND:{start + timedelta(hours=1):%Y%m%dT%H%M%SZ}\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
        ).encode()
        self.send_response(200)
        self.send_header("content-type", "text/calendar")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *_: Any) -> None:
        pass


def calendar_feed(uid: str, summary: str, start: Callable[[], datetime]) -> AbstractContextManager[Feed]:
    """A feed whose one event starts at ``start()`` (asked at each poll)."""
    return serving(Feed(uid, summary, start))
