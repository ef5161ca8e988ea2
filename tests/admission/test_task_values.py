"""When another task's run is the same task (``admission.task_values``): the values its text names."""

from __future__ import annotations

import pytest

from phronesis.admission.task_values import same_values, task_values


@pytest.mark.parametrize(
    ("task", "values"),
    [
        ("Process invoice 29 for customer 44", {"29", "44"}),
        ("Generate schema", set()),
        ("Read orders.csv and email ann@acme.io", {"orders.csv", "ann@acme.io"}),
        ('Write the "Q3 report" for Acme in Berlin.', {"q3 report", "acme", "berlin"}),
        ("Summarise the report. Then send it! Now.", set()),  # capitals that start a sentence
        ("Sync s3://bucket/key with user_id v2", {"s3://bucket/key", "user_id", "v2"}),
    ],
)
def test_the_values_a_task_names(task: str, values: set[str]) -> None:
    assert task_values(task) == values


def test_templated_tasks_with_other_values_are_other_tasks() -> None:
    assert not same_values("Process invoice 29 for customer 44", "Process invoice 26 for customer 23")
    assert not same_values("Deploy to Staging", "Deploy to Production")
    assert same_values("Generate the schema", "Generate schema for the team")
    assert same_values("Process invoice 29 for customer 44", "process invoice 29 of customer 44")
