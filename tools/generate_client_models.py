"""Write ``phronesis.client``'s models from the server's own OpenAPI document.

Why generated: the client must import without the server's dependencies (SQLAlchemy, numpy,
FastAPI …), so it cannot import the server's models; writing them by hand would let the two
drift. ``tests/client/test_generated_models.py`` regenerates them and fails when the committed
file differs, so a change to an API model is a change to this file in the same commit.

    python -m tools.generate_client_models            # rewrite src/phronesis/client/_generated.py
    python -m tools.generate_client_models --check    # exit 1 if it would change
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.written import write_or_check

TARGET = Path(__file__).parents[1] / "src" / "phronesis" / "client" / "_generated.py"
HEADER = '''"""The API's models, generated from the server's OpenAPI document by
``tools/generate_client_models.py`` (datamodel-code-generator): do not edit; regenerate."""

# ruff: noqa
'''
OPTIONS = [
    "--input-file-type=openapi",
    "--openapi-scopes=schemas",
    "--output-model-type=pydantic_v2.BaseModel",
    "--base-class=phronesis.client.base.Model",
    "--target-python-version=3.11",
    "--use-annotated",
    "--field-constraints",
    "--use-standard-collections",
    "--use-union-operator",
    "--enum-field-as-literal=all",
    "--use-double-quotes",
    "--disable-timestamp",
    "--use-field-description",
    "--collapse-root-models",
    "--use-type-alias",
    "--formatters=ruff-format",
]


def openapi_document() -> dict[str, object]:
    """The document a server of this version serves at ``/openapi.json`` (an app over a throwaway
    data directory, the default settings: the document does not depend on them)."""
    with tempfile.TemporaryDirectory() as data_dir:
        os.environ["PHRONESIS_DATA_DIR"] = data_dir
        from phronesis.server import create_app

        return create_app(migrate=False).openapi()


def generated() -> str:
    with tempfile.TemporaryDirectory() as work:
        source = Path(work) / "openapi.json"
        output = Path(work) / "models.py"
        source.write_text(json.dumps(openapi_document(), sort_keys=True))
        codegen = Path(sys.executable).with_name("datamodel-codegen")
        subprocess.run(
            [str(codegen), f"--input={source}", f"--output={output}", *OPTIONS],
            check=True,
            capture_output=True,
            text=True,
        )
        body = output.read_text()
    lines = body.splitlines()
    while lines and lines[0].startswith("#"):
        lines.pop(0)  # the generator's own header names a temporary file
    return HEADER + "\n".join(lines).lstrip("\n").join(["\n", "\n"])


def main() -> int:
    return write_or_check(TARGET, generated, command="python -m tools.generate_client_models")


if __name__ == "__main__":
    sys.exit(main())
