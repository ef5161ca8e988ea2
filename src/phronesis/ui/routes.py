"""The dashboard's pages: overview, decision explorer and one decision, heuristics
and one heuristic, calibration, routing, admission (with undo), proactive and a user's
timeline, replay and tuning, sign-in.

Thin: each page reads its figures from ``ui.queries`` and renders one template. A page asked
for without a tenant goes to the sign-in page; a form without its CSRF token is refused (403)
before anything is read from it.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime, timedelta
from typing import Annotated, Any, Self, TypeVar, get_args
from urllib.parse import parse_qs, quote, urlencode

from fastapi import APIRouter, Query, Request, Response
from fastapi.responses import HTMLResponse, RedirectResponse
from jinja2 import Environment, PackageLoader, select_autoescape
from pydantic import ConfigDict, Field, ValidationError, model_validator

from phronesis.admission.feedback import KEY as ADMISSION_RATING
from phronesis.api.auth import tenant_for_key
from phronesis.audit.models import DecisionKind
from phronesis.audit.rollups import LATENCY_BOUNDS_MS
from phronesis.clock import Instant
from phronesis.engine import Engine
from phronesis.exceptions import ConflictError, InvalidInputError, NotFoundError, validation_message
from phronesis.explanations import about, explain, explained
from phronesis.heuristics.examples import Scope
from phronesis.replay import ReplayIn, TuneIn, run_replay, tune
from phronesis.replay.models import PARAMETERS, Asked, as_asked, setting_of
from phronesis.replay.run import current_value
from phronesis.routing.route_feedback import KEY as ROUTE_RATING
from phronesis.schema import Schema
from phronesis.tenant_settings import BOUNDS, CHOICES, WHOLE, ApplyIn, GivenValue, SettingName, shown
from phronesis.ui.charts import BarChart, bar_chart, line_chart, share_bars
from phronesis.ui.graphs import run_graph
from phronesis.ui.queries import KINDS, DashboardQueries, DecisionFilter, Overview, funnel
from phronesis.ui.session import CSRF_FIELD, Viewer, csrf_token, csrf_valid, keep_csrf, set_session, viewer

__all__ = ["router"]

Endpoint = TypeVar("Endpoint", bound=Callable[..., Awaitable[Response]])

router = APIRouter(prefix="/ui", include_in_schema=False)

_templates = Environment(
    loader=PackageLoader("phronesis.ui", "templates"),
    autoescape=select_autoescape(default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
_templates.filters["pretty"] = lambda value: json.dumps(value, indent=2, sort_keys=True, default=str)

RATINGS = (ROUTE_RATING, ADMISSION_RATING)
"""Where routing and admission keep a decision's rating on its record."""


def _bound(ms: float | None) -> str:
    """A latency percentile as the rollups know it: the upper bound of its bucket."""
    if ms is None:
        return "–"
    return f"> {LATENCY_BOUNDS_MS[-1]:,} ms" if ms == float("inf") else f"≤ {ms:g} ms"


_templates.filters["bound"] = _bound
_templates.filters["number"] = shown  # a daily cap of 2, not 2.0; a strategy's name as it is

SECURITY_HEADERS = {
    # nothing but the server's own origin: no CDN, no font host, no beacon
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
    "Cache-Control": "no-store",
}
PAGE_SIZE = 50
ADMISSION_ROWS = 30
"""The admission page's latest decisions, and the runs its graph draws from them."""
CALIBRATION_PX = 240
TEXT_WINDOW = timedelta(days=1)
"""How far back a text search looks when no Since is given."""


def _page(path: str) -> Callable[[Endpoint], Endpoint]:
    """A page answers GET and HEAD (a link checker's or a proxy's probe got 405)."""
    return router.api_route(path, methods=["GET", "HEAD"], response_class=HTMLResponse)


def _engine(request: Request) -> Engine:
    engine: Engine = request.app.state.engine
    return engine


def _render(request: Request, template: str, status: int = 200, **context: Any) -> HTMLResponse:
    context.setdefault("viewer", None)
    token = csrf_token(request)
    html = _templates.get_template(template).render(request=request, csrf=token, csrf_field=CSRF_FIELD, **context)
    response = HTMLResponse(html, status_code=status, headers=SECURITY_HEADERS)
    keep_csrf(request, response, token)
    return response


