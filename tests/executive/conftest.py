"""Executive test helpers: a scripted LLM that answers events and success predictions."""

from __future__ import annotations

from phronesis.llm.types import LLMRequest
from phronesis.testing import ScriptedLLM

PREDICTION = '{"success": 0.9, "confidence": 0.95}'


def answering(answer: str, *, prediction: str = PREDICTION) -> ScriptedLLM:
    """An LLM that answers every event with ``answer`` and every prediction request with ``prediction``."""

    def respond(request: LLMRequest) -> str:
        return prediction if "Predict the probability" in request.prompt else answer

    return ScriptedLLM(respond)
