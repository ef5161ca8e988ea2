"""Seed 002: route a user query to RETRIEVE / REASON_ONLY / USE_TOOL / CLARIFY / ESCALATE."""
