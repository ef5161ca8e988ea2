"""The one base of every model that crosses a boundary (API bodies, records, settings views).

Why a base: a field's docstring is its documentation, read by people in the source and by
agents in the OpenAPI document and the MCP tool schemas (every field described).
The docstring under a field becomes its JSON-schema ``description``, so the two cannot drift.

Why not pydantic's ``use_attribute_docstrings``: it reads each class's source when the class
is created, which made importing the API 1.6 s slower (every CLI command pays imports). Here
the docstrings are read only when a JSON schema is built (the OpenAPI document, an MCP tool
list, an LLM's output schema), each module's source parsed once.
"""

from __future__ import annotations

import ast
import inspect
import sys
from functools import cache

from pydantic import BaseModel, GetJsonSchemaHandler
from pydantic.json_schema import JsonSchemaValue
from pydantic_core import CoreSchema

__all__ = ["Schema", "field_docs"]


class Schema(BaseModel):
    """A pydantic model whose field docstrings are its fields' JSON-schema descriptions."""

    @classmethod
    def __get_pydantic_json_schema__(cls, core_schema: CoreSchema, handler: GetJsonSchemaHandler) -> JsonSchemaValue:
        json_schema = handler(core_schema)
        properties = handler.resolve_ref_schema(json_schema).get("properties", {})
        docs = field_docs(cls)
        for name, field in cls.model_fields.items():
            doc = docs.get(name)
            for key in {name, field.alias or name}:
                prop = properties.get(key)
                if doc and isinstance(prop, dict) and "description" not in prop:
                    prop["description"] = doc
        return json_schema


def field_docs(cls: type[BaseModel]) -> dict[str, str]:
    """The docstring under each field of ``cls`` and of the models it extends (its own first)."""
    docs: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        if isinstance(klass, type) and issubclass(klass, BaseModel) and klass.__module__ in sys.modules:
            docs.update(_module_docs(klass.__module__).get(klass.__qualname__, {}))
    return docs


@cache
def _module_docs(module: str) -> dict[str, dict[str, str]]:
    """Field docstrings of every class in ``module``, by qualified class name (one parse)."""
    try:
        tree = ast.parse(inspect.getsource(sys.modules[module]))
    except (OSError, TypeError):  # no source on disk (a frozen build): the schema goes without
        return {}
    found: dict[str, dict[str, str]] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for node in body:
            if isinstance(node, ast.ClassDef):
                name = f"{prefix}{node.name}"
                found[name] = _class_docs(node.body)
                visit(node.body, f"{name}.")

    visit(tree.body, "")
    return found


def _class_docs(body: list[ast.stmt]) -> dict[str, str]:
    docs: dict[str, str] = {}
    for node, after in zip(body, body[1:], strict=False):
        if (
            isinstance(node, ast.AnnAssign)
            and isinstance(node.target, ast.Name)
            and isinstance(after, ast.Expr)
            and isinstance(after.value, ast.Constant)
            and isinstance(after.value.value, str)
        ):
            docs[node.target.id] = inspect.cleandoc(after.value.value)
    return docs
