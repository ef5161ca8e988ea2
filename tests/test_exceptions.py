"""The one mapping of a validation error to the input error every surface reports."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, Field, field_validator

from phronesis.exceptions import InvalidInputError, validated


class _Item(BaseModel):
    size: int = Field(ge=1)

    @field_validator("size")
    @classmethod
    def _even(cls, size: int) -> int:
        if size % 2:
            raise ValueError("the size is even")
        return size


class _Order(BaseModel):
    items: list[_Item]


def test_valid_input_is_the_model() -> None:
    assert validated(_Order, {"items": [{"size": 2}]}) == _Order(items=[_Item(size=2)])


@pytest.mark.parametrize(
    ("data", "field", "message"),
    [
        ({"items": [{"size": 2}, {"size": 0}]}, "items.1.size", "Input should be greater than or equal to 1"),
        ({"items": [{"size": 3}]}, "items.0.size", "the size is even"),  # not "Value error, the size …"
        ({}, "items", "Field required"),
    ],
)
def test_the_first_problem_names_its_field(data: object, field: str, message: str) -> None:
    with pytest.raises(InvalidInputError) as refused:
        validated(_Order, data)
    assert (refused.value.field, refused.value.message) == (field, message)
