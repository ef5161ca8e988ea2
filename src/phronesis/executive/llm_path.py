"""The LLM path shared by every executive strategy (seed 000 ``_llm_path`` + ``_get_prediction``).

1. Ask the LLM for a response, with the shown candidates as neutral context.
2. Ask it to predict success as JSON ``{success, confidence}``; anything unusable
   becomes (0.5, 0.5) and says why in metadata.
3. Cap both at ``llm_confidence_ceiling`` (F-06: 0.8).

An LLM failure on step 1 is the seed's FALLBACK with reason ``llm_no_response``; the
typed error's own reason is kept too, so the record says *why* (timeout, 5xx, refusal).
"""

from __future__ import annotations

import random

from pydantic import Field

from phronesis.exceptions import LLMError
from phronesis.executive.config import StrategyConfig
from phronesis.executive.prompt_builder import (
    PromptTemplates,
    build_event_prompt,
    build_prediction_prompt,
    build_system_prompt,
    shown_candidates,
)
from phronesis.executive.results import no_answer
from phronesis.executive.types import DecisionContext, DecisionPath, DecisionResult
from phronesis.llm.metered import MeteredLLM
from phronesis.llm.structured import StructuredFailure, generate_structured
from phronesis.llm.types import LLMProvider, LLMRequest
from phronesis.schema import Schema

__all__ = ["NEUTRAL_PREDICTION", "Prediction", "decide_with_llm"]

NEUTRAL_PREDICTION = (0.5, 0.5)
"""Seed 000: when the prediction cannot be parsed, success and confidence are 0.5."""


class Prediction(Schema):
    success: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)
    confidence: float = Field(ge=0.0, le=1.0, allow_inf_nan=False)


async def decide_with_llm(
    context: DecisionContext,
    llm: LLMProvider,
    *,
    config: StrategyConfig,
    templates: PromptTemplates,
    rng: random.Random,
    response_id: str,
    metadata: dict[str, object],
) -> DecisionResult:
    llm = metered = MeteredLLM(llm)  # the record says how many calls this decision made
    shown = shown_candidates(context.candidates, config.max_candidates, rng)
    prompt = build_event_prompt(templates, context, shown, max_chars=config.max_text_chars)
    system_prompt = build_system_prompt(templates, context.goals)
    metadata = {**metadata, "shown_candidate_ids": [c.heuristic_id for c in shown], "model": llm.model_name}
    try:
        response = await llm.generate(LLMRequest(prompt=prompt, system_prompt=system_prompt))
    except LLMError as exc:
        return no_answer(
            DecisionPath.FALLBACK,
            "llm_no_response",
            response_id,
            {**metadata, "llm_error": exc.reason, "detail": str(exc)[:500]},
            prompt_text=prompt,
            model=llm.model_name,
            llm_calls=metered.calls,
        )
    response_text = response.text.strip()
    if not response_text:  # seed 000 ``if not llm_response``: an empty answer is no answer
        return no_answer(
            DecisionPath.FALLBACK,
            "llm_no_response",
            response_id,
            {**metadata, "llm_error": "llm_empty_response", "detail": "the LLM answered with no text"},
            prompt_text=prompt,
            model=llm.model_name,
            llm_calls=metered.calls,
        )
    prediction = await generate_structured(
        llm,
        LLMRequest(prompt=build_prediction_prompt(templates, context, response_text, max_chars=config.max_text_chars)),
        Prediction,
        include_schema=False,
    )
    prompt_tokens = response.usage.prompt_tokens
    completion_tokens = response.usage.completion_tokens
    if isinstance(prediction, StructuredFailure):
        success, confidence = NEUTRAL_PREDICTION
        metadata["prediction_fallback"] = prediction.reason
        metadata["prediction_detail"] = prediction.detail[:500]
        if prediction.raw_text is not None:
            metadata["prediction_raw"] = prediction.raw_text[:2000]
    else:
        success, confidence = prediction.value.success, prediction.value.confidence
        metadata["prediction_raw"] = prediction.raw_text[:2000]
    if prediction.response is not None:
        prompt_tokens += prediction.response.usage.prompt_tokens
        completion_tokens += prediction.response.usage.completion_tokens
    ceiling = config.llm_confidence_ceiling
    return DecisionResult(
        path=DecisionPath.LLM,
        response_text=response_text,
        response_id=response_id,
        matched_heuristic_id=context.candidates[0].heuristic_id if context.candidates else None,
        predicted_success=min(success, ceiling),
        prediction_confidence=min(confidence, ceiling),
        prompt_text=prompt,
        metadata=metadata,
        raw_llm_output=response.text,
        model=response.model,
        prompt_tokens=prompt_tokens,
        completion_tokens=completion_tokens,
        llm_calls=metered.calls,
    )
