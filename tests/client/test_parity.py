"""The two clients are one API: the same namespaces, methods and signatures, each method sending
the same operation (``calls``), and every operation reachable from both. Written twice because
Python cannot type one method as both blocking and awaitable; this test keeps the two one."""

from __future__ import annotations

import inspect
import re

from phronesis.client import AsyncClient, Client, calls
from phronesis.client.calls import Call

NAMESPACES = ("executive", "heuristics", "routing", "admission", "proactive", "decisions", "replay", "settings")


def _methods(cls: type) -> dict[str, object]:
    return {n: f for n, f in vars(cls).items() if not n.startswith("_") and inspect.isfunction(f)}


def _sends(function: object) -> list[str]:
    return re.findall(r"calls\.(\w+)\(", inspect.getsource(function))  # type: ignore[arg-type]


def test_both_clients_have_the_same_methods_sending_the_same_operations() -> None:
    sync, aio = Client("http://x"), AsyncClient("http://x")
    used: set[str] = set()
    for name in NAMESPACES:
        blocking, awaited = _methods(type(getattr(sync, name))), _methods(type(getattr(aio, name)))
        assert blocking.keys() == awaited.keys(), name
        for method, function in blocking.items():
            twin = awaited[method]
            assert inspect.iscoroutinefunction(twin) and not inspect.iscoroutinefunction(function), method
            assert inspect.signature(function) == inspect.signature(twin), f"{name}.{method}"  # type: ignore[arg-type]
            assert _sends(function) == _sends(twin) and len(_sends(function)) == 1, f"{name}.{method}"
            used.update(_sends(function))
    operations = {n for n, f in vars(calls).items() if inspect.isfunction(f) and f.__module__ == calls.__name__}
    returns = {n: str(inspect.signature(getattr(calls, n)).return_annotation) for n in operations}
    builders = {n for n, annotation in returns.items() if annotation.startswith("Call[")}
    assert used == builders, f"not reachable from a namespace: {builders - used}"
    # one operation per endpoint of the API: a new endpoint without one fails here
    assert len(builders) == len(_v1_operations()) == 72
    assert Call is calls.Call


def _v1_operations() -> list[tuple[str, str]]:
    from phronesis.embeddings.hashing import HashingEmbedder
    from phronesis.engine import Engine
    from phronesis.server import create_app
    from phronesis.settings import Settings

    settings = Settings(database={"url": "sqlite+aiosqlite:///:memory:"}, embeddings={"spec": "hashing:384"})
    spec = create_app(Engine(settings, embedder=HashingEmbedder(384), llm=None)).openapi()
    return [(m, p) for p, ops in spec["paths"].items() if p.startswith("/v1/") for m in ops]