def _not_found(request: Request, who: Viewer, what: str, key: str) -> HTMLResponse:
    message = f"There is no {what} {key[:64]!r} for this tenant."
    return _render(request, "error.html", 404, viewer=who, title="Not found", message=message)


def _bad_input(
    request: Request,
    who: Viewer,
    title: str,
    exc: ValidationError,
    *,
    back: tuple[str, str] | None = None,
    names: Mapping[str, str] | None = None,
) -> HTMLResponse:
    """A bad query parameter, named with what is wrong (as the API's problem details do), on a
    page; ``back``: the link (href, label) to the page it came from; ``names``: a field as the
    form names it."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"])
    field = (names or {}).get(field, field)
    href, label = back or (None, None)
    message = f"{field}: {validation_message(error)}"
    return _render(request, "error.html", 422, viewer=who, title=title, message=message, back=href, back_label=label)


def _window(request: Request, default: int, most: int) -> tuple[Viewer, int] | Response:
    """Who is looking and the page's ``days`` (1 to ``most``); or, instead of the page, the
    sign-in redirect or the page that says what is wrong with ``days``."""
    who = _who(request)
    if who is None:
        return _sign_in_first()
    given = request.query_params.get("days", "")
    try:
        days = int(given) if given else default
    except ValueError:
        days = 0
    if not 1 <= days <= most:
        message = f"days: a whole number from 1 to {most}, not {given[:20]!r}"
        return _render(request, "error.html", 422, viewer=who, title="Bad window", message=message)
    return who, days


async def _overview_window(request: Request) -> tuple[Viewer, int, DashboardQueries, Overview] | Response:
    """A decision point's page: who is looking, its window (14 days unless asked), and the
    window's figures from the rollups; or the sign-in redirect or the bad-window page."""
    gate = _window(request, 14, 90)
    if isinstance(gate, Response):
        return gate
    who, days = gate
    engine = _engine(request)
    queries = DashboardQueries(engine.database)
    return who, days, queries, await queries.overview(who.tenant, engine.clock.now(), days)


def _per_day(data: Overview, kind: str) -> BarChart:
    """One decision point's decisions per day of the window (days without any: zero)."""
    return bar_chart(list(zip(data.days, data.per_day.get(kind, [0] * len(data.days)), strict=True)))


def _refused(request: Request, who: Viewer | None) -> HTMLResponse:
    """A state-changing form without its CSRF token: nothing was read from it, nothing done."""
    return _render(
        request, "error.html", 403, viewer=who, title="Refused", message="The form did not come from this page."
    )


def _sign_in_first() -> RedirectResponse:
    return RedirectResponse("/ui/sign-in", status_code=303, headers=SECURITY_HEADERS)


async def _form(request: Request) -> dict[str, str]:
    """An ``application/x-www-form-urlencoded`` body (first value of each field)."""
    body = (await request.body()).decode("utf-8", errors="replace")
    return {name: values[0] for name, values in parse_qs(body, keep_blank_values=True).items()}


def _who(request: Request) -> Viewer | None:
    return viewer(request, _engine(request).settings.api)


# -- signing in and out --------------------------------------------------------------------


@_page("/sign-in")
async def sign_in_page(request: Request) -> Response:
    return _render(request, "sign_in.html", error=None)


@router.post("/sign-in", response_class=HTMLResponse)
async def sign_in(request: Request) -> Response:
    form = await _form(request)
    if not csrf_valid(request, form.get(CSRF_FIELD)):
        return _render(request, "sign_in.html", 403, error="The form expired or did not come from this page.")
    key = form.get("api_key", "").strip()
    if not key or tenant_for_key(_engine(request).settings.api, key) is None:
        return _render(request, "sign_in.html", 401, error="That API key is not known to this server.")
    response = RedirectResponse("/ui", status_code=303, headers=SECURITY_HEADERS)
    set_session(request, response, key)
    return response


@router.post("/sign-out")
async def sign_out(request: Request) -> Response:
    form = await _form(request)
    if not csrf_valid(request, form.get(CSRF_FIELD)):
        return _refused(request, None)
    response = RedirectResponse("/ui/sign-in", status_code=303, headers=SECURITY_HEADERS)
    set_session(request, response, None)
    return response


# -- pages -----------------------------------------------------------------------------------


