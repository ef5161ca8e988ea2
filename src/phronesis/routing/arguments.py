"""A tool's arguments read from the user's words, without an LLM (seed 002: "if parameters
available" before USE_TOOL; "Thursday at 2pm works" must fill the ``time`` a
CLARIFY asked for).

Each property of the tool's JSON Schema is read by what its schema says it is: a date-time
(``format: date-time``, ``date``, ``time``) in the lead's timezone, an email, a phone number,
an enum value, a string with a ``pattern`` (an order id), an integer or number placed by the
words around it ("for 3 people", "12 seats"), and a plain string the user names
("change my company name to Initech"). Dates come from ``dateparser`` (maintained, tested on
many phrasings); the time of day is read here first, because dateparser drops a bare "2pm" and
reads "on Friday at 10" as 2 October.

A date-time that is only half given is kept as a *partial* (a date without its time, or the
reverse) so the next answer can complete it ("Thursday works" … "2pm").
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from phronesis.routing.tools import Tool

__all__ = [
    "Extracted",
    "completed_tools",
    "evidenced_tools",
    "extract",
    "free_text",
    "in_zone",
    "lead_timezone",
    "read_all",
    "warm_up",
]

_EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
_PHONE = re.compile(r"(?<![\w-])\+?\d[\d ()./-]{5,}\d(?![\w-])")
_NUMBER = re.compile(r"(?<![\w.@-])(\d+(?:[.,]\d+)?)(?![\w@-])")
_WORD_NUMBERS = {
    "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
    "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "fifty": 50,
}  # fmt: skip
_CLOCK = re.compile(
    r"\b(?:at\s+)?(?:(?P<h>\d{1,2})(?::(?P<m>\d{2}))?\s*(?P<ampm>a\.?m\.?|p\.?m\.?)"
    r"|(?P<h24>\d{1,2}):(?P<m24>\d{2})|(?P<word>noon|midday|midnight))(?!\w)",
    re.IGNORECASE,
)
_BARE_AT = re.compile(r"\bat\s+(?P<h>\d{1,2})(?![\d:\w])", re.IGNORECASE)
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_WEEKDAY = r"(?:mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)(?:day|nesday|sday|rsday|urday)?"
_DAY_PHRASE = re.compile(
    rf"\b(?:(?:this|next|on)\s+)?{_WEEKDAY}\b|\b(?:today|tonight|tomorrow)\b"
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?(?:,?\s+\d{{4}})?\b"
    rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH}(?:\s+\d{{4}})?\b"
    r"|\b\d{1,2}/\d{1,2}(?:/\d{2,4})?\b|\b\d{4}-\d{2}-\d{2}\b",
    re.IGNORECASE,
)
_NAMES_A_MONTH = re.compile(rf"\b{_MONTH}|\d{{1,2}}/\d{{1,2}}", re.IGNORECASE)
_ORDINAL = re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)\b", re.IGNORECASE)
_RELATIVE = re.compile(r"\bin\s+(\d+|an?|one|two|three)\s+(hour|hours|minute|minutes|day|days)\b", re.IGNORECASE)
_STOP = {"the", "a", "an", "my", "our", "your", "please", "thanks", "thank", "you"}


@dataclass(slots=True)
class Extracted:
    """What one message gave: complete values, and half-given date-times kept for the next answer."""

    values: dict[str, Any] = field(default_factory=dict)
    partial: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per date-time argument, what is known so far: ``{"date": "2026-03-05"}`` or ``{"time": "14:00"}``."""


def lead_timezone(lead_context: Mapping[str, Any], default: str) -> ZoneInfo:
    """The lead's timezone (``lead_context.timezone``), else ``default``; an unknown name is the default."""
    for name in (lead_context.get("timezone"), default):
        if isinstance(name, str) and name:
            try:
                return ZoneInfo(name)
            except (ZoneInfoNotFoundError, ValueError):
                continue
    return ZoneInfo("UTC")


