"""A request cannot buy unbounded CPU, and is refused before its work (issue 49, item 2).

A 38 kB ``POST /v1/documents`` (two documents of ~1,700 distinct sentences) took 29 s and 13.8 s of
CPU, stalled the tenant's other requests, then answered 409 because the ids existed, after all the
work. Through a real server: documents that split into more passages than
``PHRONESIS_API__MAX_PASSAGES_PER_REQUEST`` are refused (422 naming ``documents``) and a taken id
is refused (409), both before a single text is embedded (the embedding cache's look-ups on
``/metrics`` do not move), and nothing is stored. Such a batch is submitted as a job instead
(``POST /v1/documents/jobs``, 202): stored in the background by a process of its own, polled for
progress, and every document stored exactly once even when that process is killed mid-job.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
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


def _poll(http: httpx.Client, location: str, seconds: float) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while True:
        job: dict[str, object] = http.get(location).json()
        if job["status"] in ("done", "failed") or time.monotonic() > deadline:
            return job
        time.sleep(0.2)


@pytest.mark.process
def test_a_batch_too_big_for_a_request_is_stored_in_the_background_as_a_job(tmp_path: Path) -> None:
    env = phronesis_env(tmp_path, PHRONESIS_API__MAX_PASSAGES_PER_REQUEST="500")
    documents = [_document(f"d{n}", 200) for n in range(6)]  # 6 × 201 passages: over one request's 500
    with server(env) as base, httpx.Client(base_url=base, timeout=60) as http:
        refused = http.post("/v1/documents", json={"documents": documents})
        assert refused.status_code == 422 and "POST /v1/documents/jobs" in refused.json()["detail"]
        submitted = http.post("/v1/documents/jobs", json={"documents": documents})
        assert submitted.status_code == 202, submitted.text
        location = submitted.headers["location"]
        assert location == f"/v1/documents/jobs/{submitted.json()['id']}"
        assert submitted.json()["document_ids"] == [f"d{n}" for n in range(6)]
        again = http.post("/v1/documents/jobs", json={"documents": documents[:1]})
        assert again.status_code == 409 and "'d0'" in again.json()["detail"]  # queued or stored: taken

        job = _poll(http, location, 60)
        assert (job["status"], job["documents_done"], job["passages_done"]) == ("done", 6, 6 * 201), job
        assert [d["id"] for d in http.get("/v1/documents", params={"limit": 10}).json()["items"]] == [
            f"d{n}" for n in range(6)
        ]
        assert http.get("/v1/documents/jobs").json()["total"] == 1
        unknown = http.get("/v1/documents/jobs/nope")
        assert unknown.status_code == 404


def _job_process(data_dir: Path) -> int | None:
    """The job process of the server using ``data_dir`` (tests beside this one may run their own)."""
    found = subprocess.run(["pgrep", "-f", "phronesis.processes.document_jobs"], capture_output=True, text=True)
    mine = f"PHRONESIS_DATA_DIR={data_dir}".encode()
    for pid in map(int, found.stdout.split()):
        try:
            if mine in Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"):
                return pid
        except OSError:  # it ended meanwhile
            continue
    return None


@pytest.mark.process
def test_a_job_whose_process_is_killed_resumes_and_stores_each_document_once(tmp_path: Path) -> None:
    env = phronesis_env(
        tmp_path,
        PHRONESIS_ROUTING__DOCUMENT_JOB_LEASE_S="2",
        PHRONESIS_ROUTING__DOCUMENT_JOB_CHUNK_PASSAGES="8",
        PHRONESIS_ROUTING__DOCUMENT_JOB_BUSY_SHARE="0.05",  # slow enough to be caught mid-job
    )
    documents = [_document(f"d{n}", 20) for n in range(40)]
    with server(env) as base, httpx.Client(base_url=base, timeout=60) as http:
        location = http.post("/v1/documents/jobs", json={"documents": documents}).headers["location"]
        deadline = time.monotonic() + 60
        while (job := http.get(location).json())["documents_done"] < 3:
            assert time.monotonic() < deadline and job["status"] != "done", job
            time.sleep(0.05)
        child = _job_process(tmp_path)
        assert child is not None
        os.kill(child, signal.SIGKILL)
        stopped_at = http.get(location).json()
        assert stopped_at["status"] == "running" and stopped_at["documents_done"] < 40

        job = _poll(http, location, 120)  # after its lease, the server starts another process
        assert (job["status"], job["documents_done"], job["passages_done"]) == ("done", 40, 40 * 21), job
        stored = http.get("/v1/documents", params={"limit": 100}).json()
        assert stored["total"] == 40 and sorted(d["id"] for d in stored["items"]) == sorted(f"d{n}" for n in range(40))


@pytest.mark.process
def test_a_job_holds_its_ids_until_it_ends_and_can_be_cancelled(tmp_path: Path) -> None:
    """A trial's 43-minute job failed at its last document: a ``PUT`` of that id was accepted while
    the job held it. Now a job's ids are refused to ``PUT`` and ``POST`` until it ends, and a job
    can be cancelled, keeping what it stored."""
    env = phronesis_env(tmp_path, PHRONESIS_ROUTING__DOCUMENT_JOB_CHUNK_PASSAGES="8",
                        PHRONESIS_ROUTING__DOCUMENT_JOB_BUSY_SHARE="0.02")  # fmt: skip
    output: list[str] = []
    with server(env, output=output) as base, httpx.Client(base_url=base, timeout=60) as http:
        submitted = http.post("/v1/documents/jobs", json={"documents": [_document(f"d{n}", 20) for n in range(40)]})
        location = submitted.headers["location"]
        put = http.put("/v1/documents/d39", json={"text": "Stored meanwhile."})
        assert put.status_code == 409 and "is in job" in put.json()["detail"], put.text
        posted = http.post("/v1/documents", json={"documents": [_document("d38", 2)]})
        assert posted.status_code == 409 and "is in job" in posted.json()["detail"], posted.text

        cancelled = http.delete(location)
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled", cancelled.text
        time.sleep(2)  # the job's process finds it cancelled at its next chunk and stores nothing more
        job = http.get(location).json()
        assert job["status"] == "cancelled" and job["error"] == "cancelled by the caller"
        stored = http.get("/v1/documents", params={"limit": 100}).json()["total"]
        assert stored == job["documents_done"] < 40
        time.sleep(1)
        assert http.get("/v1/documents", params={"limit": 100}).json()["total"] == stored
        assert http.put("/v1/documents/d39", json={"text": "Now it may be stored."}).status_code == 201
        assert http.delete("/v1/documents/jobs/nope").status_code == 404
    assert "is not a phronesis setting" not in output[0]  # the job process is started without one
