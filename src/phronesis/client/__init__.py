"""A typed HTTP client for a phronesis server: the server's own pydantic models in and
out, one exception per kind of problem (``errors``), retries on 429 and 503 that honour
``Retry-After`` (``RetryPolicy``), and httpx's transport seam for tests (``httpx.MockTransport``).

    from phronesis.client import Client

    with Client("http://127.0.0.1:8000", api_key="sk-…") as phronesis:
        session = phronesis.routing.create_session()
        turn = phronesis.routing.route(session.id, {"query": "How much is the Pro plan?"})

``AsyncClient`` is the same, awaited. Every operation is a ``calls.Call``; ``send`` sends any."""

from phronesis.client.aio import AsyncClient
from phronesis.client.calls import Call
from phronesis.client.errors import (
    APIError,
    ClientError,
    Conflict,
    InvalidInput,
    InvalidRequest,
    NotFound,
    QuotaExceeded,
    RateLimited,
    ServerError,
    TransportFailed,
    Unauthorized,
    Unavailable,
    UnexpectedAnswer,
)
from phronesis.client.retry import RetryPolicy
from phronesis.client.sync import Client

__all__ = [
    "APIError",
    "AsyncClient",
    "Call",
    "Client",
    "ClientError",
    "Conflict",
    "InvalidInput",
    "InvalidRequest",
    "NotFound",
    "RateLimited",
    "RetryPolicy",
    "ServerError",
    "TransportFailed",
    "QuotaExceeded",
    "Unauthorized",
    "Unavailable",
    "UnexpectedAnswer",
]
