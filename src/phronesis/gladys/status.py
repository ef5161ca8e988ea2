"""What every RPC phronesis serves to GLADyS shares: errors as the gRPC status codes GLADyS's callers
expect (an unknown heuristic or decision is ``NOT_FOUND``, bad input ``INVALID_ARGUMENT`` naming the
field, a database or embedder outage ``UNAVAILABLE``, a concurrent change ``ABORTED``; anything else
``INTERNAL`` with an id to find in the log, never a traceback on the wire), the caller's trace id
(``x-gladys-trace-id``) on the log lines and the decision records a call writes, and health from
the readiness check."""

from __future__ import annotations

import logging
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from functools import wraps
from typing import TYPE_CHECKING, Any, TypeVar

import grpc

from phronesis.api.readiness import Readiness
from phronesis.exceptions import (
    ConflictError,
    EmbeddingError,
    InvalidInputError,
    NotFoundError,
    QuotaExceededError,
    StorageUnavailable,
)
from phronesis.gladys.wire import types_pb2
from phronesis.ids import new_id
from phronesis.logs import call_notes, request_id

if TYPE_CHECKING:
    from phronesis.engine import Engine

__all__ = ["TRACE_HEADER", "Served", "answered", "named_as_sent", "required", "trace_id"]

TRACE_HEADER = "x-gladys-trace-id"

log = logging.getLogger("phronesis.gladys")

Reply = TypeVar("Reply")
Handler = Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Reply]]


def _said(value: object) -> str | None:
    return value.strip()[:128] if isinstance(value, str) and value.strip() else None


def _metadata(request: Any) -> list[Any]:
    """The request's ``RequestMetadata``, then its event's, where the message has them."""
    found = []
    owners: list[Any] = [request, getattr(request, "event", None)]
    for owner in owners:
        descriptor = getattr(owner, "DESCRIPTOR", None)
        if descriptor is not None and "metadata" in descriptor.fields_by_name and owner.HasField("metadata"):
            found.append(owner.metadata)
    return found


def trace_id(context: grpc.aio.ServicerContext[Any, Any], request: Any = None) -> str | None:
    """The caller's trace id: the metadata header ``x-gladys-trace-id`` GLADyS sends, else the
    ``RequestMetadata.trace_id`` of the request or of its event."""
    for key, value in context.invocation_metadata() or ():
        if key == TRACE_HEADER and (said := _said(value)):
            return said
    return next((said for m in _metadata(request) if (said := _said(m.trace_id))), None)


def caller_request_id(request: Any) -> str | None:
    """The ``RequestMetadata.request_id`` the caller sent, if any: the log lines' and records' request id."""
    return next((said for m in _metadata(request) if (said := _said(m.request_id))), None)


def code_of(error: Exception) -> tuple[grpc.StatusCode, str] | None:
    """The status an expected error answers with, and its message; None: not an expected one."""
    if isinstance(error, NotFoundError):
        return grpc.StatusCode.NOT_FOUND, str(error)
    if isinstance(error, InvalidInputError):
        return grpc.StatusCode.INVALID_ARGUMENT, f"{error.field}: {error.message}"
    if isinstance(error, StorageUnavailable | EmbeddingError):
        return grpc.StatusCode.UNAVAILABLE, str(error)
    if isinstance(error, ConflictError):
        return grpc.StatusCode.ABORTED, str(error)
    if isinstance(error, QuotaExceededError):
        return grpc.StatusCode.RESOURCE_EXHAUSTED, str(error)
    return None


def answered(handler: Handler[Reply]) -> Handler[Reply]:
    """A servicer method whose errors end as status codes (``code_of``), the same way for every RPC."""

    @wraps(handler)
    async def run(self: Any, request: Any, context: grpc.aio.ServicerContext[Any, Any]) -> Reply:
        trace = trace_id(context, request)
        traced = call_notes.set({"caller_trace_id": trace} if trace else None)
        logged = request_id.set(caller_request_id(request) or new_id())
        try:
            return await handler(self, request, context)
        except grpc.aio.AbortError:
            raise
        except Exception as error:  # every error answers with a status; the unexpected ones are logged
            known = code_of(error)
            if known is not None:
                await context.abort(*known)
            error_id = new_id()[:12]
            log.exception("gRPC %s failed (error_id=%s)", handler.__name__, error_id)
            await context.abort(grpc.StatusCode.INTERNAL, f"internal error (error_id={error_id})")
        finally:
            request_id.reset(logged)
            call_notes.reset(traced)

    return run


class Served:
    """What each servicer of the one engine shares: the tenant it acts for, and health from the
    readiness check (``GetHealth``, ``GetHealthDetails``, which both GLADyS services declare)."""

    def __init__(self, engine: Engine, tenant: str) -> None:
        self._engine = engine
        self._tenant = tenant
        self._started = time.monotonic()
        self._readiness = Readiness(engine)

    @answered
    async def GetHealth(
        self, request: types_pb2.GetHealthRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> types_pb2.GetHealthResponse:
        """The readiness check (database, sentence model; the LLM where one is required)."""
        report = await self._readiness.report()
        down = [
            f"{name}: {part.detail or part.state}"
            for name, part in report.parts.items()
            if part.state == "unavailable" and part.required
        ]
        return types_pb2.GetHealthResponse(status=_status(report.status), message="; ".join(down))

    @answered
    async def GetHealthDetails(
        self, request: types_pb2.GetHealthDetailsRequest, context: grpc.aio.ServicerContext[Any, Any]
    ) -> types_pb2.GetHealthDetailsResponse:
        """The readiness check, part by part, with the uptime and what this server serves."""
        report = await self._readiness.report()
        parts = report.parts.items()
        details = {name: part.state + (f": {part.detail}" if part.detail else "") for name, part in parts}
        return types_pb2.GetHealthDetailsResponse(
            status=_status(report.status),
            uptime_seconds=int(time.monotonic() - self._started),
            details=details | {"tenant": self._tenant, "index_backend": self._engine.index_backend},
        )


@contextmanager
def named_as_sent(names: Mapping[str, str], prefix: str = "") -> Iterator[None]:
    """An input error raised inside names its field as the GLADyS caller sent it: the head of its
    dotted path renamed (``names``: phronesis's name → GLADyS's), under ``prefix``."""
    try:
        yield
    except InvalidInputError as error:
        head, dot, rest = error.field.partition(".")
        raise InvalidInputError(prefix + names.get(head, head) + dot + rest, error.message) from None


def required(request: Any, *fields: str) -> None:
    """Each of ``fields`` of ``request`` is set (proto3 cannot say unset; empty is unset), or the error names it."""
    for field in fields:
        if not getattr(request, field):
            raise InvalidInputError(field, "is required")


def _status(status: str) -> types_pb2.HealthStatus.ValueType:
    return types_pb2.HEALTH_STATUS_HEALTHY if status == "ready" else types_pb2.HEALTH_STATUS_UNHEALTHY
