"""``phronesis proactive …`` against a real SQLite file: users, signals, a calendar, a cycle, feedback."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from typer.testing import CliRunner

from phronesis.cli.base import app


def ics(start: datetime) -> str:
    stamp = start.strftime("%Y%m%dT%H%M%SZ")
    return (
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\n"
        f"BEGIN:VEVENT\r\nUID:standup@test\r\nDTSTAMP:{stamp}\r\nDTSTART:{stamp}\r\nDURATION:PT30M\r\n"
        "SUMMARY:Team stand-up\r\nRRULE:FREQ=HOURLY;COUNT=3\r\nEND:VEVENT\r\n"
        "BEGIN:VEVENT\r\nUID:holiday@test\r\nDTSTAMP:20260101T000000Z\r\n"
        f"DTSTART;VALUE=DATE:{start:%Y%m%d}\r\nSUMMARY:Company offsite\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )


def test_users_signals_a_calendar_a_cycle_and_feedback(cli: CliRunner, tmp_path: Path) -> None:
    put = cli.invoke(
        app, ["proactive", "users", "put", "ana", "--interactions", "300", "--sleep", "00:00", "--wake", "00:00"]
    )
    assert put.exit_code == 0 and put.stdout.startswith("created ana")
    calendar = tmp_path / "work.ics"
    calendar.write_text(ics(datetime.now(UTC).replace(microsecond=0) + timedelta(minutes=30)))
    imported = cli.invoke(app, ["proactive", "signals", "import-ics", "ana", str(calendar)])
    # three stand-ups and the offsite's busy day; tomorrow's empty day too unless a stand-up falls in it
    stored = int(imported.stdout.split()[1])
    assert imported.exit_code == 0 and imported.stdout.startswith("stored ") and stored in (4, 5), imported.output
    again = cli.invoke(app, ["proactive", "signals", "import-ics", "ana", str(calendar)])
    assert f"stored 0 calendar signals, {stored} already known" in again.stdout  # re-importing adds nothing
    listed = json.loads(cli.invoke(app, ["proactive", "signals", "list", "ana", "--json"]).stdout)["items"]
    types = {s["type"] for s in listed}
    assert {"calendar_event_approaching", "calendar_busy_day"} <= types <= {*types, "calendar_empty_day"}
    ran = cli.invoke(app, ["proactive", "run", "--user", "ana", "--json"])
    result = json.loads(ran.stdout)
    assert (result["decision"], result["category"]) == ("sent", "schedule_info") and "stand-up" in result["message"]
    rows = json.loads(cli.invoke(app, ["proactive", "feedback", "--user", "ana", "--json"]).stdout)
    assert [r["outcome"] for r in rows["items"]] == ["pending"] and rows["total"] == 1
    users = cli.invoke(app, ["proactive", "users", "list"])
    assert "ana" in users.stdout and "new" in users.stdout  # a brand-new profile: trust starts at new


def test_bad_input_is_one_line_and_exit_2(cli: CliRunner, tmp_path: Path) -> None:
    not_ics = tmp_path / "bad.ics"
    not_ics.write_text("hello")
    cli.invoke(app, ["proactive", "users", "put", "ana"])
    for args in (
        ["proactive", "users", "put", "bob", "--timezone", "Mars/Base"],
        ["proactive", "signals", "add", "ana", "--type", "x", "--urgency", "11"],
        ["proactive", "signals", "add", "nobody", "--type", "x", "--urgency", "5"],
        ["proactive", "signals", "import-ics", "ana", str(not_ics)],
        ["proactive", "signals", "import-ics", "ana", str(tmp_path / "missing.ics")],
        ["proactive", "run", "--user", "nobody"],
        ["proactive", "signals", "import-ics", "ana", str(not_ics), "--hours", "-5"],
        ["proactive", "signals", "add", "ana", "--type", "x", "--urgency", "5", "--when", "tomorrow"],
        ["proactive", "signals", "add", "ana", "--type", "x", "--urgency", "5", "--when", "2026-11-28T09:00"],
        ["proactive", "stats", "--days", "0"],
        ["proactive", "why", "ana", "--days", "0"],
        ["proactive", "feedback", "--days", "0"],
        ["proactive", "users", "put", "cem", "--channel", "whatsapp", "--address", "+6591234567"],
        ["proactive", "users", "put", "cem", "--channel", "webhook"],
        ["proactive", "feedback", "--summary"],
        ["worker"],  # no broker configured
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert result.output.startswith("error: ") and result.output.count("\n") == 1, (args, result.output)


def test_put_again_keeps_what_was_counted(cli: CliRunner) -> None:
    """A trial's second ``users put`` without ``--interactions`` reset the count to 0."""
    cli.invoke(app, ["proactive", "users", "put", "ana", "--interactions", "300"])
    again = cli.invoke(app, ["proactive", "users", "put", "ana", "--timezone", "Asia/Singapore", "--json"])
    assert again.exit_code == 0, again.output
    profile = json.loads(again.stdout)
    assert (profile["interaction_count"], profile["timezone"]) == (300, "Asia/Singapore")


