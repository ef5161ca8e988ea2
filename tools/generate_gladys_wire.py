"""Write the GLADyS wire code (``phronesis/gladys/wire/*_pb2*.py`` and their ``.pyi``) from
phronesis's own ``.proto`` files beside them, with grpcio-tools and mypy-protobuf.

Why generated and committed: a GLADyS deployment's callers speak these messages byte for byte;
the ``.proto`` files are the contract, and the code must be exactly what they say. The test suite
runs ``--check``, so a change to a ``.proto`` is a change to the generated code in the same commit.

    python -m tools.generate_gladys_wire            # rewrite the generated files
    python -m tools.generate_gladys_wire --check    # exit 1 if any would change
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

SOURCE = Path(__file__).parents[1] / "src"
WIRE = SOURCE / "phronesis" / "gladys" / "wire"
GENERATED = ("*_pb2.py", "*_pb2.pyi", "*_pb2_grpc.py", "*_pb2_grpc.pyi")


def generate(into: Path) -> dict[str, str]:
    """Every generated file's text, by name: protoc run on the ``.proto`` files into ``into``."""
    plugins = Path(sys.executable).parent
    protos = sorted(str(p.relative_to(SOURCE)) for p in WIRE.glob("*.proto"))
    subprocess.run(
        [
            sys.executable, "-m", "grpc_tools.protoc", f"-I{SOURCE}",
            f"--plugin=protoc-gen-mypy={plugins / 'protoc-gen-mypy'}",
            f"--plugin=protoc-gen-mypy_grpc={plugins / 'protoc-gen-mypy_grpc'}",
            f"--python_out={into}", f"--grpc_python_out={into}", f"--mypy_out={into}", f"--mypy_grpc_out={into}",
            *protos,
        ],
        check=True, capture_output=True, cwd=SOURCE,
    )  # fmt: skip
    out = into / "phronesis" / "gladys" / "wire"
    return {path.name: path.read_text() for pattern in GENERATED for path in sorted(out.glob(pattern))}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="write the GLADyS wire code, or check it is current")
    parser.add_argument("--check", action="store_true", help="fail if a generated file is not what it would write")
    arguments = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as work:
        files = generate(Path(work))
    current = {path.name: path.read_text() for pattern in GENERATED for path in WIRE.glob(pattern)}
    if arguments.check:
        if current != files:
            stale = sorted(set(current) ^ set(files) | {n for n in files if current.get(n) != files[n]})
            print(f"not current: {', '.join(stale)}: run python -m tools.generate_gladys_wire", file=sys.stderr)
            return 1
        return 0
    for name in set(current) - set(files):
        (WIRE / name).unlink()
    for name, text in files.items():
        (WIRE / name).write_text(text)
    print(f"wrote {len(files)} files in {WIRE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
