"""OpenTelemetry tracing: optional (``pip install 'phronesis[otel]'``), off by default.

On (``PHRONESIS_OTEL__ENABLED=true``), every decision record is also a span, made where every
record is written (``audit.repository``: one way to record), so all five decision points and
the settings' changes are traced alike. The span carries the GenAI semantic conventions for the
LLM calls the decision made (model, input and output tokens, the operation) and phronesis's own
attributes (kind, path, strategy, confidence, LLM calls, latency); it starts when the decision
started (its latency before the record) and is a child of whatever span is current: the HTTP
request's when FastAPI is instrumented (``instrument_app``), a Celery task's in a worker
(``instrument_celery``). The record keeps the span's trace and span ids (``attributes.trace_id``,
``attributes.span_id``), so a trace leads to the record and the record to its trace.

Where spans go is said, never assumed: a host process that has set its own tracer provider
(``opentelemetry-instrument``, an agent's own set-up) keeps it; otherwise ``exporter`` says
``otlp`` (to the standard ``OTEL_EXPORTER_OTLP_*`` endpoint, logged at start-up) or ``console``.
"""

from __future__ import annotations

import logging
import os
import time
from typing import TYPE_CHECKING, Any, Literal

from phronesis import __version__
from phronesis.exceptions import ConfigurationError

if TYPE_CHECKING:
    from celery import Celery
    from fastapi import FastAPI
    from opentelemetry.trace import Tracer, TracerProvider

    from phronesis.audit.models import NewDecisionRecord

__all__ = ["Tracing", "configure_tracing"]

log = logging.getLogger(__name__)

Exporter = Literal["otlp", "console"]


class Tracing:
    """Spans for decisions, on one tracer provider."""

    def __init__(self, provider: TracerProvider, described: str) -> None:
        self.provider = provider
        self.described = described
        """Where spans go, for the start-up line (``Engine.summary``)."""
        self._tracer: Tracer = provider.get_tracer("phronesis", __version__)

    def decision(self, record: NewDecisionRecord, attributes: dict[str, Any]) -> dict[str, Any]:
        """The span of ``record`` (ended now, started its latency ago); ``attributes`` with the
        span's trace and span ids added, for the stored row."""
        end = time.time_ns()
        start = end - int((record.latency_ms or 0.0) * 1_000_000)
        span = self._tracer.start_span(
            f"phronesis.decision {record.kind}", start_time=start, attributes=span_attributes(record)
        )
        span.end(end_time=end)
        context = span.get_span_context()
        if not context.is_valid:
            return attributes
        return {**attributes, "trace_id": f"{context.trace_id:032x}", "span_id": f"{context.span_id:016x}"}

    def instrument_app(self, app: FastAPI) -> None:
        """A server span per HTTP request, the parent of the decisions it makes."""
        from opentelemetry.instrumentation.fastapi import FastAPIInstrumentor

        FastAPIInstrumentor.instrument_app(app, tracer_provider=self.provider, excluded_urls="healthz,readyz,metrics")

    def instrument_celery(self, app: Celery) -> None:
        """A span per Celery task (a proactive tick, a chunk of cycles), the parent of its decisions."""
        from opentelemetry.instrumentation.celery import CeleryInstrumentor

        instrumentor = CeleryInstrumentor()  # type: ignore[no-untyped-call]
        if not instrumentor.is_instrumented_by_opentelemetry:
            instrumentor.instrument(tracer_provider=self.provider)


def span_attributes(record: NewDecisionRecord) -> dict[str, Any]:
    """GenAI semantic conventions for the decision's LLM calls, and phronesis's own attributes."""
    attributes: dict[str, Any] = {
        "phronesis.decision.id": record.id,
        "phronesis.decision.kind": record.kind,
        "phronesis.decision.path": record.path,
        "phronesis.decision.llm_calls": record.llm_calls,
        "phronesis.tenant": record.tenant,
    }
    optional = {
        "phronesis.decision.subject_id": record.subject_id,
        "phronesis.decision.strategy": record.strategy,
        "phronesis.decision.reason": record.reason,
        "phronesis.decision.confidence": record.confidence,
        "phronesis.decision.latency_ms": record.latency_ms,
    }
    attributes |= {k: v for k, v in optional.items() if v is not None}
    if record.llm_calls:
        attributes["gen_ai.operation.name"] = "chat"
        genai = {
            "gen_ai.request.model": record.model,
            "gen_ai.response.model": record.model,
            "gen_ai.usage.input_tokens": record.prompt_tokens,
            "gen_ai.usage.output_tokens": record.completion_tokens,
        }
        attributes |= {k: v for k, v in genai.items() if v is not None}
    return attributes


def configure_tracing(enabled: bool, exporter: Exporter, service_name: str) -> Tracing | None:
    """The tracing the settings ask for (None: off)."""
    if not enabled:
        return None
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.resources import Resource
        from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
        from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter
    except ImportError:
        raise ConfigurationError(
            "PHRONESIS_OTEL__ENABLED=true needs OpenTelemetry: pip install 'phronesis[otel]'"
        ) from None
    current = trace.get_tracer_provider()
    if isinstance(current, SdkTracerProvider):  # the host process's own: its exporters, its sampling
        return Tracing(current, "the process's own tracer provider")
    provider = SdkTracerProvider(resource=Resource.create({"service.name": service_name}))
    if exporter == "console":
        provider.add_span_processor(BatchSpanProcessor(ConsoleSpanExporter()))
        described = "console"
    else:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

        endpoint = os.environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or os.environ.get(
            "OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318 (OTLP's default)"
        )
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
        described = f"otlp to {endpoint}"
    trace.set_tracer_provider(provider)
    log.info("tracing: %s", described)
    return Tracing(provider, described)
