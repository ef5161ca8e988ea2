from __future__ import annotations

from phronesis.admission.models import RunIn
from phronesis.admission.summaries import ExtractiveSummariser, LLMSummariser
from phronesis.exceptions import LLMServerError
from phronesis.testing import ScriptedLLM

extractive = ExtractiveSummariser(max_sentences=5, max_chars=2000)
RUN = RunIn(
    task="Generate schema",
    outcome="failure",
    steps=[
        "Read orders.csv. Inferred column types for orders.",
        "Weather looked nice.",
        "Validated the orders columns. The orders date column failed validation.",
    ],
    references=["orders.csv"],
    artifacts=["draft.sql"],
)


async def test_the_extractive_summary_is_deterministic_and_keeps_the_central_sentences() -> None:
    first, second = await extractive.summarise(RUN), await extractive.summarise(RUN)
    assert first == second and first.source == "extractive"
    text = first.text
    assert text.startswith("Task: Generate schema. Outcome: failure.")
    assert "orders" in text and "Weather" not in text  # the one-off sentence is dropped at 5 sentences
    assert text.endswith("References: orders.csv. Artifacts: draft.sql.")


async def test_a_caller_summary_is_used_as_is() -> None:
    summary = await extractive.summarise(RUN.model_copy(update={"summary": "  Mine.  "}))
    assert (summary.text, summary.source) == ("Mine.", "caller")


async def test_the_llm_summary_is_used_and_the_run_is_delimited() -> None:
    llm = ScriptedLLM(["It read orders.csv and failed on dates."])
    summary = await LLMSummariser(llm, extractive, temperature=0.3, max_chars=2000).summarise(RUN)
    assert (summary.text, summary.source) == ("It read orders.csv and failed on dates.", "llm")
    assert "<steps>" in llm.requests[0].prompt and llm.requests[0].temperature == 0.3


async def test_an_llm_failure_falls_back_to_the_extractive_summary_and_says_why() -> None:
    for step in (LLMServerError("down", status_code=503), "   "):
        summary = await LLMSummariser(ScriptedLLM([step]), extractive, temperature=0.3, max_chars=2000).summarise(RUN)
        assert summary.source == "extractive"
        assert summary.text == extractive.extract(RUN)
        assert summary.note


async def test_a_task_that_ends_with_a_full_stop_gets_one() -> None:
    summary = await extractive.summarise(RUN.model_copy(update={"task": "Generate schema."}))
    assert summary.text.startswith("Task: Generate schema. Outcome: failure.")
