"""The examples run against a real server (uvicorn on loopback), as their users run them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.api.conftest import LiveServer, _serve


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    yield from _serve(tmp_path_factory.mktemp("example-server"))
