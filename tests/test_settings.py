"""Settings: defaults are the seeds' numbers, seed variable names work, bad values name themselves."""

from __future__ import annotations

from pathlib import Path

import pytest

from phronesis.exceptions import ConfigurationError
from phronesis.settings import load_settings


def test_defaults_are_the_seed_numbers() -> None:
    s = load_settings()
    assert s.executive.heuristic_threshold == 0.7
    assert s.executive.max_candidates == 3 and s.executive.llm_confidence_ceiling == 0.8
    assert s.heuristics.min_similarity == 0.7
    assert s.learning.undo_window_sec == 30.0 and s.learning.explicit_magnitude == 0.8
    assert s.llm.spec == "none" and s.llm.max_concurrency == 3
    assert s.database_url().startswith("sqlite+aiosqlite:///")


def test_seed_variable_names_are_aliases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECUTIVE_HEURISTIC_THRESHOLD", "0.55")
    monkeypatch.setenv("EXECUTIVE_GOALS", "keep the user safe; save energy")
    monkeypatch.setenv("LEARNING_UNDO_KEYWORDS", "undo,stop it")
    s = load_settings()
    assert s.executive.heuristic_threshold == 0.55
    assert s.executive.goals == ["keep the user safe", "save energy"]
    assert s.learning.undo_keywords == ["undo", "stop it"]


def test_phronesis_variables_win_over_seed_aliases(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXECUTIVE_HEURISTIC_THRESHOLD", "0.55")
    monkeypatch.setenv("PHRONESIS_EXECUTIVE__HEURISTIC_THRESHOLD", "0.65")
    assert load_settings().executive.heuristic_threshold == 0.65


def test_dotenv_file_is_read(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("PHRONESIS_LLM__SPEC=ollama:llama3.1\nEXECUTIVE_GOALS=a;b\n")
    s = load_settings()
    assert s.llm.spec == "ollama:llama3.1" and s.executive.goals == ["a", "b"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("EXECUTIVE_HEURISTIC_THRESHOLD", "1.5"),
        ("PHRONESIS_HEURISTICS__TOP_K", "many"),
        ("PHRONESIS_EXECUTIVE__MAX_CANDIDATES", "9"),
        ("PHRONESIS_LLM__TIMEOUT_S", "nan"),
        ("PHRONESIS_LEARNING__CONFIRM_KEYWORDS", ""),  # was a traceback at start-up (issue 21 trial)
        ("PHRONESIS_LEARNING__UNDO_KEYWORDS", ","),
        ("PHRONESIS_EXECUTIVE__EXPLORATION_RATE", "1.5"),
    ],
)
def test_invalid_values_fail_naming_the_variable(monkeypatch: pytest.MonkeyPatch, name: str, value: str) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(ConfigurationError, match=name):
        load_settings()


def test_masked_settings_hide_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PHRONESIS_API__KEYS", '{"sk-very-secret-key": "acme"}')
    monkeypatch.setenv("PHRONESIS_LLM__API_KEY", "sk-llm-secret")
    monkeypatch.setenv("PHRONESIS_DATABASE__URL", "postgresql+asyncpg://me:hunter2@db/x")
    monkeypatch.setenv("PHRONESIS_PROACTIVE__BROKER_URL", "redis://:redispw@127.0.0.1:6379/0")
    shown = str(load_settings().masked())
    for secret in ("sk-very-secret-key", "sk-llm-secret", "hunter2", "redispw"):
        assert secret not in shown
    assert "acme" in shown
