"""A request cannot buy unbounded CPU, and is refused before its work (issue 49, item 2, in part).

A 38 kB ``POST /v1/documents`` (two documents of ~1,700 distinct sentences) took 29 s and 13.8 s of
CPU, stalled the tenant's other requests, then answered 409 because the ids existed, after all the
work. Through a real server: documents that split into more passages than
``PHRONESIS_API__MAX_PASSAGES_PER_REQUEST`` are refused (422 naming ``documents``) and a taken id
is refused (409), both before a single text is embedded (the embedding cache's look-ups on
``/metrics`` do not move), and nothing is stored.
"""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest

from tests.processes import phronesis_env, server


def _embedded(http: httpx.Client) -> float:
    text = http.get("/metrics").text
    return sum(float(m) for m in re.findall(r'phronesis_embedding_cache_lookups\{result="\w+"\} (\S+)', text))


def _document(doc_id: str, sentences: int) -> dict[str, str]:
    return {"id": doc_id, "text": " ".join(f"Fact {n} is true." for n in range(sentences))}


@pytest.mark.process
def test_a_request_too_big_to_embed_or_with_a_taken_id_is_refused_before_any_work(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_API__MAX_PASSAGES_PER_REQUEST="500")
    with server(env) as base, httpx.Client(base_url=base, timeout=60) as http:
        assert http.post("/v1/documents", json={"documents": [_document("pricing", 3)]}).status_code == 201
        before = _embedded(http)
        big = http.post("/v1/documents", json={"documents": [_document("a", 1000), _document("b", 1000)]})
        assert big.status_code == 422 and big.json()["field"] == "documents", big.text
        assert "split into more than 500 passages to embed (the first 1 into 1001)" in big.json()["detail"]
        replaced = http.put("/v1/documents/c", json=_document("c", 900))
        assert replaced.status_code == 422, replaced.text
        taken = http.post("/v1/documents", json={"documents": [_document("new", 300), _document("pricing", 100)]})
        assert taken.status_code == 409, taken.text
        assert _embedded(http) == before  # not one text embedded for any of them
        ids = [d["id"] for d in http.get("/v1/documents").json()["items"]]
        assert ids == ["pricing"]