def _clock_time(text: str) -> tuple[time | None, str]:
    """The time of day the text names, and the text without it (so the date is read alone)."""
    match = _CLOCK.search(text)
    if match is not None:
        if match.group("word"):
            at = time(0, 0) if match.group("word").lower() == "midnight" else time(12, 0)
        elif match.group("h24"):
            hour, minute = int(match.group("h24")), int(match.group("m24"))
            if hour > 23 or minute > 59:
                return None, text
            at = time(hour, minute)
        else:
            hour, minute = int(match.group("h")), int(match.group("m") or 0)
            if not 1 <= hour <= 12 or minute > 59:
                return None, text
            pm = match.group("ampm").lower().startswith("p")
            at = time(hour % 12 + (12 if pm else 0), minute)
        return at, text[: match.start()] + " " + text[match.end() :]
    bare = _BARE_AT.search(text)
    if bare is not None and 1 <= int(bare.group("h")) <= 12:
        hour = int(bare.group("h"))
        # "at 10" in a booking means working hours: 8–11 is the morning, 1–7 the afternoon
        at = time(hour if hour >= 8 else hour + 12, 0) if hour != 12 else time(12, 0)
        return at, text[: bare.start()] + " " + text[bare.end() :]
    return None, text


_SHORTHAND = [
    (re.compile(r"\b(?:tmrw?|tmw|tomoz|2moro|2morrow)\b", re.I), "tomorrow"),
    (re.compile(r"\btdy\b", re.I), "today"),
]


def _calendar_date(text: str, now: datetime) -> date | None:
    """The calendar day the text names ("Thursday", "tomorrow", "March 12", "the 12th"), in the future."""
    for shorthand, word in _SHORTHAND:
        text = shorthand.sub(word, text)
    ordinal = _ORDINAL.search(text)
    if ordinal is not None and not _NAMES_A_MONTH.search(text):
        # "the 12th": this month's, or next month's once it has passed (dateparser reads a month)
        nth, month, year = int(ordinal.group(1)), now.month, now.year
        if nth < now.day:
            month, year = (1, year + 1) if month == 12 else (month + 1, year)
        try:
            return date(year, month, nth)
        except ValueError:
            return None
    phrase = _DAY_PHRASE.search(text)
    if phrase is None:
        return None  # "next week", "soon": no day to book, so ask
    import dateparser

    # only the phrase that names the day: "my team of 6 on Thursday" read whole is 2 June
    settings = {"PREFER_DATES_FROM": "future", "RELATIVE_BASE": now.replace(tzinfo=None)}
    value = dateparser.parse(phrase.group(0), languages=["en"], settings=settings)
    if value is None:
        return None
    day = value.date()
    return day if day >= now.date() else None


def _date_time(text: str, now: datetime) -> tuple[date | None, time | None]:
    relative = _RELATIVE.search(text)
    if relative is not None:
        count = relative.group(1).lower()
        amount = int(count) if count.isdigit() else {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3}[count]
        unit = relative.group(2).lower().rstrip("s")
        delta = {"hour": timedelta(hours=amount), "minute": timedelta(minutes=amount), "day": timedelta(days=amount)}
        moment = now + delta[unit]
        if unit != "day":
            return moment.date(), moment.time().replace(second=0, microsecond=0)
        at, _ = _clock_time(text)
        return moment.date(), at
    at, rest = _clock_time(text)
    return _calendar_date(_EMAIL.sub(" ", rest), now), at


def _number_near(text: str, words: set[str]) -> float | None:
    """A number followed or preceded (within two words) by one of ``words`` ("3 people", "seats: 12")."""
    tokens = re.findall(r"[A-Za-z]+|\d+(?:[.,]\d+)?", text.lower())
    for i, token in enumerate(tokens):
        value: float | None = None
        if token[0].isdigit():
            value = float(token.replace(",", "."))
        elif token in _WORD_NUMBERS:
            value = float(_WORD_NUMBERS[token])
        if value is None:
            continue
        near = tokens[i + 1 : i + 3] + tokens[max(0, i - 2) : i]
        if any(w.rstrip("s") in words or w in words for w in near):
            return value
    return None


def _words(name: str, schema: Mapping[str, Any]) -> set[str]:
    """The words that name an argument: its name's parts and its description's nouns."""
    text = f"{name.replace('_', ' ')} {schema.get('description', '')}".lower()
    words = {w.rstrip("s") for w in re.findall(r"[a-z]+", text) if len(w) > 2 and w not in _STOP}
    if words & {"attend", "attendee", "people", "participant", "guest"}:
        words |= {"people", "person", "attendee", "participant", "guest", "of", "us"}
    return words - {"how", "many", "will", "the", "number", "your", "what", "when", "would", "like"}


