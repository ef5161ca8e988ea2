"""How long the client waits before trying again (``RetryPolicy``, ``errors.retry_after``)."""

from __future__ import annotations

import email.utils
import time

import httpx
import pytest
from hypothesis import given
from hypothesis import strategies as st

from phronesis.client import RetryPolicy
from phronesis.client.errors import retry_after


def test_retry_after_is_read_as_seconds_or_as_a_date() -> None:
    assert retry_after(httpx.Response(503, headers={"Retry-After": "7"})) == 7.0
    soon = email.utils.formatdate(time.time() + 120, usegmt=True)
    assert retry_after(httpx.Response(503, headers={"Retry-After": soon})) == pytest.approx(120, abs=2)
    assert retry_after(httpx.Response(503, headers={"Retry-After": "whenever"})) is None
    assert retry_after(httpx.Response(503)) is None


def test_the_server_s_wait_is_honoured_up_to_the_cap_else_backoff_doubles() -> None:
    policy = RetryPolicy(backoff=0.5, max_delay=10.0)
    assert policy.delay(1, 3.0) == 3.0
    assert policy.delay(1, 3600.0) == 10.0
    assert [policy.delay(n, None) for n in (1, 2, 3)] == [0.5, 1.0, 2.0]
    with pytest.raises(ValueError, match="at least 1"):
        RetryPolicy(attempts=0)


@given(st.integers(1, 20), st.one_of(st.none(), st.floats(-10, 1e6)), st.floats(0, 100))
def test_a_wait_is_never_negative_nor_past_the_cap(attempt: int, asked: float | None, cap: float) -> None:
    assert 0.0 <= RetryPolicy(max_delay=cap).delay(attempt, asked) <= cap
