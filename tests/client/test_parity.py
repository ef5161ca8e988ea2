"""The two clients are one API: the same namespaces, methods and signatures, each method sending
the same operation (``calls``), and every operation reachable from both. Written twice because
Python cannot type one method as both blocking and awaitable; this test keeps the two one."""

from __future__ import annotations

import inspect
import re
from typing import Any

from phronesis.client import AsyncClient, Client, calls, models
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
    # one operation per endpoint of the API, checked against the OpenAPI document below
    assert Call is calls.Call


def _template(path: str) -> str:
    """A path with its parameters unnamed: ``/v1/heuristics/{}/examples``."""
    return re.sub(r"\{[^}]*\}", "{}", path)


def _schema_names(content: dict[str, Any] | None) -> frozenset[str]:
    """The models a request or answer body may be, by the OpenAPI document's ``$ref``s (a list's
    items; each of a union's members); empty: no model."""
    schema = ((content or {}).get("application/json") or {}).get("schema", {})
    schema = schema.get("items", schema)
    members = schema.get("anyOf", [schema])
    return frozenset(str(m["$ref"]).rsplit("/", 1)[-1].replace("_", "") for m in members if "$ref" in m)


def test_every_operation_is_the_openapi_documents_method_path_body_and_answer() -> None:
    """``calls`` is written by hand, and checked here against the server's own OpenAPI document:
    every endpoint has a call, with the same method and path, the body the endpoint reads and a
    model its answer may be (a renamed route or a changed body fails here, not in a user's agent)."""
    endpoints: dict[tuple[str, str], tuple[frozenset[str], frozenset[str]]] = {}
    for path, operations in _openapi()["paths"].items():
        if not path.startswith("/v1/"):
            continue
        for method, operation in operations.items():
            body = _schema_names(operation.get("requestBody", {}).get("content"))
            ok = next((r for code, r in operation["responses"].items() if code.startswith("2")), {})
            endpoints[(method.upper(), _template(path))] = (body, _schema_names(ok.get("content")))
    made: dict[str, tuple[tuple[str, str], frozenset[str], frozenset[str]]] = {}
    for name, function in vars(calls).items():
        if not (inspect.isfunction(function) and function.__module__ == calls.__name__):
            continue
        source = inspect.getsource(function)
        method = re.search(r'Call\(\s*"(GET|POST|PUT|PATCH|DELETE)"', source)
        if method is None:
            continue
        path = re.search(r'f?"(/v1/[^"]*)"', source)
        assert path is not None, name
        body = re.search(r"_body\(models\.(\w+)", source)
        read = re.search(r"_reader\((?:list\[)?models\.(\w+)", source)
        lines = "content=" in source  # JSON Lines (heuristics import): not a JSON body the document names
        made[name] = (
            (method.group(1), _template(path.group(1))),
            frozenset([_model(body.group(1))] if body and not lines else []),
            frozenset([_model(read.group(1))] if read else []),
        )
    assert sorted(set(endpoints) - {key for key, _, _ in made.values()}) == [], "endpoints without a call"
    assert {n: key for n, (key, _, _) in made.items() if key not in endpoints} == {}, "calls without an endpoint"
    wrong = {
        n: (body, read, endpoints[key])
        for n, (key, body, read) in made.items()
        if body != endpoints[key][0] or not read <= endpoints[key][1]
    }
    assert wrong == {}, "a call's (body, answer) vs its endpoint's (body, answers)"


def _model(name: str) -> str:
    """A client model's generated name, as the OpenAPI document's without its underscores
    (``HistoryPage`` is ``PageHistoryEntry``, the document's ``Page_HistoryEntry_``)."""
    return str(getattr(models, name).__name__)


def _openapi() -> dict[str, Any]:
    from phronesis.embeddings.hashing import HashingEmbedder
    from phronesis.engine import Engine
    from phronesis.server import create_app
    from phronesis.settings import Settings

    settings = Settings(database={"url": "sqlite+aiosqlite:///:memory:"}, embeddings={"spec": "hashing:384"})
    spec: dict[str, Any] = create_app(Engine(settings, embedder=HashingEmbedder(384), llm=None)).openapi()
    return spec