def _named_string(name: str, text: str) -> str | None:
    """A plain string the user names: "change my company name to Initech", "company: Initech"."""
    label = re.escape(name.replace("_", " "))
    match = re.search(rf"\b{label}(?:\s+name)?\s*(?:to|is|:|=|as)\s+(.+?)\s*[.!?]*$", text, re.IGNORECASE)
    if match is None:
        return None
    value = re.sub(r"^(?:now|actually|called|named)\s+", "", str(match.group(1)).strip(), flags=re.I).strip("\"'")
    return value if 0 < len(value) <= 120 else None


def _pattern_value(pattern: str, text: str) -> str | None:
    """The first word of the text the pattern matches whole ("LM-10023", "#48213" → "48213")."""
    compiled = re.compile(pattern)
    for token in re.findall(r"[A-Za-z0-9_-]+", text):
        for candidate in (token, token.upper()):
            if compiled.fullmatch(candidate):
                return str(candidate)
    return None


def _moment(fmt: str, text: str, now: datetime, partial: Mapping[str, str]) -> tuple[Any | None, dict[str, str] | None]:
    """A date, a time or a date-time, completed from what earlier answers gave (``partial``)."""
    day, at = _date_time(text, now)
    if day is None and "date" in partial:
        day = date.fromisoformat(partial["date"])
    if at is None and "time" in partial:
        at = time.fromisoformat(partial["time"])
    if fmt == "date" and day is not None:
        return day.isoformat(), None
    if fmt == "time" and at is not None:
        return at.strftime("%H:%M"), None
    if fmt == "date-time" and day is not None and at is not None:
        return datetime.combine(day, at, tzinfo=now.tzinfo).isoformat(), None
    known = ({"date": day.isoformat()} if day else {}) | ({"time": at.strftime("%H:%M")} if at else {})
    return None, known or None


def _quantity(name: str, schema: Mapping[str, Any], text: str, only: bool) -> float | int | None:
    value = _number_near(text, _words(name, schema))
    if value is None and only:  # the answer to "how many seats?" may be the number alone
        alone = text.strip(" .!?").lower()
        bare = _NUMBER.fullmatch(alone)
        value = float(bare.group(1).replace(",", ".")) if bare else float(_WORD_NUMBERS.get(alone, 0)) or None
    if value is None:
        return None
    return int(value) if schema.get("type") == "integer" and value.is_integer() else value


def _read(
    name: str, schema: Mapping[str, Any], text: str, now: datetime, partial: Mapping[str, str], only: bool
) -> tuple[Any | None, dict[str, str] | None]:
    """One argument's value from the text, or what is known of a half-given date-time."""
    kind, fmt = schema.get("type"), schema.get("format")
    if fmt in ("date-time", "date", "time"):
        return _moment(str(fmt), text, now, partial)
    if "enum" in schema:
        options = [o for o in schema["enum"] if isinstance(o, str)]
        return next((o for o in options if re.search(rf"\b{re.escape(o)}\b", text, re.IGNORECASE)), None), None
    found: Any | None = None
    if fmt == "email":
        email = _EMAIL.search(text)
        found = email.group(0) if email else None
    elif fmt == "phone" or "phone" in name.lower():
        phone = _PHONE.search(text)
        found = re.sub(r"\s+", " ", phone.group(0)).strip() if phone else None
    elif kind == "string" and "pattern" in schema:
        found = _pattern_value(str(schema["pattern"]), text)
    elif kind in ("integer", "number"):
        found = _quantity(name, schema, text, only)
    elif kind == "string":
        found = _named_string(name, text)
    return found, None


def extract(
    tool: Tool,
    text: str,
    *,
    now: datetime,
    partial: Mapping[str, Mapping[str, str]] | None = None,
    wanted: set[str] | None = None,
) -> Extracted:
    """The arguments of ``tool`` that ``text`` gives. ``now`` is local to the lead (its tzinfo is
    the lead's timezone); ``partial`` what earlier answers gave of a date-time; ``wanted`` the
    arguments a pending question asked for (a bare number answers the one integer asked)."""
    properties = tool.parameters.get("properties", {})
    if not isinstance(properties, Mapping):
        return Extracted()
    out = Extracted()
    numeric_wanted = [n for n in (wanted or set()) if properties.get(n, {}).get("type") in ("integer", "number")]
    for name, schema in properties.items():
        if not isinstance(schema, Mapping):
            continue
        only = len(numeric_wanted) == 1 and numeric_wanted[0] == name
        value, half = _read(name, schema, text, now, (partial or {}).get(name, {}), only)
        if value is not None:
            out.values[name] = value
        elif half:
            out.partial[name] = half
    return out


