"""The routing decision point over HTTP (seed 002): sessions, routing, handback, tools, documents."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated

from fastapi import APIRouter, Path, Query, Response

from phronesis.api.bodies import DocumentBatch, DocumentJobPage, DocumentPage, DocumentsStored, ToolPage
from phronesis.api.deps import EngineDep, Limit, Offset, TenantDep
from phronesis.exceptions import InvalidInputError, NotFoundError
from phronesis.pages import page_of
from phronesis.routing.document_jobs import DocumentJob
from phronesis.routing.documents import DocumentIn, DocumentPut
from phronesis.routing.models import RouteRequest, RouteResult, ToolOutcomeIn, ToolOutcomeResult
from phronesis.routing.passages import split_passages
from phronesis.routing.route_feedback import RouteFeedback, RouteFeedbackIn
from phronesis.routing.sessions import ID_PATTERN, MessageIn, NewSession, Session
from phronesis.routing.tools import TOOL_NAME_PATTERN, Tool, ToolIn, ToolPut

router = APIRouter(tags=["routing"])

SessionIdPath = Annotated[str, Path(min_length=1, max_length=64, pattern=ID_PATTERN)]
NamePath = Annotated[str, Path(min_length=1, max_length=64, pattern=ID_PATTERN)]
ToolNamePath = Annotated[str, Path(min_length=1, max_length=64, pattern=TOOL_NAME_PATTERN)]


@router.post("/v1/sessions", status_code=201, summary="Start a conversation (optionally with CRM context and turns)")
async def create_session(body: NewSession, engine: EngineDep, tenant: TenantDep) -> Session:
    await engine.quotas.reserve(tenant, "sessions", 1)
    return await engine.routing.create_session(tenant, body)


@router.get("/v1/sessions/{session_id}", summary="A session: mode, counters, recent messages")
async def get_session(
    session_id: SessionIdPath,
    engine: EngineDep,
    tenant: TenantDep,
    turns: Annotated[int, Query(ge=0, le=200)] = 20,
) -> Session:
    return await engine.routing.session(tenant, session_id, turns=turns)


@router.post(
    "/v1/sessions/{session_id}/route",
    summary="Decide RETRIEVE / REASON_ONLY / USE_TOOL / CLARIFY / ESCALATE for the user's query",
)
async def route(session_id: SessionIdPath, body: RouteRequest, engine: EngineDep, tenant: TenantDep) -> RouteResult:
    return await engine.routing.route(tenant, session_id, body)


@router.post("/v1/sessions/{session_id}/messages", status_code=201, summary="Add the agent's or a human's reply")
async def add_message(session_id: SessionIdPath, body: MessageIn, engine: EngineDep, tenant: TenantDep) -> Session:
    return await engine.routing.add_message(tenant, session_id, body)


@router.post("/v1/sessions/{session_id}/handback", summary="A human hands the session back to automatic routing")
async def handback(session_id: SessionIdPath, engine: EngineDep, tenant: TenantDep) -> Session:
    return await engine.routing.handback(tenant, session_id)


@router.post(
    "/v1/sessions/{session_id}/route-feedback",
    summary="Was a routing decision right, and what should it have been (the last rating wins)",
    responses={404: {"description": "No routing decision with this id"}},
)
async def route_feedback(
    session_id: SessionIdPath, body: RouteFeedbackIn, engine: EngineDep, tenant: TenantDep
) -> RouteFeedback:
    return await engine.routing.rate(tenant, body.decision_id, body, session_id=session_id)


@router.post(
    "/v1/sessions/{session_id}/tool-outcomes",
    summary="Report a tool call's outcome: retry, proceed, skip the tool, or escalate",
)
async def tool_outcome(
    session_id: SessionIdPath, body: ToolOutcomeIn, engine: EngineDep, tenant: TenantDep
) -> ToolOutcomeResult:
    return await engine.routing.report_tool_outcome(tenant, session_id, body)


@router.put(
    "/v1/tools/{name}",
    summary="Register or replace a tool (JSON Schema parameters; 201 when new, 200 when it replaced one)",
    responses={201: {"description": "A new tool", "model": Tool}},
)
async def put_tool(
    name: ToolNamePath, body: ToolPut, engine: EngineDep, tenant: TenantDep, response: Response
) -> Tool:
    if body.name is not None and body.name != name:
        raise InvalidInputError("name", f"the body names {body.name!r} but the path names {name!r}")
    await engine.quotas.reserve_new(tenant, "tools", name)
    tool, created = await engine.routing.save_tool(tenant, ToolIn.model_validate(body.model_dump() | {"name": name}))
    response.status_code = 201 if created else 200
    return tool


@router.get("/v1/tools", summary="The tenant's registered tools")
async def list_tools(engine: EngineDep, tenant: TenantDep, limit: Limit = 100, offset: Offset = 0) -> ToolPage:
    return page_of(await engine.routing.list_tools(tenant), limit=limit, offset=offset)


@router.delete("/v1/tools/{name}", status_code=204, summary="Unregister a tool")
async def delete_tool(name: NamePath, engine: EngineDep, tenant: TenantDep) -> Response:
    if not await engine.routing.delete_tool(tenant, name):
        raise NotFoundError("tool", name)
    return Response(status_code=204)


def _bounded(documents: Sequence[DocumentIn], limit: int) -> None:
    """Refuse, before any work, a request whose documents split into more passages than a request may
    embed (``api.max_passages_per_request``). Otherwise a 38 kB request of two documents splits
    into ~3,400 sentences: 29 s and 13.8 s of CPU, another request of the tenant stalled meanwhile."""
    count = 0
    for index, document in enumerate(documents):
        count += len(split_passages(document.title, document.text))
        if count > limit:  # counted no further: refusing a huge batch costs a few documents' splitting
            raise InvalidInputError(
                "documents",
                f"these documents split into more than {limit} passages to embed (the first {index + 1} into "
                f"{count}); a request may add at most {limit}: submit them as a job (POST /v1/documents/jobs, "
                "stored in the background) or send fewer per request",
            )


@router.post("/v1/documents", status_code=201, summary="Add documents to the knowledge base (embedded on write)")
async def add_documents(body: DocumentBatch, engine: EngineDep, tenant: TenantDep) -> DocumentsStored:
    _bounded(body.documents, engine.settings.api.max_passages_per_request)
    await engine.routing.refuse_held(tenant, [d.id for d in body.documents if d.id is not None])
    await engine.quotas.reserve(tenant, "documents", len(body.documents))
    return DocumentsStored(stored=await engine.routing.add_documents(tenant, body.documents))


@router.post(
    "/v1/documents/jobs",
    status_code=202,
    summary="Add documents in the background: a batch too large for one request (poll the job for progress)",
)
async def submit_document_job(
    body: DocumentBatch, engine: EngineDep, tenant: TenantDep, response: Response
) -> DocumentJob:
    await engine.quotas.reserve(tenant, "documents", len(body.documents))
    job = await engine.routing.submit_documents(tenant, body.documents)
    response.headers["Location"] = f"/v1/documents/jobs/{job.id}"
    return job


@router.get("/v1/documents/jobs", summary="The tenant's document jobs, newest first")
async def list_document_jobs(
    engine: EngineDep, tenant: TenantDep, limit: Limit = 100, offset: Offset = 0
) -> DocumentJobPage:
    return await engine.routing.list_document_jobs(tenant, limit=limit, offset=offset)


@router.get("/v1/documents/jobs/{job_id}", summary="A document job: its status and how far it got")
async def get_document_job(job_id: NamePath, engine: EngineDep, tenant: TenantDep) -> DocumentJob:
    job = await engine.routing.document_job(tenant, job_id)
    if job is None:
        raise NotFoundError("document job", job_id)
    return job


@router.delete(
    "/v1/documents/jobs/{job_id}",
    summary="Cancel a document job that is waiting or running (what it stored stays); the job as it ends",
)
async def cancel_document_job(job_id: NamePath, engine: EngineDep, tenant: TenantDep) -> DocumentJob:
    job = await engine.routing.cancel_document_job(tenant, job_id)
    if job is None:
        raise NotFoundError("document job", job_id)
    return job


@router.put(
    "/v1/documents/{document_id}",
    summary="Add or replace one document in one step (201 when new, 200 when it replaced one)",
    responses={201: {"description": "A new document", "model": DocumentPut}},
)
async def put_document(
    document_id: NamePath, body: DocumentIn, engine: EngineDep, tenant: TenantDep, response: Response
) -> DocumentPut:
    _bounded([body], engine.settings.api.max_passages_per_request)
    await engine.routing.refuse_held(tenant, [document_id])
    await engine.quotas.reserve_new(tenant, "documents", document_id)
    document, created = await engine.routing.put_document(tenant, document_id, body)
    response.status_code = 201 if created else 200
    return DocumentPut.model_validate(document.model_dump() | {"created": created})


@router.get("/v1/documents", summary="The tenant's documents, oldest first")
async def list_documents(
    engine: EngineDep,
    tenant: TenantDep,
    limit: Limit = 100,
    offset: Offset = 0,
) -> DocumentPage:
    return await engine.routing.list_documents(tenant, limit=limit, offset=offset)


@router.delete(
    "/v1/documents/{document_id}",
    status_code=204,
    summary="Remove a document",
    responses={404: {"description": "No document with this id"}},
)
async def delete_document(document_id: NamePath, engine: EngineDep, tenant: TenantDep) -> Response:
    if not await engine.routing.delete_document(tenant, document_id):
        raise NotFoundError("document", document_id)
    return Response(status_code=204)
