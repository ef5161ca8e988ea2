"""A client sending its body a byte at a time does not hold a connection for ever (issue 49, item 6).

Sixteen connections sending one body byte a second stayed open after 90 s. Through a real server:
a body that has not arrived within ``PHRONESIS_API__BODY_TIMEOUT_S`` is answered 408 problem+json
and the connection is closed; a normal request right after is served. (A client that trickles its
*headers* is the proxy's to time out: uvicorn has no header timeout; the README says so.)
"""

from __future__ import annotations

import socket
import time
from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server


@pytest.mark.process
def test_a_body_trickled_byte_by_byte_is_cut_off_with_408(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_API__BODY_TIMEOUT_S="2")
    with server(env) as base:
        host, port = base.removeprefix("http://").split(":")
        with socket.create_connection((host, int(port)), timeout=10) as slow:
            slow.sendall(b"POST /v1/heuristics HTTP/1.1\r\nHost: 127.0.0.1\r\ncontent-type: application/json\r\n"
                         b"content-length: 200\r\n\r\n{")  # fmt: skip
            started, answer = time.monotonic(), b""
            while b"\r\n\r\n" not in answer and time.monotonic() - started < 8:
                try:
                    slow.sendall(b" ")
                except OSError:  # the server closed its side
                    break
                slow.settimeout(0.5)
                try:
                    answer += slow.recv(4096)
                except TimeoutError:
                    continue
            assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
            assert b"application/problem+json" in answer
            assert time.monotonic() - started < 6
        assert httpx.get(f"{base}/healthz", timeout=10).status_code == 200