_ANSWER_LEAD = re.compile(r"^(?:(?:it'?s|it is|that'?s|that is|just|please|ok|okay|sure|well|um|so)\b[,\s]*)+", re.I)


def free_text(tool: Tool, name: str, text: str) -> str | None:
    """The answer to a question asking for ``name``, when it is free text (a string with no format,
    pattern or options): the reply itself, its lead-in and end punctuation left out ("the pricing
    sheet" for "what to send"). Otherwise such an argument could only come from ``tool_arguments``:
    the answer would become a new query and the call be dropped."""
    properties = tool.parameters.get("properties", {})
    schema = properties.get(name) if isinstance(properties, Mapping) else None
    if not isinstance(schema, Mapping) or schema.get("type", "string") != "string":
        return None
    if any(key in schema for key in ("format", "pattern", "enum", "const")):
        return None
    answer = _ANSWER_LEAD.sub("", text.strip()).strip().rstrip(".!").strip()
    limit = schema.get("maxLength")
    if not answer or (isinstance(limit, int) and len(answer) > limit):
        return None
    return answer


_SPECIFIC = ("date-time", "date", "email")


def read_all(tools: Sequence[Tool], text: str, *, now: datetime) -> dict[str, Extracted]:
    """What the message gives each tool: read once per turn, and what ``evidenced_tools`` and
    ``completed_tools`` judge from."""
    return {tool.name: extract(tool, text, now=now) for tool in tools}


def _required(tool: Tool) -> list[str]:
    required = tool.parameters.get("required", [])
    return required if isinstance(required, list) else []


def evidenced_tools(tools: Sequence[Tool], read: Mapping[str, Extracted], *, ids_only: bool = False) -> list[str]:
    """The tools a message gives a required argument of a *specific* kind for: an id its pattern
    matches ("status of 38291?" → an order lookup), a whole date and time, an email. Words alone say what
    a user wants; these say which tool the message feeds (``ids_only``: patterns alone, the most
    specific evidence). ``read``: what the message gives each tool (``read_all``)."""
    found = []
    for tool in tools:
        properties = tool.parameters.get("properties", {})
        if not isinstance(properties, Mapping):
            continue
        specific = {
            name
            for name in _required(tool)
            if isinstance(properties.get(name), Mapping)
            and ("pattern" in properties[name] or (not ids_only and properties[name].get("format") in _SPECIFIC))
        }
        # a whole value only: "today" alone (the weather in Paris today?) feeds no booking
        if specific & set(read[tool.name].values):
            found.append(tool.name)
    return found


def completed_tools(tools: Sequence[Tool], read: Mapping[str, Extracted]) -> list[str]:
    """The tools with two or more required arguments that the message gives every one of ("Pro for
    30 seats"): a complete call in the user's words is a request for it, whatever the router read."""
    return [
        tool.name
        for tool in tools
        if len(required := _required(tool)) >= 2 and set(required) <= set(read[tool.name].values)
    ]


def warm_up() -> None:
    """Load the date parser's language data now (0.1-0.5 s), not in a user's first turn that names a day."""
    _calendar_date("tomorrow", datetime(2026, 1, 1, tzinfo=ZoneInfo("UTC")))


def in_zone(tool: Tool, arguments: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """A date-time argument given without an offset ("2026-03-05T14:00", as an agent may pass it) is
    the lead's local time (``now``'s zone): the offset is added, so the tool gets one unambiguous
    moment. One given in words ("next Tuesday 10:00") is read as the user's words are."""
    zone = now.tzinfo
    properties = tool.parameters.get("properties", {})
    out = dict(arguments)
    for name, value in arguments.items():
        schema = properties.get(name) if isinstance(properties, Mapping) else None
        if not isinstance(schema, Mapping) or schema.get("format") != "date-time" or not isinstance(value, str):
            continue
        try:
            moment = datetime.fromisoformat(value)
        except ValueError:
            day, at = _date_time(value, now)
            if day is not None and at is not None:
                out[name] = datetime.combine(day, at, tzinfo=zone).isoformat()
            continue  # else the schema check says it is not a date-time
        if moment.tzinfo is None:
            out[name] = moment.replace(tzinfo=zone).isoformat()
    return out
