"""Stage 2 with an LLM: seed 003's judge prompt, a strict JSON verdict, validated here.

Candidates are shown as [1], [2], [3], never by their ids, and the answer's number is
mapped back (Mem0's UUID→integer remap; its invented-id failures are #4708 and PR #3992).
An answer that is not JSON, names no valid candidate for REPLACE/MERGE, or asks to
REPLACE a run of another task comes back as a ``JudgeFailure``: the service then takes
the configured fail-safe, never a destructive action.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from importlib import resources
from string import Template
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from phronesis.admission.judgement import Candidate, Incoming, LLMTrace, Verdict
from phronesis.admission.models import AdmissionDecision
from phronesis.llm.structured import StructuredFailure, generate_structured, upper_label
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.llm.untrusted import delimit
from phronesis.schema import Schema

__all__ = ["JudgeAnswer", "JudgeFailure", "LLMJudge"]

MAX_LISTED = 10


class JudgeAnswer(Schema):
    """The seed's ``{decision, target_run_id, reason}``; ``target_run_id`` is a candidate's number."""

    model_config = ConfigDict(extra="ignore")

    decision: AdmissionDecision
    target_run_id: int | None = None
    reason: str = Field(default="", max_length=4000)

    _upper = field_validator("decision", mode="before")(upper_label)

    @field_validator("target_run_id", mode="before")
    @classmethod
    def _number(cls, value: Any) -> Any:
        """Accept 2, "2" and "[2]"; an empty string or "null" is no target."""
        if isinstance(value, str):
            value = value.strip().strip("[]#").strip()
            if value in ("", "null", "none", "None"):
                return None
        return value


@dataclass(frozen=True, slots=True)
class JudgeFailure:
    reason: str
    """A short code: llm_error, not_json, schema_mismatch, empty_output, missing_target,
    unknown_target, replace_other_task."""
    detail: str
    trace: LLMTrace


def _prompt(name: str) -> str:
    return resources.files("phronesis.admission").joinpath("prompts", name).read_text(encoding="utf-8")


def _listed(values: frozenset[str]) -> str:
    shown = sorted(values)[:MAX_LISTED]
    return ", ".join(shown) + (f" (+{len(values) - MAX_LISTED} more)" if len(values) > MAX_LISTED else "")


class LLMJudge:
    name = "llm"

    def __init__(self, llm: LLMProvider, *, temperature: float, max_tokens: int) -> None:
        self.llm = llm
        self._temperature = temperature
        self._max_tokens = max_tokens
        self._system = _prompt("judge_system.txt").strip()
        self._template = Template(_prompt("judge.txt"))

    def prompt(self, run: Incoming, candidates: Sequence[Candidate], *, likely_duplicate: bool) -> str:
        blocks = []
        for number, c in enumerate(candidates, start=1):
            body = (
                f"outcome: {c.outcome}\nsimilarity: {c.similarity:.2f}\nsame task: {'yes' if c.same_task else 'no'}\n"
                f"references ({len(c.references)}): {_listed(c.references)}\n"
                f"artifacts ({len(c.artifacts)}): {_listed(c.artifacts)}\nsummary: {c.summary}"
            )
            blocks.append(f"[{number}]\n" + delimit("existing_run", body, max_chars=2500))
        flag = (
            "\nNOTE: run [1] is at very high similarity with the same outcome, references and artifacts "
            "(likely NOT or MERGE).\n"
            if likely_duplicate
            else ""
        )
        return self._template.substitute(
            task=delimit("task", run.task, max_chars=1000),
            summary=delimit("summary", run.summary, max_chars=3000),
            outcome=run.outcome,
            references=f"{len(run.references)}: " + delimit("references", _listed(run.references), max_chars=1500),
            artifacts=f"{len(run.artifacts)}: " + delimit("artifacts", _listed(run.artifacts), max_chars=1500),
            candidates="\n".join(blocks),
            flag=flag,
            count=len(candidates),
        )

    async def judge(
        self, run: Incoming, candidates: Sequence[Candidate], *, likely_duplicate: bool
    ) -> Verdict | JudgeFailure:
        prompt = self.prompt(run, candidates, likely_duplicate=likely_duplicate)
        request = LLMRequest(
            prompt=prompt, system_prompt=self._system, max_tokens=self._max_tokens, temperature=self._temperature
        )
        result = await generate_structured(self.llm, request, JudgeAnswer, include_schema=False, repair_truncated=True)
        response = result.response
        trace = LLMTrace(
            prompt=prompt,
            raw_output=result.raw_text,
            model=response.model if response else None,
            latency_ms=response.latency_ms if response else None,
            prompt_tokens=response.usage.prompt_tokens if response else None,
            completion_tokens=response.usage.completion_tokens if response else None,
        )
        if isinstance(result, StructuredFailure):
            return JudgeFailure(result.reason, result.detail, trace)
        verdict = self._validate(result.value, candidates, trace)
        if result.repaired and isinstance(verdict, Verdict):
            # a cut-off answer closed by the repair: its whole fields stand, recorded so
            return replace(
                verdict, reason=f"{verdict.reason} (the answer was cut off and closed)", rule="repaired_output"
            )
        return verdict

    @staticmethod
    def _validate(answer: JudgeAnswer, candidates: Sequence[Candidate], trace: LLMTrace) -> Verdict | JudgeFailure:
        target: Candidate | None = None
        if answer.target_run_id is not None and answer.decision != "ADD":
            if not 1 <= answer.target_run_id <= len(candidates):
                return JudgeFailure(
                    "unknown_target", f"target {answer.target_run_id} is not one of 1..{len(candidates)}", trace
                )
            target = candidates[answer.target_run_id - 1]
        if answer.decision in ("REPLACE", "MERGE") and target is None:
            return JudgeFailure("missing_target", f"{answer.decision} without a target run", trace)
        if answer.decision == "REPLACE" and target is not None and not target.same_task:
            # structural guard (Graphiti #1728): only a run of the same task and scope is replaced
            return JudgeFailure("replace_other_task", f"run [{answer.target_run_id}] is another task's", trace)
        if answer.decision == "NOT" and target is not None and not target.same_task:
            # the rule judge's rule: a run is never dropped on another task's account
            return JudgeFailure("not_other_task", f"NOT for run [{answer.target_run_id}], another task's", trace)
        if answer.decision == "MERGE" and target is not None and not target.kin:
            # the rule judge's rule (task_values): another task naming other values is not this run
            return JudgeFailure(
                "other_task_values",
                f"{answer.decision} with run [{answer.target_run_id}], another task naming other values",
                trace,
            )
        reason = " ".join(answer.reason.split())[:1000] or "(no reason given)"
        return Verdict(
            answer.decision,
            target.run_id if target else None,
            reason,
            "judge",
            None,
            judge="llm",
            llm=trace,
        )
