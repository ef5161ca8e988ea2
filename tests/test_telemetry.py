"""OpenTelemetry (issue 26): a span per decision with GenAI and phronesis attributes, its trace id
on the record, the HTTP request's span its parent, Celery tasks traced; nothing when off. Read
back with the SDK's in-memory exporter, installed as the process's tracer provider (which
phronesis then uses, as it would a host's own)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from phronesis.embeddings.hashing import HashingEmbedder
from phronesis.engine import Engine
from phronesis.processes.celery_app import create_celery
from phronesis.server import create_app
from phronesis.settings import Settings
from tests.engines import EngineFactory, add_heuristic
from tests.executive.conftest import answering
from tests.loopback import serving_app

EXPORTER = InMemorySpanExporter()


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    """The process's tracer provider, set once (OpenTelemetry allows one), exporting in memory."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(EXPORTER))
        trace.set_tracer_provider(provider)
    EXPORTER.clear()
    yield EXPORTER
    EXPORTER.clear()


def _decisions(exporter: InMemorySpanExporter) -> list[ReadableSpan]:
    return [s for s in exporter.get_finished_spans() if s.name.startswith("phronesis.decision")]


async def test_an_llm_decision_is_a_span_with_genai_attributes_and_its_record_keeps_the_trace(
    make_engine: EngineFactory, spans: InMemorySpanExporter
) -> None:
    engine = await make_engine(llm=answering("Close the window."), otel={"enabled": True})
    assert engine.tracing is not None and "tracing=the process's own tracer provider" in engine.summary()
    decided = await engine.decide_event("the window is open in the rain")
    (span,) = _decisions(spans)
    attributes = dict(span.attributes or {})
    assert span.name == "phronesis.decision executive"
    assert attributes["phronesis.decision.id"] == decided.response_id
    assert (attributes["phronesis.decision.kind"], attributes["phronesis.decision.path"]) == ("executive", "llm")
    assert attributes["phronesis.decision.strategy"] == "heuristic_first"
    assert attributes["gen_ai.operation.name"] == "chat" and attributes["gen_ai.request.model"] == "scripted"
    assert attributes["gen_ai.usage.input_tokens"] > 0 and attributes["gen_ai.usage.output_tokens"] > 0
    assert attributes["phronesis.decision.llm_calls"] == 2
    assert span.end_time is not None and span.start_time is not None
    assert (span.end_time - span.start_time) / 1e6 == pytest.approx(decided.latency_ms, abs=5)
    record = await engine.decisions.get("default", decided.response_id)
    assert record.attributes["trace_id"] == f"{span.context.trace_id:032x}"
    assert record.attributes["span_id"] == f"{span.context.span_id:016x}"


async def test_a_heuristic_fire_has_no_genai_attributes_and_off_means_no_span(
    make_engine: EngineFactory, spans: InMemorySpanExporter
) -> None:
    traced = await make_engine(otel={"enabled": True})
    await add_heuristic(traced, "the kettle has boiled", "pour the tea", 0.9)
    fired = await traced.decide_event("the kettle has boiled")
    (span,) = _decisions(spans)
    assert span.attributes is not None and span.attributes["phronesis.decision.path"] == "heuristic"
    assert not any(key.startswith("gen_ai.") for key in span.attributes)
    spans.clear()
    quiet = await make_engine()  # off by default
    assert quiet.tracing is None and "tracing=off" in quiet.summary()
    again = await quiet.decide_event("the kettle has boiled")
    assert _decisions(spans) == []
    assert "trace_id" not in (await quiet.decisions.get("default", again.response_id)).attributes
    assert "trace_id" in (await traced.decisions.get("default", fired.response_id)).attributes


def test_the_http_request_span_is_the_decision_s_parent(tmp_path: Path, spans: InMemorySpanExporter) -> None:
    settings = Settings(
        data_dir=tmp_path, embeddings={"spec": "hashing:384"}, otel={"enabled": True}, api={"dev_mode": True}
    )
    engine = Engine(settings, embedder=HashingEmbedder(384), llm=None)
    with serving_app(create_app(engine, close_engine=True)) as base:
        answer = httpx.post(f"{base}/v1/events/decide", json={"text": "the garage door is open"}, timeout=10)
        answer.raise_for_status()
        record = httpx.get(f"{base}/v1/decisions/{answer.json()['response_id']}", timeout=10).json()
    (decision,) = _decisions(spans)
    server = next(s for s in spans.get_finished_spans() if s.name == "POST /v1/events/decide")
    assert decision.parent is not None and decision.parent.span_id == server.context.span_id
    assert record["attributes"]["trace_id"] == f"{server.context.trace_id:032x}"
    assert not [s for s in spans.get_finished_spans() if "healthz" in s.name]


def test_celery_tasks_are_traced(tmp_path: Path, spans: InMemorySpanExporter) -> None:
    settings = Settings(
        data_dir=tmp_path,
        proactive={"broker_url": "memory://"},
        otel={"enabled": True},
        embeddings={"spec": "hashing:384"},
    )
    app = create_celery(settings)
    app.conf.task_always_eager = True

    @app.task(name="phronesis.tests.probe")  # type: ignore[untyped-decorator]
    def probe() -> int:
        return 1

    assert probe.apply().get() == 1
    assert any(s.name == "run/phronesis.tests.probe" for s in spans.get_finished_spans()), [
        s.name for s in spans.get_finished_spans()
    ]
