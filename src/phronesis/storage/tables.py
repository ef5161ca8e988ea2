"""The relational schema: one ``tenant`` column on every table (ARCHITECTURE: Data).

Migrations in ``storage/migrations`` create exactly this; a test compares the two.
"""

from __future__ import annotations

from sqlalchemy import (
    JSON,
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    false,
    text,
)

from phronesis.storage.types import EmbeddingBytes, UTCDateTime

__all__ = [
    "admission_calibrations",
    "admission_memory_decisions",
    "admission_run_artifacts",
    "admission_run_references",
    "admission_runs",
    "admission_tasks",
    "confidence_events",
    "decision_records",
    "feedback",
    "heuristic_examples",
    "heuristic_fires",
    "heuristics",
    "index_changes",
    "learning_channel",
    "metadata",
    "proactive_counters",
    "proactive_deferred_insights",
    "proactive_sends",
    "proactive_signals",
    "proactive_suppressions",
    "proactive_tenants",
    "proactive_users",
    "document_jobs",
    "routing_documents",
    "routing_passages",
    "routing_messages",
    "routing_routers",
    "routing_sessions",
    "routing_tool_outcomes",
    "routing_tools",
]

metadata = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

heuristics = Table(
    "heuristics",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("domain", String(128), nullable=False, server_default=""),
    Column("name", String(200), nullable=True),
    Column("condition_text", Text, nullable=False),
    Column("action_text", Text, nullable=False),
    Column("embedding", EmbeddingBytes, nullable=True),
    Column("embedding_model", String(128), nullable=True),
    Column("alpha", Float, nullable=False),
    Column("beta", Float, nullable=False),
    Column("confidence", Float, nullable=False),
    Column("origin", String(16), nullable=False),
    Column("origin_id", String(128), nullable=True),
    Column("locked", Boolean, nullable=False, server_default="0"),
    Column("floor", Float, nullable=False, server_default="0"),
    Column("ceiling", Float, nullable=False, server_default="1"),
    Column("feedback_weight", Float, nullable=False, server_default="1"),
    Column("fire_count", Integer, nullable=False, server_default="0"),
    Column("success_count", Integer, nullable=False, server_default="0"),
    Column("failure_count", Integer, nullable=False, server_default="0"),
    Column("last_fired_at", UTCDateTime, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("attributes", JSON, nullable=False),
    # learning (0003): the prior evidence decays back to, when evidence last arrived, how many
    # signals moved it (F-03 decay) and the running count of consecutive ignores
    Column("prior_alpha", Float, nullable=False, server_default="1"),
    Column("prior_beta", Float, nullable=False, server_default="1"),
    Column("evidence_at", UTCDateTime, nullable=True),
    Column("signal_count", Integer, nullable=False, server_default="0"),
    Column("ignore_streak", Integer, nullable=False, server_default="0"),
    CheckConstraint("alpha > 0 AND beta > 0", name="evidence_positive"),
    CheckConstraint("confidence >= 0 AND confidence <= 1", name="confidence_range"),
    CheckConstraint("floor >= 0 AND ceiling <= 1 AND floor <= ceiling", name="bounds"),
    CheckConstraint("feedback_weight >= 0.25 AND feedback_weight <= 2.0", name="feedback_weight"),
    CheckConstraint("origin IN ('dev', 'pack', 'learned', 'llm')", name="origin"),
    Index("ix_heuristics_tenant_domain", "tenant", "domain"),
    Index("ix_heuristics_tenant_updated_at", "tenant", "updated_at"),
)

heuristic_examples = Table(
    "heuristic_examples",
    metadata,
    # (0022) a heuristic's scope: situations it applies to (``example``) and situations
    # near them it does not (``counter``), given or learned from feedback; searched like conditions
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("heuristic_id", String(64), nullable=False),
    Column("domain", String(128), nullable=False, server_default=""),  # the heuristic's: the index partition
    Column("kind", String(8), nullable=False),
    Column("text", Text, nullable=False),
    Column("origin", String(16), nullable=False),
    Column("taught_by", String(32), nullable=True),
    Column("event_id", String(256), nullable=True),
    Column("fire_id", String(64), nullable=True),
    Column("embedding", EmbeddingBytes, nullable=True),
    Column("embedding_model", String(128), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    CheckConstraint("kind IN ('example', 'counter')", name="kind"),
    CheckConstraint("origin IN ('given', 'learned')", name="origin"),
    ForeignKeyConstraint(["tenant", "heuristic_id"], ["heuristics.tenant", "heuristics.id"], ondelete="CASCADE"),
    Index("ix_heuristic_examples_tenant_heuristic", "tenant", "heuristic_id", "kind", "created_at"),
)

confidence_events = Table(
    "confidence_events",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant", String(64), nullable=False),
    Column("heuristic_id", String(64), nullable=False),
    Column("source", String(64), nullable=False),
    Column("positive", Boolean, nullable=False),
    Column("magnitude", Float, nullable=False),
    Column("old_confidence", Float, nullable=False),
    Column("new_confidence", Float, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    # learning (0003): the signal's idempotency key, what it was about, and the weight applied
    Column("signal_key", String(200), nullable=True),
    Column("event_id", String(256), nullable=True),
    Column("fire_id", String(64), nullable=True),
    Column("weight", Float, nullable=True),
    Column("details", JSON, nullable=True),
    ForeignKeyConstraint(["tenant", "heuristic_id"], ["heuristics.tenant", "heuristics.id"], ondelete="CASCADE"),
    Index("ix_confidence_events_tenant_heuristic", "tenant", "heuristic_id", "created_at"),
    Index("ix_confidence_events_tenant_signal_key", "tenant", "signal_key", unique=True),
)

learning_channel = Table(
    "learning_channel",
    metadata,
    # (0010) per tenant: how often each implicit outcome followed a fire rated as helped or not
    # (``heuristics.channel``); bumped with INSERT … ON CONFLICT, atomic across processes
    Column("tenant", String(64), primary_key=True),
    Column("outcome", String(32), primary_key=True),
    Column("helped", Boolean, primary_key=True),
    Column("count", Float, nullable=False),
)

heuristic_fires = Table(
    "heuristic_fires",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("tenant", String(64), nullable=False),
    Column("heuristic_id", String(64), nullable=False),
    Column("event_id", String(256), nullable=False),
    Column("source", String(128), nullable=False),
    Column("response_id", String(64), nullable=True),
    Column("fired_at", UTCDateTime, nullable=False),
    # at most one implicit signal per firing: implicit_timeout, implicit_undo or implicit_ignored
    Column("implicit_source", String(32), nullable=True),
    Column("implicit_at", UTCDateTime, nullable=True),
    # the standing explicit signal: a later click replaces it (last click wins)
    Column("explicit_source", String(32), nullable=True),
    Column("explicit_positive", Boolean, nullable=True),
    Column("explicit_weight", Float, nullable=True),
    Column("explicit_at", UTCDateTime, nullable=True),
    # (0022) the event that caused it, so feedback can tell a wrong match (a counter-example)
    # from a wrong action (a lower confidence): its text and its vector as matched
    Column("event_text", Text, nullable=True),
    Column("event_embedding", EmbeddingBytes, nullable=True),
    # (0022) a probation fire: the undo it may take back if it goes well (that signal's key)
    Column("probation_of", String(200), nullable=True),
    # (0029) the outcome a caller recorded (GLADyS's UpdateFireOutcome): a record, not evidence
    Column("outcome", String(16), nullable=True),
    Column("outcome_source", String(64), nullable=True),
    Column("outcome_at", UTCDateTime, nullable=True),
    Column("episodic_event_id", String(256), nullable=True),
    # (0029) what a confirming implicit outcome (undo, thanks, complaint) said: counted until rated
    Column("implicit_positive", Boolean, nullable=True),
    ForeignKeyConstraint(["tenant", "heuristic_id"], ["heuristics.tenant", "heuristics.id"], ondelete="CASCADE"),
    Index("ix_heuristic_fires_tenant_source_fired", "tenant", "source", "fired_at"),
    Index("ix_heuristic_fires_tenant_fired", "tenant", "fired_at"),
    Index("ix_heuristic_fires_open", "implicit_source", "fired_at"),
    Index("ix_heuristic_fires_tenant_response", "tenant", "response_id"),
)

decision_records = Table(
    "decision_records",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("tenant", String(64), nullable=False),
    Column("kind", String(32), nullable=False),
    Column("subject_id", String(256), nullable=True),
    Column("strategy", String(64), nullable=True),
    Column("path", String(32), nullable=False),
    Column("action", Text, nullable=True),
    Column("confidence", Float, nullable=True),
    Column("inputs", JSON, nullable=False),
    Column("prompt", Text, nullable=True),
    Column("raw_llm_output", Text, nullable=True),
    Column("model", String(128), nullable=True),
    Column("latency_ms", Float, nullable=True),
    Column("prompt_tokens", Integer, nullable=True),
    Column("completion_tokens", Integer, nullable=True),
    Column("llm_calls", Integer, nullable=True),  # 0009: requests sent to the LLM for this decision
    Column("reason", String(256), nullable=True),
    Column("outcome", String(64), nullable=True),
    Column("outcome_at", UTCDateTime, nullable=True),
    Column("attributes", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Index("ix_decision_records_tenant_kind_created", "tenant", "kind", "created_at"),
    Index("ix_decision_records_tenant_subject", "tenant", "subject_id"),
    Index("ix_decision_records_created", "created_at"),
    # 0018: the rated few, for calibration (an outcome is set by feedback on a small share)
    Index(
        "ix_decision_records_rated",
        "tenant",
        "kind",
        "created_at",
        sqlite_where=text("outcome IS NOT NULL"),
        postgresql_where=text("outcome IS NOT NULL"),
    ),
)

tenant_settings = Table(  # 0019: a tenant's applied setting (tenant_settings), e.g. a tuned threshold
    "tenant_settings",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("name", String(64), primary_key=True),
    Column("value", Float, nullable=True),  # None: the server's configured value
    Column("choice", String(64), nullable=True),  # 0020: a choice's name (executive.strategy), else None
    Column("decision_id", String(64), nullable=True),  # the decision record of the last change
    Column("updated_at", UTCDateTime, nullable=False),
)

decision_rollups = Table(  # 0018: the dashboard's hourly aggregates (audit.rollups)
    "decision_rollups",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("hour", Integer, primary_key=True),  # hours since the epoch, UTC
    Column("kind", String(32), primary_key=True),
    Column("path", String(32), primary_key=True),
    Column("outcome", String(64), primary_key=True),  # the action where it is a word, else ''
    Column("reason", String(64), primary_key=True),
    Column("decisions", Integer, nullable=False),
    Column("llm_calls", Integer, nullable=False),
    Column("prompt_tokens", BigInteger, nullable=False),
    Column("completion_tokens", BigInteger, nullable=False),
    Column("without_llm", Integer, nullable=False),
)

decision_latency_rollups = Table(
    "decision_latency_rollups",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("hour", Integer, primary_key=True),
    Column("kind", String(32), primary_key=True),
    Column("bucket", Integer, primary_key=True),
    Column("decisions", Integer, nullable=False),
)

decision_rollup_marks = Table(
    "decision_rollup_marks",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("until_hour", Integer, nullable=False),  # every hour before it is rolled up
)

feedback = Table(
    "feedback",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant", String(64), nullable=False),
    Column("idempotency_key", String(128), nullable=False),
    Column("response_id", String(64), nullable=False),
    Column("scale", String(16), nullable=False),
    Column("score", Integer, nullable=False),
    Column("magnitude", Float, nullable=False),
    Column("source", String(32), nullable=False),
    Column("heuristic_id", String(64), nullable=True),
    Column("effect", String(32), nullable=False),
    Column("comment", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    UniqueConstraint("tenant", "idempotency_key", name="uq_feedback_tenant_idempotency_key"),
    Index("ix_feedback_tenant_response", "tenant", "response_id"),
)

# -- routing (seed 002, migration 0004) ---------------------------------------------------

routing_sessions = Table(
    "routing_sessions",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("mode", String(8), nullable=False, server_default="auto"),
    Column("lead_context", JSON, nullable=False),
    Column("retrieved_sources", JSON, nullable=False),
    Column("message_count", Integer, nullable=False, server_default="0"),
    # counters updated in SQL (ARCHITECTURE: Data), never read-modify-write
    Column("tool_calls", Integer, nullable=False, server_default="0"),
    Column("tool_failures", Integer, nullable=False, server_default="0"),
    Column("clarifications", Integer, nullable=False, server_default="0"),
    Column("escalation_reason", String(64), nullable=True),
    Column("escalated_at", UTCDateTime, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    # (0023) what the session waits for: a tool call's arguments, a yes, an answer
    Column("pending", JSON, nullable=True),
    CheckConstraint("mode IN ('auto', 'human')", name="mode"),
)

routing_messages = Table(
    "routing_messages",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant", String(64), nullable=False),
    Column("session_id", String(64), nullable=False),
    Column("role", String(16), nullable=False),
    Column("text", Text, nullable=False),
    Column("decision_id", String(64), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    ForeignKeyConstraint(
        ["tenant", "session_id"], ["routing_sessions.tenant", "routing_sessions.id"], ondelete="CASCADE"
    ),
    CheckConstraint("role IN ('user', 'assistant', 'human_agent', 'system')", name="role"),
    Index("ix_routing_messages_tenant_session", "tenant", "session_id", "id"),
)

routing_tool_outcomes = Table(
    "routing_tool_outcomes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("tenant", String(64), nullable=False),
    Column("session_id", String(64), nullable=False),
    Column("tool", String(64), nullable=False),
    Column("success", Boolean, nullable=False),
    Column("attempt", Integer, nullable=False),
    Column("error", Text, nullable=True),
    Column("decision_id", String(64), nullable=True),
    Column("next_action", String(32), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    ForeignKeyConstraint(
        ["tenant", "session_id"], ["routing_sessions.tenant", "routing_sessions.id"], ondelete="CASCADE"
    ),
    Index("ix_routing_tool_outcomes_tenant_session", "tenant", "session_id", "tool"),
)

routing_tools = Table(
    "routing_tools",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("name", String(64), primary_key=True),
    Column("description", Text, nullable=False),
    Column("parameters", JSON, nullable=False),
    Column("examples", JSON, nullable=True),  # (0011) requests the tool serves, to choose it by
    Column("critical", Boolean, nullable=False, server_default="0"),
    Column("retry_allowed", Boolean, nullable=False, server_default="1"),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("read_only", Boolean, nullable=False, server_default="0"),  # (0023) never confirmed
    Column("confirm", Boolean, nullable=False, server_default="0"),  # (0023) always confirmed
)

routing_documents = Table(
    "routing_documents",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("doc_type", String(32), nullable=False),
    Column("title", String(300), nullable=False, server_default=""),
    Column("text", Text, nullable=False),
    Column("embedding", EmbeddingBytes, nullable=False),
    Column("embedding_model", String(128), nullable=False),
    Column("published_at", UTCDateTime, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("attributes", JSON, nullable=False),
    Column("status", String(16), nullable=False, server_default="current"),  # (0023) or superseded
    Index("ix_routing_documents_tenant_created", "tenant", "created_at"),
)

document_jobs = Table(
    # (0028) documents added in the background, a chunk at a time: what a job still has to store
    # (``documents``, emptied when it ends), how far it got (committed with each chunk, so a job a
    # killed worker left resumes where it stopped), and which worker holds it until when
    "document_jobs",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("status", String(12), nullable=False),
    Column("documents", JSON, nullable=False),
    Column("document_ids", JSON, nullable=False),
    Column("documents_done", Integer, nullable=False, server_default="0"),
    Column("passages_done", Integer, nullable=False, server_default="0"),
    Column("error", Text, nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("lease_until", UTCDateTime, nullable=True),
    CheckConstraint("status IN ('queued', 'running', 'done', 'failed', 'cancelled')", name="status"),
    Index("ix_document_jobs_tenant_created", "tenant", "created_at"),
    Index(None, "status", "created_at", sqlite_where=text("status IN ('queued', 'running')"),
          postgresql_where=text("status IN ('queued', 'running')")),  # fmt: skip
)

routing_passages = Table(
    "routing_passages",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(80), primary_key=True),  # DOCUMENT_ID#N (routing.passages)
    Column("document_id", String(64), nullable=False),
    Column("n", Integer, nullable=False),
    Column("text", Text, nullable=False),
    Column("embedding", EmbeddingBytes, nullable=True),  # None: not embedded yet (migrated documents)
    Column("embedding_model", String(128), nullable=True),
    Index("ix_routing_passages_tenant_document", "tenant", "document_id"),
)

routing_routers = Table(
    "routing_routers",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("name", String(64), primary_key=True),
    Column("version", Integer, nullable=False),
    Column("details", JSON, nullable=False),
    Column("weights", LargeBinary, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

# --- admission (seed 003): the run knowledge base the seed keeps in Neo4j, as relations ---

admission_tasks = Table(
    "admission_tasks",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("text", Text, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

admission_runs = Table(
    "admission_runs",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("agent_id", String(64), nullable=False),
    Column("user_id", String(64), nullable=False, server_default=""),
    Column("task_id", String(64), nullable=False),
    Column("task", Text, nullable=False),
    Column("summary", Text, nullable=False),
    Column("summary_source", String(16), nullable=False),
    Column("outcome", String(8), nullable=False),
    Column("content_hash", String(64), nullable=False),
    Column("embedding", EmbeddingBytes, nullable=False),
    Column("embedding_model", String(128), nullable=False),
    Column("status", String(12), nullable=False, server_default="active"),
    Column("superseded_by", String(64), nullable=True),
    Column("superseded_at", UTCDateTime, nullable=True),
    Column("merge_group", String(64), nullable=True),
    Column("canonical", Boolean, nullable=False, server_default="1"),
    # counters updated in SQL (ARCHITECTURE: Data), never read-modify-write
    Column("usage_count", Integer, nullable=False, server_default="1"),
    Column("duplicate_count", Integer, nullable=False, server_default="0"),
    Column("attributes", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    CheckConstraint("outcome IN ('success', 'failure', 'partial')", name="outcome"),
    CheckConstraint("status IN ('active', 'superseded')", name="status"),
    # the same run admitted twice at once: one insert wins, the other is re-decided as NOT
    UniqueConstraint("tenant", "agent_id", "user_id", "content_hash", name="uq_admission_runs_content"),
    Index("ix_admission_runs_scope_task", "tenant", "agent_id", "user_id", "task_id"),
    Index("ix_admission_runs_group", "tenant", "merge_group"),
    Index("ix_admission_runs_superseded_by", "tenant", "superseded_by"),
    Index("ix_admission_runs_superseded_at", "status", "superseded_at"),
)


def _run_fk() -> ForeignKeyConstraint:
    return ForeignKeyConstraint(
        ["tenant", "run_id"], ["admission_runs.tenant", "admission_runs.id"], ondelete="CASCADE"
    )


admission_run_references = Table(
    "admission_run_references",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("value", String(512), primary_key=True),
    _run_fk(),
    Index("ix_admission_run_references_value", "tenant", "value"),
)

admission_run_artifacts = Table(
    "admission_run_artifacts",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("run_id", String(64), primary_key=True),
    Column("value", String(512), primary_key=True),
    _run_fk(),
    Index("ix_admission_run_artifacts_value", "tenant", "value"),
)

admission_memory_decisions = Table(
    "admission_memory_decisions",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("run_id", String(64), nullable=False),
    Column("agent_id", String(64), nullable=False),
    Column("user_id", String(64), nullable=False, server_default=""),
    Column("decision", String(8), nullable=False),
    Column("target_run_id", String(64), nullable=True),
    Column("reason", Text, nullable=False),
    Column("similarity", Float, nullable=True),
    Column("stage", String(16), nullable=False),
    Column("rule", String(64), nullable=True),
    Column("similar_runs", JSON, nullable=False),
    Column("batch_id", String(64), nullable=True),
    Column("created_at", UTCDateTime, nullable=False),
    Column("prior", JSON, nullable=True),  # what undo restores (admission.removal); None before 0016
    Column("undone_at", UTCDateTime, nullable=True),
    Column("undone_by", String(64), nullable=True),
    CheckConstraint("decision IN ('ADD', 'NOT', 'REPLACE', 'MERGE')", name="decision"),
    Index("ix_admission_memory_decisions_created", "tenant", "created_at"),
    Index("ix_admission_memory_decisions_run", "tenant", "run_id"),
    Index("ix_admission_memory_decisions_stage", "stage", "rule"),
)

admission_calibrations = Table(
    "admission_calibrations",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("duplicate_threshold", Float, nullable=False),
    Column("details", JSON, nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
)

# --- proactive (seed 004) -------------------------------------------------------------

proactive_users = Table(
    "proactive_users",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("timezone", String(64), nullable=False),
    Column("wake_time", String(5), nullable=False),
    Column("sleep_time", String(5), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("interaction_count", Integer, nullable=False, server_default="0"),
    Column("last_active_at", UTCDateTime, nullable=True),
    Column("last_user_message_at", UTCDateTime, nullable=True),
    Column("channel", String(16), nullable=False),
    Column("address", String(512), nullable=True),
    Column("calendar_url", String(2048), nullable=True),
    Column("ignored_signal_types", JSON, nullable=False),
    Column("patterns", JSON, nullable=False),
    Column("learned_ignored_types", JSON, nullable=False),
    Column("updated_at", UTCDateTime, nullable=False),
    Column("opted_out", Boolean, nullable=False, server_default=false()),
    Column("opted_out_categories", JSON, nullable=True),
    Column("muted_until", UTCDateTime, nullable=True),
    Column("opted_out_topics", JSON, nullable=True),
    Column("opted_in_topics", JSON, nullable=True),
)


def _user_fk() -> ForeignKeyConstraint:
    return ForeignKeyConstraint(
        ["tenant", "user_id"], ["proactive_users.tenant", "proactive_users.id"], ondelete="CASCADE"
    )


proactive_signals = Table(
    "proactive_signals",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("user_id", String(64), nullable=False),
    Column("type", String(64), nullable=False),
    Column("urgency_hint", Integer, nullable=False),
    Column("data", JSON, nullable=False),
    Column("context_only", Boolean, nullable=False),
    Column("dedup_key", String(256), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("consumed_at", UTCDateTime, nullable=True),
    Column("cycle_key", String(64), nullable=True),
    # what the signal became when a cycle used it, and why (``proactive.fates``)
    Column("outcome", String(32), nullable=True),
    Column("outcome_reason", String(512), nullable=True),
    Column("outcome_ref", String(64), nullable=True),
    # deferred at night with its moment after the user's wake: waits, unused, until then
    Column("retry_at", UTCDateTime, nullable=True),
    _user_fk(),
    CheckConstraint("urgency_hint BETWEEN 1 AND 10", name="urgency"),
    # the same signal twice (a source re-polled) is stored once
    UniqueConstraint("tenant", "user_id", "dedup_key", name="uq_proactive_signals_dedup"),
    # the one index: a tick probes each user's pending signals through it (see SignalRepository.due_users)
    Index("ix_proactive_signals_user", "tenant", "user_id", "consumed_at", "expires_at"),
)

# a cycle's slot held while it decides (else a run that lost the same-slot race still asks the
# LLM: 4 calls for one send): the first run of a (user, slot) holds it, the others stop
# before any candidate is generated; released when the run ends (a send keeps the slot itself)
proactive_cycle_claims = Table(
    "proactive_cycle_claims",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("cycle_key", String(64), primary_key=True),
    Column("claimed_at", UTCDateTime, nullable=False),
)

proactive_sends = Table(
    "proactive_sends",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("user_id", String(64), nullable=False),
    Column("cycle_key", String(64), nullable=False),
    Column("message", Text, nullable=False),
    Column("category", String(32), nullable=False),
    Column("trigger_signals", JSON, nullable=False),
    Column("action_type", String(16), nullable=False),
    Column("channel", String(16), nullable=False),
    Column("score", Float, nullable=True),
    Column("probability", Float, nullable=True),
    Column("delivery_status", String(12), nullable=False),
    Column("delivery_detail", Text, nullable=True),
    Column("sent_at", UTCDateTime, nullable=False),
    Column("outcome", String(16), nullable=False, server_default="pending"),
    Column("response_latency_seconds", Float, nullable=True),
    Column("outcome_at", UTCDateTime, nullable=True),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("next_attempt_at", UTCDateTime, nullable=True),
    Column("decision_id", String(64), nullable=True),
    # the outbox: deliveries tried so far, and when a send still ``sending`` is tried
    # again (its lease: a worker killed after the commit leaves the send there)
    _user_fk(),
    CheckConstraint("delivery_status IN ('sending', 'sent', 'failed')", name="delivery"),
    CheckConstraint("outcome IN ('pending', 'engaged', 'ignored', 'negative', 'button_click')", name="outcome"),
    # exactly once per (user, cycle): a retried task or a second worker cannot send again
    UniqueConstraint("tenant", "user_id", "cycle_key", name="uq_proactive_sends_cycle"),
    Index("ix_proactive_sends_user_time", "tenant", "user_id", "sent_at"),
    Index("ix_proactive_sends_outcome", "tenant", "outcome", "sent_at"),
    # the outbox: only sends still being delivered (a handful), so the planner never prefers it
    # for the status filters of the per-user reads
    Index(
        "ix_proactive_sends_outbox",
        "next_attempt_at",
        postgresql_where=text("delivery_status = 'sending'"),
        sqlite_where=text("delivery_status = 'sending'"),
    ),
    # (0027) per tenant, the same few: the outbox's tick reads them oldest first
    Index(
        "ix_proactive_sends_sending",
        "tenant",
        "sent_at",
        postgresql_where=text("delivery_status = 'sending'"),
        sqlite_where=text("delivery_status = 'sending'"),
    ),
    # (0027) sends waiting for feedback (a few a user): the sweep, a reply's lookup and the tick's
    # list of tenants walked every send a tenant ever made
    Index(
        "ix_proactive_sends_pending",
        "tenant",
        "user_id",
        "sent_at",
        postgresql_where=text("outcome = 'pending'"),
        sqlite_where=text("outcome = 'pending'"),
    ),
)
"""Proactive messages and their feedback (seed 004's ProactiveFeedback is one row per send)."""

proactive_deferred_insights = Table(
    "proactive_deferred_insights",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("user_id", String(64), nullable=False),
    Column("category", String(32), nullable=False),
    Column("message_draft", Text, nullable=False),
    Column("trigger_signals", JSON, nullable=False),
    Column("relevance_score", Float, nullable=False),
    Column("cycle_key", String(64), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    Column("expires_at", UTCDateTime, nullable=False),
    Column("used", Boolean, nullable=False, server_default="0"),
    Column("used_at", UTCDateTime, nullable=True),
    _user_fk(),
    Index("ix_proactive_deferred_insights_fresh", "tenant", "user_id", "used", "expires_at"),
)

proactive_suppressions = Table(
    "proactive_suppressions",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("user_id", String(64), primary_key=True),
    Column("topic", String(80), primary_key=True),
    Column("reason", String(32), nullable=False),
    Column("suppressed_at", UTCDateTime, nullable=False),
    Column("probation_at", UTCDateTime, nullable=False),
    _user_fk(),
)
"""What a user's feedback switched off, each until its probation date (seed 004 §5, ORIGINS §4): a
signal type (``type:weather_alert``) or, for messages no signal type stood behind, a category."""

proactive_tenants = Table(
    "proactive_tenants",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("paused", Boolean, nullable=False),
    Column("reason", String(500), nullable=True),
    Column("updated_at", UTCDateTime, nullable=False),
)
"""A tenant's kill switch: while paused no cycle of theirs sends anything."""

proactive_counters = Table(
    "proactive_counters",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("day", String(10), primary_key=True),
    Column("name", String(48), primary_key=True),
    Column("value", BigInteger, nullable=False),
)
"""Proactive counters per tenant and UTC day (``proactive.counters``): cycles by outcome (sent,
every block reason), LLM calls and tokens, deliveries, feedback. Why users were not messaged,
counted even when blocked cycles are not recorded one by one."""

proactive_user_events = Table(
    "proactive_user_events",
    metadata,
    Column("tenant", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),
    Column("user_id", String(64), nullable=True),
    Column("at", UTCDateTime, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("summary", String(600), nullable=False),
    Column("details", JSON, nullable=False),
    _user_fk(),
    Index("ix_proactive_user_events_user_time", "tenant", "user_id", "at"),
)
"""What a user or their tenant did about proactive messages (the timeline): a reply
with its text and how it was read, an opt-out or opt-in, a mute, a pause (``user_id`` NULL:
every user of the tenant). Without them the timeline shows the sends but not why they stopped."""

# --- vector indexes ---------------------------------------------------------------------

index_changes = Table(
    "index_changes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("collection", String(16), nullable=False),
    Column("tenant", String(64), nullable=False),
    Column("key", String(64), nullable=False),
    Column("op", String(8), nullable=False),
    Column("created_at", UTCDateTime, nullable=False),
    CheckConstraint("op IN ('add', 'remove')", name="op"),
    Index("ix_index_changes_collection_id", "collection", "id"),
    sqlite_autoincrement=True,  # an id is never used twice, even after a rollback (see ChangeLog.own)
)
"""Every change to a searched set of vectors (heuristics, runs, documents), written in the same
transaction as the change itself, so every process's in-memory index follows the database
(``storage.change_feed``): ``add`` means "index this key as its row now stands", ``remove``
means "drop it"."""
