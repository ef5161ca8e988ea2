"""Seed 002's confidence bands, as a pure rule: what a checked decision becomes at its confidence.

    high   (≥ high_threshold)              proceed
    medium (≥ low_threshold, < high)       retrieve more, or ask before acting
    low    (< low_threshold)               escalate to a human

The service (``routing.service``) and the replay of the two thresholds
(``replay.routing_bands``) decide with these same functions, so a replayed band is the band
the service would have drawn. The one step a replay cannot redo is seed 002's "retrieve
more": a second, wider search. It is a seam here: ``wants_more`` says whether the search is
made, the caller makes it (or, replaying, reads what it found), and ``settle`` decides on
the evidence the caller ends with. Each routing record keeps that evidence before and after
the search (``Evidence``, ``attributes.bands``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from phronesis.routing.decisions import Decision
from phronesis.routing.models import Band

__all__ = ["Bands", "Evidence", "Rule", "Settled", "recorded", "settle", "wants_more"]

Rule = Literal[
    "as_is",
    "clarify",
    "nothing_found",
    "composite_low",
    "confidence_low",
    "answered_after_more",
    "confirm",
]
"""Why a decision left the bands as it did: kept (``as_is``, ``answered_after_more``); asked
(``clarify``: the router's own question, ``nothing_found``, ``confirm``: medium band before
acting); escalated (``composite_low``, ``confidence_low``)."""


@dataclass(frozen=True, slots=True)
class Bands:
    """The two thresholds: the configured ones, or a tenant's applied ones."""

    high: float
    low: float

    def band(self, confidence: float) -> Band:
        if confidence >= self.high:
            return "high"
        return "medium" if confidence >= self.low else "low"

    @property
    def under_low(self) -> float:
        """A confidence in the low band, and never below 0: a tenant may set ``low`` to 0, and an
        escalation then answered a confidence of -0.01."""
        return max(0.0, self.low - 0.01)

    @property
    def under_high(self) -> float:
        return max(0.0, self.high - 0.01)


@dataclass(frozen=True, slots=True)
class Evidence:
    """What the bands read of a turn at one moment: its blended confidence, the composite's
    value, and whether retrieval ran (``retrieved``) and found nothing (``empty``)."""

    confidence: float
    composite: float
    retrieved: bool
    empty: bool

    def as_dict(self) -> dict[str, Any]:
        return {
            "confidence": round(self.confidence, 6),
            "composite": round(self.composite, 6),
            "retrieved": self.retrieved,
            "empty": self.empty,
        }

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> Evidence:
        return cls(float(raw["confidence"]), float(raw["composite"]), bool(raw["retrieved"]), bool(raw["empty"]))


@dataclass(frozen=True, slots=True)
class Settled:
    """What the bands made of a decision: the rule that applied, whether the question it would
    ask became a hand-off (Rasa's two-stage fallback), and the confidence reported with it."""

    decision: Decision
    rule: Rule
    confidence: float
    handed_off: bool = False

    @property
    def action(self) -> Decision:
        if self.handed_off or self.rule in ("composite_low", "confidence_low"):
            return Decision.ESCALATE
        if self.rule in ("clarify", "nothing_found", "confirm"):
            return Decision.CLARIFY
        return self.decision


def recorded(
    decision: Decision,
    bands: Bands,
    first: Evidence | None = None,
    *,
    more_tried: bool = False,
    more: Evidence | None = None,
    clarifications: int = 0,
    max_clarifications: int = 0,
    confirm_tools: bool = True,
) -> dict[str, Any]:
    """What a routing record keeps of its bands (``attributes.bands``), read back by their replay
    (``replay.routing_bands``): an escalation before the bands keeps the decision and thresholds
    only (it stands at any band)."""
    out: dict[str, Any] = {"decision": decision.value, "high": bands.high, "low": bands.low}
    if first is not None:
        out |= {
            "first": first.as_dict(),
            "more_tried": more_tried,
            "more": None if more is None else more.as_dict(),
            "clarifications": clarifications,
            "max_clarifications": max_clarifications,
            "confirm_tools": confirm_tools,
        }
    return out


def wants_more(decision: Decision, evidence: Evidence, bands: Bands) -> bool:
    """Seed 002's "retrieve more": a RETRIEVE that searched and landed in the medium band, or
    found nothing, searches again, wider."""
    return (
        decision is Decision.RETRIEVE
        and evidence.retrieved
        and (bands.band(evidence.confidence) == "medium" or evidence.empty)
    )


def settle(
    decision: Decision,
    evidence: Evidence,
    bands: Bands,
    *,
    retrieved_more: bool,
    clarifications: int,
    max_clarifications: int,
    confirm_tools: bool = True,
) -> Settled:
    """The bands on a checked ``decision`` (not ESCALATE: an escalation stands at any band).

    ``evidence`` is the turn's after any retrieve-more (``retrieved_more``: it found something
    to rank); ``clarifications`` the session's questions in a row before this turn;
    ``confirm_tools`` whether a medium-band USE_TOOL is confirmed first."""

    def ask(rule: Rule, confidence: float) -> Settled:
        # Rasa's two-stage fallback: clarify, clarify again, then hand off to a human
        if clarifications >= max_clarifications:
            return Settled(decision, rule, min(confidence, bands.under_low), handed_off=True)
        return Settled(decision, rule, confidence)

    confidence = evidence.confidence
    if decision is Decision.CLARIFY:
        return ask("clarify", confidence)
    band = bands.band(confidence)
    if decision is Decision.RETRIEVE and evidence.empty:
        # nothing to answer from (not a high-band answer with sources=[]): ask
        return ask("nothing_found", min(confidence, bands.under_high))
    if band != "low" and evidence.composite < bands.low:
        # the seed's confidence is the composite: in its escalation band (every tool failing, a
        # vague first message with nothing found) the router's certainty does not carry the turn
        return Settled(decision, "composite_low", min(confidence, bands.under_low))
    if band == "low":
        return Settled(decision, "confidence_low", confidence)
    if band == "medium" and decision is Decision.RETRIEVE and retrieved_more:
        # seed 002's medium band: "ask a clarifying question or retrieve more". More was retrieved
        # and there are sources to answer from: answering from them is read-only and cites them,
        # so it is not worth a question. A tool call in the medium band is still confirmed first.
        # (Sales set, dev half: answering instead of asking took an LLM 90 % right from 74.1 % of
        # decisions right to 90.7 %, the bundled local router from 72.2 % to 73.7 %.)
        return Settled(decision, "answered_after_more", confidence)
    if band == "medium" and (decision is Decision.RETRIEVE or (decision is Decision.USE_TOOL and confirm_tools)):
        # ``confirm_tools`` False: a read-only tool, or a call the user already named
        return ask("confirm", confidence)
    return Settled(decision, "as_is", confidence)
