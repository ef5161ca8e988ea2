"""Both clients against a real ``phronesis serve`` process over loopback (issue 26): a story
through every decision point, replay and settings, and the server's refusals as typed errors."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from phronesis.client import AsyncClient, Client, InvalidRequest, NotFound, Unauthorized
from tests.doc_blocks import GETTING_STARTED_TOUR, README_TOUR, DocBlock, run_doc_python
from tests.processes import phronesis_env, server

pytestmark = pytest.mark.process  # the client against a real server

KEY = "sk-client-test"
DOCS_KEY = "sk-client-docs"
"""The getting-started tour's key: its tenant of its own, so the README's same tour finds nothing of it."""


@pytest.fixture(scope="module")
def base_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data: Path = tmp_path_factory.mktemp("client-server")
    env = phronesis_env(data, PHRONESIS_API__KEYS=json.dumps({KEY: "client-tenant", DOCS_KEY: "docs-tenant"}))
    with server(env) as base:
        yield base


def test_a_story_through_every_decision_point(base_url: str) -> None:
    with Client(base_url, api_key=KEY) as phronesis:
        heuristic = phronesis.heuristics.create(
            {"condition_text": "the greenhouse door is open at night", "action_text": "close it", "confidence": 0.9}
        )
        decided = phronesis.executive.decide({"text": "the greenhouse door is open at night"})
        assert decided.accepted and decided.matched_heuristic_id == heuristic.id
        receipt = phronesis.executive.feedback({"response_id": decided.response_id, "rating": "positive"})
        assert receipt.response_id == decided.response_id
        assert phronesis.decisions.get(decided.response_id).kind == "executive"

        session = phronesis.routing.create_session()
        turn = phronesis.routing.route(session.id, {"query": "Thanks, that helps!"})
        assert turn.decision == "REASON_ONLY"
        rated = phronesis.routing.feedback(session.id, {"decision_id": turn.decision_id, "correct": True})
        assert rated.outcome == "correct"

        run = {"task": "book a flight to Lisbon", "outcome": "success", "summary": "booked TAP 123 for May 3"}
        admitted = phronesis.admission.admit(run)
        assert admitted.decision == "ADD"
        assert phronesis.admission.search("flight to Lisbon").hits[0].run.id == admitted.run_id

        profile = phronesis.proactive.put_user("ana", {"timezone": "UTC"})
        assert profile.id == "ana"
        assert phronesis.proactive.preview({"user_id": "ana"}).decision in ("would_send", "silent")

        report = phronesis.replay.run({"decision_point": "routing", "parameter": "high_threshold", "value": 0.9})
        assert report.decisions >= 1 and report.handoffs_logged is not None
        applied = phronesis.settings.apply("routing.high_threshold", {"value": 0.8, "note": "from the client"})
        assert phronesis.settings.get("routing.high_threshold").value == applied.value == 0.8
        phronesis.settings.apply("routing.high_threshold", {"value": None})


def test_the_servers_refusals_are_typed_errors(base_url: str) -> None:
    with Client(base_url, api_key=KEY) as phronesis:
        with pytest.raises(NotFound):
            phronesis.decisions.get("no-such-decision")
        with pytest.raises(InvalidRequest) as refused:
            phronesis.settings.apply("routing.low_threshold", {"value": 0.9})  # above the high one
        assert refused.value.field == "value" and "routing.high_threshold" in refused.value.detail
    with Client(base_url, api_key="sk-wrong") as stranger, pytest.raises(Unauthorized):
        stranger.routing.create_session()


async def test_the_async_client_tells_the_same_story(base_url: str) -> None:
    async with AsyncClient(base_url, api_key=KEY) as phronesis:
        session = await phronesis.routing.create_session({"lead_context": {"email": "a@b.c"}})
        turn = await phronesis.routing.route(session.id, {"query": "Thanks, that helps!"})
        assert turn.session_id == session.id
        assert (await phronesis.routing.session(session.id)).message_count == 1
        with pytest.raises(NotFound):
            await phronesis.decisions.get("no-such-decision")


@pytest.mark.parametrize(
    ("tour", "key"), [(README_TOUR, KEY), (GETTING_STARTED_TOUR, DOCS_KEY)], ids=["readme", "getting-started"]
)
def test_the_python_tour_runs(
    tour: DocBlock, key: str, base_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The client tour of the README and of the getting-started page, as written, against the
    server (it must not rot); run again, it prints what its comments say a second run prints."""
    monkeypatch.setenv("PHRONESIS_API_KEY", key)
    for admitted in ("ADD", "NOT"):  # the second time the same run is known already
        run_doc_python(*tour, replace=('Client("http://127.0.0.1:8000")', f'Client("{base_url}")'))
        printed = capsys.readouterr().out.splitlines()
        assert printed[:4] == ["heuristic raise the thermostat by two degrees", "REASON_ONLY", admitted, "value"]
        assert printed[4].startswith("value: routing.low_threshold must not be above routing.high_threshold")


