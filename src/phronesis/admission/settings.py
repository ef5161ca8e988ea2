"""Admission's settings section (seed 003; ``PHRONESIS_ADMISSION__*``)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from phronesis.schema import Schema
from phronesis.settings_parts import Probability

__all__ = ["AdmissionSettings"]


class AdmissionSettings(Schema):
    """Seed 003 (and ORIGINS §3, the code behind it): every number below is the seed's default."""

    low_similarity: Probability = 0.7
    """Seed ``LOW_SIMILARITY_THRESHOLD``: candidates below it do not count; best below it → ADD."""
    duplicate_threshold: Probability = 0.95
    """Seed ``VERY_HIGH_SIMILARITY_THRESHOLD``: at or above it with the same structure a run is a likely
    duplicate. ``phronesis admission calibrate`` replaces it per tenant from labelled pairs."""
    search_min_similarity: float = Field(default=0.3, ge=-1.0, le=1.0)
    """``GET /v1/runs/search``'s floor where a request sets none: a hit less similar than this is noise
    (a search answered hits down to 0.09)."""
    top_k: int = Field(default=3, ge=1, le=20)
    """How many similar runs the judge sees (seed: top 3)."""
    judge: Literal["auto", "llm", "rules"] = "auto"
    """auto: the LLM judge when an LLM is configured, else the rule judge."""
    fail_safe: Literal["ADD", "NOT", "rules"] = "ADD"
    """What an unusable LLM verdict becomes. Never destructive: ADD (the seed's), NOT, or the rule judge's."""
    temperature: float = Field(default=0.1, ge=0.0, le=2.0)
    """Sampling temperature of the LLM judge (ORIGINS §3: the original's judge used 0.1)."""
    max_tokens: int = Field(default=1048, ge=16, le=8192)
    """Most tokens the LLM judge may answer with (ORIGINS §3: the original's ``max_output_tokens`` 1048)."""
    summariser: Literal["auto", "llm", "extractive"] = "auto"
    """auto: the LLM when configured, else a deterministic extractive summary."""
    summary_temperature: float = Field(default=0.3, ge=0.0, le=2.0)
    """Sampling temperature of the LLM summariser (ORIGINS §3: the original summarised at 0.3)."""
    summary_sentences: int = Field(default=7, ge=1, le=50)
    """Seed: a 5–7 sentence summary; the extractive summary keeps at most this many sentences."""
    max_summary_chars: int = Field(default=2000, ge=100, le=20_000)
    """The longest run summary kept, in characters: the LLM's, the extractive one and a caller's own are cut
    to it before it is embedded and compared with other runs."""
    max_batch: int = Field(default=1000, ge=1, le=100_000)
    """Most runs one batch admits (one transaction)."""
    calibration_cache_sec: float = Field(default=5.0, ge=0.0, le=3600.0)
    """How long, in seconds, a process trusts the tenant's calibrated threshold (``phronesis admission
    calibrate``) before re-reading it: another process may calibrate meanwhile."""
    superseded_retention_days: float | None = Field(default=None, gt=0.0, le=36_500.0)
    """Delete runs superseded longer ago than this (the server's hourly purge, ``phronesis
    admission purge``). None (the default): keep them, as seed 003 does (REPLACE never deletes)."""
    max_attempts: int = Field(default=3, ge=1, le=10)
    """A batch that meets a concurrent writer's change (target superseded, same run stored) is re-decided."""

    @model_validator(mode="after")
    def _ordered(self) -> AdmissionSettings:
        if self.low_similarity > self.duplicate_threshold:
            raise ValueError("low_similarity must not exceed duplicate_threshold")
        return self
