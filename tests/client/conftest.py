"""The client contract suite runs every test on both clients (``Client``, ``AsyncClient``): one
``Harness`` that builds either over a handler and runs an operation on it."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from phronesis.client import AsyncClient, Client, RetryPolicy

Handler = Callable[[httpx.Request], httpx.Response]
FAST = RetryPolicy(attempts=3, backoff=0.0, max_delay=0.0)
"""Retries without waiting: the waits are the policy's (``test_retry``), not these tests'."""


@dataclass
class Harness:
    kind: str

    async def run(self, handler: Handler, operation: Callable[[Any], Any], **options: Any) -> Any:
        """``operation(client)`` on this kind of client over ``handler``; its result (awaited)."""
        options.setdefault("retry", FAST)
        if self.kind == "sync":
            with Client("http://phronesis.test", transport=httpx.MockTransport(handler), **options) as client:
                return operation(client)

        async def answer(request: httpx.Request) -> httpx.Response:
            return handler(request)

        async with AsyncClient("http://phronesis.test", transport=httpx.MockTransport(answer), **options) as aclient:
            result = operation(aclient)
            return await result if isinstance(result, Awaitable) else result


@pytest.fixture(params=["sync", "async"])
def harness(request: pytest.FixtureRequest) -> Harness:
    return Harness(request.param)
