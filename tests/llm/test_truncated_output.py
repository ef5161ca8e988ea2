"""An answer cut off by ``max_tokens`` (``llm.structured.close_truncated``): closed where a
caller asks for it, and only what the answer had whole survives."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st
from pydantic import BaseModel

from phronesis.llm.structured import close_truncated, generate_structured
from phronesis.llm.types import LLMRequest
from phronesis.testing import ScriptedLLM


def test_an_unfinished_reason_is_closed_and_the_whole_fields_stand() -> None:
    cut = '{"decision": "MERGE", "target_run_id": 2, "reason": "Both runs succ'
    assert json.loads(close_truncated(cut) or "") == {
        "decision": "MERGE",
        "target_run_id": 2,
        "reason": "Both runs succ",
    }


def test_a_key_without_its_value_and_a_value_cut_inside_are_dropped() -> None:
    assert close_truncated('{"decision": "MERGE", "target_') == '{"decision": "MERGE"}'
    assert close_truncated('{"decision": "MERGE", "target_run_id": 1') == '{"decision": "MERGE"}'  # 1 of 12?
    assert close_truncated('{"a": [1, 2, ') == '{"a": [1, 2]}'


def test_what_was_not_cut_off_is_not_repaired() -> None:
    assert close_truncated('{"a": 1}') is None
    assert close_truncated('{"a": 1,, }') is None  # broken, not cut off
    assert close_truncated("no object here") is None


values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3),
    max_leaves=8,
)


def _within(repaired: object, original: object) -> bool:
    """Every value of the repaired answer is the original's, or a string the original starts with
    (an unfinished string), or a container holding such values (an unfinished one)."""
    if isinstance(repaired, dict) and isinstance(original, dict):
        return all(k in original and _within(v, original[k]) for k, v in repaired.items())
    if isinstance(repaired, list) and isinstance(original, list):
        return len(repaired) <= len(original) and all(_within(r, o) for r, o in zip(repaired, original, strict=False))
    if isinstance(repaired, str) and isinstance(original, str):
        return original.startswith(repaired)
    return repaired == original


@given(st.dictionaries(st.text(max_size=6), values, min_size=1, max_size=4), st.data())
def test_any_cut_closes_into_json_that_says_nothing_the_answer_did_not(
    answer: dict[str, object], data: st.DataObject
) -> None:
    text = json.dumps(answer)
    assert close_truncated(text) is None
    cut = data.draw(st.integers(min_value=1, max_value=len(text) - 1))
    closed = close_truncated(text[:cut])
    if closed is not None:
        assert _within(json.loads(closed), answer)


class Answer(BaseModel):
    decision: str
    reason: str = ""


async def test_only_a_caller_that_asks_gets_a_repaired_answer() -> None:
    cut = '{"decision": "ADD", "reason": "a new ta'
    plain = await generate_structured(ScriptedLLM([cut]), LLMRequest(prompt="p"), Answer)
    assert getattr(plain, "reason", None) == "not_json"
    repaired = await generate_structured(ScriptedLLM([cut]), LLMRequest(prompt="p"), Answer, repair_truncated=True)
    assert getattr(repaired, "repaired", False) and getattr(repaired, "value", None) == Answer(
        decision="ADD", reason="a new ta"
    )