def test_an_ics_import_reads_floating_times_in_the_users_zone(cli: CliRunner, tmp_path: Path) -> None:
    cli.invoke(app, ["proactive", "users", "put", "ana", "--timezone", "Asia/Singapore"])
    local = datetime.now(UTC).astimezone(ZoneInfo("Asia/Singapore")) + timedelta(minutes=30)
    calendar = tmp_path / "floating.ics"
    calendar.write_text(
        "BEGIN:VCALENDAR\r\nVERSION:2.0\r\nPRODID:-//test//EN\r\nBEGIN:VEVENT\r\nUID:lab@test\r\n"
        f"DTSTAMP:20260101T000000Z\r\nDTSTART:{local:%Y%m%dT%H%M%S}\r\nSUMMARY:Lab\r\nEND:VEVENT\r\nEND:VCALENDAR\r\n"
    )
    assert cli.invoke(app, ["proactive", "signals", "import-ics", "ana", str(calendar)]).exit_code == 0
    items = json.loads(cli.invoke(app, ["proactive", "signals", "list", "ana", "--json"]).stdout)["items"]
    [listed] = [s for s in items if s["type"] == "calendar_event_approaching"]  # the days' signals aside
    assert listed["urgency_hint"] == 8  # 30 minutes away where Ana is, not 8 hours and a half
    assert datetime.fromisoformat(listed["expires_at"]) == local.replace(microsecond=0)