def test_every_operation_meets_its_endpoint(base_url: str) -> None:
    """Each operation of the client against the real server: its path, method, body and answer
    model line up with the endpoint's (a wrong one fails here, not in a user's agent)."""
    with Client(base_url, api_key=KEY) as p:
        made = p.heuristics.create({"condition_text": "the cellar is flooding", "action_text": "call a plumber"})
        assert made.id in {h.id for h in p.heuristics.page(limit=1000).items}
        assert p.heuristics.match({"text": "the cellar is flooding", "min_similarity": 0.1}).matches
        assert p.heuristics.update(made.id, {"domain": "house"}).domain == "house"
        assert p.heuristics.evidence(made.id, {"positive": True}).new_confidence > 0
        decided = p.executive.decide({"text": "the cellar is flooding"})
        fire = p.heuristics.record_fire(made.id, {"event_id": "cellar-1", "response_id": decided.response_id})
        assert fire.heuristic_id == made.id
        assert p.executive.observe({"event_id": "cellar-2", "text": "the plumber is on his way"}).event_id == "cellar-2"
        assert p.heuristics.history(made.id).total == len(p.heuristics.history(made.id).items) > 0
        assert p.heuristics.channel() is not None
        exported = p.heuristics.export()
        assert made.id in {h.id for h in exported}
        copy = exported[0].model_copy(update={"id": "copied-1"})
        assert p.heuristics.import_([copy]).ids == ["copied-1"]
        assert p.executive.report().strategies
        assert p.decisions.page(kind="executive").items

        session = p.routing.create_session()
        p.routing.put_tool("calendar", {"description": "book meetings", "examples": ["book a meeting"]})
        assert [t.name for t in p.routing.tools().items] == ["calendar"]
        turn = p.routing.route(session.id, {"query": "book a meeting"})
        outcome = p.routing.tool_outcome(
            session.id, {"tool": "calendar", "success": True, "decision_id": turn.decision_id}
        )
        assert outcome.next_action == "proceed" and outcome.tool_success_rate == 1.0
        assert p.routing.add_message(session.id, {"role": "assistant", "text": "Booked."}).message_count >= 1
        p.routing.delete_tool("calendar")
        (doc,) = p.routing.add_documents([{"id": "hours", "text": "We open at nine."}]).stored
        assert [d.id for d in p.routing.documents().items] == [doc.id]
        replaced = p.routing.put_document(doc.id, {"text": "We open at ten on Sundays."})
        assert (replaced.id, [d.id for d in p.routing.documents().items]) == (doc.id, [doc.id])
        # issue 52: new or replaced is said, and replacing keeps when it was first stored
        assert (replaced.created, replaced.created_at) == (False, doc.created_at)
        assert p.routing.put_document("hours-new", {"text": "Closed on holidays."}).created
        p.routing.delete_document("hours-new")
        p.routing.delete_document(doc.id)
        # issue 52: the API's own body is taken as it is documented, not only a list
        (again,) = p.routing.add_documents({"documents": [{"id": "hours-2", "text": "We close at six."}]}).stored
        p.routing.delete_document(again.id)
        escalated = p.routing.route(session.id, {"query": "I want a refund"})
        assert escalated.decision == "ESCALATE"
        assert p.routing.handback(session.id).mode == "auto"

        batch = p.admission.admit_batch(
            {"runs": [{"task": "renew the passport", "outcome": "success", "summary": "form DS-82 posted"}]}
        )
        run_id = batch.results[0].run_id
        assert p.admission.run(run_id).id == run_id
        assert run_id in {r.id for r in p.admission.runs(limit=1000).items}
        (memory,) = p.admission.decisions(run_id=run_id).items
        assert p.admission.feedback(memory.id, {"correct": True}).decision_id == memory.id
        assert p.admission.undo(memory.id).decision_id == memory.id

        p.proactive.put_user("bo", {"timezone": "UTC"})
        assert p.proactive.user("bo").id == "bo" and "bo" in {u.id for u in p.proactive.users().items}
        stored = p.proactive.add_signals(
            "bo", {"signals": [{"type": "deadline_approaching", "urgency_hint": 9, "data": {"title": "Essay"}}]}
        )
        assert len(stored.stored) == 1 and p.proactive.signals("bo", pending=True).items
        assert p.proactive.run_cycle("bo").user_id == "bo"
        assert p.proactive.run_cycle({"user_id": "bo"}).user_id == "bo"  # the API's own body too
        assert p.proactive.run_tick().users >= 0
        assert isinstance(p.proactive.stats(days=1), dict)
        assert all(f.user_id == "bo" for f in p.proactive.feedback(user_id="bo").items)
        assert p.proactive.timeline("bo").events
        assert isinstance(p.proactive.insights("bo").items, list)
        assert p.proactive.user_message("bo", {"text": "thanks, done!"}).intent == "reply"
        assert p.proactive.feedback_summary("bo").total_sent >= 0
        assert p.proactive.opt_out("bo", {}).id == "bo" and p.proactive.opt_in("bo", {}).id == "bo"
        assert p.proactive.mute("bo", {"minutes": 30}).id == "bo" and p.proactive.unmute("bo").id == "bo"
        assert p.proactive.set_pause({"paused": True, "reason": "test"}).paused
        assert not p.proactive.set_pause({"paused": False}).paused and not p.proactive.pause_state().paused
        p.proactive.delete_user("bo")
        with pytest.raises(NotFound):
            p.proactive.user("bo")
        assert "routing.high_threshold" in {s.name for s in p.settings.list_all().items}
