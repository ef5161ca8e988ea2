"""Column types that behave the same on SQLite and PostgreSQL."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np
from sqlalchemy import DateTime, LargeBinary
from sqlalchemy.engine import Dialect
from sqlalchemy.types import TypeDecorator

from phronesis.clock import ensure_utc
from phronesis.embeddings.types import Vectors

__all__ = ["EmbeddingBytes", "UTCDateTime"]


class UTCDateTime(TypeDecorator[datetime]):
    """Always timezone-aware UTC in Python, whatever the database keeps (SQLite drops offsets)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError("naive datetime: phronesis stores timezone-aware UTC only")
        utc = ensure_utc(value)
        return utc.replace(tzinfo=None) if dialect.name == "sqlite" else utc

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return None if value is None else ensure_utc(value)


class EmbeddingBytes(TypeDecorator[Vectors]):
    """A float32 vector as raw little-endian bytes (portable, compact, no extension needed)."""

    impl = LargeBinary
    cache_ok = True

    def process_bind_param(self, value: Any, dialect: Dialect) -> bytes | None:
        if value is None:
            return None
        return np.asarray(value, dtype="<f4").tobytes()

    def process_result_value(self, value: bytes | None, dialect: Dialect) -> Vectors | None:
        if value is None:
            return None
        return np.frombuffer(value, dtype="<f4").astype(np.float32)
