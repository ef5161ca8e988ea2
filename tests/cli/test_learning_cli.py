"""``phronesis heuristics fire|history``, ``observe``, ``learning sweep``: output and one-line errors."""

from __future__ import annotations

from typer.testing import CliRunner

from phronesis.cli.base import app


def test_fire_observe_rate_history_sweep(cli: CliRunner) -> None:
    hid = cli.invoke(app, ["heuristics", "add", "--condition", "dark", "--action", "lights on"]).output.strip()
    fire_id = cli.invoke(app, ["heuristics", "fire", hid, "--event-id", "e1", "--source", "home"]).output.strip()

    unrelated = cli.invoke(app, ["observe", "what time is it", "--event-id", "e1b", "--source", "home"])
    assert "about none of the source's 1 latest open fire(s)" in unrelated.output
    named = ["--reply-to", "e1"]
    ignored = cli.invoke(app, ["observe", "what time is it", "--event-id", "e2", "--source", "home", *named])
    assert ignored.exit_code == 0 and "implicit_ignored neutral" in ignored.output

    rated = cli.invoke(app, ["feedback", fire_id, "--user-score", "1"])
    assert rated.exit_code == 0, rated.output

    history = cli.invoke(app, ["heuristics", "history", hid])
    assert history.exit_code == 0 and "user_explicit" in history.output and "0.500 →" in history.output

    swept = cli.invoke(app, ["learning", "sweep"])
    assert swept.exit_code == 0 and swept.output == "0 timeout signals applied\n"

    # the ignored fire, rated bad: one observation for the channel
    channel = cli.invoke(app, ["learning", "channel"])
    assert channel.exit_code == 0 and channel.output.startswith("strategy bayesian: records it")
    assert "\nimplicit_ignored\t0\t1\t" in channel.output and "\nimplicit_undo\t0\t0\t" in channel.output


def test_errors_are_one_line(cli: CliRunner) -> None:
    for args in (
        ["heuristics", "fire", "nope", "--event-id", "e"],
        ["heuristics", "history", "nope"],
        ["observe", "", "--event-id", "e"],
    ):
        result = cli.invoke(app, args)
        assert result.exit_code == 2 and result.output.count("\n") == 1, (args, result.output)


def test_the_history_says_what_a_rating_replaced_and_what_it_taught(cli: CliRunner) -> None:
    """The trial: 👍, 👎, then a neutral score printed "+0.8", "-0.8" and "-0" (a rise of 0.23 as
    "-0"); nothing said the 👎 replaced the 👍, the neutral withdrew it, or what each taught."""
    hid = cli.invoke(app, ["heuristics", "add", "--condition", "dark", "--action", "lights on"]).output.strip()
    fire_id = cli.invoke(app, ["heuristics", "fire", hid, "--event-id", "e1", "--source", "home"]).output.strip()
    said = [cli.invoke(app, ["feedback", fire_id, *r, "--key", r[-1]]).output for r in (["--positive"], ["--negative"])]
    neutral = cli.invoke(app, ["feedback", fire_id, "--user-score", "2", "--key", "neutral"]).output
    assert said[1].startswith("negative feedback: updated heuristic")
    assert neutral.startswith(f"neutral feedback: took back the earlier rating of heuristic {hid} (")  # not "withdrawn"
    header, *lines = cli.invoke(app, ["heuristics", "history", hid]).output.splitlines()
    assert header == "at\tconfidence\tevidence\tsource\twhat it taught"
    assert [line.split("\t")[2:4] for line in lines] == [
        ["+0.8", "user_explicit"],
        ["-0.8", "user_explicit (replaces the positive user_explicit rating)"],
        ["withdrawn", "user_explicit (took back the negative user_explicit rating)"],
    ]
    assert lines[1].split("\t")[4].startswith("event_unknown: ")  # what the 👎 taught, in words
