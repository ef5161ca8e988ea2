"""The OpenAPI document says what the API does (issue 26): bearer keys, problem+json errors."""

from __future__ import annotations

import json

from tests.api.conftest import LiveServer


def test_every_operation_documents_problem_json_and_the_key_it_needs(live_server: LiveServer) -> None:
    with live_server.client(key=None) as client:
        spec = client.get("/openapi.json").json()
    assert spec["components"]["securitySchemes"]["apiKey"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "An API key from PHRONESIS_API__KEYS (dev mode on loopback needs none).",
    }
    assert "HTTPValidationError" not in json.dumps(spec)  # FastAPI's shape: no response of ours has it
    operations = [(path, method, op) for path, ops in spec["paths"].items() for method, op in ops.items()]
    assert len(operations) > 60
    for path, method, op in operations:
        errors = {status: r for status, r in op["responses"].items() if status[0] in "45"}
        assert {"4XX", "5XX"} <= errors.keys(), (method, path)
        for response in errors.values():
            assert response["content"] == {
                "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}}
            }, (method, path)
        assert op["security"] == ([{"apiKey": []}] if path.startswith("/v1/") else []), (method, path)


def test_a_refusal_has_the_documented_shape(live_server: LiveServer) -> None:
    with live_server.client() as client:
        problem_schema = client.get("/openapi.json").json()["components"]["schemas"]["Problem"]
        refused = client.post("/v1/events/decide", json={"source": "home"})
    assert refused.status_code == 422 and refused.headers["content-type"] == "application/problem+json"
    body = refused.json()
    assert set(problem_schema["required"]) <= body.keys() <= problem_schema["properties"].keys()
    assert body["field"] == "text" and body["errors"][0]["in"] == "body"


def test_every_request_body_has_an_example_the_api_takes(live_server: LiveServer) -> None:
    """Swagger's "Try it out" starts from it; a test would fail on one that drifted."""
    from phronesis.client import models
    from phronesis.heuristics.jsonl import parse_jsonl

    with live_server.client(key=None) as client:
        spec = client.get("/openapi.json").json()
    bodies = [
        (p, m, o["requestBody"]) for p, ops in spec["paths"].items() for m, o in ops.items() if "requestBody" in o
    ]
    assert len(bodies) >= 30
    for path, method, body in bodies:
        for kind, content in body["content"].items():
            assert "example" in content, (method, path)
            if kind == "application/x-ndjson":
                assert parse_jsonl(content["example"].encode())
                continue
            schema = content["schema"]
            name = (schema.get("$ref") or schema["items"]["$ref"]).rsplit("/", 1)[-1]
            examples = content["example"] if "items" in schema else [content["example"]]
            for example in examples:
                getattr(models, name).model_validate(example)  # raises if the API would refuse it


def test_every_field_and_parameter_is_described(live_server: LiveServer) -> None:
    """Issue 26: agents read the schema to call the API; a field without a description was
    shown to them as a bare name (670 of 677 were)."""
    with live_server.client(key=None) as client:
        spec = client.get("/openapi.json").json()
    undescribed = [
        f"{name}.{field}"
        for name, schema in spec["components"]["schemas"].items()
        for field, prop in schema.get("properties", {}).items()
        if not prop.get("description")
    ]
    assert undescribed == []
    bare = [
        f"{method} {path} {p['name']}"
        for path, ops in spec["paths"].items()
        for method, op in ops.items()
        for p in op.get("parameters", [])
        if not (p.get("description") or p.get("schema", {}).get("description"))
    ]
    assert bare == []
    fields = sum(len(s.get("properties", {})) for s in spec["components"]["schemas"].values())
    assert fields > 600  # the models, not a handful
