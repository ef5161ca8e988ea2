"""The API's models, generated from the server's OpenAPI document by
``tools/generate_client_models.py`` (datamodel-code-generator): do not edit; regenerate."""

# ruff: noqa

from __future__ import annotations
from typing import Annotated, Any, Literal
from pydantic import AwareDatetime, ConfigDict, Field
from phronesis.client.base import Model
from typing_extensions import TypeAliasType


Note = TypeAliasType("Note", Annotated[str, Field(max_length=2000, title="Note")])
"""
Free text kept with the rating, at most 2000 characters; nothing learns from it.
"""


class AdmissionFeedbackIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    correct: Annotated[bool, Field(title="Correct")]
    """
    Whether the decision was right: a JSON true or false ("yes" or 1 is refused).
    """
    expected_decision: Annotated[
        Literal["ADD", "NOT", "REPLACE", "MERGE"] | None,
        Field(title="Expected Decision"),
    ] = None
    """
    What it should have been (only when not correct).
    """
    note: Annotated[Note | None, Field(title="Note")] = None
    """
    Free text kept with the rating, at most 2000 characters; nothing learns from it.
    """


class AppliedSetting(Model):
    applied: Annotated[float | str | int | None, Field(title="Applied")]
    """
    The tenant's own value (None: it uses the configured one).
    """
    configured: Annotated[float | str | int | None, Field(title="Configured")]
    """
    The server's configured value: what decisions use when the tenant has none of its own.
    """
    decision_id: Annotated[str | None, Field(title="Decision Id")]
    """
    The decision record of the last change (``GET /v1/decisions/{id}``).
    """
    name: Annotated[
        Literal[
            "executive.heuristic_threshold",
            "executive.personality_bias",
            "executive.strategy",
            "executive.urgency.threshold_reduction",
            "executive.urgency.immediate_min",
            "executive.urgency.soon_min",
            "executive.urgency.reasonable_similarity",
            "executive.urgency.high_similarity",
            "routing.cascade_threshold",
            "routing.high_threshold",
            "routing.low_threshold",
            "admission.low_similarity",
            "admission.duplicate_threshold",
            "proactive.score_threshold.new",
            "proactive.score_threshold.building",
            "proactive.score_threshold.established",
            "proactive.score_threshold.deep",
            "proactive.weight.relevance",
            "proactive.weight.timing",
            "proactive.weight.urgency",
            "proactive.daily_cap.new",
            "proactive.daily_cap.building",
            "proactive.daily_cap.established",
            "proactive.daily_cap.deep",
        ],
        Field(title="Name"),
    ]
    """
    The setting's dotted name (e.g. ``proactive.daily_cap.new``).
    """
    updated_at: Annotated[AwareDatetime | None, Field(title="Updated At")]
    """
    When the tenant's value was last applied or reset (UTC). None: never changed.
    """
    value: Annotated[float | str | int | None, Field(title="Value")]
    """
    What decisions use now: the tenant's value, else the configured one.
    """
    warning: Annotated[str | None, Field(title="Warning")] = None
    """
    Why the value, though taken, will not do what it says on this server (``always_llm`` where no
    LLM is configured); None when nothing stands in its way.
    """


Note1 = TypeAliasType("Note1", Annotated[str, Field(max_length=1000, title="Note")])
"""
Why: kept on the setting's decision record (e.g. the replay or tuning behind it).
"""


Value = TypeAliasType("Value", Annotated[str, Field(max_length=64, title="Value")])
"""
The tenant's value: a JSON number (``true`` is not 1) within the setting's range (most are
0 to 1; ``executive.heuristic_threshold`` 0.3 to 0.95, ``executive.personality_bias`` -0.5 to
0.5, ``proactive.score_threshold.*`` 0 to 10, ``proactive.daily_cap.*`` a whole number 0 to
50), or for ``executive.strategy`` one of ``heuristic_first``, ``always_llm``,
``urgency_tiered``. Null puts the server's configured value back.
"""


class ApplyIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    note: Annotated[Note1 | None, Field(title="Note")] = None
    """
    Why: kept on the setting's decision record (e.g. the replay or tuning behind it).
    """
    value: Annotated[float | Value | None, Field(title="Value")]
    """
    The tenant's value: a JSON number (``true`` is not 1) within the setting's range (most are
    0 to 1; ``executive.heuristic_threshold`` 0.3 to 0.95, ``executive.personality_bias`` -0.5 to
    0.5, ``proactive.score_threshold.*`` 0 to 10, ``proactive.daily_cap.*`` a whole number 0 to
    50), or for ``executive.strategy`` one of ``heuristic_first``, ``always_llm``,
    ``urgency_tiered``. Null puts the server's configured value back.
    """


class ArgumentProblem(Model):
    field: Annotated[str, Field(title="Field")]
    """
    The argument at fault (a dotted path for a nested one), or ``(arguments)`` for the whole.
    """
    problem: Annotated[str, Field(title="Problem")]
    """
    What is wrong: ``missing``, or the JSON Schema validation message.
    """
    tool: Annotated[str, Field(title="Tool")]
    """
    The tool whose arguments have the problem.
    """


class CandidatePreview(Model):
    action_type: Annotated[str, Field(title="Action Type")]
    """
    ``text``, or ``button_prompt`` for a yes/no question.
    """
    category: Annotated[str, Field(title="Category")]
    """
    The candidate's category (e.g. ``deadline_warning``).
    """
    message: Annotated[str, Field(title="Message")]
    """
    The candidate's text.
    """
    probability: Annotated[float, Field(title="Probability")]
    """
    The chance of this verdict given the score: 1, except for ``deferred`` in the exploration band, which had 1 minus
    the exploration rate.
    """
    score: Annotated[float, Field(title="Score")]
    """
    Its composite score, 0 to 10 (the tenant's weights of relevance, timing and urgency).
    """
    verdict: Annotated[str, Field(title="Verdict")]
    """
    approved, deferred, below_threshold, duplicate, suppressed or opted_out. A preview draws no
    exploration: a candidate in the exploration band shows ``deferred`` with the chance it had.
    """


class Change(Model):
    decisions: Annotated[int, Field(title="Decisions")]
    """
    How many logged decisions changed this way.
    """
    examples: Annotated[list[str] | None, Field(title="Examples")] = None
    """
    The first few of these decisions' ids, to look up (``GET /v1/decisions/{id}``, the
    dashboard's decision page).
    """
    logged: Annotated[str, Field(title="Logged")]
    """
    What the logged decisions did, as a short label (e.g. ``local: RETRIEVE``, a heuristic and
    its action, ``silent``).
    """
    replayed: Annotated[str, Field(title="Replayed")]
    """
    What they would do under the replayed value, as a short label; ``?`` where it cannot be
    known from the logs (e.g. what the LLM would have answered).
    """


class ChannelOutcome(Model):
    helped_share_at_half: Annotated[float, Field(title="Helped Share At Half")]
    """
    What one such outcome counts for success on a heuristic at confidence 0.5.
    """
    outcome: Annotated[str, Field(title="Outcome")]
    """
    The implicit outcome: implicit_timeout (no follow-up within the undo window), implicit_undo, implicit_ignored or
    user_implicit (thanks or confirmation).
    """
    p_given_helped: Annotated[float, Field(title="P Given Helped")]
    """
    P(outcome | the fire helped): the prior with what rated fires taught.
    """
    p_given_not_helped: Annotated[float, Field(title="P Given Not Helped")]
    """
    P(outcome | the fire did not help): the prior with what rated fires taught.
    """
    rated_helped: Annotated[int, Field(title="Rated Helped")]
    """
    Fires rated as helpful (standing rating) that had this outcome.
    """
    rated_not_helped: Annotated[int, Field(title="Rated Not Helped")]
    """
    Fires rated as not helpful (standing rating) that had this outcome.
    """


class ChannelReport(Model):
    outcomes: Annotated[list[ChannelOutcome], Field(title="Outcomes")]
    """
    One entry per implicit outcome.
    """
    strategy: Annotated[str, Field(title="Strategy")]
    """
    The learning strategy in use: bayesian, discounted_beta or calibrated.
    """
    weighs_outcomes: Annotated[bool, Field(title="Weighs Outcomes")]
    """
    Whether the strategy weighs implicit outcomes through this channel (``calibrated``); the
    counts are kept whatever the strategy, so switching to it starts from what was learned.
    """


class CompositeConfidence(Model):
    base: Annotated[float | None, Field(title="Base")] = 0.0
    """
    The weighted factors alone (the routing service blends this with the router's confidence and
    applies the penalties to the blend, so a penalty acts on the final confidence).
    """
    conflict: Annotated[bool, Field(title="Conflict")]
    """
    Whether retrieved sources conflict (state different figures); if so ``value`` carries the
    conflict penalty.
    """
    details: Annotated[dict[str, Any], Field(title="Details")]
    """
    How each factor was measured: ``query_complexity`` (word, analysis-term, comparison, extra
    question and clause counts), ``context_completeness`` (lead fields known, prior turns, intent
    clarity) and ``source_quality`` (sources graded, or ``applicable`` false).
    """
    factors: Annotated[dict[str, float | None], Field(title="Factors")]
    """
    Each factor's value; None where it did not apply.
    """
    value: Annotated[float, Field(title="Value")]
    """
    The composite confidence: the weighted factors, × the conflict penalty when sources conflict.
    """
    weights: Annotated[dict[str, float], Field(title="Weights")]
    """
    The weights used (renormalised when a factor did not apply).
    """


Magnitude = TypeAliasType(
    "Magnitude", Annotated[float, Field(gt=0.0, le=10.0, title="Magnitude")]
)
"""
Evidence weight, above 0 and at most 10; unset means 1.0. 0 is refused, never read as 1.0.
"""


class ConfidenceRequest(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    magnitude: Annotated[Magnitude | None, Field(title="Magnitude")] = None
    """
    Evidence weight, above 0 and at most 10; unset means 1.0. 0 is refused, never read as 1.0.
    """
    positive: Annotated[bool, Field(title="Positive")]
    """
    True: evidence the heuristic's action was right; false: that it was wrong.
    """
    source: Annotated[
        str | None,
        Field(max_length=64, min_length=1, pattern="^[a-z0-9_.:-]+$", title="Source"),
    ] = "api"
    """
    Where the evidence came from (e.g. ``user_explicit``, ``dev``), kept in the heuristic's history.
    """


class ConfidenceUpdate(Model):
    alpha: Annotated[float, Field(title="Alpha")]
    """
    Its evidence for, after the update (a pseudo-count, the prior included).
    """
    applied: Annotated[bool, Field(title="Applied")]
    """
    False when the heuristic is locked: nothing changed.
    """
    beta: Annotated[float, Field(title="Beta")]
    """
    Its evidence against, after the update (a pseudo-count, the prior included).
    """
    delta: Annotated[float, Field(title="Delta")]
    """
    new_confidence minus old_confidence; 0 when nothing changed.
    """
    effect: Annotated[str | None, Field(title="Effect")] = "updated"
    """
    ``updated``, ``locked`` (nothing changes), or ``duplicate`` (this signal's key was already applied).
    """
    heuristic_id: Annotated[str, Field(title="Heuristic Id")]
    """
    The heuristic the evidence was about.
    """
    magnitude: Annotated[float, Field(title="Magnitude")]
    """
    The signal's strength as sent, before feedback_weight and decay.
    """
    new_confidence: Annotated[float, Field(title="New Confidence")]
    """
    Its confidence after, 0 to 1, within its floor and ceiling.
    """
    old_confidence: Annotated[float, Field(title="Old Confidence")]
    """
    Its confidence before, 0 to 1.
    """
    source: Annotated[str, Field(title="Source")]
    """
    Where the signal came from, for example api, user_explicit, dev or implicit_timeout.
    """
    weight: Annotated[float | None, Field(title="Weight")] = 0.0
    """
    The evidence actually added: magnitude × feedback_weight, after decay.
    """


UserId = TypeAliasType(
    "UserId",
    Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$",
            title="User Id",
        ),
    ],
)
"""
One user's cycle now; None: every due user of the tenant (one scheduler tick).
"""


