"""Seed 004: proactive messages — signals → pre-filter → trust → candidates → scoring → one message → feedback."""
