"""Where the client sends its requests: said, never guessed (issue 26, a trial)."""

from __future__ import annotations

import pytest

from phronesis.client import Client, TransportFailed


@pytest.mark.parametrize(
    ("url", "said"),
    [
        ("http://127.0.0.1:8000/v1", "give the server's root (e.g. http://127.0.0.1:8000), without /v1"),
        ("http://127.0.0.1:8000/v1/", "without /v1"),
        ("127.0.0.1:8000", "give the URL with its scheme (e.g. http://127.0.0.1:8000)"),
    ],
)
def test_a_url_that_cannot_be_the_server_s_root_is_refused_before_any_request(url: str, said: str) -> None:
    with pytest.raises(ValueError, match=said.replace("(", r"\(").replace(")", r"\)")):
        Client(url)


def test_a_request_that_never_left_is_not_said_to_have_been_sent() -> None:
    with Client("ftp://127.0.0.1:8000") as client, pytest.raises(TransportFailed, match="not sent"):
        client.executive.decide({"text": "the kettle has boiled"})
