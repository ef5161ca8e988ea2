"""The engine's one ``VectorBackend``: what every store asks where embeddings go."""

from __future__ import annotations

import pytest

from phronesis.storage.vector_backend import VECTOR_TABLES, VectorBackend


def test_until_chosen_embeddings_are_searched_here_and_no_column_is_written() -> None:
    backend = VectorBackend()
    assert not backend.in_database
    assert [backend.column(table) for table in VECTOR_TABLES] == [None] * 4


def test_columns_are_written_wherever_the_database_has_them_whichever_searches() -> None:
    backend = VectorBackend()
    backend.choose(columns=True, in_database=False)
    assert not backend.in_database
    assert [backend.column(table).table.name for table in VECTOR_TABLES] == list(VECTOR_TABLES)  # type: ignore[union-attr]
    backend.choose(columns=True, in_database=True)
    assert backend.in_database


def test_searches_cannot_go_to_columns_that_are_not_there() -> None:
    with pytest.raises(ValueError, match="does not have"):
        VectorBackend().choose(columns=False, in_database=True)
