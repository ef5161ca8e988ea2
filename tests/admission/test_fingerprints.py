from __future__ import annotations

from phronesis.admission.fingerprints import content_hash, task_id_for
from phronesis.admission.models import RunIn


def test_task_identity_ignores_case_and_spacing() -> None:
    assert task_id_for("Generate  Schema ") == task_id_for("generate schema")
    assert task_id_for("Generate schema") != task_id_for("Generate a schema")


def test_the_content_hash_covers_everything_the_run_says() -> None:
    base = RunIn(task="Generate schema", outcome="success", references=["A", "B"])
    tid = task_id_for(base.task)
    same = RunIn(task="generate schema", outcome="success", references=["B", "A"])
    assert content_hash(base, tid) == content_hash(same, tid)
    for changed in (
        {"outcome": "failure"},
        {"references": ["A"]},
        {"artifacts": ["x"]},
        {"steps": ["read the file"]},
        {"summary": "another summary"},
        {"error": "boom"},
    ):
        other = base.model_copy(update=changed)
        assert content_hash(other, tid) != content_hash(base, tid), changed