@_page("")
async def overview(request: Request) -> Response:
    seen = await _overview_window(request)
    if isinstance(seen, Response):
        return seen
    who, days, _, data = seen
    kinds = [kind for kind in KINDS if kind in data.per_day]
    charts = {kind: _per_day(data, kind) for kind in kinds}
    paths = {kind: share_bars(rows) for kind, rows in data.by_path.items()}
    actions = {kind: share_bars(rows) for kind, rows in data.by_action.items()}
    return _render(
        request,
        "overview.html",
        viewer=who,
        data=data,
        days=days,
        kinds=kinds,
        charts=charts,
        paths=paths,
        actions=actions,
        reasons={kind: share_bars(rows) for kind, rows in data.reasons.items()},
    )


class ExplorerQuery(Schema):
    """The explorer's filters, checked like any input: a bad one is named on the page (422)."""

    model_config = ConfigDict(extra="ignore")

    kind: DecisionKind | None = None
    path: str | None = Field(default=None, max_length=32)
    action: str | None = Field(default=None, max_length=200)
    """What was decided (a route, ADD/NOT/…, sent/silent, an executive's action text)."""
    outcome: str | None = Field(default=None, max_length=64)
    """What feedback said (positive, correct, …)."""
    subject: str | None = Field(default=None, max_length=256)
    reason: str | None = Field(default=None, max_length=64)
    """Why it went the way it did (emergency_unmatched, no_suitable_tool, quiet_hours, …)."""
    q: str | None = Field(default=None, max_length=200)
    since: Instant | None = None
    until: Instant | None = None
    before: str | None = Field(default=None, max_length=120, pattern=r"^[^|]+\|[^|]+$")
    """The last row of the previous page: ``created_at|id``."""


@_page("/decisions")
async def explorer(request: Request) -> Response:
    who = _who(request)
    if who is None:
        return _sign_in_first()
    given = {k: v for k, v in request.query_params.items() if v != ""}
    try:
        query = ExplorerQuery.model_validate(given)
        before = None
        if query.before:
            at, _, record_id = query.before.partition("|")
            before = (datetime.fromisoformat(at), record_id)
    except ValidationError as exc:
        return _bad_input(request, who, "Bad filter", exc)
    except ValueError:
        return _render(request, "error.html", 422, viewer=who, title="Bad filter", message="before: not a page mark")
    since = query.since
    if query.q and since is None:
        # Text is matched row by row (no index serves LIKE '%…%'): 1.2 s over a million records.
        # Unless the user sets Since, it searches the last day, and the page says so.
        since = _engine(request).clock.now() - TEXT_WINDOW
    where = DecisionFilter(
        kind=query.kind,
        path=query.path,
        action=query.action,
        outcome=query.outcome,
        subject=query.subject,
        reason=query.reason,
        text=query.q,
        since=since,
        until=query.until,
    )
    rows = await DashboardQueries(_engine(request).database).decisions(
        who.tenant, where, limit=PAGE_SIZE, before=before
    )
    next_page = None
    if len(rows) == PAGE_SIZE:
        last = rows[-1]
        keep = {k: v for k, v in given.items() if k != "before"}
        next_page = "?" + urlencode(keep | {"before": f"{last.created_at.isoformat()}|{last.id}"})
    text_since = since if query.q and query.since is None else None
    return _render(
        request,
        "decisions.html",
        viewer=who,
        rows=[(row, about(row)) for row in rows],
        query=query,
        kinds=KINDS,
        next_page=next_page,
        text_since=text_since,
    )


@_page("/decisions/{record_id}")
async def decision_page(request: Request, record_id: str) -> Response:
    who = _who(request)
    if who is None:
        return _sign_in_first()
    engine = _engine(request)
    try:
        record = await engine.decisions.get(who.tenant, record_id[:64])
    except NotFoundError:
        return _not_found(request, who, "decision", record_id)
    rated = await DashboardQueries(engine.database).feedback_for(who.tenant, record.id)
    candidates = record.inputs.get("candidates") if isinstance(record.inputs.get("candidates"), list) else None
    # a routing or admission rating is kept on the record itself (else a turn rated incorrect
    # reads "No feedback")
    ratings = [record.attributes[key] for key in RATINGS if isinstance(record.attributes.get(key), dict)]
    return _render(
        request,
        "decision.html",
        viewer=who,
        record=explained(record),
        feedback=rated,
        ratings=ratings,
        candidates=candidates,
    )