def test_opt_out_mute_and_pause_from_the_cli(cli: CliRunner) -> None:
    cli.invoke(
        app, ["proactive", "users", "put", "ana", "--interactions", "300", "--sleep", "00:00", "--wake", "00:00"]
    )
    out = cli.invoke(app, ["proactive", "users", "opt-out", "ana", "--category", "deadline_warning"])
    assert out.exit_code == 0 and out.stdout.strip() == "ana: opted out of deadline_warning"
    muted = cli.invoke(app, ["proactive", "users", "mute", "ana", "--minutes", "30"])
    assert muted.exit_code == 0 and muted.stdout.startswith("ana: muted until")  # it said "opted in" first
    cli.invoke(app, ["proactive", "signals", "add", "ana", "--type", "deadline_approaching", "--urgency", "9"])
    assert json.loads(cli.invoke(app, ["proactive", "run", "--user", "ana", "--json"]).stdout)["reason"] == "muted"
    unmuted = cli.invoke(app, ["proactive", "users", "unmute", "ana"]).stdout.strip()
    assert unmuted == "ana: not muted; opted out of deadline_warning"
    assert json.loads(cli.invoke(app, ["proactive", "run", "--user", "ana", "--json"]).stdout)["reason"] == (
        "opted_out"
    )
    assert cli.invoke(app, ["proactive", "users", "opt-in", "ana"]).stdout.strip() == "ana: opted in"
    paused = cli.invoke(app, ["proactive", "pause", "--reason", "incident 7"])
    assert paused.exit_code == 0 and "paused: incident 7" in paused.stdout
    assert json.loads(cli.invoke(app, ["proactive", "run", "--user", "ana", "--json"]).stdout)["reason"] == "paused"
    assert cli.invoke(app, ["proactive", "resume"]).exit_code == 0
    # the opted-out category's cycle used its signal (like a suppressed one): a new one
    cli.invoke(
        app,
        ["proactive", "signals", "add", "ana", "--type", "deadline_approaching", "--urgency", "9", "--title", "Quiz"],
    )
    assert json.loads(cli.invoke(app, ["proactive", "run", "--user", "ana", "--json"]).stdout)["decision"] == "sent"
    for args in (
        ["proactive", "users", "opt-out", "ana", "--category", "spam"],
        ["proactive", "users", "mute", "ana"],
        ["proactive", "users", "mute", "nobody", "--minutes", "5"],
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, (args, result.output)


def test_preview_why_and_stats_from_the_cli(cli: CliRunner) -> None:
    cli.invoke(
        app, ["proactive", "users", "put", "ana", "--interactions", "300", "--sleep", "00:00", "--wake", "00:00"]
    )
    cli.invoke(
        app,
        ["proactive", "signals", "add", "ana", "--type", "deadline_approaching", "--urgency", "9", "--title", "Essay"],
    )
    preview = cli.invoke(app, ["proactive", "preview", "ana", "--no-llm"])
    assert preview.exit_code == 0 and "WOULD SEND (deadline_warning)" in preview.stdout, preview.output
    assert "approved" in preview.stdout
    assert json.loads(cli.invoke(app, ["proactive", "signals", "list", "ana", "--pending", "--json"]).stdout)["total"]
    before = cli.invoke(app, ["proactive", "why", "ana"])
    assert before.stdout.startswith("now: WOULD SEND (deadline_warning)"), before.output
    lines = before.stdout.splitlines()
    assert any(line.strip().startswith("approved") and "deadline_warning" in line for line in lines), before.output
    cli.invoke(app, ["proactive", "run", "--user", "ana"])
    why = cli.invoke(app, ["proactive", "why", "ana"])
    assert why.exit_code == 0 and why.stdout.startswith("now: silent (no_signals)"), why.output
    assert "cycle       sent (sent)" in why.stdout and "signal_used" in why.stdout
    stats = cli.invoke(app, ["proactive", "stats"])
    assert stats.exit_code == 0 and "cycle:sent 1" in stats.stdout
    for args in (
        ["proactive", "preview", "nobody"],
        ["proactive", "preview", "ana", "--at", "soon"],
        ["proactive", "why", "nobody"],
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and len(result.output.strip().splitlines()) == 1, (args, result.output)


def test_errors_name_the_options_and_times_are_the_users_own(cli: CliRunner) -> None:
    """Trials read the API's field names in CLI errors ("interaction_count", "(input): give exactly
    one of until and minutes"), a nonsense topic accepted silently, and every time in UTC unlabelled
    for a user in Singapore."""
    for args, said in (
        (["proactive", "users", "mute", "ana"], "error: give exactly one of --until and --minutes\n"),
        (["proactive", "users", "put", "ana", "--interactions", "-1"], "error: --interactions: "),
        (["proactive", "users", "opt-out", "ana", "--topic", "Weather!"], "error: --topic: "),
        (["proactive", "signals", "add", "ana", "--type", "x", "--urgency", "11"], "error: --urgency: "),
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and result.output.startswith(said), (args, result.output)
    assert cli.invoke(app, ["proactive", "users", "put", "ana", "--timezone", "Asia/Singapore"]).exit_code == 0
    nonsense = cli.invoke(app, ["proactive", "users", "opt-out", "ana", "--topic", "xyzzy"])
    assert nonsense.exit_code == 2 and nonsense.output.startswith("error: --topic: 'xyzzy' names no kind of message")
    past = cli.invoke(app, ["proactive", "users", "mute", "ana", "--until", "2020-01-01T00:00:00Z"])
    assert past.exit_code == 2 and past.output.startswith("error: --until: must be in the future"), past.output
    category = cli.invoke(app, ["proactive", "users", "opt-out", "ana", "--category", "xyzzy"])
    assert category.output.startswith("error: --category: no such category: xyzzy (known: "), category.output
    muted = cli.invoke(app, ["proactive", "users", "mute", "ana", "--until", "2030-01-01T00:00:00Z"])
    assert "muted until 2030-01-01 08:00 +08" in muted.output
    cli.invoke(app, ["proactive", "signals", "add", "ana", "--type", "bill_due", "--urgency", "6", "--title", "Rent"])
    [line] = cli.invoke(app, ["proactive", "signals", "list", "ana"]).output.splitlines()
    assert line[17:20] == "+08", line


def test_users_put_takes_when_the_relationship_started(cli: CliRunner) -> None:
    """Issue 52: ``users put`` had no ``--created-at``: a user met a year ago was ``new`` from the CLI."""
    put = cli.invoke(
        app,
        ["proactive", "users", "put", "bo", "--created-at", "2025-01-01T00:00:00+00:00", "--interactions", "500",
         "--json"],
    )  # fmt: skip
    assert put.exit_code == 0, put.output
    profile = json.loads(put.stdout)
    assert profile["created_at"].startswith("2025-01-01") and profile["trust_level"] != "new"
    bad = cli.invoke(app, ["proactive", "users", "put", "bo", "--created-at", "last spring"])
    assert bad.exit_code == 2 and bad.output.startswith("error: --created-at: ")
