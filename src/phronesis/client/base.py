"""The base of the client's generated models (``_generated``)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

__all__ = ["Model"]


class Model(BaseModel):
    """A model of the API, built when first used: importing the client builds none of its ~110
    models' validators, so ``import phronesis.client`` stays cheap."""

    model_config = ConfigDict(defer_build=True)