@_page("/heuristics")
async def heuristics_page(request: Request, page: Annotated[int, Query(ge=1, le=100_000)] = 1) -> Response:
    who = _who(request)
    if who is None:
        return _sign_in_first()
    rows = await DashboardQueries(_engine(request).database).heuristics(
        who.tenant, limit=PAGE_SIZE, offset=(page - 1) * PAGE_SIZE
    )
    return _render(request, "heuristics.html", viewer=who, rows=rows, page=page, more=len(rows) == PAGE_SIZE)


@_page("/heuristics/{heuristic_id}")
async def heuristic_page(request: Request, heuristic_id: str) -> Response:
    who = _who(request)
    if who is None:
        return _sign_in_first()
    engine = _engine(request)
    try:
        heuristic = await engine.heuristics.get(who.tenant, heuristic_id[:64])
    except NotFoundError:
        return _not_found(request, who, "heuristic", heuristic_id)
    signals = await DashboardQueries(engine.database).confidence_history(who.tenant, heuristic.id)
    scope = Scope.of(await engine.heuristics.scope(who.tenant, heuristic.id))
    history = [("created", signals[0]["old_confidence"])] if signals else [("now", heuristic.confidence)]
    history += [(s["created_at"].strftime("%Y-%m-%d %H:%M"), s["new_confidence"]) for s in signals]
    return _render(
        request, "heuristic.html", viewer=who, h=heuristic, signals=signals, chart=line_chart(history), scope=scope
    )


@_page("/calibration")
async def calibration_page(request: Request) -> Response:
    """Seed 001's question for every decision point: when it says 0.8, is it right 80 % of the time?"""
    gate = _window(request, 30, 365)
    if isinstance(gate, Response):
        return gate
    who, days = gate
    engine = _engine(request)
    since = engine.clock.now() - timedelta(days=days)
    reliability = await DashboardQueries(engine.database).calibration(who.tenant, since)
    return _render(request, "calibration.html", viewer=who, reliability=reliability, days=days, size=CALIBRATION_PX)


@_page("/routing")
async def routing_page(request: Request) -> Response:
    """Seed 002 at a glance: the decision mix, why it escalated, how often it asked, and where
    route feedback says it was wrong."""
    seen = await _overview_window(request)
    if isinstance(seen, Response):
        return seen
    who, days, queries, data = seen
    mix = dict(data.by_action.get("routing", []))
    total = sum(mix.values())
    confusion = await queries.route_confusion(who.tenant, data.since)
    labels = sorted({a for a, _, _ in confusion} | {b for _, b, _ in confusion})
    cells = {(a, b): n for a, b, n in confusion}
    return _render(
        request,
        "routing.html",
        viewer=who,
        days=days,
        total=total,
        mix=share_bars(sorted(mix.items())),
        clarify_rate=mix.get("CLARIFY", 0) / total if total else None,
        escalations=share_bars(data.reasons.get("routing", [])),
        chart=_per_day(data, "routing"),
        labels=labels,
        cells=cells,
    )


SESSION_TURNS = 500
"""A session's page shows at most this many of its latest turns and tool reports."""


@_page("/sessions/{session_id}")
async def session_page(request: Request, session_id: str) -> Response:
    """A routing session's story, the way a trace view groups spans: each turn in order, with what
    was decided and why, the sources that answered, the tool it called and what the tool reported."""
    who = _who(request)
    if who is None:
        return _sign_in_first()
    engine = _engine(request)
    session_id = session_id[:64]
    try:
        session = await engine.routing.session(who.tenant, session_id, turns=0)
    except NotFoundError:
        session = None  # deleted since: its records still tell its story
    records = await engine.decisions.query(who.tenant, kind="routing", subject_id=session_id, limit=SESSION_TURNS)
    if session is None and not records:
        return _not_found(request, who, "session", session_id)
    turns = [(record, explain(record)) for record in reversed(records)]  # oldest first
    return _render(request, "session.html", viewer=who, session=session, session_id=session_id, turns=turns)


