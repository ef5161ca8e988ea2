"""What phronesis logs, and how: readable text by default, one JSON object per line
with ``PHRONESIS_LOG_FORMAT=json``, the request id on every line a request causes.

Standard library logging, in structlog's spirit of small pieces: a ``contextvars`` request id
(``request_id``), a filter that copies it onto each record, and two formatters. Only the
``phronesis`` logger is configured: an application embedding the engine keeps its own.
"""

from __future__ import annotations

import contextvars
import json
import logging
import re
import sys
import time
from collections.abc import Mapping
from typing import Any, Literal

__all__ = [
    "JsonFormatter",
    "RedactQueryFilter",
    "RequestIdFilter",
    "TextFormatter",
    "configure_logging",
    "call_notes",
    "current_request_id",
    "note_call",
    "redact_query",
    "request_id",
    "uvicorn_log_config",
]

LogFormat = Literal["text", "json"]

request_id: contextvars.ContextVar[str | None] = contextvars.ContextVar("phronesis_request_id", default=None)
"""The id of the HTTP request being served (``X-Request-ID``), set by the API's middleware."""


call_notes: contextvars.ContextVar[Mapping[str, Any] | None] = contextvars.ContextVar(
    "phronesis_call_notes", default=None
)
"""What an adapter noted of the call being served, merged into the attributes of every decision record
the call writes: GLADyS's trace id (``caller_trace_id``, from ``x-gladys-trace-id``), the caller's
candidates set aside and why. A caller's trace and a record meet, and nothing it sent goes unsaid."""


def note_call(**notes: Any) -> None:
    """Add to what the decision records of the call being served will say (``call_notes``)."""
    call_notes.set({**(call_notes.get() or {}), **notes})


def current_request_id() -> str | None:
    return request_id.get()


class RequestIdFilter(logging.Filter):
    """Copies the request id onto each record (``%(request_id)s``)."""

    def filter(self, record: logging.LogRecord) -> bool:
        record.request_id = request_id.get()
        return True


_SECRET_PARAM = re.compile(r"(?i)([?&](?:api[_-]?key|key|token|access[_-]?token|password|secret)=)[^&#\s]*")


def redact_query(text: str) -> str:
    """``text`` with the values of secret-looking query parameters replaced by ``***``."""
    return _SECRET_PARAM.sub(r"\1***", text)


class RedactQueryFilter(logging.Filter):
    """Hides secrets a client put in a URL's query (``?api_key=…``) on access-log lines: phronesis
    reads keys only from the Authorization header, but the access log writes the whole URL, key
    included."""

    def filter(self, record: logging.LogRecord) -> bool:
        if isinstance(record.args, tuple) and len(record.args) >= 3:
            path = record.args[2]
            if isinstance(path, str):
                record.args = (*record.args[:2], redact_query(path), *record.args[3:])
        return True


class TextFormatter(logging.Formatter):
    """``LEVEL    logger: message [request <id>]``."""

    def __init__(self) -> None:
        super().__init__("%(levelname)-8s %(name)s: %(message)s")

    def format(self, record: logging.LogRecord) -> str:
        line = super().format(record)
        rid = getattr(record, "request_id", None)
        if rid:
            head, _, rest = line.partition("\n")  # a traceback stays below its line
            line = f"{head} [request {rid}]" + (f"\n{rest}" if rest else "")
        return line


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, message, request id, traceback."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)) + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        rid = getattr(record, "request_id", None)
        if rid:
            entry["request_id"] = rid
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, ensure_ascii=False)


class _Handler(logging.StreamHandler):  # type: ignore[type-arg]
    """Standard error, once (``configure_logging`` may run twice in one process)."""


def configure_logging(level: str, log_format: LogFormat = "text") -> None:
    """``phronesis.*`` on standard error at ``level``, as text or JSON."""
    logger = logging.getLogger("phronesis")
    handler = next((h for h in logger.handlers if isinstance(h, _Handler)), None)
    if handler is None:
        handler = _Handler(sys.stderr)
        handler.addFilter(RequestIdFilter())
        logger.addHandler(handler)
    handler.setFormatter(JsonFormatter() if log_format == "json" else TextFormatter())
    logger.setLevel(level.upper())
    logger.propagate = False
    # the MCP SDK's own warnings, in the same lines (its INFO lines repeat what a tool answered)
    sdk = logging.getLogger("mcp")
    if handler not in sdk.handlers:
        sdk.addHandler(handler)
    sdk.setLevel(max(logging.WARNING, logger.level))
    sdk.propagate = False


def uvicorn_log_config(level: str, log_format: LogFormat = "text") -> dict[str, Any]:
    """uvicorn's own lines (start-up, access, errors) in the same format as ours, with the
    request id on each access line: for ``uvicorn.run(log_config=...)``."""
    formatter = "phronesis.logs.JsonFormatter" if log_format == "json" else "phronesis.logs.TextFormatter"
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "filters": {
            "request_id": {"()": "phronesis.logs.RequestIdFilter"},
            "redact_query": {"()": "phronesis.logs.RedactQueryFilter"},
        },
        "formatters": {"phronesis": {"()": formatter}},
        "handlers": {
            "phronesis": {
                "class": "logging.StreamHandler",
                "formatter": "phronesis",
                "filters": ["request_id"],
                "stream": "ext://sys.stderr",
            }
        },
        "loggers": {
            "uvicorn": {"handlers": ["phronesis"], "level": level.upper(), "propagate": False},
            "uvicorn.error": {"level": level.upper()},
            "uvicorn.access": {
                "handlers": ["phronesis"],
                "filters": ["redact_query"],
                "level": level.upper(),
                "propagate": False,
            },
        },
    }
