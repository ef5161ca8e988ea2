"""The router's settings section (seed 002; ``PHRONESIS_ROUTING__*``)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, model_validator
from pydantic_settings import NoDecode

from phronesis.schema import Schema
from phronesis.settings_parts import Probability, split_on

__all__ = ["RoutingSettings"]


class RoutingSettings(Schema):
    """Seed 002 (and ORIGINS §2, the code behind it): every number below is the seed's default."""

    router: Literal["local", "llm", "cascade"] = "cascade"
    """local: the fitted router alone; llm: the LLM router alone; cascade: the LLM only when the local one abstains."""
    router_name: str = Field(default="default", min_length=1, max_length=64)
    """The name a tenant's fitted local router is saved and loaded under (``phronesis routing fit``); a
    tenant with no router fitted under it is routed by the bundled one."""
    router_cache_dir: Path | None = None
    """Where the bundled router is kept once fitted (a few hundred kB per model; fitted at a server's
    first start, before it answers, and again only when its exemplars, the model or the fitting code
    change). Unset: ``$XDG_CACHE_HOME/phronesis/routers`` (``~/.cache/phronesis/routers``)."""
    temperature: float = Field(default=0.3, ge=0.0, le=2.0)
    """Sampling temperature of the LLM router's call (ORIGINS §2: the original's ``decide()`` used 0.3)."""
    max_tokens: int = Field(default=500, ge=16, le=8192)
    """Most tokens the LLM router may answer with (ORIGINS §2: 500)."""
    history_turns: int = Field(default=5, ge=0, le=50)
    """How many of the session's latest messages a turn reads and the LLM router's prompt shows (seed 002's
    prompt: "RECENT CONVERSATION: [last 5 messages]"); 0: none."""
    high_threshold: Probability = 0.75
    """≥ this: proceed with the decision."""
    low_threshold: Probability = 0.5
    """Below this: escalate. Between the two: clarify or retrieve more."""
    ambiguity_margin: Probability = 0.1
    """Rasa's ambiguity test: the top two decisions within this margin → CLARIFY."""
    clarify_min_score: Probability = 0.35
    """A CLARIFY without a question offers the documents scoring at least this (below the answering floor:
    they are options to choose from, not sources to answer with)."""
    tool_min_similarity: Probability = 0.4
    """USE_TOOL: a tool is meant only if the query is at least this similar to its description or one
    of its examples (all-MiniLM-L6-v2: the right tool 0.74–0.94 when phrased like an example, 0.3–0.5
    when not; another tool's up to 0.34: "Send me a follow-up email." scores 0.32 against a calendar).
    0.3 named the right tool more often on the sales set's dev half, where every tool is registered,
    but with only a calendar registered it booked meetings for email requests."""
    tool_over_escalation: Probability = 0.8
    """A local ESCALATE (the router's label, not a rule) less sure than this yields to a registered
    tool the query clearly asks for (``tool_choice``): "Change our country to Canada." read as an
    escalation (p 0.73) is what the CRM tool does. 0 turns it off."""
    tool_lexical_weight: Probability = 0.2
    """USE_TOOL: added to a tool's score × the share of the query's content words its texts use
    (``tool_choice.word_overlap``; sales set, dev half, bundled router: the right tool named 26 times
    instead of 20, the wrong one 2 instead of 3)."""
    question_over_escalation: Probability = 0.5
    """A question the local router reads as an escalation, with no seed trigger (no sensitive topic,
    no ask for a person), is answered when a source is at least this similar to it (else
    "can we be billed in GBP?" hands the chat to a person). 1 turns it off."""
    question_over_clarify: Probability = 0.5
    """A question the local router would only ask about (CLARIFY, out of scope) is answered when a
    source is at least this similar to it (else "can the trial be extended?" asks "Is your question
    about Contract terms…?"). A question that leans on what came before ("How much does it cost?",
    the seed's vague example) is still asked about. 1 turns it off."""
    tool_over_router: Probability = 0.6
    """A turn the local router could only ask about, or found out of scope, is a tool call when a
    tool's description or examples match it at least this well ("upgrade to pro 15 seats"). 1 turns it off."""
    tool_margin: Probability = 0.08
    """USE_TOOL: the best tool must lead the runner-up by this much, else the user is asked between the two."""
    out_of_scope_decision: Literal["ESCALATE", "CLARIFY"] = "CLARIFY"
    """What an out-of-scope turn (small talk, the weather) becomes: ``CLARIFY`` says what the agent
    can help with and the conversation goes on; ``ESCALATE`` hands the session to a person
    ("who won the football last night?" makes the session human-owned). A CLARIFY for it does not
    count toward ``max_clarifications``."""
    timezone: str = "UTC"
    """The IANA timezone in which a lead's dates and times are read ("Thursday at 2pm") when its
    ``lead_context`` has no ``timezone``."""
    cascade_threshold: Probability = 0.75
    """Cascade: the local router decides alone when it does not abstain and its probability is at least this."""
    router_weight: Probability = 0.0
    """Final confidence = router_weight·router + (1 − router_weight)·composite. Seed 002's confidence is
    the composite alone (0, the default); the router's confidence enters it as the intent clarity in
    context completeness. Measured on the sales set's dev half (``bench_routing_sales --set
    router_weight=…``): 0 puts 74.6 % of the bundled router's decisions right and 90.7 % of a 90 %
    accurate LLM's, against 73.7 / 90.7 % at 0.5 and 0.6: a blend does not decide better."""
    llm_confidence_ceiling: Probability = 0.8
    """An LLM's self-reported confidence is uncalibrated; it is capped here (GLADyS' 0.8 ceiling)."""
    weight_source_quality: Probability = 0.3
    """Seed 002 ``calculate_confidence``: the weight of source quality in the composite confidence. The four
    weights must sum to 1; with no sources in play this factor is left out and the others renormalised."""
    weight_query_complexity: Probability = 0.2
    """Seed 002 ``calculate_confidence``: the weight of 1 − query complexity in the composite confidence."""
    weight_context_completeness: Probability = 0.3
    """Seed 002 ``calculate_confidence``: the weight of context completeness (CRM fields known, conversation
    depth, the clarity of the intent) in the composite confidence."""
    weight_tool_success: Probability = 0.2
    """Seed 002 ``calculate_confidence``: the weight of the session's tool-call success rate in the composite
    confidence."""
    conflict_penalty: Probability = 0.5
    """Seed 002 ``calculate_confidence``: × 0.5 when retrieved sources conflict."""
    sensitive_topics: Annotated[list[str], NoDecode, split_on(",")] = Field(
        default_factory=lambda: ["refund", "legal", "complaint", "sue", "compensation", "custom"]
    )
    """Seed 002: a query that wants or states one of these (not one that asks about its policy) escalates at
    once as ``sensitive_topic``, with no LLM call. The seed's topics match their word families, others
    their plain inflections; ``,``-separated or a JSON list."""
    critical_topics: Annotated[list[str], NoDecode, split_on(",")] = Field(
        default_factory=lambda: ["contract", "payment", "security", "invoice", "billing"]
    )
    """A query naming one of these is critical: a retrieval failure escalates instead of answering."""
    lead_context_fields: Annotated[list[str], NoDecode, split_on(",")] = Field(
        default_factory=lambda: ["email", "name", "company", "status"]
    )
    """The CRM fields the seed's prompt uses; how many are known is half of context completeness."""
    max_clarifications: int = Field(default=2, ge=1, le=10)
    """Rasa's two-stage fallback: this many CLARIFY turns in a row, then the next low-confidence turn escalates."""
    error_message: str = "I'm experiencing technical difficulties. A team member will assist you."
    """Seed 002's fallback response: what the user is told when a turn escalates because something failed
    (response generation, retrieval, a tool, an internal error)."""
    handoff_message: str = "I'm connecting you with a member of our team who can help with this."
    """What the user is told when a turn escalates for any other reason (a sensitive topic, low confidence,
    an ask for a person): the session goes to a person."""
    retrieval_top_k: int = Field(default=8, ge=1, le=100)
    """Seed ``RAG_TOP_K`` (ORIGINS §2: 8): the most sources one retrieval keeps, reranked from a shortlist
    three times as long; a "retrieve more" asks for twice as many."""
    retrieval_min_score: Probability = 0.5
    """Sources scoring below this (0.6·similarity + 0.2·recency + 0.2·quality) are not kept. The original
    used 0.6, which with all-MiniLM-L6-v2 and documents embedded whole kept a source for 17 % of the
    sales set's factual questions (dev half, ``bench_routing_sales``); 0.45 was chosen then. Documents
    are searched by passage since (``routing.passages``), and a sentence scores higher than its
    document, unrelated ones too (about 0.25): 0.45 kept a policy from a similarity of 0.22, so the
    refund policy came with the price list for "What is your Starter plan pricing?". 0.5 keeps it
    from about 0.3, with the same accuracy on the dev half (router fitted in two folds: 0.45 and 0.5
    83.9 %, 0.55 84.4 %)."""
    retrieval_min_similarity: Probability = 0.4
    """A source must also be this similar to the query by itself (its best passage's cosine): the
    rerank's recency and quality alone give a fresh pricing sheet 0.33-0.39 of the 0.5 it needs,
    so without this an unrelated one is kept ("What is your data retention policy?" answered
    from the price list). Sales set, dev half, router fitted in two folds:
    0 and 0.3 83.9 %, 0.35 and 0.4 84.4 %, 0.45 83.9 % of decisions right; of the two best, the
    one that also keeps the refund policy (0.37) out of "What is your data retention policy?"."""
    rerank_similarity_weight: Probability = 0.6
    """ORIGINS §2's rerank, ``0.6·similarity + 0.2·recency + 0.2·quality``: the weight of the passage's
    cosine similarity to the query. The three weights must sum to 1."""
    rerank_recency_weight: Probability = 0.2
    """The rerank's weight of the document's recency (``exp(−age_days / recency_days)``)."""
    rerank_quality_weight: Probability = 0.2
    """The rerank's weight of the document's doc-type quality (``doc_type_quality``)."""
    recency_days: float = Field(default=90.0, gt=0.0, allow_inf_nan=False)
    """Recency factor ``exp(−age_days / recency_days)``; a document with no date gets ``default_recency``."""
    default_recency: Probability = 0.7
    """The recency of a document with no date (ORIGINS §2: 0.7). The floor (``retrieval_min_score``) reads
    an older document's recency as at least this, so age orders sources but never hides one."""
    doc_type_quality: dict[str, Probability] = Field(
        default_factory=lambda: {"pricing": 0.95, "sop": 0.95, "policy": 0.9, "faq": 0.8, "general": 0.7}
    )
    """Doc type → the quality the rerank and source quality use (ORIGINS §2: sop 0.95, policy 0.9, faq 0.8,
    general 0.7; pricing 0.95 here). A type not listed counts as ``general`` (0.7 when that is left out)."""
    conflict_similarity: Probability = 0.75
    """Two sources of one doc type this similar that state different figures conflict."""
    retrieval_failure_penalty: Probability = 0.7
    """Seed 002: retrieval failed on a non-critical query → REASON_ONLY with confidence × 0.7."""
    max_tool_retries: int = Field(default=3, ge=0, le=3)
    """Retries a failed call of a tool that allows them (``retry_allowed``) gets (ORIGINS §2: up to 3); then a
    critical tool escalates with ``error_message``, and the turn goes on without any other."""
    document_jobs_per_tenant: int = Field(default=4, ge=1, le=1000)
    """Document jobs (``POST /v1/documents/jobs``) a tenant may have waiting or running at once;
    one more is refused (409) until one ends."""
    document_job_chunk_passages: int = Field(default=64, ge=1, le=10_000)
    """A job stores its documents a chunk at a time, each of about this many passages (at least one
    document), committed with the job's progress: a killed worker's job resumes after the last."""
    document_job_busy_share: float = Field(default=0.25, gt=0.0, le=1.0)
    """The share of its time a job works: after each piece it rests for the piece's time ×
    (1/share − 1), and requests meanwhile find the database and the CPU free. A 2 MB job beside a
    decide loop (SQLite, one worker, 2 cores): decide p99 2.5× its idle at 0.5, 2.0× at 0.2."""
    document_job_lease_s: float = Field(default=60.0, ge=1.0, le=3600.0)
    """A running job not heard from in this long (its worker died) is taken over by another worker."""
    document_job_poll_s: float = Field(default=1.0, gt=0.0, le=3600.0)
    """How often each server process looks for a waiting job."""
    document_jobs_in: Literal["process", "server"] = "process"
    """``process``: a server starts a process of its own for waiting jobs, niced, its model on one
    thread (requests keep their speed); ``server``: jobs run in the server's own event loop."""
    document_job_nice: int = Field(default=19, ge=0, le=19)
    """How much lower the job process's priority is than the server's (``nice``)."""

    @model_validator(mode="after")
    def _consistent(self) -> RoutingSettings:
        if self.low_threshold > self.high_threshold:
            raise ValueError("low_threshold must not exceed high_threshold")
        weights = (
            self.weight_source_quality,
            self.weight_query_complexity,
            self.weight_context_completeness,
            self.weight_tool_success,
        )
        if abs(sum(weights) - 1.0) > 1e-6:
            raise ValueError("the four composite confidence weights must sum to 1")
        rerank = self.rerank_similarity_weight + self.rerank_recency_weight + self.rerank_quality_weight
        if abs(rerank - 1.0) > 1e-6:
            raise ValueError("the three rerank weights must sum to 1")
        return self