@_page("/admission")
async def admission_page(request: Request) -> Response:
    """Seed 003 at a glance: decisions over time and by kind, the latest decisions with an undo,
    and the runs their REPLACEs and MERGEs tied together, drawn as a graph."""
    seen = await _overview_window(request)
    if isinstance(seen, Response):
        return seen
    who, days, queries, data = seen
    engine = _engine(request)
    mix = sorted(data.by_action.get("admission", []))
    recent = (await engine.admission.decisions(who.tenant, since=data.since, limit=ADMISSION_ROWS)).items
    tied = {
        run_id
        for d in recent
        if d.decision in ("REPLACE", "MERGE") and d.undone_at is None
        for run_id in (d.run_id, d.target_run_id)
        if run_id is not None
    }
    graph = run_graph(await queries.run_nodes(who.tenant, tied)) if tied else None
    undone = request.query_params.get("undone")
    return _render(
        request,
        "admission.html",
        viewer=who,
        days=days,
        # an undo is recorded as an admission decision too: counted apart, it admitted no run
        total=sum(n for action, n in mix if action != "UNDO"),
        undos=sum(n for action, n in mix if action == "UNDO"),
        mix=share_bars(mix),
        chart=_per_day(data, "admission"),
        recent=recent,
        graph=graph,
        undone=next((d for d in recent if d.id == undone and d.undone_at is not None), None),
    )


@router.post("/admission/undo")
async def admission_undo(request: Request) -> Response:
    """Take an admission decision back, as ``POST /v1/memory-decisions/{id}/undo`` does (the same
    service, recorded the same way); refused without the form's CSRF token."""
    who = _who(request)
    if who is None:
        return _sign_in_first()
    form = await _form(request)
    if not csrf_valid(request, form.get(CSRF_FIELD)):
        return _refused(request, who)
    decision_id = form.get("decision_id", "")[:64]
    try:
        await _engine(request).admission.undo(who.tenant, decision_id)
    except NotFoundError:
        return _not_found(request, who, "admission decision", decision_id)
    except ConflictError as exc:
        back = {"back": "/ui/admission", "back_label": "the admission page"}
        return _render(request, "error.html", 409, viewer=who, title="Cannot undo", message=exc.message, **back)
    target = f"/ui/admission?{urlencode({'undone': decision_id})}"
    return RedirectResponse(target, status_code=303, headers=SECURITY_HEADERS)


@_page("/proactive")
async def proactive_page(request: Request) -> Response:
    """Seed 004 at a glance: the funnel, why messages were not sent, engagement by category."""
    gate = _window(request, 7, 90)
    if isinstance(gate, Response):
        return gate
    who, days = gate
    engine = _engine(request)
    queries = DashboardQueries(engine.database)
    since = engine.clock.now() - timedelta(days=days)
    daily = await engine.proactive.stats(who.tenant, days=days)
    steps = funnel(daily)
    blocked: Counter[str] = Counter()
    for names in daily.values():
        blocked.update({name.split(":", 1)[1]: n for name, n in names.items() if name.startswith("cycle:")})
    for done in ("sent", "explored"):
        blocked.pop(done, None)
    engagement = await queries.engagement(who.tenant, since)
    return _render(
        request,
        "proactive.html",
        viewer=who,
        days=days,
        funnel=share_bars(steps) if steps[0][1] else None,
        steps=steps,
        blocked=share_bars(blocked.most_common()),
        engagement=engagement,
    )


