"""Test doubles shipped with phronesis, for its own tests and for yours.

- ``ScriptedLLM``: an ``LLMProvider`` that answers from a script or a function
  (like pydantic-ai's ``FunctionModel``) and records every request.
- ``FixedClock``: a clock you move by hand.
- ``RecordingChannel``: a proactive channel that records what it was asked to deliver.
"""

from phronesis.testing.channel import RecordingChannel
from phronesis.testing.clock import FixedClock
from phronesis.testing.scripted_llm import ScriptedLLM

__all__ = ["FixedClock", "RecordingChannel", "ScriptedLLM"]
