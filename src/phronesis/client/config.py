"""What both clients are built from: where the server is, the key, the timeout. Nothing is
assumed silently: without ``base_url`` the client reads ``PHRONESIS_URL``, and without either it
refuses to start (it never guesses a host)."""

from __future__ import annotations

import os
from dataclasses import dataclass

import httpx

__all__ = ["DEFAULT_TIMEOUT", "Connection"]

DEFAULT_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
"""A decision that asks an LLM can take seconds; a connection that takes 5 s is not coming."""


@dataclass(frozen=True, slots=True)
class Connection:
    base_url: str
    headers: dict[str, str]

    @classmethod
    def resolve(cls, base_url: str | None, api_key: str | None) -> Connection:
        url = base_url or os.environ.get("PHRONESIS_URL")
        if not url:
            raise ValueError("give base_url, or set PHRONESIS_URL (e.g. http://127.0.0.1:8000)")
        if url.rstrip("/").endswith("/v1"):  # every operation adds /v1 itself: a bare 404 says nothing
            raise ValueError(f"{url}: give the server's root (e.g. http://127.0.0.1:8000), without /v1")
        if "://" not in url:
            raise ValueError(f"{url}: give the URL with its scheme (e.g. http://{url})")
        key = api_key if api_key is not None else os.environ.get("PHRONESIS_API_KEY")
        headers = {"Accept": "application/json", "User-Agent": "phronesis-client"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        return cls(url.rstrip("/"), headers)
