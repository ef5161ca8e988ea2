"""Write the blocking client (``phronesis/client/sync.py``) from the asyncio one (``aio.py``).

Why derived: the two offer the same operations with the same names, docs and retries; written
twice they drifted. Edit ``aio.py`` and run this; ``tests/client/test_standalone.py`` fails when
``sync.py`` is not what this writes (the way httpcore keeps its sync code: unasync's rules).

    python -m tools.generate_sync_client            # rewrite sync.py
    python -m tools.generate_sync_client --check    # exit 1 if it would change
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

from tools.written import write_or_check

CLIENT = Path(__file__).parents[1] / "src" / "phronesis" / "client"
DOCSTRING = '''"""The blocking client: ``Client(base_url, api_key=…)``, one namespace per decision point.
Written from the asyncio client (``aio.py``) by ``tools/generate_sync_client.py``: do not edit;
edit ``aio.py`` and regenerate.

    with Client("http://127.0.0.1:8000", api_key="sk-…") as phronesis:
        decision = phronesis.executive.decide({"text": "the greenhouse door is open", "source": "home"})

Pass ``transport=httpx.MockTransport(handler)`` to test your agent without a server."""
'''
RULES = (
    (r"\basync def ", "def "),
    (r"\bawait ", ""),
    (r"\basync with ", "with "),
    (r"\basync for ", "for "),
    (r"\bAsyncClient\b", "Client"),
    (r"\bAsyncBaseTransport\b", "BaseTransport"),
    (r"\bAsyncIterator\b", "Iterator"),
    (r"__aenter__", "__enter__"),
    (r"__aexit__", "__exit__"),
    (r"\baclose\b", "close"),
    (r"\basyncio\.sleep\b", "time.sleep"),
    (r"^import asyncio$", "import time"),
)


def generated() -> str:
    source = (CLIENT / "aio.py").read_text()
    body = source[source.index('"""', 3) + 3 :].lstrip("\n")  # past the module docstring
    for pattern, replacement in RULES:
        body = re.sub(pattern, replacement, body, flags=re.M)
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "sync.py"
        path.write_text(DOCSTRING + "\n" + body)
        ruff = Path(sys.executable).with_name("ruff")
        # a signature the async one had to wrap may fit one line now: the formatter decides
        config = str(CLIENT.parents[2] / "pyproject.toml")
        subprocess.run([str(ruff), "format", "--quiet", "--config", config, str(path)], check=True)
        return path.read_text()


def main() -> int:
    return write_or_check(CLIENT / "sync.py", generated, command="python -m tools.generate_sync_client")


if __name__ == "__main__":
    sys.exit(main())