@_page("/replay")
async def replay_page(request: Request) -> Response:
    """What another threshold would have done with the logged decisions (``value``), or the
    threshold the logs argue for, every value replayed (``tune``). The setting is asked as
    ``setting`` (the page's select: ``proactive.score_threshold.new``) or as ``decision_point``
    and ``parameter`` (links, the Apply form)."""
    who = _who(request)
    if who is None:
        return _sign_in_first()
    engine = _engine(request)
    asked = {k: v for k, v in request.query_params.items() if v != ""}
    names: dict[str, str] = {}
    shown, shown_value = asked.pop("shown", None), asked.pop("shown_value", None)
    if "setting" in asked:
        setting_asked = asked.pop("setting")
        if setting_asked not in get_args(SettingName):
            known = ", ".join(get_args(SettingName))
            message = f"setting: {setting_asked[:60]!r} is not a setting a replay varies; one of {known}"
            return _render(request, "error.html", 422, viewer=who, title="Bad replay", message=message)
        if shown is not None and shown != setting_asked and asked.get("value") == shown_value:
            # another setting picked in the select, the value field left as it was: it held the
            # previous setting's value (0.7 would be replayed as a proactive score); show the
            # new setting from its own value instead of replaying the old one's
            asked.pop("value", None)
        asked["decision_point"], _, asked["parameter"] = setting_asked.partition(".")
        names = {"decision_point": "setting", "parameter": "setting"}
    asked.setdefault("decision_point", "executive")
    wants_tune = asked.pop("tune", None) is not None
    if wants_tune:  # Tune replays every value: the Value box's, perhaps out of range, is not asked
        asked.pop("value", None)
    applied = asked.pop("applied", None)
    try:
        # the window and setting, whether or not a value is asked (Tune needs none)
        where = TuneIn.model_validate({k: v for k, v in asked.items() if k in ("decision_point", "parameter", "days")})
        body = ReplayIn.model_validate(asked) if "value" in asked else None
    except ValidationError as exc:
        return _bad_input(request, who, "Bad replay", exc, back=("/ui/replay", "the replay page"), names=names)
    point, parameter = where.decision_point, str(where.parameter)
    current = await current_value(engine, who.tenant, point, parameter)
    try:
        report = await run_replay(engine, who.tenant, body) if body is not None and not wants_tune else None
    except InvalidInputError as exc:  # a value Apply would refuse (low above high): the page says so
        return _render(
            request,
            "error.html",
            422,
            viewer=who,
            title="Bad replay",
            message=str(exc),
            back=f"/ui/replay?setting={where.setting}",
            back_label="the replay page",
        )
    tuned = await tune(engine, who.tenant, where) if wants_tune else None
    every = {s.name: s for s in await engine.tenant_settings.list(who.tenant)}
    setting = every[where.setting]
    return _render(
        request,
        "replay.html",
        viewer=who,
        point=point,
        parameter=parameter,
        settings=[setting_of(p, name) for p, names in PARAMETERS.items() for name in names],
        all_settings=every,
        all_bounds=BOUNDS,
        choices=CHOICES,
        bounds=BOUNDS.get(where.setting),
        whole=where.setting in WHOLE,
        first_parameter=PARAMETERS[point][0],
        current=current,
        setting=setting,
        report=report,
        tuned=tuned,
        days=asked.get("days", "30"),
        applied=applied,
    )


class ApplyForm(Asked):
    """The replay page's Apply: a tenant setting, its value, and the replay behind it."""

    model_config = ConfigDict(extra="ignore")

    value: GivenValue | None = None
    """None (the field left empty): back to the configured value. Its range is the setting's (``apply``)."""
    note: str | None = Field(default=None, max_length=1000)

    @model_validator(mode="after")
    def _as_asked(self) -> Self:
        if self.value is not None:
            self.value = as_asked(self.setting, self.value)
        return self


@router.post("/settings/apply")
async def apply_setting(request: Request) -> Response:
    """Set the tenant's threshold as ``PUT /v1/settings/{name}`` does (the same store, the change
    recorded as a decision); refused without the form's CSRF token."""
    who = _who(request)
    if who is None:
        return _sign_in_first()
    form = await _form(request)
    if not csrf_valid(request, form.get(CSRF_FIELD)):
        return _refused(request, who)
    try:
        asked = ApplyForm.model_validate({k: v for k, v in form.items() if v != ""})
    except ValidationError as exc:
        return _bad_input(request, who, "Bad setting", exc, back=("/ui/replay", "the replay page"))
    change = ApplyIn(value=asked.value, note=asked.note or "applied from the dashboard's replay page")
    try:
        applied = await _engine(request).tenant_settings.apply(who.tenant, asked.setting, change)
    except InvalidInputError as exc:
        return _render(request, "error.html", 422, viewer=who, title="Bad setting", message=str(exc))
    query = urlencode(
        {"decision_point": asked.decision_point, "parameter": asked.parameter, "applied": applied.decision_id or ""}
    )
    return RedirectResponse(f"/ui/replay?{query}", status_code=303, headers=SECURITY_HEADERS)


@router.get("/users")
async def find_user(user_id: Annotated[str, Query(alias="id", min_length=1, max_length=64)]) -> Response:
    """The proactive page's form (a GET, no script): to that user's page."""
    return RedirectResponse(f"/ui/users/{quote(user_id, safe='')}", status_code=303, headers=SECURITY_HEADERS)


@_page("/users/{user_id}")
async def user_page(request: Request, user_id: str) -> Response:
    """A user's proactive story (``proactive.timeline``): signals, cycles, sends, feedback, and
    what a cycle would decide now."""
    gate = _window(request, 7, 90)
    if isinstance(gate, Response):
        return gate
    who, days = gate
    try:
        timeline = await _engine(request).proactive.timeline(who.tenant, user_id[:64], days=days)
    except NotFoundError:
        return _not_found(request, who, "user", user_id)
    return _render(request, "user.html", viewer=who, timeline=timeline, days=days)