class CycleRequest(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    user_id: Annotated[UserId | None, Field(title="User Id")] = None
    """
    One user's cycle now; None: every due user of the tenant (one scheduler tick).
    """


class CycleResult(Model):
    action_type: Annotated[str | None, Field(title="Action Type")] = None
    """
    ``text``, or ``button_prompt`` for a yes/no question (the chosen message's). None: no message was chosen.
    """
    category: Annotated[str | None, Field(title="Category")] = None
    """
    The chosen message's category (e.g. ``deadline_warning``). None: no message was chosen.
    """
    channel: Annotated[str | None, Field(title="Channel")] = None
    """
    The channel the message went through: ``console``, ``webhook`` or ``whatsapp``. None: no message was chosen.
    """
    completion_tokens: Annotated[int | None, Field(title="Completion Tokens")] = None
    """
    Tokens of this cycle's LLM call (None: no call, or the provider did not say).
    """
    cycle_key: Annotated[str, Field(title="Cycle Key")]
    """
    The scheduler slot the cycle ran in (one every 5 minutes by default): a user gets at most one message per slot,
    however often a cycle runs in it.
    """
    decision: Annotated[Literal["sent", "silent"], Field(title="Decision")]
    """
    ``sent``: a message was committed for delivery (``delivery`` says how it went); ``silent``: nothing went out.
    """
    decision_id: Annotated[str | None, Field(title="Decision Id")] = None
    """
    The cycle's decision record (``GET /v1/decisions/{id}``). None: the pre-filter stopped the cycle, or it had
    already run in this slot.
    """
    deferred: Annotated[int | None, Field(title="Deferred")] = 0
    """
    Borderline candidates kept as deferred insights.
    """
    delivery: Annotated[str | None, Field(title="Delivery")] = None
    """
    How the delivery went: the format the message went out in when delivered (``text``, ``buttons`` or ``template``
    on WhatsApp, ``webhook``, ``log`` on the console), ``retrying`` when it will be tried again, or ``failed``. None:
    nothing to deliver.
    """
    llm_called: Annotated[bool | None, Field(title="Llm Called")] = False
    """
    True when the cycle asked the LLM for candidates (even if its answer was unusable and templates stood in).
    """
    message: Annotated[str | None, Field(title="Message")] = None
    """
    The chosen message's text. None: no message was chosen.
    """
    probability: Annotated[float | None, Field(title="Probability")] = None
    """
    The probability this send decision had (exploration is random): for off-policy evaluation.
    """
    prompt_tokens: Annotated[int | None, Field(title="Prompt Tokens")] = None
    """
    Prompt tokens of this cycle's LLM call (None: no call, or the provider did not say).
    """
    reason: Annotated[
        Literal[
            "paused",
            "opted_out",
            "muted",
            "no_signals",
            "context_only",
            "low_urgency",
            "quiet_hours",
            "daily_cap",
            "cooldown",
            "no_candidates",
            "below_threshold",
            "duplicate",
            "suppressed",
            "already_sent",
            "delivery_failed",
        ]
        | Literal["sent", "explored"],
        Field(title="Reason"),
    ]
    """
    Why: ``sent``; ``explored`` (a candidate just below the threshold, sent by random exploration); or the rule that
    kept the cycle silent (e.g. ``quiet_hours``, ``daily_cap``, ``below_threshold``, ``delivery_failed``).
    """
    score: Annotated[float | None, Field(title="Score")] = None
    """
    The chosen message's composite score, 0 to 10; for a silent cycle, the best candidate's. None: no candidate was
    scored.
    """
    send_id: Annotated[str | None, Field(title="Send Id")] = None
    """
    The send's id (the ``id`` of its feedback entry, and the channel's idempotency key). Set whenever a message was
    committed, even if its delivery then failed; None otherwise.
    """
    signals: Annotated[list[str] | None, Field(title="Signals")] = None
    """
    The types of the signals the cycle read, one entry per signal. Empty when the pre-filter stopped it.
    """
    threshold: Annotated[float | None, Field(title="Threshold")] = None
    """
    The score a candidate needed at the user's trust level, 0 to 10. None: the pre-filter stopped the cycle, or it
    had already run in this slot.
    """
    trust_level: Annotated[
        Literal["new", "building", "established", "deep"] | None,
        Field(title="Trust Level"),
    ] = None
    """
    The user's trust level when the cycle ran (it sets the minimum urgency, the threshold and the daily cap).
    """
    user_id: Annotated[str, Field(title="User Id")]
    """
    The user the cycle was for.
    """


LlmCalls = TypeAliasType("LlmCalls", Annotated[int, Field(ge=0, title="Llm Calls")])
"""
Requests sent to the LLM for this decision (None: not counted, as on records written by
older versions of the server).
"""


ModelModel = TypeAliasType(
    "ModelModel", Annotated[str, Field(max_length=128, title="Model")]
)
"""
The LLM model that was asked; None when none was.
"""


Reason = TypeAliasType("Reason", Annotated[str, Field(max_length=256, title="Reason")])
"""
A short reason code or note (at most 256 characters): e.g. why an executive decision
gave no answer, routing's escalation reason, admission's verdict reason.
"""


Strategy = TypeAliasType(
    "Strategy", Annotated[str, Field(max_length=64, title="Strategy")]
)
"""
How the decision point was set to decide: the executive's strategy (e.g. ``heuristic_first``),
routing's router mode (``local``, ``llm``, ``cascade``; ``tool_outcome`` for a tool report),
admission's judge, proactive's path. None where there is none.
"""


SubjectId = TypeAliasType(
    "SubjectId", Annotated[str, Field(max_length=256, title="Subject Id")]
)
"""
What the decision was about: the event id for ``executive`` and ``reevaluation``, the
session id for ``routing`` (a turn or a tool report), the run id for ``admission`` (for an
undo, the id of the admission decision it undid), the user id for ``proactive``, the setting's
name for ``setting``. None when there is none.
"""


class DecisionRecord(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    action: Annotated[str | None, Field(title="Action")] = None
    """
    What was decided: the executive's response text, routing's decision (or a tool outcome's next
    action), admission's ADD / NOT / REPLACE / MERGE, proactive's ``sent`` or ``silent``, a
    setting's ``name=value``. None when nothing was decided.
    """
    attributes: Annotated[dict[str, Any] | None, Field(title="Attributes")] = None
    """
    Everything else the decision point recorded to explain and replay the decision (e.g.
    routing's composite confidence and sources); later additions (a rating, the executive's
    convergence check) are merged in.
    """
    completion_tokens: Annotated[int | None, Field(title="Completion Tokens")] = None
    """
    Completion tokens the LLM reported for this decision; None when no LLM was asked or none were reported.
    """
    confidence: Annotated[float | None, Field(title="Confidence")] = None
    """
    The decision's confidence, 0–1 (executive: predicted success; routing: the final
    confidence; proactive: the sent message's score / 10). None where the decision has none.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the decision was recorded (UTC), set by the server.
    """
    explanation: Annotated[str | None, Field(title="Explanation")] = ""
    """
    The decision in one sentence, worded from this record by its decision point (what the
    dashboard shows above the record and the CLI prints); empty where the record was read without it.
    """
    id: Annotated[str, Field(max_length=64, min_length=1, title="Id")]
    """
    The response id a caller quotes back with feedback.
    """
    inputs: Annotated[dict[str, Any] | None, Field(title="Inputs")] = None
    """
    What the decision was given (the event, the query, the run …), as the decision point
    recorded it.
    """
    kind: Annotated[
        Literal[
            "executive",
            "reevaluation",
            "learning",
            "routing",
            "admission",
            "proactive",
            "setting",
        ],
        Field(title="Kind"),
    ]
    """
    Which decision point made it: ``executive``, ``reevaluation``, ``learning``, ``routing``,
    ``admission``, ``proactive`` or ``setting`` (a tenant setting applied or reset).
    """
    latency_ms: Annotated[float | None, Field(title="Latency Ms")] = None
    """
    How long the decision took, in milliseconds, embedding and any LLM call included: the event or
    turn for executive and routing, the admission call for admission (a batch: until its commit), the
    user's cycle for proactive (the LLM's own share is ``attributes.llm_latency_ms`` there). None
    when not measured (a proactive pre-filter block, records of older versions).
    """
    llm_calls: Annotated[LlmCalls | None, Field(title="Llm Calls")] = None
    """
    Requests sent to the LLM for this decision (None: not counted, as on records written by
    older versions of the server).
    """
    model: Annotated[ModelModel | None, Field(title="Model")] = None
    """
    The LLM model that was asked; None when none was.
    """
    outcome: Annotated[str | None, Field(title="Outcome")] = None
    """
    How the decision turned out, set by later feedback: ``positive`` / ``negative`` /
    ``neutral`` for executive decisions, ``correct`` / ``incorrect`` for rated routing and admission
    decisions, the message's outcome (``engaged``, ``ignored`` …) for proactive ones. None until then.
    """
    outcome_at: Annotated[AwareDatetime | None, Field(title="Outcome At")] = None
    """
    When ``outcome`` was last set (UTC); None until then.
    """
    path: Annotated[str, Field(max_length=32, min_length=1, title="Path")]
    """
    Which way it went: heuristic / llm / fallback / rejected, or the decision point's own.
    """
    prompt: Annotated[str | None, Field(title="Prompt")] = None
    """
    The prompt sent to the LLM; None when no LLM was asked.
    """
    prompt_tokens: Annotated[int | None, Field(title="Prompt Tokens")] = None
    """
    Prompt tokens the LLM reported for this decision; None when no LLM was asked or none were reported.
    """
    raw_llm_output: Annotated[str | None, Field(title="Raw Llm Output")] = None
    """
    The LLM's answer as received, before parsing; None when no LLM answered.
    """
    reason: Annotated[Reason | None, Field(title="Reason")] = None
    """
    A short reason code or note (at most 256 characters): e.g. why an executive decision
    gave no answer, routing's escalation reason, admission's verdict reason.
    """
    strategy: Annotated[Strategy | None, Field(title="Strategy")] = None
    """
    How the decision point was set to decide: the executive's strategy (e.g. ``heuristic_first``),
    routing's router mode (``local``, ``llm``, ``cascade``; ``tool_outcome`` for a tool report),
    admission's judge, proactive's path. None where there is none.
    """
    subject_id: Annotated[SubjectId | None, Field(title="Subject Id")] = None
    """
    What the decision was about: the event id for ``executive`` and ``reevaluation``, the
    session id for ``routing`` (a turn or a tool report), the run id for ``admission`` (for an
    undo, the id of the admission decision it undid), the user id for ``proactive``, the setting's
    name for ``setting``. None when there is none.
    """
    tenant: Annotated[str, Field(max_length=64, min_length=1, title="Tenant")]
    """
    The tenant whose decision it is.
    """


class DeferredInsight(Model):
    category: Annotated[str, Field(title="Category")]
    """
    The candidate's category (e.g. ``deadline_warning``).
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the cycle kept it (UTC).
    """
    expires_at: Annotated[AwareDatetime, Field(title="Expires At")]
    """
    After this time the insight is no longer handed out (24 hours after ``created_at`` by default).
    """
    id: Annotated[str, Field(title="Id")]
    """
    The insight's id, assigned by the server.
    """
    message_draft: Annotated[str, Field(title="Message Draft")]
    """
    The candidate message as drafted, never sent: something to work into the agent's next reply.
    """
    relevance_score: Annotated[float, Field(title="Relevance Score")]
    """
    The candidate's composite score, 0 to 10: below the threshold it needed, at least 4 by default.
    """
    trigger_signals: Annotated[list[str], Field(title="Trigger Signals")]
    """
    The types of the signals the candidate was about.
    """
    used: Annotated[bool, Field(title="Used")]
    """
    True once it was handed to the agent with a user's message (each insight is handed out once).
    """
    user_id: Annotated[str, Field(title="User Id")]
    """
    The user the insight is for.
    """


class Document(Model):
    attributes: Annotated[dict[str, Any], Field(title="Attributes")]
    """
    Free-form metadata given with the document.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the document was first stored (UTC); a ``PUT`` that replaces it keeps it.
    """
    doc_type: Annotated[str, Field(title="Doc Type")]
    """
    The kind of document (``pricing``, ``sop``, ``policy``, ``faq``, ``general`` …); sets its
    quality in ranking.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The document's id: the one given, or a random one.
    """
    published_at: Annotated[AwareDatetime | None, Field(title="Published At")]
    """
    When the content was last true (UTC); recency decays from here. None: undated (the
    default recency).
    """
    status: Annotated[
        Literal["current", "superseded"] | None, Field(title="Status")
    ] = "current"
    """
    ``current`` or ``superseded`` (an outdated version kept for the record).
    """
    text: Annotated[str, Field(title="Text")]
    """
    The document's content.
    """
    title: Annotated[str, Field(title="Title")]
    """
    The document's title (may be empty).
    """


Id = TypeAliasType(
    "Id",
    Annotated[
        str,
        Field(max_length=64, min_length=1, pattern="^[A-Za-z0-9._:@-]+$", title="Id"),
    ],
)
"""
The document's id (letters, digits and ``._:@-``, at most 64); a random one when left out.
With ``PUT /v1/documents/{id}`` it may be left out, and must match the path if given.
"""


class DocumentIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    attributes: Annotated[dict[str, Any] | None, Field(title="Attributes")] = None
    """
    Free-form metadata kept with the document and returned with it; not used in search or ranking.
    """
    doc_type: Annotated[
        str | None,
        Field(max_length=32, min_length=1, pattern="^[a-z0-9_-]+$", title="Doc Type"),
    ] = "general"
    """
    The kind of document (``pricing``, ``sop``, ``policy``, ``faq``, ``general`` …): sets its
    quality in ranking (``routing.doc_type_quality``; an unknown type counts as ``general``), and
    only documents of the same type are checked for conflicting figures.
    """
    id: Annotated[Id | None, Field(title="Id")] = None
    """
    The document's id (letters, digits and ``._:@-``, at most 64); a random one when left out.
    With ``PUT /v1/documents/{id}`` it may be left out, and must match the path if given.
    """
    published_at: Annotated[AwareDatetime | None, Field(title="Published At")] = None
    """
    When the content was last true; recency decays from here (None: the default recency).
    """
    status: Annotated[
        Literal["current", "superseded"] | None, Field(title="Status")
    ] = "current"
    """
    ``current``, or ``superseded``: an outdated version kept for the record (a 2022 price sheet),
    never an answer while a document of its type is found beside it.
    """
    text: Annotated[str, Field(max_length=20000, min_length=1, title="Text")]
    """
    The content (1–20000 characters): searched as a whole and sentence by sentence.
    """
    title: Annotated[str | None, Field(max_length=300, title="Title")] = ""
    """
    A short title, searched with the text and shown with the sources that cite it.
    """


class DocumentJob(Model):
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the job was submitted (UTC).
    """
    document_ids: Annotated[list[str], Field(title="Document Ids")]
    """
    The documents' ids, in the order given: those given, and a random one for each left out.
    """
    documents_done: Annotated[int, Field(title="Documents Done")]
    """
    How many are stored and searchable (in the order given).
    """
    documents_total: Annotated[int, Field(title="Documents Total")]
    """
    How many documents the job holds.
    """
    error: Annotated[str | None, Field(title="Error")]
    """
    Why the job failed (None unless ``failed``).
    """
    id: Annotated[str, Field(title="Id")]
    """
    The job's id: poll ``GET /v1/documents/jobs/{id}``.
    """
    passages_done: Annotated[int, Field(title="Passages Done")]
    """
    How many passages (each document's whole text and its sentences) those were embedded into.
    """
    status: Annotated[
        Literal["queued", "running", "done", "failed", "cancelled"],
        Field(title="Status"),
    ]
    """
    ``queued`` (waiting for a worker), ``running``, ``done`` (every document stored),
    ``failed`` (``error`` says why) or ``cancelled``. Failed or cancelled, the first
    ``documents_done`` documents were stored: submit the rest (``document_ids[documents_done:]``).
    """
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    """
    When the job last moved: submitted, a chunk stored, ended (UTC).
    """


class DocumentPut(Model):
    attributes: Annotated[dict[str, Any], Field(title="Attributes")]
    """
    Free-form metadata given with the document.
    """
    created: Annotated[bool, Field(title="Created")]
    """
    True: there was no document of this id (``201``); False: it replaced one (``200``).
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the document was first stored (UTC); a ``PUT`` that replaces it keeps it.
    """
    doc_type: Annotated[str, Field(title="Doc Type")]
    """
    The kind of document (``pricing``, ``sop``, ``policy``, ``faq``, ``general`` …); sets its
    quality in ranking.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The document's id: the one given, or a random one.
    """
    published_at: Annotated[AwareDatetime | None, Field(title="Published At")]
    """
    When the content was last true (UTC); recency decays from here. None: undated (the
    default recency).
    """
    status: Annotated[
        Literal["current", "superseded"] | None, Field(title="Status")
    ] = "current"
    """
    ``current`` or ``superseded`` (an outdated version kept for the record).
    """
    text: Annotated[str, Field(title="Text")]
    """
    The document's content.
    """
    title: Annotated[str, Field(title="Title")]
    """
    The document's title (may be empty).
    """


class DocumentsStored(Model):
    stored: Annotated[list[Document], Field(title="Stored")]
    """
    The documents as stored, in the order given, with their ids and passage counts.
    """


Interval = TypeAliasType(
    "Interval",
    Annotated[tuple[float, float], Field(max_length=2, min_length=2, title="Interval")],
)
"""
95 % Wilson score interval of ``rate``.
"""


class Estimate(Model):
    covered: Annotated[int, Field(title="Covered")]
    """
    Decisions whose outcome under this policy the logs establish.
    """
    interval: Annotated[Interval | None, Field(title="Interval")]
    """
    95 % Wilson score interval of ``rate``.
    """
    rate: Annotated[float | None, Field(title="Rate")]
    """
    ``successes`` / ``covered``, 0–1; None when nothing is covered.
    """
    successes: Annotated[int, Field(title="Successes")]
    """
    Of ``covered``, the decisions that were right (succeeded).
    """


EventId = TypeAliasType(
    "EventId", Annotated[str, Field(max_length=256, min_length=1, title="Event Id")]
)
"""
The caller's id for the event; a UUID when left out.
"""


Goal = TypeAliasType("Goal", Annotated[str, Field(max_length=500)])


Goals = TypeAliasType(
    "Goals", Annotated[list[Goal], Field(max_length=20, title="Goals")]
)
"""
The agent's active goals, added to the LLM's system prompt (at most 20, each at most 500
characters). None: the server's configured goals (``PHRONESIS_EXECUTIVE__GOALS``).
"""


ReplyTo = TypeAliasType(
    "ReplyTo", Annotated[str, Field(max_length=256, min_length=1, title="Reply To")]
)
"""
What this event answers, if you know: an earlier decision's response_id or the event id it was for. Then, as a
follow-up, it undoes, thanks or ignores only that decision's fire (see POST /v1/events/observe).
"""


Strategy1 = TypeAliasType(
    "Strategy1", Annotated[str, Field(max_length=64, min_length=1, title="Strategy")]
)
"""
Force a strategy (replay, tests). None: the configured one, or the A/B arm.
"""


UserId1 = TypeAliasType(
    "UserId1", Annotated[str, Field(max_length=256, min_length=1, title="User Id")]
)
"""
Who the event is about; the default A/B key.
"""


class Example(Model):
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When it was added (UTC).
    """
    event_id: Annotated[str | None, Field(title="Event Id")]
    """
    The event it was learned from; None for a given one.
    """
    fire_id: Annotated[str | None, Field(title="Fire Id")]
    """
    The fire whose outcome taught it; None for a given one.
    """
    heuristic_id: Annotated[str, Field(title="Heuristic Id")]
    """
    The heuristic whose scope it is part of.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The example's id.
    """
    kind: Annotated[Literal["example", "counter"], Field(title="Kind")]
    """
    ``example``: a situation the heuristic applies to; ``counter``: a situation near its examples that it does
    not apply to.
    """
    origin: Annotated[Literal["given", "learned"], Field(title="Origin")]
    """
    ``given`` (at creation, by import or through the API) or ``learned`` (from feedback on a fire).
    """
    taught_by: Annotated[str | None, Field(title="Taught By")]
    """
    What taught a learned one: the signal's source (``user_explicit``, ``implicit_undo``, ``user_implicit``…) or
    ``answer`` (a user's answer to a missed event). None for a given one.
    """
    text: Annotated[str, Field(title="Text")]
    """
    The situation, in words.
    """


class ExampleIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    kind: Annotated[Literal["example", "counter"] | None, Field(title="Kind")] = (
        "example"
    )
    """
    ``example`` (it applies here too) or ``counter`` (it does not apply here, though it looks near).
    """
    text: Annotated[str, Field(max_length=4000, min_length=1, title="Text")]
    """
    The situation, in words (1 to 4000 characters, trimmed).
    """


Comment = TypeAliasType(
    "Comment", Annotated[str, Field(max_length=2000, title="Comment")]
)
"""
Free text kept with the feedback, at most 2000 characters; nothing learns from it.
"""


DevScore = TypeAliasType(
    "DevScore", Annotated[int, Field(ge=1, le=5, title="Dev Score")]
)
"""
A developer's score, 1 (bad) to 5 (good). By default 1 and 2 count against, 3 to 5 for, more strongly further
from the middle.
"""


IdempotencyKey = TypeAliasType(
    "IdempotencyKey",
    Annotated[str, Field(max_length=128, min_length=1, title="Idempotency Key")],
)
"""
Feedback with a key that was already used is refused. Default: the response, scale and score — the
same click twice is a duplicate; a different click on a fired heuristic replaces it (last click wins).
"""


UserScore = TypeAliasType(
    "UserScore", Annotated[int, Field(ge=1, le=3, title="User Score")]
)
"""
A user's score: 1 bad, 2 meh, 3 good. By default 2 is neutral: it moves nothing, and takes back an earlier rating
of the same thing where one stands.
"""


class Feedback(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    comment: Annotated[Comment | None, Field(title="Comment")] = None
    """
    Free text kept with the feedback, at most 2000 characters; nothing learns from it.
    """
    dev_score: Annotated[DevScore | None, Field(title="Dev Score")] = None
    """
    A developer's score, 1 (bad) to 5 (good). By default 1 and 2 count against, 3 to 5 for, more strongly further
    from the middle.
    """
    idempotency_key: Annotated[
        IdempotencyKey | None, Field(title="Idempotency Key")
    ] = None
    """
    Feedback with a key that was already used is refused. Default: the response, scale and score — the
    same click twice is a duplicate; a different click on a fired heuristic replaces it (last click wins).
    """
    rating: Annotated[Literal["positive", "negative"] | None, Field(title="Rating")] = (
        None
    )
    """
    A binary rating: positive or negative. Give exactly one of rating, user_score and dev_score.
    """
    response_id: Annotated[str, Field(max_length=64, min_length=1, title="Response Id")]
    """
    What is rated: an executive decision's response_id, or the id of a fire recorded with
    POST /v1/heuristics/{id}/fires.
    """
    user_score: Annotated[UserScore | None, Field(title="User Score")] = None
    """
    A user's score: 1 bad, 2 meh, 3 good. By default 2 is neutral: it moves nothing, and takes back an earlier rating
    of the same thing where one stands.
    """


class FeedbackReceipt(Model):
    accepted: Annotated[bool, Field(title="Accepted")]
    """
    Always true: feedback that is refused gets an error response instead (404, 409 or 422).
    """
    detail: Annotated[str | None, Field(title="Detail")] = None
    """
    What happened, in words, where there is more to say (why a learned pattern was rejected, what a withdrawn rating
    took back); else None.
    """
    effect: Annotated[str, Field(title="Effect")]
    """
    ``updated`` (a fired heuristic moved), ``reinforced`` / ``created`` (learning from an LLM answer),
    ``recorded`` (nothing to update), ``locked`` (the heuristic is locked), ``rejected`` (pattern failed the gate).
    """
    heuristic_id: Annotated[str | None, Field(title="Heuristic Id")] = None
    """
    The heuristic the feedback was about: the one it moved, created, reinforced or took a lesson back from. None when
    no heuristic was involved.
    """
    magnitude: Annotated[float, Field(title="Magnitude")]
    """
    How strongly it counts, from the score's magnitude (a binary rating is 0.8 by default); 0 for a neutral score.
    """
    new_confidence: Annotated[float | None, Field(title="New Confidence")] = None
    """
    That heuristic's confidence after, 0 to 1 (for a heuristic just created, its starting confidence); None where no
    confidence update was attempted.
    """
    old_confidence: Annotated[float | None, Field(title="Old Confidence")] = None
    """
    That heuristic's confidence before, 0 to 1; None where no confidence update was attempted.
    """
    response_id: Annotated[str, Field(title="Response Id")]
    """
    What was rated, as sent.
    """
    signal: Annotated[Literal["positive", "negative", "neutral"], Field(title="Signal")]
    """
    Which way the feedback counts: positive, negative, or neutral (a score that maps to 0, such as user score 2).
    """


class FeedbackSummary(Model):
    avg_response_latency_seconds: Annotated[
        float | None, Field(title="Avg Response Latency Seconds")
    ]
    """
    Mean seconds from a send to the reply that engaged with it. None: no engaged reply.
    """
    engaged: Annotated[int, Field(title="Engaged")]
    """
    Of those, the ones the user replied to or answered with a button.
    """
    engagement_by_category: Annotated[
        dict[str, float], Field(title="Engagement By Category")
    ]
    """
    The engagement rate (0 to 1) of each category sent.
    """
    engagement_rate: Annotated[float | None, Field(title="Engagement Rate")]
    """
    ``engaged`` / ``total_sent``, 0 to 1 (pending ones count as not engaged). None: nothing sent.
    """
    ignored: Annotated[int, Field(title="Ignored")]
    """
    Of those, the ones with no reply within the ignore timeout (180 minutes by default).
    """
    late_replies: Annotated[int | None, Field(title="Late Replies")] = 0
    """
    Engaged replies that came after the engagement window (still before the ignore timeout).
    """
    negative: Annotated[int, Field(title="Negative")]
    """
    Of those, the ones the user pushed back on or asked to stop.
    """
    pending: Annotated[int, Field(title="Pending")]
    """
    Of those, the ones whose outcome is not known yet.
    """
    suppressed_categories: Annotated[list[str], Field(title="Suppressed Categories")]
    """
    Categories switched off because the user kept ignoring them or pushed back; one comes back on probation later (21
    days by default). Only messages no signal type stood behind count for a category.
    """
    suppressed_types: Annotated[list[str] | None, Field(title="Suppressed Types")] = (
        None
    )
    """
    Signal types switched off the same way: ignoring one type never switches off another (urgent messages, urgency 8
    and up, are never held back by this).
    """
    total_sent: Annotated[int, Field(title="Total Sent")]
    """
    Messages delivered to the user in the last 30 days (by default).
    """


class FireRecord(Model):
    event_id: Annotated[str, Field(title="Event Id")]
    """
    The event it fired for, as sent.
    """
    fired_at: Annotated[AwareDatetime, Field(title="Fired At")]
    """
    When it fired (UTC).
    """
    heuristic_id: Annotated[str, Field(title="Heuristic Id")]
    """
    The heuristic that fired.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The fire's id, set by the server: send it as response_id to POST /v1/feedback to rate it.
    """
    source: Annotated[str, Field(title="Source")]
    """
    Where the event came from; later events from this source can undo, confirm or ignore it.
    """


EventText = TypeAliasType(
    "EventText",
    Annotated[str, Field(max_length=4000, min_length=1, title="Event Text")],
)
"""
The event's text, if you have it: a negative outcome on an event unlike the heuristic's examples then teaches a
counter-example (the match was wrong) instead of lowering its confidence (the action was wrong), and a positive one
adds it as an example. Without it, every negative outcome lowers the confidence.
"""


ResponseId = TypeAliasType(
    "ResponseId",
    Annotated[str, Field(max_length=64, min_length=1, title="Response Id")],
)
"""
The response_id of the executive decision this fire belongs to, if any: rating that decision (POST /v1/feedback)
then rates this fire too.
"""


class FireRequest(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    event_id: Annotated[str, Field(max_length=256, min_length=1, title="Event Id")]
    """
    The event the heuristic fired for: your id, 1 to 256 characters. An observed event with this same id neither
    undoes nor ignores the fire.
    """
    event_text: Annotated[EventText | None, Field(title="Event Text")] = None
    """
    The event's text, if you have it: a negative outcome on an event unlike the heuristic's examples then teaches a
    counter-example (the match was wrong) instead of lowering its confidence (the action was wrong), and a positive one
    adds it as an example. Without it, every negative outcome lowers the confidence.
    """
    fired_at: Annotated[AwareDatetime | None, Field(title="Fired At")] = None
    """
    When it fired (default: now); a time in the future is refused.
    """
    response_id: Annotated[ResponseId | None, Field(title="Response Id")] = None
    """
    The response_id of the executive decision this fire belongs to, if any: rating that decision (POST /v1/feedback)
    then rates this fire too.
    """
    source: Annotated[str | None, Field(max_length=128, title="Source")] = ""
    """
    Where the event came from ("" by default). Later events from the same source within the undo window (30 seconds
    by default) can undo, confirm or ignore this fire.
    """


class FoundSource(Model):
    doc_type: Annotated[str, Field(title="Doc Type")]
    """
    Its kind (``pricing``, ``sop``, ``policy``, ``faq``, ``general`` …).
    """
    id: Annotated[str, Field(title="Id")]
    """
    The document's id.
    """
    passage: Annotated[str | None, Field(title="Passage")] = None
    """
    The sentence that matched, when one did rather than the whole document.
    """
    published_at: Annotated[str | None, Field(title="Published At")] = None
    """
    When it was last true (an ISO date); None: undated.
    """
    score: Annotated[float, Field(title="Score")]
    """
    The 0–1 rerank score: 0.6·similarity + 0.2·recency + 0.2·quality.
    """
    superseded_by: Annotated[str | None, Field(title="Superseded By")] = None
    """
    The newer document of its type that replaces it, where it is kept only because nothing else
    answers (then the answer says it may be out of date).
    """
    title: Annotated[str | None, Field(title="Title")] = ""
    """
    Its title (may be empty).
    """


class GroupView(Model):
    canonical_run_id: Annotated[str | None, Field(title="Canonical Run Id")]
    """
    The group's canonical run: the best outcome, newest on a tie. None if no active member is marked canonical.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The merge group's id (the id of the run the group started with).
    """
    references: Annotated[list[str], Field(title="References")]
    """
    Every reference of the group's active runs, without repeats, sorted.
    """
    size: Annotated[int, Field(title="Size")]
    """
    How many active runs are in the group.
    """
    usage_count: Annotated[int, Field(title="Usage Count")]
    """
    The group's uses: the usage_count and duplicate_count of its active runs, added up.
    """


class Heuristic(Model):
    action_text: Annotated[str, Field(title="Action Text")]
    """
    What to do or say when the condition matches.
    """
    alpha: Annotated[float, Field(title="Alpha")]
    """
    Evidence for it: the prior's share plus the weight of the positive signals it got (a pseudo-count; under the
    discounted strategies older evidence fades).
    """
    attributes: Annotated[dict[str, Any], Field(title="Attributes")]
    """
    Free-form JSON kept with it, returned as is.
    """
    beta: Annotated[float, Field(title="Beta")]
    """
    Evidence against it: the prior's share plus the weight of the negative signals it got (a pseudo-count; under the
    discounted strategies older evidence fades).
    """
    ceiling: Annotated[float, Field(title="Ceiling")]
    """
    The highest confidence it may have, 0 to 1.
    """
    condition_text: Annotated[str, Field(title="Condition Text")]
    """
    The situation it applies to. Events are matched to it by the similarity of their embeddings.
    """
    confidence: Annotated[float, Field(title="Confidence")]
    """
    How likely it is to be right, 0 to 1: alpha / (alpha + beta), kept between floor and ceiling.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When it was created (UTC).
    """
    domain: Annotated[str, Field(title="Domain")]
    """
    The event source it applies to; "" for every source.
    """
    embedding_model: Annotated[str | None, Field(title="Embedding Model")]
    """
    The model its condition was embedded with; None if it is not embedded yet.
    """
    evidence_at: Annotated[AwareDatetime | None, Field(title="Evidence At")] = None
    """
    When evidence last arrived (discounted strategies fade evidence from here).
    """
    failure_count: Annotated[int, Field(title="Failure Count")]
    """
    How many of its fires have a negative explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence.
    """
    feedback_weight: Annotated[float, Field(title="Feedback Weight")]
    """
    Multiplies the weight of every signal about it, 0.25 to 2: above 1 it learns faster, below 1 slower.
    """
    fire_count: Annotated[int, Field(title="Fire Count")]
    """
    How many times it fired for an event (recorded by the executive, or through POST /v1/heuristics/{id}/fires).
    """
    floor: Annotated[float, Field(title="Floor")]
    """
    The lowest confidence it may have, 0 to 1.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The heuristic's id: the caller's, or a generated UUID.
    """
    ignore_streak: Annotated[int | None, Field(title="Ignore Streak")] = 0
    """
    How many follow-up events in a row ignored its fires. At the configured threshold (3 by default) it gets a
    negative signal and the count starts again; a rating, undo, thanks or timeout resets it.
    """
    last_fired_at: Annotated[AwareDatetime | None, Field(title="Last Fired At")]
    """
    When it last fired (UTC); None if it never has.
    """
    locked: Annotated[bool, Field(title="Locked")]
    """
    True: no signal moves its confidence; a PATCH of confidence still sets it.
    """
    name: Annotated[str | None, Field(title="Name")]
    """
    A short display name; None if it has none.
    """
    origin: Annotated[Literal["dev", "pack", "learned", "llm"], Field(title="Origin")]
    """
    Who made it: dev (a developer), pack (a shipped pack), learned (from feedback) or llm.
    """
    origin_id: Annotated[str | None, Field(title="Origin Id")]
    """
    Where it came from, by id; a learned heuristic has the response id of the decision that taught it. None if not
    given.
    """
    prior_alpha: Annotated[float | None, Field(title="Prior Alpha")] = 1.0
    """
    The prior's share of alpha: the starting confidence times the prior's strength (2 by default).
    """
    prior_beta: Annotated[float | None, Field(title="Prior Beta")] = 1.0
    """
    The prior's share of beta: one minus the starting confidence, times the prior's strength (2 by default).
    """
    signal_count: Annotated[int | None, Field(title="Signal Count")] = 0
    """
    How many feedback signals have changed this heuristic's confidence. With diminishing returns
    switched on (``PHRONESIS_LEARNING__DECAY_K`` above 0, off by default) each new signal weighs
    less the more it already has.
    """
    success_count: Annotated[int, Field(title="Success Count")]
    """
    How many of its fires have a positive explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence.
    """
    tenant: Annotated[str, Field(title="Tenant")]
    """
    The tenant that owns it, set by the server from the API key.
    """
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    """
    When anything about it last changed, its confidence included (UTC).
    """


Alpha = TypeAliasType("Alpha", Annotated[float, Field(gt=0.0, title="Alpha")])
"""
The heuristic's Beta evidence of success (``beta``: of failure), for exploration; None: taken
from ``confidence``. Never prompted.
"""


Beta = TypeAliasType("Beta", Annotated[float, Field(gt=0.0, title="Beta")])
"""
The heuristic's Beta evidence, for exploration (``executive.exploration``); never prompted.
"""


Similarity = TypeAliasType(
    "Similarity", Annotated[float, Field(ge=-1.0, le=1.0, title="Similarity")]
)
"""
Cosine similarity, -1 to 1, of the event text to the heuristic's condition; None when the
caller gave the candidate without one (``urgency_tiered`` then counts it as a full match).
"""


class HeuristicCandidate(Model):
    alpha: Annotated[Alpha | None, Field(title="Alpha")] = None
    """
    The heuristic's Beta evidence of success (``beta``: of failure), for exploration; None: taken
    from ``confidence``. Never prompted.
    """
    beta: Annotated[Beta | None, Field(title="Beta")] = None
    """
    The heuristic's Beta evidence, for exploration (``executive.exploration``); never prompted.
    """
    condition_text: Annotated[
        str, Field(max_length=4000, min_length=1, title="Condition Text")
    ]
    """
    The situation the heuristic applies to; shown to the LLM as a previous similar situation.
    """
    confidence: Annotated[float, Field(ge=0.0, le=1.0, title="Confidence")]
    """
    The heuristic's confidence, 0–1: it fires when this reaches the strategy's threshold. Never
    shown to the LLM.
    """
    heuristic_id: Annotated[
        str, Field(max_length=64, min_length=1, title="Heuristic Id")
    ]
    """
    The heuristic's id in heuristic memory (or the caller's own, for candidates given in a request).
    """
    similarity: Annotated[Similarity | None, Field(title="Similarity")] = None
    """
    Cosine similarity, -1 to 1, of the event text to the heuristic's condition; None when the
    caller gave the candidate without one (``urgency_tiered`` then counts it as a full match).
    """
    suggested_action: Annotated[
        str, Field(max_length=4000, min_length=1, title="Suggested Action")
    ]
    """
    The heuristic's response: what is returned when it fires; shown to the LLM as context.
    """


Confidence = TypeAliasType(
    "Confidence", Annotated[float, Field(ge=0.0, le=1.0, title="Confidence")]
)
"""
Initial confidence, 0 to 1; the prior is derived from it. Unset: 0.5 by default (the server's
``PHRONESIS_HEURISTICS__DEFAULT_CONFIDENCE``).
"""


CounterExample = TypeAliasType(
    "CounterExample", Annotated[str, Field(max_length=4000, min_length=1)]
)


Example1 = TypeAliasType(
    "Example1", Annotated[str, Field(max_length=4000, min_length=1)]
)


Id1 = TypeAliasType(
    "Id1",
    Annotated[str, Field(pattern="^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$", title="Id")],
)
"""
Optional caller-chosen id (imports keep theirs); a UUID otherwise.
"""


Name = TypeAliasType("Name", Annotated[str, Field(max_length=200, title="Name")])
"""
A short display name, at most 200 characters; optional.
"""


OriginId = TypeAliasType(
    "OriginId", Annotated[str, Field(max_length=128, title="Origin Id")]
)
"""
Where it came from, by id (at most 128 characters); a learned heuristic has the response id of the decision that
taught it.
"""


class HeuristicCreate(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    action_text: Annotated[
        str, Field(max_length=4000, min_length=1, title="Action Text")
    ]
    """
    What to do or say when the condition matches (1 to 4000 characters, trimmed).
    """
    attributes: Annotated[dict[str, Any] | None, Field(title="Attributes")] = None
    """
    Free-form JSON kept with it and returned as is (finite numbers only).
    """
    ceiling: Annotated[float | None, Field(ge=0.0, le=1.0, title="Ceiling")] = 1.0
    """
    The highest confidence it may have, 0 to 1 (default 1).
    """
    condition_text: Annotated[
        str, Field(max_length=4000, min_length=1, title="Condition Text")
    ]
    """
    The situation it applies to, in words (1 to 4000 characters, trimmed). Events are matched to it by the similarity
    of their embeddings.
    """
    confidence: Annotated[Confidence | None, Field(title="Confidence")] = None
    """
    Initial confidence, 0 to 1; the prior is derived from it. Unset: 0.5 by default (the server's
    ``PHRONESIS_HEURISTICS__DEFAULT_CONFIDENCE``).
    """
    counter_examples: Annotated[
        list[CounterExample] | None, Field(max_length=50, title="Counter Examples")
    ] = None
    """
    Situations near its examples that it does not apply to (at most 50): an event at least as near one of these
    as to its best example does not match.
    """
    domain: Annotated[
        str | None, Field(max_length=128, pattern="^[A-Za-z0-9._:/-]*$", title="Domain")
    ] = ""
    """
    The event source it applies to (e.g. ``garden``); matching can be limited to one source's
    heuristics. Empty: no domain, a heuristic for every source.
    """
    examples: Annotated[
        list[Example1] | None, Field(max_length=50, title="Examples")
    ] = None
    """
    Other situations it applies to, in words (at most 50): an event near one of them matches as it would near the
    condition. Paraphrases, slang, the same situation seen from another side.
    """
    feedback_weight: Annotated[
        float | None, Field(ge=0.25, le=2.0, title="Feedback Weight")
    ] = 1.0
    """
    Multiplies the weight of every signal about it, 0.25 to 2 (default 1): above 1 it learns faster, below 1
    slower.
    """
    floor: Annotated[float | None, Field(ge=0.0, le=1.0, title="Floor")] = 0.0
    """
    The lowest confidence it may have, 0 to 1 (default 0); not above ceiling.
    """
    id: Annotated[Id1 | None, Field(title="Id")] = None
    """
    Optional caller-chosen id (imports keep theirs); a UUID otherwise.
    """
    locked: Annotated[bool | None, Field(title="Locked")] = False
    """
    True: no signal moves its confidence (each is answered with effect locked); a PATCH of confidence still sets
    it.
    """
    name: Annotated[Name | None, Field(title="Name")] = None
    """
    A short display name, at most 200 characters; optional.
    """
    origin: Annotated[
        Literal["dev", "pack", "learned", "llm"] | None, Field(title="Origin")
    ] = "dev"
    """
    Who made it: dev (a developer, the default), pack (a shipped pack), learned (from feedback) or llm.
    """
    origin_id: Annotated[OriginId | None, Field(title="Origin Id")] = None
    """
    Where it came from, by id (at most 128 characters); a learned heuristic has the response id of the decision that
    taught it.
    """


class HeuristicCreated(Model):
    action_text: Annotated[str, Field(title="Action Text")]
    """
    What to do or say when the condition matches.
    """
    alpha: Annotated[float, Field(title="Alpha")]
    """
    Evidence for it: the prior's share plus the weight of the positive signals it got (a pseudo-count; under the
    discounted strategies older evidence fades).
    """
    attributes: Annotated[dict[str, Any], Field(title="Attributes")]
    """
    Free-form JSON kept with it, returned as is.
    """
    beta: Annotated[float, Field(title="Beta")]
    """
    Evidence against it: the prior's share plus the weight of the negative signals it got (a pseudo-count; under the
    discounted strategies older evidence fades).
    """
    ceiling: Annotated[float, Field(title="Ceiling")]
    """
    The highest confidence it may have, 0 to 1.
    """
    condition_text: Annotated[str, Field(title="Condition Text")]
    """
    The situation it applies to. Events are matched to it by the similarity of their embeddings.
    """
    confidence: Annotated[float, Field(title="Confidence")]
    """
    How likely it is to be right, 0 to 1: alpha / (alpha + beta), kept between floor and ceiling.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When it was created (UTC).
    """
    domain: Annotated[str, Field(title="Domain")]
    """
    The event source it applies to; "" for every source.
    """
    duplicate_of: Annotated[list[str] | None, Field(title="Duplicate Of")] = None
    """
    Heuristics of the same domain with the same condition (case and outer spaces aside), created
    before this one: both are kept and both match the same events.
    """
    embedding_model: Annotated[str | None, Field(title="Embedding Model")]
    """
    The model its condition was embedded with; None if it is not embedded yet.
    """
    evidence_at: Annotated[AwareDatetime | None, Field(title="Evidence At")] = None
    """
    When evidence last arrived (discounted strategies fade evidence from here).
    """
    failure_count: Annotated[int, Field(title="Failure Count")]
    """
    How many of its fires have a negative explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence.
    """
    feedback_weight: Annotated[float, Field(title="Feedback Weight")]
    """
    Multiplies the weight of every signal about it, 0.25 to 2: above 1 it learns faster, below 1 slower.
    """
    fire_count: Annotated[int, Field(title="Fire Count")]
    """
    How many times it fired for an event (recorded by the executive, or through POST /v1/heuristics/{id}/fires).
    """
    floor: Annotated[float, Field(title="Floor")]
    """
    The lowest confidence it may have, 0 to 1.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The heuristic's id: the caller's, or a generated UUID.
    """
    ignore_streak: Annotated[int | None, Field(title="Ignore Streak")] = 0
    """
    How many follow-up events in a row ignored its fires. At the configured threshold (3 by default) it gets a
    negative signal and the count starts again; a rating, undo, thanks or timeout resets it.
    """
    last_fired_at: Annotated[AwareDatetime | None, Field(title="Last Fired At")]
    """
    When it last fired (UTC); None if it never has.
    """
    locked: Annotated[bool, Field(title="Locked")]
    """
    True: no signal moves its confidence; a PATCH of confidence still sets it.
    """
    name: Annotated[str | None, Field(title="Name")]
    """
    A short display name; None if it has none.
    """
    origin: Annotated[Literal["dev", "pack", "learned", "llm"], Field(title="Origin")]
    """
    Who made it: dev (a developer), pack (a shipped pack), learned (from feedback) or llm.
    """
    origin_id: Annotated[str | None, Field(title="Origin Id")]
    """
    Where it came from, by id; a learned heuristic has the response id of the decision that taught it. None if not
    given.
    """
    prior_alpha: Annotated[float | None, Field(title="Prior Alpha")] = 1.0
    """
    The prior's share of alpha: the starting confidence times the prior's strength (2 by default).
    """
    prior_beta: Annotated[float | None, Field(title="Prior Beta")] = 1.0
    """
    The prior's share of beta: one minus the starting confidence, times the prior's strength (2 by default).
    """
    signal_count: Annotated[int | None, Field(title="Signal Count")] = 0
    """
    How many feedback signals have changed this heuristic's confidence. With diminishing returns
    switched on (``PHRONESIS_LEARNING__DECAY_K`` above 0, off by default) each new signal weighs
    less the more it already has.
    """
    success_count: Annotated[int, Field(title="Success Count")]
    """
    How many of its fires have a positive explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence.
    """
    tenant: Annotated[str, Field(title="Tenant")]
    """
    The tenant that owns it, set by the server from the API key.
    """
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    """
    When anything about it last changed, its confidence included (UTC).
    """
    warning: Annotated[str | None, Field(title="Warning")] = None
    """
    Said when ``duplicate_of`` is not empty (e.g. a tour followed twice); None otherwise.
    """


class HeuristicMatch(Model):
    counter_similarity: Annotated[float | None, Field(title="Counter Similarity")] = (
        None
    )
    """
    The query's similarity to its nearest counter-example, when one is near (it stays below ``similarity``).
    """
    heuristic: Heuristic
    """
    The heuristic that matched.
    """
    matched_example_id: Annotated[str | None, Field(title="Matched Example Id")] = None
    """
    The example it matched; None when it matched its condition.
    """
    matched_text: Annotated[str | None, Field(title="Matched Text")] = None
    """
    The situation it matched: its condition, or one of its examples.
    """
    score: Annotated[float, Field(title="Score")]
    """
    similarity × confidence, for display; matches are ranked mostly by similarity, not by this.
    """
    similarity: Annotated[float, Field(title="Similarity")]
    """
    Cosine similarity of the query to the situation of the heuristic's scope it matched: its condition or one of
    its examples.
    """


ActionText = TypeAliasType(
    "ActionText",
    Annotated[str, Field(max_length=4000, min_length=1, title="Action Text")],
)
"""
What to do or say when the condition matches (1 to 4000 characters, trimmed).
"""


Ceiling = TypeAliasType(
    "Ceiling", Annotated[float, Field(ge=0.0, le=1.0, title="Ceiling")]
)
"""
The highest confidence it may have, 0 to 1; not below floor.
"""


ConditionText = TypeAliasType(
    "ConditionText",
    Annotated[str, Field(max_length=4000, min_length=1, title="Condition Text")],
)
"""
The situation it applies to (1 to 4000 characters, trimmed); it is embedded again.
"""


Confidence1 = TypeAliasType(
    "Confidence1", Annotated[float, Field(ge=0.0, le=1.0, title="Confidence")]
)
"""
A new confidence, 0 to 1, as a fresh start: the evidence gathered so far is dropped and the prior is derived from
it.
"""


Domain = TypeAliasType(
    "Domain",
    Annotated[
        str, Field(max_length=128, pattern="^[A-Za-z0-9._:/-]*$", title="Domain")
    ],
)
"""
The event source it applies to; "" for every source.
"""


FeedbackWeight = TypeAliasType(
    "FeedbackWeight", Annotated[float, Field(ge=0.25, le=2.0, title="Feedback Weight")]
)
"""
Multiplies the weight of every signal about it, 0.25 to 2: above 1 it learns faster, below 1 slower.
"""


Floor = TypeAliasType("Floor", Annotated[float, Field(ge=0.0, le=1.0, title="Floor")])
"""
The lowest confidence it may have, 0 to 1; not above ceiling.
"""


Name1 = TypeAliasType("Name1", Annotated[str, Field(max_length=200, title="Name")])
"""
A short display name, at most 200 characters; null removes it (left out, it stays).
"""


class HeuristicUpdate(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    action_text: Annotated[ActionText | None, Field(title="Action Text")] = None
    """
    What to do or say when the condition matches (1 to 4000 characters, trimmed).
    """
    attributes: Annotated[dict[str, Any] | None, Field(title="Attributes")] = None
    """
    Free-form JSON that replaces its attributes as a whole (they are not merged).
    """
    ceiling: Annotated[Ceiling | None, Field(title="Ceiling")] = None
    """
    The highest confidence it may have, 0 to 1; not below floor.
    """
    condition_text: Annotated[ConditionText | None, Field(title="Condition Text")] = (
        None
    )
    """
    The situation it applies to (1 to 4000 characters, trimmed); it is embedded again.
    """
    confidence: Annotated[Confidence1 | None, Field(title="Confidence")] = None
    """
    A new confidence, 0 to 1, as a fresh start: the evidence gathered so far is dropped and the prior is derived from
    it.
    """
    domain: Annotated[Domain | None, Field(title="Domain")] = None
    """
    The event source it applies to; "" for every source.
    """
    feedback_weight: Annotated[
        FeedbackWeight | None, Field(title="Feedback Weight")
    ] = None
    """
    Multiplies the weight of every signal about it, 0.25 to 2: above 1 it learns faster, below 1 slower.
    """
    floor: Annotated[Floor | None, Field(title="Floor")] = None
    """
    The lowest confidence it may have, 0 to 1; not above ceiling.
    """
    locked: Annotated[bool | None, Field(title="Locked")] = None
    """
    True: no signal moves its confidence; a PATCH of confidence still sets it.
    """
    name: Annotated[Name1 | None, Field(title="Name")] = None
    """
    A short display name, at most 200 characters; null removes it (left out, it stays).
    """
    origin: Annotated[
        Literal["dev", "pack", "learned", "llm"] | None, Field(title="Origin")
    ] = None
    """
    Who made it: dev, pack, learned or llm.
    """


class HistoryEntry(Model):
    at: Annotated[AwareDatetime, Field(title="At")]
    """
    When the signal was applied (UTC).
    """
    event_id: Annotated[str | None, Field(title="Event Id")]
    """
    The event the signal was about; None if it named none.
    """
    fire_id: Annotated[str | None, Field(title="Fire Id")]
    """
    The fire the signal was about; None for a signal not tied to a fire (such as one sent with
    POST /v1/heuristics/{id}/confidence).
    """
    helped_share: Annotated[float | None, Field(title="Helped Share")] = None
    """
    A soft signal (``calibrated``): the part of its weight that counted for success, P(helped | outcome);
    the rest counted against. None for a signal that counted wholly one way.
    """
    lesson: Annotated[str | None, Field(title="Lesson")] = None
    """
    What the signal taught: ``wrong_match`` (the event was unlike its examples: a counter-example, the confidence
    unchanged), ``wrong_action`` (the event was like its examples: the confidence lowered), ``new_example`` (a positive
    outcome on a new situation, added as an example), ``confirmed`` (a positive on a situation it knew), ``no_news``
    (no complaint within the undo window), ``ignored``, ``recovered`` (an undo taken back by a probation fire that went
    well), or ``event_unknown`` (no event text was kept with the fire: taken as the action's fault). None for evidence
    sent directly.
    """
    magnitude: Annotated[float, Field(title="Magnitude")]
    """
    The signal's strength as sent, before feedback_weight and decay; 0 where a rating was taken back.
    """
    new_confidence: Annotated[float, Field(title="New Confidence")]
    """
    The confidence after this step, 0 to 1.
    """
    old_confidence: Annotated[float, Field(title="Old Confidence")]
    """
    The confidence before this step, 0 to 1.
    """
    positive: Annotated[bool, Field(title="Positive")]
    """
    Whether it counted for the heuristic (true) or against it (false). For a soft signal, only which way it is
    recorded (see helped_share).
    """
    put_back: Annotated[str | None, Field(title="Put Back")] = None
    """
    A withdrawn rating (a neutral click) of a fire whose soft outcome it had replaced: that outcome's source,
    whose evidence counts again. None otherwise.
    """
    source: Annotated[str, Field(title="Source")]
    """
    Where the signal came from: user_explicit, dev, user_implicit, implicit_timeout, implicit_undo, implicit_ignored,
    llm_endorsement, or the source given to POST /v1/heuristics/{id}/confidence (api by default).
    """
    took_back: Annotated[str | None, Field(title="Took Back")] = None
    """
    What this step took back (last click wins): the earlier rating a rating replaces or a neutral score
    withdraws, as its sign and source (``positive user_explicit``), or, for a first rating of a fire that had a
    soft outcome (``calibrated``), that outcome's source (``implicit_timeout``: the rating says outright whether
    the fire helped). None otherwise.
    """
    weight: Annotated[float | None, Field(title="Weight")]
    """
    The evidence actually added: magnitude times feedback_weight, after decay. None for steps recorded before weights
    were kept.
    """
    why: Annotated[str | None, Field(title="Why")] = None
    """
    The lesson in words: which example the event was compared with, and how near it was.
    """
    withdrawn: Annotated[bool | None, Field(title="Withdrawn")] = False
    """
    A neutral score took the standing rating back: this step removes its evidence and adds none.
    """


class ImportResult(Model):
    ids: Annotated[list[str], Field(title="Ids")]
    """
    Their ids, in the order of the lines imported.
    """
    imported: Annotated[int, Field(title="Imported")]
    """
    How many heuristics the import created or replaced.
    """


K = TypeAliasType("K", Annotated[int, Field(ge=1, le=100, title="K")])
"""
How many matches at most (1–100); unset: the configured ``PHRONESIS_HEURISTICS__TOP_K``.
"""


MinSimilarity = TypeAliasType(
    "MinSimilarity", Annotated[float, Field(ge=-1.0, le=1.0, title="Min Similarity")]
)
"""
Leave out matches whose cosine similarity to ``text`` is below this (-1 to 1); unset: the
configured similarity threshold.
"""


Source = TypeAliasType("Source", Annotated[str, Field(max_length=128, title="Source")])
"""
Only heuristics of this domain, the event source they apply to (with ``include_general``,
also those with no domain); unset: every domain.
"""


class MatchRequest(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    include_general: Annotated[bool | None, Field(title="Include General")] = False
    """
    With ``source``: also the heuristics that have no domain, which apply to every source.
    ``true`` lists what a decision on an event from ``source`` considers.
    """
    k: Annotated[K | None, Field(title="K")] = None
    """
    How many matches at most (1–100); unset: the configured ``PHRONESIS_HEURISTICS__TOP_K``.
    """
    min_confidence: Annotated[
        float | None, Field(ge=0.0, le=1.0, title="Min Confidence")
    ] = 0.0
    """
    Leave out heuristics whose confidence is below this (0 to 1).
    """
    min_similarity: Annotated[MinSimilarity | None, Field(title="Min Similarity")] = (
        None
    )
    """
    Leave out matches whose cosine similarity to ``text`` is below this (-1 to 1); unset: the
    configured similarity threshold.
    """
    source: Annotated[Source | None, Field(title="Source")] = None
    """
    Only heuristics of this domain, the event source they apply to (with ``include_general``,
    also those with no domain); unset: every domain.
    """
    text: Annotated[str, Field(max_length=4000, min_length=1, title="Text")]
    """
    The situation to match against the heuristics' conditions.
    """


class MatchResponse(Model):
    matches: Annotated[list[HeuristicMatch], Field(title="Matches")]
    """
    Most similar first, each with its similarity to the text and its confidence.
    """


class Message(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the message was stored (UTC), set by the server.
    """
    decision_id: Annotated[str | None, Field(title="Decision Id")] = None
    """
    For a user message stored by a routing call: that turn's decision id. None for messages
    added otherwise.
    """
    role: Annotated[
        Literal["user", "assistant", "human_agent", "system"], Field(title="Role")
    ]
    """
    Who wrote it: ``user`` (the person the agent talks to), ``assistant`` (the agent),
    ``human_agent`` (a person on the team) or ``system`` (a note, e.g. a handback).
    """
    text: Annotated[str, Field(max_length=8000, min_length=1, title="Text")]
    """
    The message's text (1–8000 characters).
    """


class MessageIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    role: Annotated[
        Literal["user", "assistant", "human_agent", "system"], Field(title="Role")
    ]
    """
    Who wrote it: ``user`` (the person the agent talks to), ``assistant`` (the agent),
    ``human_agent`` (a person on the team) or ``system`` (a note, e.g. a handback).
    """
    text: Annotated[str, Field(max_length=8000, min_length=1, title="Text")]
    """
    The message's text (1–8000 characters).
    """


Minutes = TypeAliasType(
    "Minutes", Annotated[float, Field(gt=0.0, le=527040.0, title="Minutes")]
)
"""
Give one: a time, or minutes from now.
"""


class MuteIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    minutes: Annotated[Minutes | None, Field(title="Minutes")] = None
    """
    Give one: a time, or minutes from now.
    """
    until: Annotated[AwareDatetime | None, Field(title="Until")] = None
    """
    When the mute ends: a time with its UTC offset, in the future.
    """


Id2 = TypeAliasType(
    "Id2",
    Annotated[
        str,
        Field(max_length=64, min_length=1, pattern="^[A-Za-z0-9._:@-]+$", title="Id"),
    ],
)
"""
The session's id (letters, digits and ``._:@-``, at most 64); a random one when left out.
An id already in use is a conflict (409).
"""


class NewSession(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    id: Annotated[Id2 | None, Field(title="Id")] = None
    """
    The session's id (letters, digits and ``._:@-``, at most 64); a random one when left out.
    An id already in use is a conflict (409).
    """
    lead_context: Annotated[
        dict[str, Any] | None, Field(max_length=64, title="Lead Context")
    ] = None
    """
    CRM data (email, name, status, company, …): shown to the LLM router, counted in context completeness.
    """
    messages: Annotated[
        list[MessageIn] | None, Field(max_length=200, title="Messages")
    ] = None
    """
    Earlier turns, when a conversation started elsewhere.
    """


ReplyTo1 = TypeAliasType(
    "ReplyTo1", Annotated[str, Field(max_length=256, min_length=1, title="Reply To")]
)
"""
What the event answers, if you know: a decision's response_id, a fire's id or the event id a heuristic fired
for. Then only that fire is undone, thanked or ignored by it. Without it, an event answers the fires it is about
(similar to their event or their action) or, when it reads as an undo, thanks or a complaint and is about none,
the latest.
"""


class ObservedEvent(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    event_id: Annotated[str, Field(max_length=256, min_length=1, title="Event Id")]
    """
    Your id for the event, 1 to 256 characters. Fires recorded for this same event are neither undone nor ignored by
    it.
    """
    occurred_at: Annotated[AwareDatetime | None, Field(title="Occurred At")] = None
    """
    When it happened, with a UTC offset (default: now); a time in the future is refused.
    """
    reply_to: Annotated[ReplyTo1 | None, Field(title="Reply To")] = None
    """
    What the event answers, if you know: a decision's response_id, a fire's id or the event id a heuristic fired
    for. Then only that fire is undone, thanked or ignored by it. Without it, an event answers the fires it is about
    (similar to their event or their action) or, when it reads as an undo, thanks or a complaint and is about none,
    the latest.
    """
    source: Annotated[str | None, Field(max_length=128, title="Source")] = ""
    """
    Where the event came from ("" by default). Only the open fires of this same source, within the undo window before
    the event, are affected.
    """
    text: Annotated[str, Field(max_length=4000, min_length=1, title="Text")]
    """
    What the event says, 1 to 4000 characters: read for undo words (undo, revert, cancel, ...) and for thanks or
    confirmation.
    """


class OptOut(Model):
    all: Annotated[bool, Field(title="All")]
    """
    True: every proactive message (an opt-out, a mute or an opt-in of everything).
    """
    categories: Annotated[list[str] | None, Field(title="Categories")] = None
    """
    Otherwise the categories switched.
    """
    topics: Annotated[list[str] | None, Field(title="Topics")] = None
    """
    And the topics switched: words the user named ("weather", "bill") or signal types
    (``weather_alert``); a topic covers every signal type of that kind.
    """
    until: Annotated[AwareDatetime | None, Field(title="Until")] = None
    """
    A mute's end; None: until the user opts back in.
    """


Topic = TypeAliasType(
    "Topic", Annotated[str, Field(pattern="^[a-z][a-z0-9_.-]{1,63}$")]
)


class OptOutIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    categories: Annotated[
        list[str] | None, Field(max_length=11, title="Categories")
    ] = None
    """
    Categories to switch. Empty, with no ``topics`` either: everything (an opt-out of all
    messages; an opt-in back to all of them).
    """
    topics: Annotated[list[Topic] | None, Field(max_length=20, title="Topics")] = None
    """
    Topics to switch: a word ("weather", "bill": every signal type of that kind) or a signal
    type (``weather_alert``), lower case. A topic never covers a signal of another kind.
    """


class PageAppliedSetting(Model):
    items: Annotated[list[AppliedSetting], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageDecisionRecord(Model):
    items: Annotated[list[DecisionRecord], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageDeferredInsight(Model):
    items: Annotated[list[DeferredInsight], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageDocumentJob(Model):
    items: Annotated[list[DocumentJob], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageDocument(Model):
    items: Annotated[list[Document], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageHeuristic(Model):
    items: Annotated[list[Heuristic], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageHistoryEntry(Model):
    items: Annotated[list[HistoryEntry], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PartState(Model):
    checked_at: Annotated[float, Field(title="Checked At")]
    """
    Unix time of the check (a cached state says how old it is).
    """
    detail: Annotated[str | None, Field(title="Detail")] = None
    """
    Why the part is unavailable: the timeout, or the error. None: the check did not fail.
    """
    latency_ms: Annotated[float | None, Field(title="Latency Ms")] = None
    """
    How long the check took, in milliseconds.
    """
    required: Annotated[bool, Field(title="Required")]
    """
    Whether readiness depends on this part: the database and the embedder always, the LLM only when the server
    requires it (``api.ready_requires_llm``).
    """
    state: Annotated[
        Literal["ok", "unavailable", "not_configured", "unknown"], Field(title="State")
    ]
    """
    ``ok``; ``unavailable`` (it failed or did not answer in time: see ``detail``); ``not_configured`` (no LLM is
    configured); ``unknown`` (the LLM cannot be checked without a paid call, so it was not).
    """


Reason1 = TypeAliasType(
    "Reason1", Annotated[str, Field(max_length=500, title="Reason")]
)
"""
Why (shown to whoever looks later: "incident 42, bad template").
"""


class PauseIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    paused: Annotated[bool, Field(title="Paused")]
    """
    true or false: a kill switch is not switched by "yes".
    """
    reason: Annotated[Reason1 | None, Field(title="Reason")] = None
    """
    Why (shown to whoever looks later: "incident 42, bad template").
    """


class PauseState(Model):
    paused: Annotated[bool, Field(title="Paused")]
    """
    True: no cycle of the tenant sends anything (signals wait, feedback is still swept); false: messages flow.
    """
    reason: Annotated[str | None, Field(title="Reason")] = None
    """
    Why, as given when the pause was last switched. None: none given.
    """
    updated_at: Annotated[AwareDatetime | None, Field(title="Updated At")] = None
    """
    When the pause was last switched on or off (UTC). None: never.
    """


class Pending(Model):
    arguments: Annotated[dict[str, Any] | None, Field(title="Arguments")] = None
    """
    The arguments known so far (validated against the tool's schema).
    """
    carried: Annotated[bool | None, Field(title="Carried")] = False
    """
    Kept over a question on the side: the last answer was to that question, so "ok, great"
    acknowledges it, and only a plain yes or the arguments asked for go back to the call.
    """
    decision_id: Annotated[str | None, Field(title="Decision Id")] = None
    """
    The decision that asked.
    """
    kind: Annotated[Literal["arguments", "confirm", "question"], Field(title="Kind")]
    """
    ``arguments``: a tool call waiting for missing arguments; ``confirm``: a complete tool call
    waiting for a yes; ``question``: a clarifying question with no tool behind it.
    """
    missing: Annotated[list[str] | None, Field(title="Missing")] = None
    """
    The arguments asked for.
    """
    partial: Annotated[dict[str, dict[str, str]] | None, Field(title="Partial")] = None
    """
    Half-given date-times: ``{"time": {"date": "2026-03-05"}}`` after "Thursday works".
    """
    question: Annotated[str | None, Field(title="Question")] = None
    """
    What the user was asked.
    """
    tool: Annotated[str | None, Field(title="Tool")] = None
    """
    The tool the call is for (``arguments`` and ``confirm``).
    """


class PreviewIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    at: Annotated[AwareDatetime | None, Field(title="At")] = None
    """
    The time to decide at (quiet hours, cap, cooldown, signal expiry). None: now.
    """
    llm: Annotated[bool | None, Field(title="Llm")] = True
    """
    False: template candidates even when an LLM is configured (no LLM call, no cost).
    """
    user_id: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[A-Za-z0-9][A-Za-z0-9._:@-]{0,63}$",
            title="User Id",
        ),
    ]
    """
    The user whose cycle to preview.
    """


class ProactiveFeedback(Model):
    action_type: Annotated[str, Field(title="Action Type")]
    """
    ``text``, or ``button_prompt`` (a yes/no question; WhatsApp shows Yes and Later buttons).
    """
    attempts: Annotated[int | None, Field(title="Attempts")] = 0
    """
    Deliveries tried (the outbox retries a channel that was down, or a worker that died).
    """
    category: Annotated[str, Field(title="Category")]
    """
    The message's category (e.g. ``deadline_warning``).
    """
    channel: Annotated[str, Field(title="Channel")]
    """
    The channel it went through: ``console``, ``webhook`` or ``whatsapp``.
    """
    decision_id: Annotated[str | None, Field(title="Decision Id")] = None
    """
    The decision record of the cycle that sent it (``GET /v1/decisions/{id}``).
    """
    delivery_detail: Annotated[str | None, Field(title="Delivery Detail")] = None
    """
    What the channel said last (e.g. ``HTTP 200``), or why the delivery failed. None: no answer yet.
    """
    delivery_status: Annotated[str, Field(title="Delivery Status")]
    """
    ``sending`` (being delivered, or waiting for a retry), ``sent`` (the channel took it) or ``failed`` (given up; it
    does not count toward the daily cap).
    """
    id: Annotated[str, Field(title="Id")]
    """
    The send's id (a cycle's ``send_id``); channels get it as the idempotency key.
    """
    message: Annotated[str, Field(title="Message")]
    """
    The text sent.
    """
    outcome: Annotated[
        Literal["pending", "engaged", "ignored", "negative", "button_click"],
        Field(title="Outcome"),
    ]
    """
    How the user reacted: ``pending`` (not yet known), ``engaged`` (replied), ``button_click`` (pressed a button of
    the prompt), ``negative`` (pushed back or asked to stop) or ``ignored`` (no reply within 180 minutes by default).
    """
    outcome_at: Annotated[AwareDatetime | None, Field(title="Outcome At")] = None
    """
    When the outcome was set (UTC). None: still pending.
    """
    probability: Annotated[float | None, Field(title="Probability")]
    """
    The probability the decision to send it had (1 unless random exploration sent it): for off-policy evaluation.
    None: not recorded.
    """
    response_latency_seconds: Annotated[
        float | None, Field(title="Response Latency Seconds")
    ]
    """
    Seconds from ``sent_at`` to the reply that labelled it. None: no reply (pending or ignored).
    """
    score: Annotated[float | None, Field(title="Score")]
    """
    The message's composite score when it was chosen, 0 to 10. None: not recorded.
    """
    sent_at: Annotated[AwareDatetime, Field(title="Sent At")]
    """
    When the cycle committed the send (UTC), or, for a message delivered on a later attempt, when that attempt
    succeeded. The daily cap, the cooldown and the reply latency count from it.
    """
    trigger_signals: Annotated[list[str], Field(title="Trigger Signals")]
    """
    The types of the signals the message was about.
    """
    user_id: Annotated[str, Field(title="User Id")]
    """
    The user the message was sent to.
    """


class Error(Model):
    field: str | None = None
    """
    The input at fault (dotted path).
    """
    in_: Annotated[str | None, Field(alias="in")] = None
    """
    Where it came from: body, query, path or header.
    """
    message: str | None = None
    """
    What is wrong with it.
    """


class Problem(Model):
    detail: str
    """
    What was wrong, in one line a person can act on.
    """
    error_id: str | None = None
    """
    On a 5xx: the id of the server's log line for it.
    """
    errors: list[Error] | None = None
    """
    Every problem found with the input, each naming its field.
    """
    field: str | None = None
    """
    The first input at fault (dotted path), on a refused input.
    """
    status: int
    """
    The HTTP status, repeated.
    """
    title: str
    """
    The kind of problem: Invalid request, Not found, …
    """
    type: str
    """
    Always about:blank: the status and title say what happened.
    """


class ReadinessReport(Model):
    parts: Annotated[dict[str, PartState], Field(title="Parts")]
    """
    Each part's state, by name: ``database``, ``embedder`` and ``llm``.
    """
    status: Annotated[Literal["ready", "not_ready"], Field(title="Status")]
    """
    ``ready`` (HTTP 200) when every required part is ``ok`` or ``unknown``, else ``not_ready`` (HTTP 503).
    """


Value1 = TypeAliasType("Value1", Annotated[str, Field(max_length=64, title="Value")])
"""
The value to replay with: a number in the setting's range, the same as ``PUT
/v1/settings/{name}`` takes (most are 0 to 1; a proactive score threshold 0 to 10, a daily cap
a whole number 0 to 50), or for the executive's strategy one of ``heuristic_first``,
``always_llm``, ``urgency_tiered``.
"""


class ReplayIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    days: Annotated[float | None, Field(gt=0.0, le=365.0, title="Days")] = 30.0
    """
    Without ``since``: replay the decisions logged in the last this many days (up to 365).
    """
    decision_point: Annotated[
        Literal["executive", "routing", "admission", "proactive"],
        Field(title="Decision Point"),
    ]
    """
    Whose logged decisions to replay: ``executive`` (fire a heuristic or ask the LLM),
    ``routing`` (how a user's query is handled), ``admission`` (whether an agent run is added to
    memory, skipped, replaces one or is merged) or ``proactive`` (whether to message a user).
    """
    parameter: Annotated[
        Literal[
            "heuristic_threshold",
            "personality_bias",
            "strategy",
            "urgency.threshold_reduction",
            "urgency.immediate_min",
            "urgency.soon_min",
            "urgency.reasonable_similarity",
            "urgency.high_similarity",
            "cascade_threshold",
            "high_threshold",
            "low_threshold",
            "low_similarity",
            "duplicate_threshold",
            "score_threshold.new",
            "score_threshold.building",
            "score_threshold.established",
            "score_threshold.deep",
            "weight.relevance",
            "weight.timing",
            "weight.urgency",
            "daily_cap.new",
            "daily_cap.building",
            "daily_cap.established",
            "daily_cap.deep",
        ]
        | None,
        Field(examples=["score_threshold.new"], title="Parameter"),
    ] = None
    """
    The setting to vary, one of the decision point's own: executive ``heuristic_threshold``,
    ``personality_bias``, ``strategy`` or an ``urgency.*`` cut-off; routing ``cascade_threshold``,
    ``high_threshold`` or ``low_threshold``; admission ``low_similarity`` or
    ``duplicate_threshold``; proactive a trust level's ``score_threshold.*`` or ``daily_cap.*``, or a
    ``weight.*``. Omitted: the decision point's first.
    """
    since: Annotated[AwareDatetime | None, Field(title="Since")] = None
    """
    The window's start (None: ``days`` back from now).
    """
    value: Annotated[float | Value1, Field(title="Value")]
    """
    The value to replay with: a number in the setting's range, the same as ``PUT
    /v1/settings/{name}`` takes (most are 0 to 1; a proactive score threshold 0 to 10, a daily cap
    a whole number 0 to 50), or for the executive's strategy one of ``heuristic_first``,
    ``always_llm``, ``urgency_tiered``.
    """


class RouteFeedback(Model):
    decided: Annotated[str | None, Field(title="Decided")]
    """
    What was decided, as the record says: RETRIEVE, REASON_ONLY, USE_TOOL, CLARIFY or ESCALATE.
    """
    decision_id: Annotated[str, Field(title="Decision Id")]
    """
    The rated routing decision.
    """
    outcome: Annotated[str, Field(title="Outcome")]
    """
    The decision record's outcome now: ``correct`` or ``incorrect``.
    """
    route_feedback: Annotated[dict[str, Any], Field(title="Route Feedback")]
    """
    The rating as stored on the decision record (``attributes.route_feedback``): ``correct``,
    ``expected_decision``, ``expected_tool``, ``note`` and ``at`` (when it was rated, ISO 8601 UTC).
    """
    session_id: Annotated[str, Field(title="Session Id")]
    """
    The session the decision belongs to.
    """


ExpectedTool = TypeAliasType(
    "ExpectedTool",
    Annotated[str, Field(max_length=64, min_length=1, title="Expected Tool")],
)
"""
The tool it should have used (with ``expected_decision`` USE_TOOL).
"""


Note2 = TypeAliasType("Note2", Annotated[str, Field(max_length=2000, title="Note")])
"""
Free text kept with the rating (at most 2000 characters).
"""


class RouteFeedbackIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    correct: Annotated[bool, Field(title="Correct")]
    """
    Whether the decision was right (a JSON boolean). A later rating of the same decision
    replaces this one.
    """
    decision_id: Annotated[str, Field(max_length=64, min_length=1, title="Decision Id")]
    """
    The routing decision rated (``RouteResult.decision_id``); it must be a routing decision of
    this session (else 404) that was routed (a turn a human owned cannot be rated).
    """
    expected_decision: (
        Literal["RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE"] | None
    ) = None
    """
    What it should have been (only when not correct).
    """
    expected_tool: Annotated[ExpectedTool | None, Field(title="Expected Tool")] = None
    """
    The tool it should have used (with ``expected_decision`` USE_TOOL).
    """
    note: Annotated[Note2 | None, Field(title="Note")] = None
    """
    Free text kept with the rating (at most 2000 characters).
    """


class RouteRequest(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    critical: Annotated[bool | None, Field(title="Critical")] = None
    """
    A retrieval failure on a critical query escalates. None: decided from ``routing.critical_topics``.
    """
    query: Annotated[str, Field(max_length=4000, min_length=1, title="Query")]
    """
    The user's turn, as they wrote it (1–4000 characters); stored in the session as a ``user`` message.
    """
    router: Annotated[
        Literal["local", "llm", "cascade"] | None, Field(title="Router")
    ] = None
    """
    Override ``routing.router`` for this call.
    """
    tool_arguments: Annotated[
        dict[str, dict[str, Any]] | None, Field(max_length=16, title="Tool Arguments")
    ] = None
    """
    Arguments the agent already has, per tool; merged over the LLM's and the lead context's.
    """


class RouteResult(Model):
    band: Annotated[Literal["high", "medium", "low"] | None, Field(title="Band")]
    """
    Where ``confidence`` falls: ``high`` at or above the high threshold (0.75 by default),
    ``low`` below the low threshold (0.5 by default), ``medium`` between. None when a human owns
    the session.
    """
    composite: CompositeConfidence | None = None
    """
    The composite confidence with its factors and weights; None when no decision was checked
    (a human owns the session).
    """
    confidence: Annotated[float | None, Field(title="Confidence")]
    """
    The final confidence, 0–1 (4 decimals): the composite confidence blended with the router's
    (``routing.router_weight``), times the penalties for conflicting sources or a failed retrieval.
    An escalation reports a value below the low threshold. None when a human owns the session.
    """
    conflicts: Annotated[list[dict[str, Any]] | None, Field(title="Conflicts")] = None
    """
    Pairs of found sources of the same doc type that state different figures (prices,
    percentages, durations …): each ``first`` and ``second`` source id and the ``reason``. Any
    conflict multiplies the confidence by ``routing.conflict_penalty`` (0.5 by default).
    """
    decision: (
        Literal["RETRIEVE", "REASON_ONLY", "USE_TOOL", "CLARIFY", "ESCALATE"] | None
    )
    """
    None only when a human owns the session.
    """
    decision_id: Annotated[str, Field(title="Decision Id")]
    """
    Id of this turn's decision record, set by the server: quote it in route feedback and tool
    outcomes, or look it up with ``GET /v1/decisions/{id}``.
    """
    degraded: Annotated[str | None, Field(title="Degraded")] = None
    """
    Set when the decision was not made the way the mode asks, and why: e.g. the LLM timed out
    and the local router decided instead. None when everything worked.
    """
    escalation_reason: Annotated[str | None, Field(title="Escalation Reason")] = None
    """
    ESCALATE: why, e.g. ``sensitive_topic_detected``, ``confidence_below_threshold``,
    ``retrieval_failure``, ``repeated_clarification``, ``internal_error``. None for other decisions.
    """
    message: Annotated[str | None, Field(title="Message")] = None
    """
    For the user: the clarifying question, the handoff message or, when the turn escalated on an
    error, the error message.
    """
    missing_parameters: Annotated[
        list[ArgumentProblem] | None, Field(title="Missing Parameters")
    ] = None
    """
    Tool arguments that are missing or fail the tool's JSON Schema; when any are, the decision
    became CLARIFY and ``message`` asks for them.
    """
    path: Annotated[
        Literal["local", "llm", "rule", "fallback", "dialogue", "human_owned"],
        Field(title="Path"),
    ]
    """
    What decided: ``local`` the embedding router, ``llm`` the LLM router, ``rule`` a sensitive-topic
    rule (escalated without asking a router), ``fallback`` the local router's answer failed
    validation or no router could decide (escalated), ``dialogue`` the turn answered what the
    session was waiting for (arguments, a yes or a no; ``pending``), ``human_owned`` nothing (a
    human owns the session).
    """
    pending: Pending | None = None
    """
    What the session waits for after this turn: a tool call's missing arguments, a yes or a no
    to a tool call, or the answer to a question (``routing.dialogue``); the next turn is read
    against it first. None: nothing is pending.
    """
    reasoning: Annotated[str, Field(title="Reasoning")]
    """
    Why, in words: the router's reason and each check that changed the decision.
    """
    required_tools: Annotated[list[str] | None, Field(title="Required Tools")] = None
    """
    The registered tools the decision names: for USE_TOOL the tools to call (kept when a USE_TOOL
    became CLARIFY to ask for arguments or a confirmation). Empty otherwise.
    """
    retrieval_needed: Annotated[bool | None, Field(title="Retrieval Needed")] = False
    """
    True exactly when the decision is RETRIEVE: answer from the knowledge base.
    """
    retrieval_query: Annotated[str | None, Field(title="Retrieval Query")] = None
    """
    RETRIEVE: the text the knowledge base was searched with (the user's query unless the router
    rewrote it, or a wider second search added the previous user turn). None for other decisions.
    """
    router_confidence: Annotated[float | None, Field(title="Router Confidence")] = None
    """
    The confidence of the decision as first made, 0–1, before the composite and the bands: the
    local router's probability, the LLM's self-reported confidence capped at
    ``routing.llm_confidence_ceiling``, or 0.1 for a rule's or a fallback's escalation. None when a
    human owns the session.
    """
    session_id: Annotated[str, Field(title="Session Id")]
    """
    The session this turn belongs to.
    """
    session_mode: Annotated[Literal["auto", "human"], Field(title="Session Mode")]
    """
    The session's mode after this turn: ``human`` when it escalated or a person already owned it
    (a person owns it until it is handed back), else ``auto``.
    """
    sources: Annotated[list[FoundSource] | None, Field(title="Sources")] = None
    """
    The knowledge-base sources this turn found, best first: each its ``id``, ``doc_type``,
    ``title``, ``score`` (the 0–1 rerank score) and, when one sentence matched rather than the
    whole document, ``passage``. Empty when nothing was searched or found.
    """
    status: Annotated[Literal["routed", "human_owned"], Field(title="Status")]
    """
    ``routed``: a decision was made. ``human_owned``: a human owns the session, so nothing was
    decided; the user's message was stored for them.
    """
    superseded: Annotated[list[dict[str, Any]] | None, Field(title="Superseded")] = None
    """
    Sources set aside for a newer or current document of the same type (each ``id``, ``by`` and
    ``why``): an old price sheet is not a conflict with the current one, and the answer cites the latter.
    """
    tool_arguments: Annotated[
        dict[str, dict[str, Any]] | None, Field(title="Tool Arguments")
    ] = None
    """
    USE_TOOL: the arguments for each required tool, merged from the lead context, the LLM and
    the request (the request's win).
    """


class Run(Model):
    agent_id: Annotated[str, Field(title="Agent Id")]
    """
    The agent that made the run; with user_id, the scope it is compared in.
    """
    artifacts: Annotated[list[str], Field(title="Artifacts")]
    """
    What the run produced (files, records, messages), as sent, without repeats.
    """
    attributes: Annotated[dict[str, Any], Field(title="Attributes")]
    """
    The caller's free-form JSON, as sent.
    """
    canonical: Annotated[bool, Field(title="Canonical")]
    """
    True for the run its merge group shows first (best outcome, newest on a tie) and for an active run in no group;
    false for the group's other runs and for a superseded run.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the run was admitted (UTC).
    """
    duplicate_count: Annotated[int, Field(title="Duplicate Count")]
    """
    How many later runs were decided NOT as repeats of it: each counts one more use (an undone NOT counts one
    less).
    """
    id: Annotated[str, Field(title="Id")]
    """
    The run's id: the caller's, or a generated one.
    """
    merge_group: Annotated[str | None, Field(title="Merge Group")]
    """
    The id of the merge group it belongs to (the id of the run the group started with); None for a run in no
    group.
    """
    outcome: Annotated[Literal["success", "failure", "partial"], Field(title="Outcome")]
    """
    How the run ended: success, partial or failure.
    """
    references: Annotated[list[str], Field(title="References")]
    """
    What the run consulted (documents, URLs, APIs), as sent, without repeats.
    """
    status: Annotated[Literal["active", "superseded"], Field(title="Status")]
    """
    active: found by search and compared with new runs. superseded: replaced by a better run (REPLACE), kept for the
    record but never searched.
    """
    summary: Annotated[str, Field(title="Summary")]
    """
    The text that was embedded and compared with other runs: the caller's summary, or one written from the steps.
    """
    summary_source: Annotated[str, Field(title="Summary Source")]
    """
    Who wrote the summary: caller, llm, or extractive (picked from the run's own steps, no model).
    """
    superseded_at: Annotated[AwareDatetime | None, Field(title="Superseded At")]
    """
    When it was replaced (UTC); None while it is active.
    """
    superseded_by: Annotated[str | None, Field(title="Superseded By")]
    """
    The run that replaced it; None while it is active.
    """
    task: Annotated[str, Field(title="Task")]
    """
    The task text as sent (trimmed).
    """
    task_id: Annotated[str, Field(title="Task Id")]
    """
    The task's identity: the caller's task_id, or one derived from the task text (case and spacing ignored).
    """
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    """
    When the run last changed (UTC), for example superseded, merged, or counted as used again.
    """
    usage_count: Annotated[int, Field(title="Usage Count")]
    """
    The use count the caller sent with the run. Later repeats of it are counted apart, in duplicate_count.
    """
    user_id: Annotated[str, Field(title="User Id")]
    """
    The user the run was for; "" for none. With agent_id, the scope it is compared in.
    """


Artifact = TypeAliasType(
    "Artifact", Annotated[str, Field(max_length=512, min_length=1)]
)


Error1 = TypeAliasType("Error1", Annotated[str, Field(max_length=4000, title="Error")])
"""
The error the run ended with, if any. It goes into the summary and into what makes two runs the same run.
"""


Id3 = TypeAliasType(
    "Id3",
    Annotated[
        str,
        Field(max_length=64, min_length=1, pattern="^[A-Za-z0-9._:@-]+$", title="Id"),
    ],
)
"""
The run's id; re-sending a stored run with the same id and content is an idempotent NOT.
"""


Reference = TypeAliasType(
    "Reference", Annotated[str, Field(max_length=512, min_length=1)]
)


Replaces = TypeAliasType(
    "Replaces",
    Annotated[
        str,
        Field(
            max_length=64, min_length=1, pattern="^[A-Za-z0-9._:@-]+$", title="Replaces"
        ),
    ],
)
"""
Explicit REPLACE: the caller knows this run supersedes that one (same task and scope, still active).
"""


Step = TypeAliasType("Step", Annotated[str, Field(max_length=4000)])


Summary = TypeAliasType(
    "Summary", Annotated[str, Field(max_length=8000, min_length=1, title="Summary")]
)
"""
The caller's own summary, used as is. None: summarised from the steps (LLM or extractive).
"""


TaskId = TypeAliasType(
    "TaskId",
    Annotated[
        str,
        Field(
            max_length=64, min_length=1, pattern="^[A-Za-z0-9._:@-]+$", title="Task Id"
        ),
    ],
)
"""
The task's identity. None: derived from the normalised task text. REPLACE needs the same task.
"""


class RunIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    agent_id: Annotated[
        str | None,
        Field(
            max_length=64, min_length=1, pattern="^[A-Za-z0-9._:@-]+$", title="Agent Id"
        ),
    ] = "default"
    """
    The agent that made the run (default "default"). Runs are compared only with runs of the same agent and user.
    """
    artifacts: Annotated[
        list[Artifact] | None, Field(max_length=200, title="Artifacts")
    ] = None
    """
    What the run produced (files, records, messages).
    """
    attributes: Annotated[
        dict[str, Any] | None, Field(max_length=64, title="Attributes")
    ] = None
    """
    Free-form JSON kept with the run and returned as is (at most 64 keys, finite numbers only). Admission does not
    read it, and it is not part of what makes two runs the same run.
    """
    error: Annotated[Error1 | None, Field(title="Error")] = None
    """
    The error the run ended with, if any. It goes into the summary and into what makes two runs the same run.
    """
    id: Annotated[Id3 | None, Field(title="Id")] = None
    """
    The run's id; re-sending a stored run with the same id and content is an idempotent NOT.
    """
    outcome: Annotated[Literal["success", "failure", "partial"], Field(title="Outcome")]
    """
    How the run ended: success, partial or failure. A better outcome (success > partial > failure) for the same task
    can replace a stored run.
    """
    references: Annotated[
        list[Reference] | None, Field(max_length=200, title="References")
    ] = None
    """
    What the run consulted (documents, URLs, APIs).
    """
    replaces: Annotated[Replaces | None, Field(title="Replaces")] = None
    """
    Explicit REPLACE: the caller knows this run supersedes that one (same task and scope, still active).
    """
    steps: Annotated[list[Step] | None, Field(max_length=500, title="Steps")] = None
    """
    The run's trace, flattened: tool calls, observations, messages.
    """
    summary: Annotated[Summary | None, Field(title="Summary")] = None
    """
    The caller's own summary, used as is. None: summarised from the steps (LLM or extractive).
    """
    task: Annotated[str, Field(max_length=4000, min_length=1, title="Task")]
    """
    What the run was asked to do, 1 to 4000 characters, trimmed. Unless task_id is given, the task text with case and
    spacing ignored is the task's identity.
    """
    task_id: Annotated[TaskId | None, Field(title="Task Id")] = None
    """
    The task's identity. None: derived from the normalised task text. REPLACE needs the same task.
    """
    usage_count: Annotated[
        int | None, Field(ge=0, le=1000000000, title="Usage Count")
    ] = 1
    """
    How many times the run has been used so far, as the caller counts it (default 1). Stored as is; search sums it
    over a merge group.
    """
    user_id: Annotated[
        str | None, Field(max_length=64, pattern="^[A-Za-z0-9._:@-]*$", title="User Id")
    ] = ""
    """
    Scope: runs are compared with, replace and merge with runs of the same agent and user only.
    """


class Scope(Model):
    counter_examples: Annotated[list[Example], Field(title="Counter Examples")]
    """
    Situations near them it does not apply to, given or learned, oldest first.
    """
    examples: Annotated[list[Example], Field(title="Examples")]
    """
    Situations it applies to, given or learned, oldest first.
    """


class SearchHit(Model):
    best_similarity: Annotated[float, Field(title="Best Similarity")]
    """
    The best similarity among the runs of this hit's merge group (its own for a run in no group):
    with ``collapse`` a group's canonical run stands at its group's place, ordered by this.
    """
    group: GroupView | None
    """
    The run's merge group with its totals; None for a run in no group.
    """
    run: Run
    """
    The run found.
    """
    similarity: Annotated[float, Field(title="Similarity")]
    """
    Cosine similarity of the query's embedding to the run summary's, -1 to 1.
    """


class Session(Model):
    clarifications: Annotated[int, Field(title="Clarifications")]
    """
    CLARIFY turns in a row (Rasa's two-stage fallback counts them).
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the session was created (UTC).
    """
    escalated_at: Annotated[AwareDatetime | None, Field(title="Escalated At")]
    """
    When the session was last handed to a human (UTC); kept after a handback. None if it never
    escalated.
    """
    escalation_reason: Annotated[str | None, Field(title="Escalation Reason")]
    """
    Why the session was last handed to a human (e.g. ``sensitive_topic_detected``,
    ``tool_failure``); kept after a handback. None if it never escalated.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The session's id.
    """
    lead_context: Annotated[dict[str, Any], Field(title="Lead Context")]
    """
    The CRM data the session was started with (email, name, company, status, …).
    """
    message_count: Annotated[int, Field(title="Message Count")]
    """
    Messages stored in the session, of every role.
    """
    mode: Annotated[Literal["auto", "human"], Field(title="Mode")]
    """
    ``auto``: each query is routed. ``human``: a person owns the session after an escalation;
    nothing is routed until it is handed back.
    """
    pending: Pending | None = None
    """
    What the session waits for (``routing.dialogue``): a tool call's missing arguments, a yes
    to a tool call, or the answer to a question; the next turn resolves it first. None: nothing.
    """
    recent_messages: Annotated[list[Message] | None, Field(title="Recent Messages")] = (
        None
    )
    """
    The latest messages, oldest first; on ``GET`` as many as its ``turns`` asks (20 by default).
    """
    retrieved_sources: Annotated[list[dict[str, Any]], Field(title="Retrieved Sources")]
    """
    The knowledge-base sources found in this session, latest first, at most 8 (each ``id``,
    ``doc_type``, ``title``, ``score`` and maybe ``passage``); shown to the LLM router.
    """
    tool_calls: Annotated[int, Field(title="Tool Calls")]
    """
    Tool outcomes reported for this session.
    """
    tool_failures: Annotated[int, Field(title="Tool Failures")]
    """
    Of ``tool_calls``, those that failed; tool success rate = 1 − failures / calls.
    """
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    """
    When the session last changed (UTC): a message, a turn, a tool outcome or a mode change.
    """


class Signal(Model):
    consumed_at: Annotated[AwareDatetime | None, Field(title="Consumed At")] = None
    """
    When a cycle that got past the pre-filter used it (a blocked cycle leaves it waiting). None: not used yet.
    """
    context_only: Annotated[bool, Field(title="Context Only")]
    """
    Background for the LLM only: it never starts a cycle on its own.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the server stored it (UTC).
    """
    cycle_key: Annotated[str | None, Field(title="Cycle Key")] = None
    """
    The cycle that used it.
    """
    data: Annotated[dict[str, Any], Field(title="Data")]
    """
    The details the source gave (a JSON object).
    """
    dedup_key: Annotated[str, Field(title="Dedup Key")]
    """
    The key that keeps the signal from being stored twice: the caller's, else the type and a hash of the data.
    """
    expires_at: Annotated[AwareDatetime, Field(title="Expires At")]
    """
    After this time the signal is ignored, used or not.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The signal's id, assigned by the server.
    """
    outcome: Annotated[
        Literal[
            "sent",
            "folded",
            "deferred",
            "duplicate",
            "suppressed",
            "opted_out",
            "below_threshold",
            "no_candidate",
            "context",
            "expired",
        ]
        | None,
        Field(title="Outcome"),
    ] = None
    """
    What it became when a cycle used it: ``sent`` or ``folded`` (in message ``outcome_ref``), ``deferred`` (as
    insight ``outcome_ref``), ``duplicate``, ``suppressed``, ``opted_out``, ``below_threshold``, ``no_candidate``,
    ``context`` or ``expired`` (an event whose moment passed before a message told it). None: not used (pending, or
    expired once ``expires_at`` passed).
    """
    outcome_reason: Annotated[str | None, Field(title="Outcome Reason")] = None
    """
    Why, for a person: which message, which insight until when, which rule. While it is pending: why it waits
    (the last thing that held it: quiet hours, the daily cap, a wait for the user's wake…).
    """
    outcome_ref: Annotated[str | None, Field(title="Outcome Ref")] = None
    """
    The send, the deferred insight or the decision record it ended in.
    """
    retry_at: Annotated[AwareDatetime | None, Field(title="Retry At")] = None
    """
    A signal deferred at night whose moment comes after the user wakes is not used up: it waits, pending, and is
    considered again at this time (the user's wake); ``outcome_reason`` says why. None: no wait.
    """
    type: Annotated[str, Field(title="Type")]
    """
    What kind of thing was noticed (e.g. ``deadline_approaching``).
    """
    urgency_hint: Annotated[int, Field(title="Urgency Hint")]
    """
    How urgent the source thinks this is, 1 (can wait) to 10 (now).
    """
    user_id: Annotated[str, Field(title="User Id")]
    """
    The user the signal is about.
    """


DedupKey = TypeAliasType(
    "DedupKey", Annotated[str, Field(max_length=256, min_length=1, title="Dedup Key")]
)
"""
The same key again for the same user is not stored twice: while the first signal is unused it takes the new
urgency, data, ``context_only`` and expiry (a source polled again updates it); once used, the key is refused until
7 days (by default) after that signal was stored. None: type + data.
"""


class SignalIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    context_only: Annotated[bool | None, Field(title="Context Only")] = False
    """
    Background for the LLM (e.g. the weather); context-only signals alone never start a cycle.
    """
    data: Annotated[dict[str, Any] | None, Field(title="Data")] = None
    """
    The details, a JSON object of at most 8000 characters. A ``title`` (or ``summary``) and a time in ``start``,
    ``due`` or ``when`` make the best messages; the LLM reads it as data, never as instructions.
    """
    dedup_key: Annotated[DedupKey | None, Field(title="Dedup Key")] = None
    """
    The same key again for the same user is not stored twice: while the first signal is unused it takes the new
    urgency, data, ``context_only`` and expiry (a source polled again updates it); once used, the key is refused until
    7 days (by default) after that signal was stored. None: type + data.
    """
    expires_at: Annotated[AwareDatetime | None, Field(title="Expires At")] = None
    """
    After it the signal is ignored. None: one day after it arrives.
    """
    type: Annotated[
        str, Field(max_length=64, min_length=1, pattern="^[a-z0-9_.:-]+$", title="Type")
    ]
    """
    What kind of thing was noticed, in lower case (e.g. ``deadline_approaching``); a template message's category is
    guessed from it.
    """
    urgency_hint: Annotated[int, Field(ge=1, le=10, title="Urgency Hint")]
    """
    How urgent the source thinks this is, 1 (can wait) to 10 (now). From 8 (by default) a signal gets through quiet
    hours and the cooldown, never the daily cap.
    """


class SignalOutcome(Model):
    effect: Annotated[str, Field(title="Effect")]
    """
    ``updated``, ``locked``, ``duplicate``, ``neutral``, ``missing`` (the heuristic was deleted) or
    ``rated`` (a soft outcome of a fire a rating stands on: the rating says whether it helped).
    """
    fire_id: Annotated[str | None, Field(title="Fire Id")]
    """
    The fire the signal was about; None for a signal not tied to a fire.
    """
    heuristic_id: Annotated[str, Field(title="Heuristic Id")]
    """
    The heuristic the signal was about.
    """
    magnitude: Annotated[float, Field(title="Magnitude")]
    """
    The signal's strength, before feedback_weight and decay; 0 for a neutral signal.
    """
    new_confidence: Annotated[float | None, Field(title="New Confidence")] = None
    """
    The heuristic's confidence after, 0 to 1; None when nothing was applied (a neutral signal, or the heuristic is
    gone).
    """
    old_confidence: Annotated[float | None, Field(title="Old Confidence")] = None
    """
    The heuristic's confidence before, 0 to 1; None when nothing was applied (a neutral signal, or the heuristic is
    gone).
    """
    signal: Annotated[str, Field(title="Signal")]
    """
    ``positive``, ``negative`` or ``neutral`` (recorded, no update): the direction it was read in. A
    ``soft`` one is weighed both ways, by what such outcomes meant (see ``soft``).
    """
    soft: Annotated[bool | None, Field(title="Soft")] = False
    """
    True: the ``calibrated`` strategy weighed this outcome part for, part against, by what the
    tenant's rated fires say it means (an ignore is not plainly negative); ``signal`` is only its lean.
    """
    source: Annotated[str, Field(title="Source")]
    """
    What kind of signal: implicit_undo, user_implicit (thanks or confirmation), implicit_ignored or
    implicit_timeout.
    """


class SignalsStored(Model):
    duplicates: Annotated[int, Field(title="Duplicates")]
    """
    Signals whose dedup key this user already had (or that the batch named again): not stored again.
    """
    stored: Annotated[list[Signal], Field(title="Stored")]
    """
    The signals stored, as the server keeps them (with ids and expiry).
    """
    updated: Annotated[int | None, Field(title="Updated")] = 0
    """
    Of the duplicates, those that matched a pending signal: it took their urgency, data and expiry (a
    source polled again). The rest were refused: their key belongs to a used signal, for 7 days by default.
    """


class SimilarRun(Model):
    artifacts: Annotated[int | None, Field(title="Artifacts")]
    """
    How many artifacts it has; None for a run below the low threshold, whose artifacts were not read.
    """
    duplicate: Annotated[bool | None, Field(title="Duplicate")] = None
    """
    The tenant's pair judge's verdict, "does it say what the new run says" (``admission
    calibrate``); None where no judge is fitted (the duplicate threshold decided) or the run was
    below the low similarity (no judge saw it).
    """
    outcome: Annotated[Literal["success", "failure", "partial"], Field(title="Outcome")]
    """
    How that run ended: success, partial or failure.
    """
    references: Annotated[int | None, Field(title="References")]
    """
    How many references it has; None for a run below the low threshold, whose references were not read.
    """
    run_id: Annotated[str, Field(title="Run Id")]
    """
    The stored run's id (or a run admitted earlier in the same batch).
    """
    same_task: Annotated[bool, Field(title="Same Task")]
    """
    Whether it has the same task id as the new run.
    """
    similarity: Annotated[float, Field(title="Similarity")]
    """
    Cosine similarity of its summary's embedding to the new run's, rounded to 4 decimals.
    """
    summary: Annotated[str, Field(title="Summary")]
    """
    Its summary, cut to the first 300 characters.
    """


PositiveRateCi = TypeAliasType(
    "PositiveRateCi",
    Annotated[
        tuple[float, float], Field(max_length=2, min_length=2, title="Positive Rate Ci")
    ],
)
"""
95 % Wilson score interval of ``positive_rate``; None with no positive or negative feedback.
"""


class StrategyReport(Model):
    by_path: Annotated[dict[str, int] | None, Field(title="By Path")] = None
    """
    Those decisions by path: ``heuristic``, ``llm``, ``fallback``, ``rejected``.
    """
    decisions: Annotated[int | None, Field(title="Decisions")] = 0
    """
    Real-time executive decisions this strategy made (sleep-cycle re-evaluations are not counted).
    """
    llm_calls: Annotated[int | None, Field(title="Llm Calls")] = 0
    """
    Requests sent to the LLM, counted by each decision (``decision_records.llm_calls``).
    """
    mean_predicted_success: Annotated[
        float | None, Field(title="Mean Predicted Success")
    ] = None
    """
    Mean predicted success, 0–1, of the decisions that answered (heuristic and LLM paths); None
    when there were none.
    """
    negative: Annotated[int | None, Field(title="Negative")] = 0
    """
    Decisions whose feedback was negative.
    """
    neutral: Annotated[int | None, Field(title="Neutral")] = 0
    """
    Decisions whose feedback was neutral (not counted in ``positive_rate``).
    """
    positive: Annotated[int | None, Field(title="Positive")] = 0
    """
    Decisions whose feedback was positive.
    """
    positive_rate: Annotated[float | None, Field(title="Positive Rate")] = None
    """
    positive / (positive + negative), 0–1; None with no positive or negative feedback.
    """
    positive_rate_ci: Annotated[
        PositiveRateCi | None, Field(title="Positive Rate Ci")
    ] = None
    """
    95 % Wilson score interval of ``positive_rate``; None with no positive or negative feedback.
    """
    strategy: Annotated[str, Field(title="Strategy")]
    """
    The strategy (``heuristic_first``, ``always_llm``, ``urgency_tiered``); ``(none)`` for
    decisions recorded without one.
    """
    tokens: Annotated[int | None, Field(title="Tokens")] = 0
    """
    LLM tokens used, prompt and completion together.
    """
    uncounted: Annotated[int | None, Field(title="Uncounted")] = 0
    """
    Decisions recorded before calls were counted: their calls are not in ``llm_calls``.
    """


class TaughtPair(Model):
    duplicate: Annotated[bool, Field(title="Duplicate")]
    """
    The label: true when the rated run says what the other run says (a duplicate), false when it does not.
    """
    first: Annotated[str, Field(title="First")]
    """
    The summary of the rated decision's run.
    """
    run_id: Annotated[str, Field(title="Run Id")]
    """
    The run the decision was made against.
    """
    second: Annotated[str, Field(title="Second")]
    """
    The summary of the run it was decided against (run_id).
    """


class TickReport(Model):
    cycle_key: Annotated[str, Field(title="Cycle Key")]
    """
    The scheduler slot of this tick (one every 5 minutes by default).
    """
    decided_without_llm: Annotated[float | None, Field(title="Decided Without Llm")]
    """
    Share of cycles that never reached the LLM, 0 to 1; None when no cycle ran.
    """
    elapsed_ms: Annotated[float, Field(title="Elapsed Ms")]
    """
    How long the tick took, in milliseconds.
    """
    feedback_expired: Annotated[int, Field(title="Feedback Expired")]
    """
    Pending sends marked ignored by this tick (no reply after the ignore timeout).
    """
    llm_calls: Annotated[int, Field(title="Llm Calls")]
    """
    Cycles that called the LLM.
    """
    reasons: Annotated[dict[str, int], Field(title="Reasons")]
    """
    How many cycles ended each way: sent, explored, and every block reason.
    """
    redelivered: Annotated[dict[str, int] | None, Field(title="Redelivered")] = None
    """
    Committed sends the outbox delivered again (a worker died, the channel was down), by how each ended.
    """
    results: Annotated[list[CycleResult], Field(title="Results")]
    """
    The cycles that got past the pre-filter (at most ``max_results``).
    """
    sent: Annotated[int, Field(title="Sent")]
    """
    Cycles that sent a message (``sent`` plus ``explored``; a failed delivery is not counted).
    """
    tenants: Annotated[int, Field(title="Tenants")]
    """
    How many tenants the tick went over.
    """
    users: Annotated[int, Field(title="Users")]
    """
    Users with a live concrete signal that the pre-filter looked at.
    """


class TimelineEvent(Model):
    at: Annotated[AwareDatetime, Field(title="At")]
    """
    When it happened (UTC).
    """
    cycle_key: Annotated[str | None, Field(title="Cycle Key")] = None
    """
    Links a used signal, the cycle that used it and its send.
    """
    details: Annotated[dict[str, Any] | None, Field(title="Details")] = None
    """
    More, by kind: a signal's expiry and ``context_only``; a cycle's path, trust, threshold, candidates and delivery;
    a send's message, score and delivery detail; a reply's text (up to 280 characters), intent and labelled sends; an
    opt-out's categories; a mute's end; a pause's reason.
    """
    ids: Annotated[dict[str, str] | None, Field(title="Ids")] = None
    """
    signal_id, decision_id, send_id: what the event is, for a closer look.
    """
    kind: Annotated[
        Literal[
            "signal",
            "signal_used",
            "signal_expired",
            "cycle",
            "send",
            "feedback",
            "reply",
            "opt_out",
            "opt_in",
            "mute",
            "unmute",
            "pause",
            "resume",
        ],
        Field(title="Kind"),
    ]
    """
    ``signal`` (stored), ``signal_used`` (a cycle used it: what it became and why, e.g. sent in a message,
    deferred as an insight, a duplicate), ``signal_expired`` (it reached its expiry unused), ``cycle`` (a cycle's
    decision, or a pre-filter block when those are recorded), ``send`` (a message and its delivery), ``feedback`` (how
    the send was labelled), ``reply`` (what the user wrote and how it was read), ``opt_out``/``opt_in``,
    ``mute``/``unmute`` (by the user, a reply or the API) and ``pause``/``resume`` (the whole tenant's kill switch).
    """
    summary: Annotated[str, Field(title="Summary")]
    """
    One line for a person, e.g. ``deadline_approaching (urgency 8): Lab 4``.
    """


Example2 = TypeAliasType(
    "Example2", Annotated[str, Field(max_length=500, min_length=1)]
)


class Tool(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    confirm: Annotated[bool | None, Field(title="Confirm")] = False
    """
    True: the tool commits the user to something (a contract, a payment), so once its
    arguments are complete the user is asked to confirm, and only a yes calls it.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the tool was first registered (UTC); replacing it keeps this.
    """
    critical: Annotated[bool | None, Field(title="Critical")] = False
    """
    True: when the tool still fails after its retries, the turn is escalated to a person; a tool
    that is not critical is skipped and the turn goes on without it.
    """
    description: Annotated[
        str, Field(max_length=2000, min_length=1, title="Description")
    ]
    """
    What the tool does, in plain words (1–2000 characters): shown to the LLM router, matched
    against USE_TOOL queries with ``examples``, and used to word clarifying questions.
    """
    examples: Annotated[
        list[Example2] | None, Field(max_length=50, title="Examples")
    ] = None
    """
    Requests this tool serves ("Book a meeting with me"): with the description, what a USE_TOOL
    query is matched against to choose the tool (``routing.tool_choice``).
    """
    name: Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[A-Za-z][A-Za-z0-9_.-]*$",
            title="Name",
        ),
    ]
    """
    The tool's name (a letter, then letters, digits and ``_.-``; at most 64): what a decision's
    ``required_tools`` and tool outcomes name.
    """
    parameters: Annotated[dict[str, Any] | None, Field(title="Parameters")] = None
    """
    A JSON Schema (2020-12) for the tool's arguments.
    """
    read_only: Annotated[bool | None, Field(title="Read Only")] = False
    """
    True: the tool only reads (an order's status, a calendar's free slots), so it is never
    confirmed first, whatever the confidence band.
    """
    retry_allowed: Annotated[bool | None, Field(title="Retry Allowed")] = True
    """
    Whether a failed call may be retried (up to ``routing.max_tool_retries``); False: the first
    failure is final.
    """
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    """
    When the tool was last registered or replaced (UTC).
    """


DecisionId = TypeAliasType(
    "DecisionId", Annotated[str, Field(max_length=64, title="Decision Id")]
)
"""
The routing decision (``RouteResult.decision_id``) that asked for the tool, if known; stored
with the outcome.
"""


Error2 = TypeAliasType("Error2", Annotated[str, Field(max_length=2000, title="Error")])
"""
What went wrong, when it failed; stored with the outcome.
"""


class ToolOutcomeIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    attempt: Annotated[int | None, Field(ge=1, le=100, title="Attempt")] = 1
    """
    1 for the first call; each retry adds one.
    """
    decision_id: Annotated[DecisionId | None, Field(title="Decision Id")] = None
    """
    The routing decision (``RouteResult.decision_id``) that asked for the tool, if known; stored
    with the outcome.
    """
    error: Annotated[Error2 | None, Field(title="Error")] = None
    """
    What went wrong, when it failed; stored with the outcome.
    """
    success: Annotated[bool, Field(title="Success")]
    """
    Whether the tool call succeeded; every report moves the session's tool success rate.
    """
    tool: Annotated[str, Field(max_length=64, min_length=1, title="Tool")]
    """
    The name of the registered tool that ran (an unregistered name is a 404).
    """


class ToolOutcomeResult(Model):
    decision_id: Annotated[str, Field(title="Decision Id")]
    """
    Id of the decision record this report made, set by the server (not the routing decision's).
    """
    escalation_reason: Annotated[str | None, Field(title="Escalation Reason")] = None
    """
    ``tool_failure`` when the action is ``escalate``; None otherwise.
    """
    message: Annotated[str | None, Field(title="Message")] = None
    """
    For the user when the action is ``escalate``: the configured error message; None otherwise.
    """
    next_action: Annotated[
        Literal["proceed", "retry", "proceed_without_tool", "escalate", "human_owned"],
        Field(title="Next Action"),
    ]
    """
    What the agent should do next: ``proceed`` (it succeeded), ``retry`` (it failed and may be
    retried), ``proceed_without_tool`` (retries used up on a non-critical tool), ``escalate``
    (retries used up on a critical tool: the session goes to a human), ``human_owned`` (a human
    already owns the session and decides).
    """
    retries_left: Annotated[int, Field(title="Retries Left")]
    """
    With ``retry``: how many retries remain after this one failed (``routing.max_tool_retries``,
    at most 3, less those used); 0 for every other action.
    """
    session_mode: Annotated[Literal["auto", "human"], Field(title="Session Mode")]
    """
    The session's mode after this report: ``human`` after an escalation or while a person owns
    it, else ``auto``.
    """
    tool_success_rate: Annotated[float, Field(title="Tool Success Rate")]
    """
    The session's tool success rate after this report, 0–1: successful calls / calls (1.0
    before any call); the next turn's composite confidence uses it.
    """


Name2 = TypeAliasType(
    "Name2",
    Annotated[
        str,
        Field(
            max_length=64,
            min_length=1,
            pattern="^[A-Za-z][A-Za-z0-9_.-]*$",
            title="Name",
        ),
    ],
)
"""
The tool's name; optional, as the path names it, and must match the path when given.
"""


class ToolPut(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    confirm: Annotated[bool | None, Field(title="Confirm")] = False
    """
    True: the tool commits the user to something (a contract, a payment), so once its
    arguments are complete the user is asked to confirm, and only a yes calls it.
    """
    critical: Annotated[bool | None, Field(title="Critical")] = False
    """
    True: when the tool still fails after its retries, the turn is escalated to a person; a tool
    that is not critical is skipped and the turn goes on without it.
    """
    description: Annotated[
        str, Field(max_length=2000, min_length=1, title="Description")
    ]
    """
    What the tool does, in plain words (1–2000 characters): shown to the LLM router, matched
    against USE_TOOL queries with ``examples``, and used to word clarifying questions.
    """
    examples: Annotated[
        list[Example2] | None, Field(max_length=50, title="Examples")
    ] = None
    """
    Requests this tool serves ("Book a meeting with me"): with the description, what a USE_TOOL
    query is matched against to choose the tool (``routing.tool_choice``).
    """
    name: Annotated[Name2 | None, Field(title="Name")] = None
    """
    The tool's name; optional, as the path names it, and must match the path when given.
    """
    parameters: Annotated[dict[str, Any] | None, Field(title="Parameters")] = None
    """
    A JSON Schema (2020-12) for the tool's arguments.
    """
    read_only: Annotated[bool | None, Field(title="Read Only")] = False
    """
    True: the tool only reads (an order's status, a calendar's free slots), so it is never
    confirmed first, whatever the confidence band.
    """
    retry_allowed: Annotated[bool | None, Field(title="Retry Allowed")] = True
    """
    Whether a failed call may be retried (up to ``routing.max_tool_retries``); False: the first
    failure is final.
    """


class TuneIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    days: Annotated[float | None, Field(gt=0.0, le=365.0, title="Days")] = 30.0
    """
    Replay the decisions logged in the last this many days (up to 365).
    """
    decision_point: Annotated[
        Literal["executive", "routing", "admission", "proactive"],
        Field(title="Decision Point"),
    ]
    """
    Whose logged decisions to replay: ``executive`` (fire a heuristic or ask the LLM),
    ``routing`` (how a user's query is handled), ``admission`` (whether an agent run is added to
    memory, skipped, replaces one or is merged) or ``proactive`` (whether to message a user).
    """
    min_coverage: Annotated[
        float | None, Field(ge=0.0, le=1.0, title="Min Coverage")
    ] = 0.8
    """
    The least share of the rated decisions an estimate must cover for its value to be proposed.
    """
    parameter: Annotated[
        Literal[
            "heuristic_threshold",
            "personality_bias",
            "strategy",
            "urgency.threshold_reduction",
            "urgency.immediate_min",
            "urgency.soon_min",
            "urgency.reasonable_similarity",
            "urgency.high_similarity",
            "cascade_threshold",
            "high_threshold",
            "low_threshold",
            "low_similarity",
            "duplicate_threshold",
            "score_threshold.new",
            "score_threshold.building",
            "score_threshold.established",
            "score_threshold.deep",
            "weight.relevance",
            "weight.timing",
            "weight.urgency",
            "daily_cap.new",
            "daily_cap.building",
            "daily_cap.established",
            "daily_cap.deep",
        ]
        | None,
        Field(examples=["score_threshold.new"], title="Parameter"),
    ] = None
    """
    The setting to vary, one of the decision point's own: executive ``heuristic_threshold``,
    ``personality_bias``, ``strategy`` or an ``urgency.*`` cut-off; routing ``cascade_threshold``,
    ``high_threshold`` or ``low_threshold``; admission ``low_similarity`` or
    ``duplicate_threshold``; proactive a trust level's ``score_threshold.*`` or ``daily_cap.*``, or a
    ``weight.*``. Omitted: the decision point's first.
    """


Interval1 = TypeAliasType(
    "Interval1",
    Annotated[tuple[float, float], Field(max_length=2, min_length=2, title="Interval")],
)
"""
The 95 % interval of ``success``; None without an estimate.
"""


class TuneRow(Model):
    changed: Annotated[int, Field(title="Changed")]
    """
    Logged decisions this value would decide differently.
    """
    coverage: Annotated[float, Field(title="Coverage")]
    """
    The share, 0–1, of the decisions the estimate needs (the rated ones; proactive: the
    messages it would send) that it covers.
    """
    eligible: Annotated[bool, Field(title="Eligible")]
    """
    Meets the objective's constraints (success and coverage).
    """
    handoffs: Annotated[int | None, Field(title="Handoffs")] = None
    """
    Routing's bands: turns it would hand to a person (``ReplayReport.handoffs_replayed``).
    """
    interval: Annotated[Interval1 | None, Field(title="Interval")]
    """
    The 95 % interval of ``success``; None without an estimate.
    """
    llm_calls: Annotated[int, Field(title="Llm Calls")]
    """
    LLM requests the logged decisions would send at this value.
    """
    llm_calls_avoided: Annotated[int, Field(title="Llm Calls Avoided")]
    """
    Against the logged decisions (negative: more calls).
    """
    method: Annotated[Literal["snips", "direct"], Field(title="Method")]
    """
    Which estimate ``success`` is: ``snips`` where the logs carry propensities, else ``direct``.
    """
    sent: Annotated[int | None, Field(title="Sent")] = None
    """
    Proactive: messages it would send.
    """
    success: Annotated[float | None, Field(title="Success")]
    """
    Estimated success rate at this value, 0–1 (proactive: engagement); None when the logs
    cannot estimate it.
    """
    unsettled: Annotated[int | None, Field(title="Unsettled")] = None
    """
    Routing's bands: turns the logs cannot settle at this value (``handoffs_unsettled``).
    """
    value: Annotated[float | str, Field(title="Value")]
    """
    The value tried: a number, or a strategy's name.
    """
    why_not: Annotated[str | None, Field(title="Why Not")] = None
    """
    The constraint it fails, in words (None: it meets them).
    """


class UndoResult(Model):
    decision: Annotated[
        Literal["ADD", "NOT", "REPLACE", "MERGE"], Field(title="Decision")
    ]
    """
    What that decision had decided: ADD, NOT, REPLACE or MERGE.
    """
    decision_id: Annotated[str, Field(title="Decision Id")]
    """
    The memory decision that was taken back.
    """
    deleted_run_id: Annotated[str | None, Field(title="Deleted Run Id")]
    """
    The run the decision had added (ADD, REPLACE, MERGE), now deleted.
    """
    restored: Annotated[list[str], Field(title="Restored")]
    """
    Runs put back as they were (a replaced run active again, a group's canonical run again).
    """
    uncounted_use: Annotated[str | None, Field(title="Uncounted Use")]
    """
    The run a NOT had counted one more use of, counted one less.
    """
    undo_id: Annotated[str, Field(title="Undo Id")]
    """
    The undo's decision record (``GET /v1/decisions/{id}``).
    """


Address = TypeAliasType(
    "Address", Annotated[str, Field(max_length=512, title="Address")]
)
"""
Where the channel delivers: a phone number (WhatsApp) or a URL (webhook; default the settings' URL).
"""


CalendarUrl = TypeAliasType(
    "CalendarUrl",
    Annotated[
        str, Field(max_length=2048, pattern="(?i)^https?://\\S+$", title="Calendar Url")
    ],
)
"""
An iCalendar feed (http/https) polled for ``calendar_event_approaching`` signals.
"""


InteractionCount = TypeAliasType(
    "InteractionCount",
    Annotated[int, Field(ge=0, le=2147483647, title="Interaction Count")],
)
"""
Messages the user has sent so far (trust counts them); each ``POST …/messages`` adds one.
At most 2147483647.
None: 0 for a new user, unchanged for a known one (an update never resets what was counted).
"""


SleepTime = TypeAliasType(
    "SleepTime",
    Annotated[str, Field(pattern="^([01]\\d|2[0-3]):[0-5]\\d$", title="Sleep Time")],
)
"""
Local HH:MM when quiet hours start (until ``wake_time`` only urgent signals get through). None: the settings'
default.
"""


WakeTime = TypeAliasType(
    "WakeTime",
    Annotated[str, Field(pattern="^([01]\\d|2[0-3]):[0-5]\\d$", title="Wake Time")],
)
"""
Local HH:MM; quiet hours run from ``sleep_time`` to ``wake_time``. None: the settings' default.
"""


class UserIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    address: Annotated[Address | None, Field(title="Address")] = None
    """
    Where the channel delivers: a phone number (WhatsApp) or a URL (webhook; default the settings' URL).
    """
    calendar_url: Annotated[CalendarUrl | None, Field(title="Calendar Url")] = None
    """
    An iCalendar feed (http/https) polled for ``calendar_event_approaching`` signals.
    """
    channel: Annotated[
        Literal["console", "webhook", "whatsapp"] | None, Field(title="Channel")
    ] = None
    """
    How messages reach the user: ``console`` (written to the server's log), ``webhook`` (an HTTP POST to ``address``)
    or ``whatsapp`` (the WhatsApp Cloud API, to the number in ``address``). None: the server's default channel.
    """
    created_at: Annotated[AwareDatetime | None, Field(title="Created At")] = None
    """
    When the relationship started (trust counts days from it). None: now.
    """
    ignored_signal_types: Annotated[
        list[str] | None, Field(max_length=50, title="Ignored Signal Types")
    ] = None
    """
    Signal types the user tends to ignore: they need ``ignored_type_penalty`` more urgency.
    """
    interaction_count: Annotated[
        InteractionCount | None, Field(title="Interaction Count")
    ] = None
    """
    Messages the user has sent so far (trust counts them); each ``POST …/messages`` adds one.
    At most 2147483647.
    None: 0 for a new user, unchanged for a known one (an update never resets what was counted).
    """
    last_active_at: Annotated[AwareDatetime | None, Field(title="Last Active At")] = (
        None
    )
    """
    None: unchanged for a known user (replies keep it current).
    """
    patterns: Annotated[list[str] | None, Field(max_length=20, title="Patterns")] = None
    """
    Behavioural patterns the agent learned about the user (e.g. "studies late on Sundays").
    """
    sleep_time: Annotated[SleepTime | None, Field(title="Sleep Time")] = None
    """
    Local HH:MM when quiet hours start (until ``wake_time`` only urgent signals get through). None: the settings'
    default.
    """
    timezone: Annotated[str | None, Field(max_length=64, title="Timezone")] = "UTC"
    """
    The user's IANA time zone (e.g. ``Europe/Paris``); quiet hours and the daily cap's day are reckoned in it.
    """
    wake_time: Annotated[WakeTime | None, Field(title="Wake Time")] = None
    """
    Local HH:MM; quiet hours run from ``sleep_time`` to ``wake_time``. None: the settings' default.
    """


ButtonId = TypeAliasType(
    "ButtonId", Annotated[str, Field(max_length=64, title="Button Id")]
)
"""
The id of a button the user pressed on a button prompt (a ``button_click``): ``btn_yes`` or ``btn_later``.
"""


class UserMessageIn(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    button_id: Annotated[ButtonId | None, Field(title="Button Id")] = None
    """
    The id of a button the user pressed on a button prompt (a ``button_click``): ``btn_yes`` or ``btn_later``.
    """
    text: Annotated[str | None, Field(max_length=8000, title="Text")] = ""
    """
    What the user wrote (may be empty when ``button_id`` is given). "stop", "unsubscribe" or "not helpful" are read
    as an opt-out or as pushback.
    """


class UserProfile(Model):
    address: Annotated[str | None, Field(title="Address")]
    """
    Where the channel delivers: a phone number (WhatsApp) or a URL (webhook). None: the webhook channel uses the
    server's URL.
    """
    calendar_url: Annotated[str | None, Field(title="Calendar Url")]
    """
    An iCalendar feed (http/https) polled for ``calendar_event_approaching`` signals. None: no feed.
    """
    channel: Annotated[str, Field(title="Channel")]
    """
    How messages reach the user: ``console``, ``webhook`` or ``whatsapp``.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When the relationship started (UTC); trust counts days from it.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The user's id, chosen by the caller (the ``user_id`` in the path).
    """
    ignored_signal_types: Annotated[list[str], Field(title="Ignored Signal Types")]
    """
    Signal types the caller says the user tends to ignore: they need more urgency to start a cycle.
    """
    interaction_count: Annotated[int, Field(title="Interaction Count")]
    """
    Messages the user has sent so far (trust counts them); each ``POST …/messages`` adds one.
    """
    last_active_at: Annotated[AwareDatetime | None, Field(title="Last Active At")]
    """
    When the user was last active: their last message, or what the caller set. Trust steps down after a long
    inactivity (30 and 60 days by default). None: not known.
    """
    last_user_message_at: Annotated[
        AwareDatetime | None, Field(title="Last User Message At")
    ]
    """
    When the user last wrote (``POST …/messages``), set by the server. WhatsApp sends free text or buttons only
    within 24 hours of it, an approved template otherwise. None: never.
    """
    learned_ignored_types: Annotated[list[str], Field(title="Learned Ignored Types")]
    """
    Signal types this user's feedback shows they ignore (kept apart from the caller's list).
    """
    muted_until: Annotated[AwareDatetime | None, Field(title="Muted Until")] = None
    """
    No proactive message before this time, urgent or not.
    """
    opted_in_topics: Annotated[list[str] | None, Field(title="Opted In Topics")] = None
    """
    Topics the user asked for again while everything else (``opted_out``) or their category stays off: "start
    sending me weather again" after "stop" lets weather alerts through, and nothing else.
    """
    opted_out: Annotated[bool | None, Field(title="Opted Out")] = False
    """
    The user asked for no proactive messages at all (by the API or in a reply).
    """
    opted_out_categories: Annotated[
        list[str] | None, Field(title="Opted Out Categories")
    ] = None
    """
    Categories the user asked not to get (the rest still may be sent).
    """
    opted_out_topics: Annotated[
        dict[str, AwareDatetime | None] | None, Field(title="Opted Out Topics")
    ] = None
    """
    Topics the user stopped ("weather", ``bill_due``), each with its mute's end (None: until they opt back in).
    A topic stops every signal type of its kind, urgent ones too, and nothing else.
    """
    patterns: Annotated[list[str], Field(title="Patterns")]
    """
    Behavioural patterns the agent learned about the user, shown to the LLM when it drafts messages.
    """
    sleep_time: Annotated[str, Field(title="Sleep Time")]
    """
    Local HH:MM when the user's quiet hours start (until ``wake_time`` only urgent signals get through).
    """
    timezone: Annotated[str, Field(title="Timezone")]
    """
    The user's IANA time zone; quiet hours and the daily cap's day are reckoned in it.
    """
    trust_level: Annotated[
        Literal["new", "building", "established", "deep"], Field(title="Trust Level")
    ]
    """
    How much proactive behaviour the relationship has earned, worked out when the profile is read: ``new``,
    ``building``, ``established`` or ``deep``, from the days since ``created_at`` and ``interaction_count`` (lower after
    a long inactivity). Each level has its own minimum urgency, score threshold and daily cap.
    """
    wake_time: Annotated[str, Field(title="Wake Time")]
    """
    Local HH:MM when the user's quiet hours end.
    """


class UserReply(Model):
    feedback: Annotated[list[ProactiveFeedback], Field(title="Feedback")]
    """
    The sends this message labelled, with their new outcome (engaged, button_click or negative; ignored for those
    past the timeout).
    """
    insights: Annotated[list[DeferredInsight], Field(title="Insights")]
    """
    Fresh deferred insights to weave into the reply, best first (up to 3 by default), now marked used. Empty for a
    user opted out of everything; never one of a category the user opted out of.
    """
    intent: Annotated[
        Literal[
            "opt_out",
            "opt_out_topic",
            "opt_out_category",
            "mute",
            "mute_topic",
            "opt_in",
            "negative",
            "reply",
        ]
        | None,
        Field(title="Intent"),
    ] = "reply"
    """
    How the reply was read: ``opt_out`` (no more proactive messages), ``opt_out_topic`` (none
    about what it named: "unsubscribe from weather"), ``opt_out_category`` (none like the one
    answered), ``mute`` / ``mute_topic`` (the same for a while: "no weather for a week"),
    ``opt_in`` (back on: "don't stop reminding me about deadlines"), ``negative`` (pushback that
    is not a request to stop) or ``reply`` (anything else).
    """
    opted_in: OptOut | None = None
    """
    Set when the reply asked to start again: what was switched back on.
    """
    opted_out: OptOut | None = None
    """
    Set when the reply asked to stop: tell the user what was switched off, and until when.
    """


Interval2 = TypeAliasType(
    "Interval2",
    Annotated[tuple[float, float], Field(max_length=2, min_length=2, title="Interval")],
)
"""
95 % normal-approximation interval, clipped to [0, 1].
"""


class WeightedEstimate(Model):
    coverage: Annotated[float, Field(title="Coverage")]
    """
    ``decisions`` / rated decisions.
    """
    decisions: Annotated[int, Field(title="Decisions")]
    """
    Rated decisions where the logging policy could have made the replayed choice.
    """
    interval: Annotated[Interval2 | None, Field(title="Interval")]
    """
    95 % normal-approximation interval, clipped to [0, 1].
    """
    method: Annotated[Literal["ips", "snips"], Field(title="Method")]
    """
    ``ips`` (inverse propensity scoring) or ``snips`` (its self-normalised form).
    """
    rate: Annotated[float | None, Field(title="Rate")]
    """
    The estimated success rate of the replayed policy; None when no logged decision made the
    replayed choice. SNIPS stays within [0, 1]; IPS can exceed 1 on few decisions.
    """


class AdmissionFeedback(Model):
    decision: Annotated[
        Literal["ADD", "NOT", "REPLACE", "MERGE"], Field(title="Decision")
    ]
    """
    What that decision had decided: ADD, NOT, REPLACE or MERGE.
    """
    decision_id: Annotated[str, Field(title="Decision Id")]
    """
    The admission decision that was rated.
    """
    expected_decision: Annotated[
        Literal["ADD", "NOT", "REPLACE", "MERGE"] | None,
        Field(title="Expected Decision"),
    ]
    """
    What the rater said it should have been; None when rated correct, or when not said.
    """
    note: Annotated[str | None, Field(title="Note")]
    """
    The rater's note, as sent.
    """
    outcome: Annotated[str, Field(title="Outcome")]
    """
    ``correct`` or ``incorrect``.
    """
    teaches: TaughtPair | None
    """
    The pair ``admission calibrate --from-feedback`` learns from; None where the rating says
    nothing about whether the texts are duplicates (see the module docstring).
    """


class AdmissionResult(Model):
    batch_id: Annotated[str | None, Field(title="Batch Id")] = None
    """
    The batch it was admitted in (``GET /v1/memory-decisions?batch_id=``); None alone.
    """
    decision: Annotated[
        Literal["ADD", "NOT", "REPLACE", "MERGE"], Field(title="Decision")
    ]
    """
    ADD (stored as a new run), NOT (not stored), REPLACE (stored, and the target run superseded) or MERGE (stored, in
    one merge group with the target run).
    """
    decision_id: Annotated[str, Field(title="Decision Id")]
    """
    The decision's id: to undo or rate it (/v1/memory-decisions/{id}/undo, /feedback); also its decision record's
    id (GET /v1/decisions/{id}).
    """
    judge: Annotated[Literal["llm", "rules"] | None, Field(title="Judge")]
    """
    The judge that decided: llm or rules. None when no judge was needed (a pre-filter rule, or the caller's
    replaces). Under the fail-safe: rules when the rule judge stood in, else llm.
    """
    reason: Annotated[str, Field(title="Reason")]
    """
    Why, in words: the rule's explanation or the LLM judge's.
    """
    rule: Annotated[str | None, Field(title="Rule")]
    """
    The rule that decided: a stage-1 rule, a rule-judge rule, or why the fail-safe was taken.
    """
    run: Run | None
    """
    The run as stored; None for NOT.
    """
    run_id: Annotated[str, Field(title="Run Id")]
    """
    The admitted run's id: the caller's, or a generated one. After NOT no run was stored for it (a re-sent run is
    stored already, from before).
    """
    similar_runs: Annotated[list[SimilarRun], Field(title="Similar Runs")]
    """
    The stored runs the new run was compared with, most similar first (empty when there were none, or the run repeats
    a stored one exactly).
    """
    similarity: Annotated[float | None, Field(title="Similarity")]
    """
    The best similar run's similarity (None when the scope had no runs).
    """
    stage: Annotated[
        Literal["prefilter", "judge", "explicit", "fail_safe"], Field(title="Stage")
    ]
    """
    Which stage decided: prefilter (a cheap rule before any judge), judge, explicit (the caller's replaces) or
    fail_safe (the LLM judge's answer was unusable).
    """
    stored: Annotated[bool, Field(title="Stored")]
    """
    False for NOT: the run was not added to memory.
    """
    summary: Annotated[str, Field(title="Summary")]
    """
    The run's summary, the text that was embedded and compared.
    """
    summary_source: Annotated[
        Literal["caller", "llm", "extractive", "stored"], Field(title="Summary Source")
    ]
    """
    Who wrote the summary: caller, llm, extractive (picked from the run's steps, no model), or stored (the run
    repeats a stored run exactly and took its summary).
    """
    target_run_id: Annotated[str | None, Field(title="Target Run Id")]
    """
    The stored run the decision is about: the one REPLACE superseded, MERGE joined or NOT found repeated. None for
    ADD, and for a NOT that named no run (the fail-safe, or an LLM judge that gave none).
    """


class BatchResult(Model):
    batch_id: Annotated[str | None, Field(title="Batch Id")]
    """
    Every decision of the batch carries it (``GET /v1/memory-decisions?batch_id=``).
    """
    counts: Annotated[dict[str, int], Field(title="Counts")]
    """
    How many runs got each decision.
    """
    results: Annotated[list[AdmissionResult], Field(title="Results")]
    """
    One result per run, in the order given.
    """


class DocumentBatch(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    documents: Annotated[
        list[DocumentIn], Field(max_length=10000, min_length=1, title="Documents")
    ]
    """
    The documents to add; each is split into passages and embedded before the answer (a job:
    in the background, the job polled for progress).
    """


class EventDecision(Model):
    accepted: Annotated[bool, Field(title="Accepted")]
    """
    There is an answer to act on: a heuristic fired or the LLM answered (``response_text`` is
    not empty). False otherwise: the event was rejected, or the LLM failed or answered nothing.
    """
    candidates: Annotated[
        list[HeuristicCandidate] | None, Field(title="Candidates")
    ] = None
    """
    The heuristics the decision considered, best first: those matched from heuristic memory (or
    given in the request), less any this event just undid. Empty when none matched.
    """
    decision_path: Annotated[str, Field(title="Decision Path")]
    """
    How it was decided: ``heuristic`` (a learned heuristic fired), ``llm`` (the LLM answered),
    ``fallback`` (the LLM was asked but gave no answer) or ``rejected`` (no heuristic fired and the
    LLM could not be asked: none configured, or the event not immediate).
    """
    degraded: Annotated[bool | None, Field(title="Degraded")] = False
    """
    A part failed (the LLM timed out, was unreachable, answered nothing): the decision is not
    the one asked for. ``error`` says what failed; the decision record says it too.
    """
    error: Annotated[str | None, Field(title="Error")] = None
    """
    What failed, as ``<reason>: <detail>`` (e.g. ``llm_connection_error: …``); None otherwise.
    """
    event_id: Annotated[str, Field(title="Event Id")]
    """
    The event's id: the caller's, or a UUID made by the server.
    """
    explanation: Annotated[str | None, Field(title="Explanation")] = ""
    """
    The decision in one sentence, from its record: the same as ``GET /v1/decisions/{response_id}``
    says (what fired and why it won, what the LLM was asked, or why nothing was done).
    """
    latency_ms: Annotated[float | None, Field(title="Latency Ms")] = 0.0
    """
    How long the server took to decide, in milliseconds (LLM calls included).
    """
    matched_heuristic_id: Annotated[str | None, Field(title="Matched Heuristic Id")]
    """
    The heuristic that fired on the heuristic path; on the LLM path the best candidate's id (shown
    to the LLM, not necessarily followed); None otherwise.
    """
    metadata: Annotated[dict[str, Any] | None, Field(title="Metadata")] = None
    """
    How it was decided, for explanation: e.g. the threshold used, the candidates shown to the
    LLM, exploration, what failed. Keys vary with the strategy and path.
    """
    predicted_success: Annotated[float, Field(title="Predicted Success")]
    """
    Estimated probability, 0–1, that the response achieves the goal: the fired heuristic's
    confidence, or the LLM's own prediction capped at the configured ceiling (0.8 by default;
    0.5 when its prediction could not be read). 0 without a response.
    """
    prediction_confidence: Annotated[float, Field(title="Prediction Confidence")]
    """
    How sure that prediction is, 0–1: the heuristic's confidence on the heuristic path, the
    LLM's own (capped likewise) on the LLM path, 0 without a response.
    """
    prompt_text: Annotated[str, Field(title="Prompt Text")]
    """
    The prompt sent to the LLM; empty when no LLM was asked.
    """
    reason: Annotated[str | None, Field(title="Reason")] = None
    """
    Why the decision took an unusual path, as a code: ``llm_unavailable`` or ``not_immediate``
    (rejected), ``llm_no_response`` (fallback), ``emergency_fast_path`` (a threat fired a heuristic
    before the strategy ran). None otherwise.
    """
    response_id: Annotated[str, Field(title="Response Id")]
    """
    This decision's id, set by the server on every path: quote it to rate the decision
    (``POST /v1/feedback``) or to look up its record (``GET /v1/decisions/{id}``).
    """
    response_text: Annotated[str, Field(title="Response Text")]
    """
    The response to act on: the fired heuristic's action or the LLM's answer. Empty when there
    is none (rejected, or the LLM failed).
    """
    strategy: Annotated[str, Field(title="Strategy")]
    """
    The strategy that decided (``heuristic_first``, ``always_llm``, ``urgency_tiered``): the
    request's, the A/B experiment's arm, the tenant's or the configured one
    (``metadata.strategy_source`` says which).
    """


Candidates = TypeAliasType(
    "Candidates",
    Annotated[list[HeuristicCandidate], Field(max_length=20, title="Candidates")],
)
"""
Explicit candidates, best first. None: matched from heuristic memory.
"""


class EventRequest(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    candidates: Annotated[Candidates | None, Field(title="Candidates")] = None
    """
    Explicit candidates, best first. None: matched from heuristic memory.
    """
    event_id: Annotated[EventId | None, Field(title="Event Id")] = None
    """
    The caller's id for the event; a UUID when left out.
    """
    goals: Annotated[Goals | None, Field(title="Goals")] = None
    """
    The agent's active goals, added to the LLM's system prompt (at most 20, each at most 500
    characters). None: the server's configured goals (``PHRONESIS_EXECUTIVE__GOALS``).
    """
    immediate: Annotated[bool | None, Field(title="Immediate")] = True
    """
    Whether the event needs an answer now: when no heuristic fires, only an immediate event is
    sent to the LLM; otherwise the decision is rejected (reason ``not_immediate``).
    """
    personality_biases: Annotated[
        dict[str, float] | None, Field(title="Personality Biases")
    ] = None
    """
    Named threshold adjustments, each in [-1, 1]. ``confidence_threshold`` is added to the
    heuristic threshold (the result clamped to [0.3, 0.95]); without it the tenant's
    ``executive.personality_bias`` applies. Other names are only recorded.
    """
    reply_to: Annotated[ReplyTo | None, Field(title="Reply To")] = None
    """
    What this event answers, if you know: an earlier decision's response_id or the event id it was for. Then, as a
    follow-up, it undoes, thanks or ignores only that decision's fire (see POST /v1/events/observe).
    """
    salience: Annotated[dict[str, float] | None, Field(title="Salience")] = None
    """
    How salient the event is, by dimension (``threat``, ``novelty`` …), each 0–1. A ``threat``
    of at least 0.9 fires the most similar candidate with confidence of at least 0.95 at once, before any
    strategy runs (both by default); the other dimensions are only recorded.
    """
    source: Annotated[
        str | None, Field(max_length=128, pattern="^[A-Za-z0-9._:/-]*$", title="Source")
    ] = ""
    """
    Where the event came from; heuristics are matched within this source (and general ones).
    """
    strategy: Annotated[Strategy1 | None, Field(title="Strategy")] = None
    """
    Force a strategy (replay, tests). None: the configured one, or the A/B arm.
    """
    text: Annotated[str, Field(max_length=4000, min_length=1, title="Text")]
    """
    The event's raw text (untrusted: it reaches prompts only inside delimiters).
    """
    urgency: Annotated[float | None, Field(ge=0.0, le=1.0, title="Urgency")] = 0.0
    """
    How urgent the event is, 0–1. Read by the ``urgency_tiered`` strategy only: it lowers the
    heuristic threshold by urgency × a reduction and picks its tier (immediate at ≥ 0.7, soon at
    ≥ 0.3, by default).
    """
    user_id: Annotated[UserId1 | None, Field(title="User Id")] = None
    """
    Who the event is about; the default A/B key.
    """


class ExecutiveReport(Model):
    strategies: Annotated[list[StrategyReport], Field(title="Strategies")]
    """
    One report per strategy that decided events in the window, by strategy name.
    """


class HeuristicDetail(Model):
    action_text: Annotated[str, Field(title="Action Text")]
    """
    What to do or say when the condition matches.
    """
    alpha: Annotated[float, Field(title="Alpha")]
    """
    Evidence for it: the prior's share plus the weight of the positive signals it got (a pseudo-count; under the
    discounted strategies older evidence fades).
    """
    attributes: Annotated[dict[str, Any], Field(title="Attributes")]
    """
    Free-form JSON kept with it, returned as is.
    """
    beta: Annotated[float, Field(title="Beta")]
    """
    Evidence against it: the prior's share plus the weight of the negative signals it got (a pseudo-count; under the
    discounted strategies older evidence fades).
    """
    ceiling: Annotated[float, Field(title="Ceiling")]
    """
    The highest confidence it may have, 0 to 1.
    """
    condition_text: Annotated[str, Field(title="Condition Text")]
    """
    The situation it applies to. Events are matched to it by the similarity of their embeddings.
    """
    confidence: Annotated[float, Field(title="Confidence")]
    """
    How likely it is to be right, 0 to 1: alpha / (alpha + beta), kept between floor and ceiling.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When it was created (UTC).
    """
    domain: Annotated[str, Field(title="Domain")]
    """
    The event source it applies to; "" for every source.
    """
    embedding_model: Annotated[str | None, Field(title="Embedding Model")]
    """
    The model its condition was embedded with; None if it is not embedded yet.
    """
    evidence_at: Annotated[AwareDatetime | None, Field(title="Evidence At")] = None
    """
    When evidence last arrived (discounted strategies fade evidence from here).
    """
    failure_count: Annotated[int, Field(title="Failure Count")]
    """
    How many of its fires have a negative explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence.
    """
    feedback_weight: Annotated[float, Field(title="Feedback Weight")]
    """
    Multiplies the weight of every signal about it, 0.25 to 2: above 1 it learns faster, below 1 slower.
    """
    fire_count: Annotated[int, Field(title="Fire Count")]
    """
    How many times it fired for an event (recorded by the executive, or through POST /v1/heuristics/{id}/fires).
    """
    floor: Annotated[float, Field(title="Floor")]
    """
    The lowest confidence it may have, 0 to 1.
    """
    id: Annotated[str, Field(title="Id")]
    """
    The heuristic's id: the caller's, or a generated UUID.
    """
    ignore_streak: Annotated[int | None, Field(title="Ignore Streak")] = 0
    """
    How many follow-up events in a row ignored its fires. At the configured threshold (3 by default) it gets a
    negative signal and the count starts again; a rating, undo, thanks or timeout resets it.
    """
    last_fired_at: Annotated[AwareDatetime | None, Field(title="Last Fired At")]
    """
    When it last fired (UTC); None if it never has.
    """
    locked: Annotated[bool, Field(title="Locked")]
    """
    True: no signal moves its confidence; a PATCH of confidence still sets it.
    """
    name: Annotated[str | None, Field(title="Name")]
    """
    A short display name; None if it has none.
    """
    origin: Annotated[Literal["dev", "pack", "learned", "llm"], Field(title="Origin")]
    """
    Who made it: dev (a developer), pack (a shipped pack), learned (from feedback) or llm.
    """
    origin_id: Annotated[str | None, Field(title="Origin Id")]
    """
    Where it came from, by id; a learned heuristic has the response id of the decision that taught it. None if not
    given.
    """
    prior_alpha: Annotated[float | None, Field(title="Prior Alpha")] = 1.0
    """
    The prior's share of alpha: the starting confidence times the prior's strength (2 by default).
    """
    prior_beta: Annotated[float | None, Field(title="Prior Beta")] = 1.0
    """
    The prior's share of beta: one minus the starting confidence, times the prior's strength (2 by default).
    """
    scope: Scope
    """
    Where it applies besides its condition: ``examples`` and ``counter_examples``, each with its origin (given or
    learned) and what taught it.
    """
    signal_count: Annotated[int | None, Field(title="Signal Count")] = 0
    """
    How many feedback signals have changed this heuristic's confidence. With diminishing returns
    switched on (``PHRONESIS_LEARNING__DECAY_K`` above 0, off by default) each new signal weighs
    less the more it already has.
    """
    success_count: Annotated[int, Field(title="Success Count")]
    """
    How many of its fires have a positive explicit rating standing (each fire counted once, as its latest rating
    says). Kept apart from confidence.
    """
    tenant: Annotated[str, Field(title="Tenant")]
    """
    The tenant that owns it, set by the server from the API key.
    """
    updated_at: Annotated[AwareDatetime, Field(title="Updated At")]
    """
    When anything about it last changed, its confidence included (UTC).
    """


class MemoryDecision(Model):
    agent_id: Annotated[str, Field(title="Agent Id")]
    """
    The agent of the admitted run.
    """
    batch_id: Annotated[str | None, Field(title="Batch Id")]
    """
    The batch it was admitted in; None for a run admitted alone.
    """
    created_at: Annotated[AwareDatetime, Field(title="Created At")]
    """
    When it was decided (UTC).
    """
    decision: Annotated[
        Literal["ADD", "NOT", "REPLACE", "MERGE"], Field(title="Decision")
    ]
    """
    ADD (stored as a new run), NOT (not stored), REPLACE (stored, and the target run superseded) or MERGE (stored, in
    one merge group with the target run).
    """
    id: Annotated[str, Field(title="Id")]
    """
    The decision's id: to undo it or rate it (/v1/memory-decisions/{id}/undo, /feedback); also its decision record's
    id (GET /v1/decisions/{id}).
    """
    reason: Annotated[str, Field(title="Reason")]
    """
    Why, in words: the rule's explanation or the LLM judge's.
    """
    rule: Annotated[str | None, Field(title="Rule")]
    """
    The rule that decided: a pre-filter or rule-judge rule, or why the fail-safe was taken. None when the LLM judge
    decided (repaired_output when its cut-off answer was closed and kept).
    """
    run_id: Annotated[str, Field(title="Run Id")]
    """
    The admitted run's id. After NOT no run was stored for it (a re-sent run is stored already, from before).
    """
    similar_runs: Annotated[list[SimilarRun], Field(title="Similar Runs")]
    """
    The stored runs the admitted run was compared with, most similar first (empty when there were none, or the run
    repeats a stored one exactly).
    """
    similarity: Annotated[float | None, Field(title="Similarity")]
    """
    The most similar run's cosine similarity to the admitted run; 1.0 for an exact repeat of a stored run; None when
    there was nothing to compare with.
    """
    stage: Annotated[
        Literal["prefilter", "judge", "explicit", "fail_safe"], Field(title="Stage")
    ]
    """
    Which stage decided: prefilter (a cheap rule before any judge), judge, explicit (the caller's replaces) or
    fail_safe (the LLM judge's answer was unusable).
    """
    target_run_id: Annotated[str | None, Field(title="Target Run Id")]
    """
    The stored run the decision is about: the one REPLACE superseded, MERGE joined or NOT found repeated. None for
    ADD, and for a NOT that named no run (the fail-safe, or an LLM judge that gave none).
    """
    undone_at: Annotated[AwareDatetime | None, Field(title="Undone At")] = None
    """
    When ``POST /v1/memory-decisions/{id}/undo`` took it back (None: it stands).
    """
    undone_by: Annotated[str | None, Field(title="Undone By")] = None
    """
    The undo's own decision record.
    """
    user_id: Annotated[str, Field(title="User Id")]
    """
    The user of the admitted run; "" for none.
    """


class Observation(Model):
    complaint: Annotated[bool | None, Field(title="Complaint")] = False
    """
    The follow-up read as a complaint ("that didn't help", "still cold"): its heuristics get a negative signal
    (``implicit_complaint``), as for an undo.
    """
    confirmed: Annotated[bool | None, Field(title="Confirmed")] = False
    """
    The follow-up read as thanks or confirmation: its source's open fires worked.
    """
    event_id: Annotated[str, Field(title="Event Id")]
    """
    The observed event's id, as sent.
    """
    ignored_later: Annotated[int | None, Field(title="Ignored Later")] = 0
    """
    Fires a decided event ignored, whose ignore is applied just after the decision is answered (an ignore changes
    nothing in the decision; ``signals`` lists only what was applied before the answer).
    """
    open_fires: Annotated[int | None, Field(title="Open Fires")] = 0
    """
    The latest open fires of its source it was compared with (at most 8): 0 when there were none.
    """
    signals: Annotated[list[SignalOutcome], Field(title="Signals")]
    """
    One entry per open fire the event closed, with what its signal did; empty when its source had no open fires, or
    none it is about.
    """
    undo: Annotated[bool, Field(title="Undo")]
    """
    Whether the event read as an undo of its source's open fires (their heuristics then get a negative signal).
    """


class PageMemoryDecision(Model):
    items: Annotated[list[MemoryDecision], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageProactiveFeedback(Model):
    items: Annotated[list[ProactiveFeedback], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageRun(Model):
    items: Annotated[list[Run], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageSignal(Model):
    items: Annotated[list[Signal], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageTool(Model):
    items: Annotated[list[Tool], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class PageUserProfile(Model):
    items: Annotated[list[UserProfile], Field(title="Items")]
    """
    This page's items, in the listing's order.
    """
    limit: Annotated[int, Field(title="Limit")]
    """
    The most items a page holds: the request's ``limit``.
    """
    offset: Annotated[int, Field(title="Offset")]
    """
    How many items of the listing come before this page: the request's ``offset``.
    """
    total: Annotated[int, Field(title="Total")]
    """
    How many items the whole listing has with the request's filters, across every page.
    """


class Preview(Model):
    at: Annotated[AwareDatetime, Field(title="At")]
    """
    The time the preview decided at (UTC).
    """
    candidates: Annotated[list[CandidatePreview] | None, Field(title="Candidates")] = (
        None
    )
    """
    Every candidate with its score and verdict, sendable ones first, then by score. Empty when the cycle would stop
    before candidates.
    """
    category: Annotated[str | None, Field(title="Category")] = None
    """
    The category of the message that would be sent. None: silent.
    """
    decision: Annotated[Literal["would_send", "silent"], Field(title="Decision")]
    """
    ``would_send``: a cycle would send ``message``; ``silent``: it would send nothing.
    """
    fallback_reason: Annotated[str | None, Field(title="Fallback Reason")] = None
    """
    Why the LLM's answer could not be used and template candidates stood in. None: no fallback.
    """
    llm_called: Annotated[bool | None, Field(title="Llm Called")] = False
    """
    True when the preview asked the LLM for candidates (a real, paid call); false with ``llm`` false or no LLM
    configured.
    """
    message: Annotated[str | None, Field(title="Message")] = None
    """
    The message that would be sent. None: silent.
    """
    reason: Annotated[str, Field(title="Reason")]
    """
    Why: a block reason (the pre-filter's or the cycle's), or ``sent``.
    """
    sends_today: Annotated[int, Field(title="Sends Today")]
    """
    Proactive messages sent to the user today up to ``at``, as the daily cap counts them.
    """
    signals: Annotated[list[Signal], Field(title="Signals")]
    """
    The signals the cycle would read (the pre-filter's choice); empty when it blocked.
    """
    threshold: Annotated[float, Field(title="Threshold")]
    """
    The score a candidate needs at the user's trust level, 0 to 10.
    """
    trust_level: Annotated[
        Literal["new", "building", "established", "deep"], Field(title="Trust Level")
    ]
    """
    The user's trust level at ``at`` (it sets the minimum urgency, the threshold and the daily cap).
    """
    user_id: Annotated[str, Field(title="User Id")]
    """
    The user previewed.
    """


class ReplayReport(Model):
    changed: Annotated[int, Field(title="Changed")]
    """
    Of ``decisions``, those the replayed value would decide differently.
    """
    changes: Annotated[list[Change], Field(title="Changes")]
    """
    The kinds of change, most frequent first (at most 20).
    """
    coverage: Annotated[float, Field(title="Coverage")]
    """
    ``replayed_success.covered`` / the decisions whose outcome the estimate needs (the rated
    decisions; for proactive, the cycles the replayed setting sends in): the share it covers.
    """
    current: Annotated[float | str, Field(title="Current")]
    """
    The value the tenant's decisions use now (its applied one, else for the duplicate threshold
    a calibrated one, else the configured one), which the replayed value is compared with.
    """
    current_success: Estimate
    """
    The logged policy on the rated decisions.
    """
    decision_point: Annotated[str, Field(title="Decision Point")]
    """
    The decision point replayed.
    """
    decisions: Annotated[int, Field(title="Decisions")]
    """
    Logged decisions the setting applies to: heuristic-first executive decisions (an urgency
    cut-off: the urgency-tiered ones that kept their cut-offs; the strategy: the executive
    decisions whose strategy the tenant's setting chose, not an event's own or an A/B arm's);
    cascade-mode routing where the local router ran (a band threshold: the routed turns that
    recorded what their bands read); admissions that met similar runs (the duplicate threshold:
    those past the pre-filter that kept what it needs); the trust level's proactive cycles past
    the pre-filter (a weight: every level's, those recorded with their candidates' parts and
    weights; a daily cap: the level's cycles that reached the cap's check).
    """
    handoffs_logged: Annotated[int | None, Field(title="Handoffs Logged")] = None
    """
    Routing's band thresholds: turns the logged decisions handed to a person (ESCALATE), of
    the turns the logs settle. None for other settings.
    """
    handoffs_replayed: Annotated[int | None, Field(title="Handoffs Replayed")] = None
    """
    Routing's band thresholds: turns handed to a person (ESCALATE), logged and replayed, of the
    turns the logs settle.
    """
    handoffs_unsettled: Annotated[int | None, Field(title="Handoffs Unsettled")] = None
    """
    Routing's band thresholds: turns the logs cannot settle (they would search again where the
    logged turn did not): neither counted as handed off nor not.
    """
    ips: WeightedEstimate | None
    """
    Inverse-propensity estimate of the replayed policy's success; None where the logs carry no
    propensities (no explored decisions).
    """
    llm_calls_logged: Annotated[int, Field(title="Llm Calls Logged")]
    """
    LLM requests the logged decisions sent.
    """
    llm_calls_replayed: Annotated[int, Field(title="Llm Calls Replayed")]
    """
    LLM requests the same decisions would send under the replayed value (estimated where a
    decision would take another path: e.g. one request for a turn the LLM would now decide).
    """
    parameter: Annotated[str, Field(title="Parameter")]
    """
    The setting varied (the decision point's first when the request left it out).
    """
    replayed_success: Estimate
    """
    The replayed policy where the logs establish its outcome (direct method).
    """
    sent_logged: Annotated[int | None, Field(title="Sent Logged")] = None
    """
    Proactive only: messages the logged cycles sent. None for other decision points.
    """
    sent_replayed: Annotated[int | None, Field(title="Sent Replayed")] = None
    """
    Proactive only: messages sent then, and under the replayed setting.
    """
    snips: WeightedEstimate | None
    """
    Inverse-propensity estimates, where the logs carry propensities (explored decisions).
    """
    value: Annotated[float | str, Field(title="Value")]
    """
    A number, or the strategy's name (``executive.strategy``).
    """
    weighting: Annotated[str, Field(title="Weighting")]
    """
    What the weighted estimates rest on, or why there are none.
    """


class RunBatch(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    runs: Annotated[list[RunIn], Field(max_length=100000, min_length=1, title="Runs")]
    """
    The finished runs to admit, in order: a later run can replace or merge with an earlier one.
    """


class RunHits(Model):
    hits: Annotated[list[SearchHit], Field(title="Hits")]
    """
    Most similar first (at most ``k``), each with its run's task, outcome and summary.
    """


class SignalBatch(Model):
    model_config = ConfigDict(
        extra="forbid",
    )
    signals: Annotated[
        list[SignalIn], Field(max_length=1000, min_length=1, title="Signals")
    ]
    """
    The signals to store for the user's next cycles (1–1000).
    """


class Timeline(Model):
    events: Annotated[list[TimelineEvent], Field(title="Events")]
    """
    What happened in the last ``days`` (7 by default), newest first, at most ``limit``.
    """
    now: Preview
    """
    What a cycle would decide now, with template candidates (no LLM call).
    """
    user: UserProfile
    """
    The user's profile now.
    """


class TuneReport(Model):
    current: Annotated[float | str, Field(title="Current")]
    """
    The value the tenant's decisions use now.
    """
    current_success: Annotated[float | None, Field(title="Current Success")]
    """
    The share, 0–1, of the rated decisions that were right under the current value (proactive:
    engagement); None with no rated decision.
    """
    decision_point: Annotated[str, Field(title="Decision Point")]
    """
    The decision point tuned.
    """
    decisions: Annotated[int, Field(title="Decisions")]
    """
    Logged decisions in the window that the setting applies to (``ReplayReport.decisions``).
    """
    met: Annotated[bool, Field(title="Met")]
    """
    Some value meets the objective's constraints; else the proposal is to keep the current one.
    """
    objective: Annotated[str, Field(title="Objective")]
    """
    The objective and its constraints, in words (with today's success and the minimum coverage).
    """
    parameter: Annotated[str, Field(title="Parameter")]
    """
    The setting tuned (the decision point's first when the request left it out).
    """
    proposed: Annotated[float | str, Field(title="Proposed")]
    """
    The value proposed: of those meeting the constraints, the one that gains the most (LLM calls
    avoided; proactive: messages sent; the routing bands: fewest hand-offs), or one shown more
    successful (its whole 95 % interval above today's success); else ``current``.
    """
    rated: Annotated[int, Field(title="Rated")]
    """
    Of ``decisions``, those rated (with a known outcome): what ``current_success`` is measured on.
    """
    rows: Annotated[list[TuneRow], Field(title="Rows")]
    """
    Every value tried, replayed on the same logged decisions: numbers in ascending order (the
    current value among them), or each strategy.
    """
    setting: Annotated[
        Literal[
            "executive.heuristic_threshold",
            "executive.personality_bias",
            "executive.strategy",
            "executive.urgency.threshold_reduction",
            "executive.urgency.immediate_min",
            "executive.urgency.soon_min",
            "executive.urgency.reasonable_similarity",
            "executive.urgency.high_similarity",
            "routing.cascade_threshold",
            "routing.high_threshold",
            "routing.low_threshold",
            "admission.low_similarity",
            "admission.duplicate_threshold",
            "proactive.score_threshold.new",
            "proactive.score_threshold.building",
            "proactive.score_threshold.established",
            "proactive.score_threshold.deep",
            "proactive.weight.relevance",
            "proactive.weight.timing",
            "proactive.weight.urgency",
            "proactive.daily_cap.new",
            "proactive.daily_cap.building",
            "proactive.daily_cap.established",
            "proactive.daily_cap.deep",
        ],
        Field(title="Setting"),
    ]
    """
    The tenant setting to apply it to (``PUT /v1/settings/{setting}``).
    """
    weighting: Annotated[str, Field(title="Weighting")]
    """
    What the estimates rest on, and what the logs cannot show (the replay's ``weighting``).
    """
