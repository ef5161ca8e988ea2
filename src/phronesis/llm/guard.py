"""A global switch that turns any real LLM or embedding API call into an error.

The test suite flips it off in ``conftest.py`` so that a test can never spend money
by accident. Loopback endpoints stay allowed: a server on 127.0.0.1 is one the test
started itself (the OpenAI-compatible provider is tested that way), not a paid API.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import urlsplit

from phronesis.exceptions import LLMCallForbiddenError

__all__ = [
    "allow_remote_calls",
    "check_remote_call_allowed",
    "forbid_remote_calls",
    "is_loopback_url",
    "remote_calls_allowed",
]

_allowed = True


def remote_calls_allowed() -> bool:
    return _allowed


def forbid_remote_calls() -> None:
    global _allowed
    _allowed = False


@contextmanager
def allow_remote_calls(allowed: bool = True) -> Iterator[None]:
    """Temporarily set the switch, restoring it afterwards."""
    global _allowed
    previous, _allowed = _allowed, allowed
    try:
        yield
    finally:
        _allowed = previous


def is_loopback_url(url: str) -> bool:
    host = urlsplit(url).hostname or ""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_remote_call_allowed(url: str, what: str) -> None:
    """Raise ``LLMCallForbiddenError`` if ``url`` is remote and remote calls are off."""
    if not _allowed and not is_loopback_url(url):
        raise LLMCallForbiddenError(
            f"{what} call to {url} is forbidden here (phronesis.llm.guard: remote calls are off)"
        )
