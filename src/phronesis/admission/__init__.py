"""Seed 003: memory admission control. A finished agent run → ADD / NOT / REPLACE / MERGE."""
