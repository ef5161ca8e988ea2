"""phronesis's errors as the gRPC status codes GLADyS's callers expect: an unknown heuristic or
decision is ``NOT_FOUND``, bad input ``INVALID_ARGUMENT`` naming the field, a database or embedder
outage ``UNAVAILABLE``, a concurrent change ``ABORTED``. Anything else is ``INTERNAL`` with an id
to find in the log, never a traceback on the wire."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any, TypeVar

import grpc

from phronesis.exceptions import (
    ConflictError,
    EmbeddingError,
    InvalidInputError,
    NotFoundError,
    QuotaExceededError,
    StorageUnavailable,
)
from phronesis.ids import new_id

__all__ = ["answered"]

log = logging.getLogger("phronesis.gladys")

Reply = TypeVar("Reply")
Handler = Callable[[Any, Any, grpc.aio.ServicerContext[Any, Any]], Awaitable[Reply]]


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

    return run
