"""The OpenAPI document as the API behaves: bearer API keys as a security scheme (Swagger
UI's Authorize button), and problem+json (RFC 9457) as the error body of every operation, where
FastAPI's default documents a ``HTTPValidationError`` shape no response of ours has."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from phronesis.api.problems import PROBLEM_JSON

__all__ = ["PROBLEM_SCHEMA", "document"]

BEARER = "apiKey"
PROBLEM_SCHEMA: dict[str, Any] = {
    "title": "Problem",
    "type": "object",
    "description": "An error (RFC 9457 problem details). A refused input names its field.",
    "required": ["type", "title", "status", "detail"],
    "properties": {
        "type": {"type": "string", "description": "Always about:blank: the status and title say what happened."},
        "title": {"type": "string", "description": "The kind of problem: Invalid request, Not found, …"},
        "status": {"type": "integer", "description": "The HTTP status, repeated."},
        "detail": {"type": "string", "description": "What was wrong, in one line a person can act on."},
        "field": {"type": "string", "description": "The first input at fault (dotted path), on a refused input."},
        "errors": {
            "type": "array",
            "description": "Every problem found with the input, each naming its field.",
            "items": {
                "type": "object",
                "properties": {
                    "field": {"type": "string", "description": "The input at fault (dotted path)."},
                    "in": {
                        "type": ["string", "null"],
                        "description": "Where it came from: body, query, path or header.",
                    },
                    "message": {"type": "string", "description": "What is wrong with it."},
                },
            },
        },
        "error_id": {"type": "string", "description": "On a 5xx: the id of the server's log line for it."},
    },
}
EXAMPLES: dict[str, Any] = {
    "HeuristicCreate": {
        "condition_text": "the user says the living room is too cold",
        "action_text": "raise the thermostat by two degrees",
        "domain": "home",
        "confidence": 0.6,
        "examples": ["brr, it's freezing in the lounge", "the living room is chilly"],
        "counter_examples": ["the living room thermostat display is blank"],
    },
    "ExampleIn": {"text": "the lounge is so cold my fingers are numb", "kind": "example"},
    "MatchRequest": {"text": "it is freezing in the lounge", "source": "home", "min_similarity": 0.3},
    "HeuristicUpdate": {"action_text": "raise the thermostat by one degree", "confidence": 0.7},
    "ConfidenceRequest": {"positive": True, "magnitude": 1.0, "source": "user_explicit"},
    "EventRequest": {"text": "the user says the living room is too cold", "source": "home", "urgency": 0.2},
    "Feedback": {"response_id": "3f0c1d2e-…", "rating": "positive"},
    "FireRequest": {"event_id": "ev-42", "source": "home", "response_id": "3f0c1d2e-…"},
    "ObservedEvent": {"event_id": "ev-43", "text": "the thermostat was turned back down", "source": "home"},
    "NewSession": {"lead_context": {"email": "ana@example.com", "company": "Acme"}},
    "RouteRequest": {"query": "How much is the Pro plan?"},
    "MessageIn": {"role": "assistant", "text": "The Pro plan is $49 a month."},
    "RouteFeedbackIn": {"decision_id": "9b2f…", "correct": False, "expected_decision": "CLARIFY"},
    "ToolOutcomeIn": {"tool": "calendar", "success": False, "attempt": 1, "error": "timeout"},
    "ToolPut": {
        "description": "book, reschedule or cancel meetings",
        "examples": ["book a demo call on Friday"],
        "parameters": {"type": "object", "properties": {"time": {"type": "string"}}, "required": ["time"]},
    },
    "DocumentIn": {"id": "pricing", "doc_type": "pricing", "title": "Plans", "text": "The Pro plan is $49 a month."},
    "DocumentBatch": {
        "documents": [
            {"id": "pricing", "doc_type": "pricing", "title": "Plans", "text": "The Pro plan is $49 a month."}
        ]
    },
    "RunIn": {"task": "book a flight to Lisbon", "outcome": "success", "summary": "booked TAP 123 for May 3"},
    "RunBatch": {"runs": [{"task": "renew the passport", "outcome": "success", "summary": "form DS-82 posted"}]},
    "AdmissionFeedbackIn": {"correct": False, "expected_decision": "MERGE", "note": "same booking"},
    "UserIn": {"timezone": "Europe/Lisbon", "wake_time": "07:30", "sleep_time": "23:00"},
    "SignalBatch": {
        "signals": [{"type": "deadline_approaching", "urgency_hint": 8, "data": {"title": "Essay", "due": "Friday"}}]
    },
    "UserMessageIn": {"text": "thanks, on it!"},
    "OptOutIn": {"categories": ["nudge", "social"]},
    "MuteIn": {"minutes": 120},
    "PauseIn": {"paused": True, "reason": "incident 1234"},
    "CycleRequest": {"user_id": "ana"},
    "PreviewIn": {"user_id": "ana"},
    "ReplayIn": {"decision_point": "routing", "parameter": "high_threshold", "value": 0.8},
    "TuneIn": {"decision_point": "proactive", "parameter": "score_threshold.new"},
    "ApplyIn": {"value": 0.8, "note": "tuned: fewer hand-offs at the same success"},
}
"""A request example per body (Swagger's "Try it out" starts from it); each is checked against
its model by a test, so an example cannot drift from what the API takes."""
PARAMETERS: dict[str, str] = {
    "heuristic_id": "The heuristic's id.",
    "response_id": "The decision's id (the ``response_id`` or ``decision_id`` an answer carried).",
    "session_id": "The conversation's id.",
    "document_id": "The document's id.",
    "job_id": "The job's id (as ``POST /v1/documents/jobs`` answered it).",
    "run_id": "The run's id.",
    "decision_id": "The memory decision's id (an admission answer's ``decision_id``).",
    "user_id": "The user's id.",
    "domain": "Only heuristics of this domain (the event source they apply to).",
    "origin": "Only heuristics of this origin: dev, pack, learned or llm.",
    "upsert": "Replace a heuristic whose id exists (its history kept) instead of refusing the import.",
    "kind": "Only decisions of this decision point.",
    "strategy": "Only decisions made by this strategy (e.g. heuristic_first, urgency_tiered).",
    "path": "Only decisions that took this path (e.g. heuristic, llm, rejected).",
    "subject_id": (
        "Only decisions about this subject: an event id (executive), session id (routing), run id"
        " (admission), user id (proactive) or setting name (setting)."
    ),
    "since": "From this time on (ISO 8601; a time without a zone is taken as UTC).",
    "until": "Before this time (ISO 8601; a time without a zone is taken as UTC).",
    "limit": "The most items to return.",
    "offset": "How many items of the listing to skip.",
    "turns": "How many of the session's latest turns to include.",
    "agent_id": "Only runs of this agent.",
    "status": "Only runs with this status: active or superseded.",
    "task_id": "Only runs of this task.",
    "batch_id": "Only decisions of this batch (a batch answer's ``batch_id``).",
    "target_run_id": "Only decisions that replaced or merged into this run.",
    "decision": "Only decisions of this kind: ADD, NOT, REPLACE or MERGE.",
    "q": "What to search for: a task or a question, in plain words.",
    "k": "How many runs at most.",
    "min_similarity": "Leave out runs whose cosine similarity to the query is below this (-1 to 1).",
    "collapse": "One hit per merge group (its canonical run) instead of every member.",
    "pending": "true: only signals not used yet and not expired; false: only used ones; unset: all.",
    "fresh": "Only insights not handed back yet and not expired (false: every insight).",
    "days": "How many days back.",
    "outcome": "Only sends with this feedback outcome.",
    "category": "Only sends of this message category.",
}
"""The query and path parameters' descriptions, by name: a name means one thing across the API."""
_PARAMETERS_AT: dict[tuple[str, str], str] = {
    ("/v1/runs", "user_id"): "Only runs of this user ('' for runs with no user).",
    ("/v1/runs/search", "user_id"): "The user whose runs to search ('' for runs with no user).",
    ("/v1/runs/search", "agent_id"): "The agent whose runs to search.",
    ("/v1/memory-decisions", "user_id"): "Only decisions about runs of this user.",
    ("/v1/memory-decisions", "agent_id"): "Only decisions about runs of this agent.",
    ("/v1/memory-decisions", "run_id"): "Only the decisions that admitted this run.",
    ("/v1/proactive/feedback", "user_id"): "Only this user's sends.",
    ("/v1/tools/{name}", "name"): "The tool's name.",
    ("/v1/settings/{name}", "name"): "The setting's name, e.g. executive.heuristic_threshold.",
    ("/v1/users/{user_id}/timeline", "limit"): "The most events to return.",
}
"""Where a name means something particular on one path."""
_NDJSON_EXAMPLE = '{"condition_text": "the garden is dry", "action_text": "water the beds", "domain": "garden"}\n'
_ERRORS = {
    "4XX": "Refused: problem+json saying why (a 422 names the field; 401 without a valid API key)",
    "5XX": "The server could not do it (503: a dependency is down, retry after Retry-After)",
}


def document(app: FastAPI) -> None:
    """Make ``app.openapi()`` the document described above (built once, on first request)."""

    def build() -> dict[str, Any]:
        if app.openapi_schema is None:
            spec = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            app.openapi_schema = _amend(spec)
        return app.openapi_schema

    app.openapi = build  # type: ignore[method-assign]


def _example(kind: str, content: dict[str, Any]) -> None:
    if kind == "application/x-ndjson":
        content["example"] = _NDJSON_EXAMPLE
        return
    schema = content.get("schema", {})
    name = str(schema.get("$ref", schema.get("items", {}).get("$ref", ""))).rsplit("/", 1)[-1]
    if name in EXAMPLES:
        content["example"] = [EXAMPLES[name]] if "items" in schema else EXAMPLES[name]


def _amend(spec: dict[str, Any]) -> dict[str, Any]:
    components = spec.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for fastapi_own in ("HTTPValidationError", "ValidationError"):
        schemas.pop(fastapi_own, None)
    schemas["Problem"] = PROBLEM_SCHEMA
    components["securitySchemes"] = {
        BEARER: {
            "type": "http",
            "scheme": "bearer",
            "description": "An API key from PHRONESIS_API__KEYS (dev mode on loopback needs none).",
        }
    }
    problem = {PROBLEM_JSON: {"schema": {"$ref": "#/components/schemas/Problem"}}}
    for path, operations in spec.get("paths", {}).items():
        for operation in operations.values():
            for parameter in operation.get("parameters", []):
                name = parameter["name"]
                described = parameter.get("description") or parameter.get("schema", {}).get("description")
                if not described and (text := _PARAMETERS_AT.get((path, name), PARAMETERS.get(name))):
                    parameter["description"] = text
            for kind, content in operation.get("requestBody", {}).get("content", {}).items():
                _example(kind, content)
            responses = operation.setdefault("responses", {})
            for status, response in responses.items():
                if status.startswith(("4", "5")):
                    response["content"] = problem
                    if status == "422":
                        response["description"] = "Invalid input: problem+json naming the field"
            for status, description in _ERRORS.items():
                responses.setdefault(status, {"description": description, "content": problem})
            operation["security"] = [{BEARER: []}] if path.startswith("/v1/") else []
    return spec
