"""A game's settings and rules as one typed value (issue 12, item 4): stored as JSON and
read back exactly, older judges' records read with the defaults, and time zones: a game
that names none follows ``[judge] timezone``, read when used."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at

from judge.config import (
    ConfigError,
    Deadline,
    Endgame,
    GameSettings,
    Nmr,
    Press,
    load_game_config,
    load_settings,
    rules_from_dict,
    rules_to_dict,
    settings_from_json,
    settings_to_json,
)
from judge.db.models import Game, OutboundMessage
from judge.engine.phases import PhaseKind
from judge.engine.rules import CivilDisorder, Edition, Rules
from judge.runtime.bootstrap import App, open_app
from judge.services.game_file_watch import reload_configs
from judge.services.game_files import load_game
from judge.services.game_settings import game_settings, game_zone, phase_deadline
from judge.services.games import process_game, start_game

# -- store and read back -------------------------------------------------------------

_HOURS = st.floats(min_value=0.0, max_value=1440.0, allow_nan=False)
_DEADLINES = st.builds(
    Deadline,
    hours=_HOURS,
    at=st.none() | st.from_regex(r"\A([01]\d|2[0-3]):[0-5]\d\Z"),
    days=st.sets(st.integers(0, 6)).map(lambda days: tuple(sorted(days))),
    grace=_HOURS,
    early=_HOURS,
    remind=_HOURS,
)
_SETTINGS = st.builds(
    GameSettings,
    press=st.sampled_from(Press),
    timezone=st.none() | st.sampled_from(["UTC", "Europe/London", "America/New_York"]),
    autostart=st.booleans(),
    nmr=st.sampled_from(Nmr),
    anonymous=st.booleans(),
    endgame=st.sampled_from(Endgame),
    dias=st.booleans(),
    concessions=st.booleans(),
    show_pending_draw=st.booleans(),
    secret_votes=st.booleans(),
    vote_counts=st.booleans(),
    master_decision_hours=st.floats(min_value=1.0, max_value=168.0),
    maps=st.booleans(),
    movement=_DEADLINES,
    retreat=_DEADLINES,
    adjustment=_DEADLINES,
)
_RULES = st.builds(
    Rules,
    edition=st.sampled_from(Edition),
    build_anywhere=st.booleans(),
    civil_disorder=st.sampled_from(CivilDisorder),
    retreat_priority=st.booleans(),
    implied_orders=st.booleans(),
    proxies=st.booleans(),
    victory_centres=st.integers(1, 34),
)


def stored(data: dict[str, Any]) -> Any:
    """What the database gives back for ``data`` (a JSON column)."""
    return json.loads(json.dumps(data))


@given(_SETTINGS)
def test_settings_read_back_exactly_as_stored(settings: GameSettings) -> None:
    data = settings_to_json(settings)
    assert settings_from_json(stored(data)) == settings
    assert settings_to_json(settings_from_json(stored(data))) == data


@given(_RULES)
def test_rules_read_back_exactly_as_stored(rules: Rules) -> None:
    data = rules_to_dict(rules)
    assert rules_from_dict(stored(data)) == rules
    assert rules_to_dict(rules_from_dict(stored(data))) == data


def every_day(hours: float, **keys: Any) -> dict[str, Any]:
    """A phase kind's deadline as the judge has stored it since deadlines had all keys."""
    return {"hours": hours, "at": None, "days": [0, 1, 2, 3, 4, 5, 6], "grace": 0.0,
            "early": 10.0, "remind": 0.0, **keys}  # fmt: skip


#: What the judge stored for a game file that named no zone, before this change: the
#: config's default written out, "UTC" included.
OLDER_JUDGE = {
    "press": "white",
    "timezone": "UTC",
    "autostart": False,
    "nmr": "process",
    "anonymous": False,
    "deadlines": {
        "movement": every_day(48.0, at="20:00"),
        "retreat": every_day(24.0),
        "adjustment": every_day(24.0),
    },
}


@pytest.mark.parametrize(
    ("data", "expected"),
    [
        ({}, GameSettings()),
        (OLDER_JUDGE, GameSettings(timezone="UTC", movement=Deadline(48.0, "20:00"))),
        # Before nmr, anonymous and the deadlines' other keys: whole hours, kinds left out.
        (
            {
                "press": "grey",
                "timezone": "Europe/London",
                "autostart": True,
                "deadlines": {"movement": {"hours": 36, "at": "18:30"}},
            },
            GameSettings(
                Press.GREY, "Europe/London", autostart=True, movement=Deadline(36.0, "18:30")
            ),
        ),
        # A kind's deadline without hours has that kind's hours; bookkeeping is ignored.
        (
            {"deadlines": {"retreat": {"at": "20:00", "days": [4]}}, "rejected_config": "ab12"},
            GameSettings(retreat=Deadline(24.0, "20:00", (4,))),
        ),
        ({"nmr": "wait", "anonymous": True}, GameSettings(nmr=Nmr.WAIT, anonymous=True)),
    ],
)
def test_what_older_judges_stored_reads_with_the_defaults(
    data: dict[str, Any], expected: GameSettings
) -> None:
    assert settings_from_json(data) == expected


def test_the_stored_format_is_the_older_judges_one() -> None:
    """No migration: a record an older judge wrote is written back unchanged but for the
    keys added since, with their defaults (``observers``), and a game that names no zone is
    stored without one (not as null, see the next tests)."""
    added_since = {"observers": "open"}
    assert settings_to_json(settings_from_json(OLDER_JUDGE)) == {**OLDER_JUDGE, **added_since}
    assert settings_to_json(GameSettings(movement=Deadline(48.0, "20:00"))) == {
        **{key: value for key, value in OLDER_JUDGE.items() if key != "timezone"},
        **added_since,
    }
    older_rules = {"edition": "2000", "build_anywhere": True, "civil_disorder": "house",
                   "retreat_priority": False, "implied_orders": True, "proxies": False,
                   "victory_centres": 18}  # fmt: skip
    assert rules_to_dict(rules_from_dict(older_rules)) == older_rules
    assert rules_from_dict({}) == Rules()
    assert rules_from_dict({"edition": "2000", "proxies": True}) == Rules(
        Edition.R2000, proxies=True
    )


# -- game files ------------------------------------------------------------------------

#: :data:`GAME_FILE` without its ``timezone`` line: the game names no zone.
NO_ZONE = GAME_FILE.replace('timezone = "Europe/London"\n', "")


def game_file(tmp_path: Path, text: str, name: str = "test01") -> Path:
    path = tmp_path / f"{name}.toml"
    path.write_text(text.replace('name = "test01"', f'name = "{name}"'))
    return path


def test_a_file_reads_only_the_keys_it_has(tmp_path: Path) -> None:
    bare = load_game_config(game_file(tmp_path, '[game]\nname = "bare"\n', "bare"))
    assert (bare.settings, bare.rules, bare.deadline) == (GameSettings(), Rules(), None)
    assert load_game_config(game_file(tmp_path, NO_ZONE)).settings.timezone is None
    assert load_game_config(game_file(tmp_path, GAME_FILE)).settings.timezone == "Europe/London"


def test_the_endgame_keys_are_read_from_the_file(tmp_path: Path) -> None:
    text = GAME_FILE.replace(
        "[deadlines]",
        'endgame = "house"\ndias = false\nconcessions = false\nshow_pending_draw = true\n'
        "secret_votes = false\nvote_counts = true\nmaster_decision_hours = 12\n\n[deadlines]",
    )
    settings = load_game_config(game_file(tmp_path, text)).settings
    assert (
        settings.endgame,
        settings.dias,
        settings.concessions,
        settings.show_pending_draw,
        settings.secret_votes,
        settings.vote_counts,
        settings.master_decision_hours,
    ) == (Endgame.HOUSE, False, False, True, False, True, 12.0)
    assert settings_from_json(stored(settings_to_json(settings))) == settings


@pytest.mark.parametrize(
    ("line", "error"),
    [
        (
            'endgame = "draw"',
            '[game] endgame: use "njudge" (SET DRAW and SET CONCEDE), "house" (PROPOSE and '
            "VOTE) or \"none\", got 'draw'",
        ),
        ('dias = "yes"', "[game] dias: use true or false"),
        ("vote_counts = 1", "[game] vote_counts: use true or false"),
        (
            "master_decision_hours = 0",
            "[game] master_decision_hours: expected a number of hours from 1 to 168, got 0",
        ),
        (
            "master_decision_hours = true",
            "[game] master_decision_hours: expected a number of hours from 1 to 168, got True",
        ),
    ],
)
def test_a_bad_endgame_key_names_the_key_and_the_fix(tmp_path: Path, line: str, error: str) -> None:
    path = game_file(tmp_path, GAME_FILE.replace("[deadlines]", f"{line}\n\n[deadlines]"))
    with pytest.raises(ConfigError) as caught:
        load_game_config(path)
    assert str(caught.value) == f"{path}: {error}"


def test_maps_is_read_from_the_file_and_stored_only_when_off(tmp_path: Path) -> None:
    assert load_game_config(game_file(tmp_path, GAME_FILE)).settings.maps is True
    assert "maps" not in settings_to_json(GameSettings())
    text = GAME_FILE.replace("[deadlines]", "maps = false\n\n[deadlines]")
    settings = load_game_config(game_file(tmp_path, text)).settings
    assert settings.maps is False
    assert settings_to_json(settings)["maps"] is False
    assert settings_from_json(stored(settings_to_json(settings))).maps is False
    path = game_file(tmp_path, GAME_FILE.replace("[deadlines]", 'maps = "no"\n\n[deadlines]'))
    with pytest.raises(ConfigError) as caught:
        load_game_config(path)
    assert str(caught.value) == (
        f"{path}: [game] maps: use true (a map picture with the results) or false, got 'no'"
    )


def test_a_deadline_left_without_hours_has_its_kind_s_hours(tmp_path: Path) -> None:
    """The phase kind's default hours, written once on GameSettings (a second copy in the
    file reader gave every kind the movement's 48)."""
    text = GAME_FILE.replace("retreat = 24\n", 'retreat = { at = "20:00" }\n')
    settings = load_game_config(game_file(tmp_path, text)).settings
    assert settings.retreat == Deadline(24.0, "20:00")
    assert settings.deadline(PhaseKind.RETREAT) is settings.retreat


# -- the judge's default zone -----------------------------------------------------------


def paris_judge(tmp_path: Path, zone: str = "Europe/Paris") -> App:
    """A judge whose settings file says ``[judge] timezone = zone``."""
    config = tmp_path / "config" / "judge.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text(
        f'[judge]\nname = "TESTJUDGE"\naddress = "judge@example.org"\ntimezone = "{zone}"\n'
        f'database_url = "sqlite:///{tmp_path / "judge.db"}"\n'
    )
    app = open_app(load_settings(config))
    app.judge.make_password = lambda: "paris-123"
    return app


def start(app: App, path: Path, name: str = "test01") -> list[OutboundMessage]:
    """Load and start the game of ``path`` at 2026-11-23 12:00; the mail it sent."""
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, name, at("2026-11-23 12:00"))
    return sent(app, name)


def sent(app: App, name: str) -> list[OutboundMessage]:
    with app.sessions() as session:
        game = session.scalars(select(Game).where(Game.name == name)).one()
        return list(
            session.scalars(
                select(OutboundMessage)
                .where(OutboundMessage.game_id == game.id)
                .order_by(OutboundMessage.id)
            )
        )


def deadline_lines(mail: OutboundMessage) -> list[str]:
    return [
        line
        for line in mail.body.splitlines()
        if line.startswith(("The deadline for orders", "In your own time zone"))
    ]


def test_a_game_that_names_no_zone_is_in_the_judge_s(tmp_path: Path) -> None:
    """The first deadline (48 hours, then 20:00) is computed and shown in Paris time; a
    player with a zone of their own sees it in theirs too; the game stores no zone."""
    app = paris_judge(tmp_path)
    mails = {m.to_addr: m for m in start(app, game_file(tmp_path, NO_ZONE))}
    assert deadline_lines(mails["austria@example.org"]) == [
        "The deadline for orders is Wed Nov 25 2026 20:00:00 +0100 (Europe/Paris).",
    ]
    assert deadline_lines(mails["russia@example.org"]) == [
        "The deadline for orders is Wed Nov 25 2026 20:00:00 +0100 (Europe/Paris).",
        "In your own time zone that is Wed Nov 25 2026 22:00:00 +0300 (Europe/Moscow).",
    ]
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game.deadline == datetime(2026, 11, 25, 19, 0, tzinfo=UTC)
        assert "timezone" not in game.settings
        assert game_zone(game, app.judge) == "Europe/Paris"


def test_a_game_that_names_a_zone_keeps_it(tmp_path: Path) -> None:
    app = paris_judge(tmp_path)
    mails = {m.to_addr: m for m in start(app, game_file(tmp_path, GAME_FILE))}
    assert deadline_lines(mails["austria@example.org"]) == [
        "The deadline for orders is Wed Nov 25 2026 20:00:00 +0000 (Europe/London).",
    ]
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game.deadline == datetime(2026, 11, 25, 20, 0, tzinfo=UTC)
        assert game_zone(game, app.judge) == "Europe/London"


def test_the_judge_s_zone_is_read_when_used_not_copied(tmp_path: Path) -> None:
    """Changing ``[judge] timezone`` moves the games that name no zone along: the next
    deadline is computed and shown in the new zone; a game that names one stays."""
    app = paris_judge(tmp_path)
    start(app, game_file(tmp_path, NO_ZONE))
    start(app, game_file(tmp_path, GAME_FILE, "named"), "named")
    moved = paris_judge(tmp_path, "America/New_York")
    with moved.sessions() as session, session.begin():
        for name in ("test01", "named"):
            process_game(session, moved.judge, name, at("2026-11-25 20:00"))
    assert deadline_lines(sent(moved, "test01")[-1]) == [
        "The deadline for orders will be Fri Nov 27 2026 20:00:00 -0500 (America/New_York).",
    ]
    assert deadline_lines(sent(moved, "named")[-1]) == [
        "The deadline for orders will be Fri Nov 27 2026 20:00:00 +0000 (Europe/London).",
    ]
    with moved.sessions() as session:
        games = {g.name: g for g in session.scalars(select(Game))}
        assert game_zone(games["test01"], moved.judge) == "America/New_York"
        assert games["test01"].deadline == datetime(2026, 11, 28, 1, 0, tzinfo=UTC)
        assert game_zone(games["named"], moved.judge) == "Europe/London"
        assert games["named"].deadline == datetime(2026, 11, 27, 20, 0, tzinfo=UTC)


def reload(app: App, when: str) -> list[str]:
    with app.sessions() as session, session.begin():
        return reload_configs(session, app.judge, at(when))


def test_a_game_an_older_judge_stored_as_utc_stays_utc(tmp_path: Path) -> None:
    """Older judges wrote "UTC" for a file that named no zone: such a game named UTC as far
    as anyone can tell, and keeps it, through edits of its file too."""
    app = paris_judge(tmp_path)
    path = game_file(tmp_path, NO_ZONE)
    start(app, path)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        game.settings = {**game.settings, "timezone": "UTC"}
        assert game.file_applied is not None
        applied = game.file_applied["settings"]
        game.file_applied = {**game.file_applied, "settings": {**applied, "timezone": "UTC"}}
    path.write_text(NO_ZONE.replace("retreat = 24", "retreat = 36"))
    assert reload(app, "2026-11-24 09:00") == [
        "test01: reloaded (changed the settings (deadlines))"
    ]
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game_zone(game, app.judge) == "UTC"
        assert game_settings(game).retreat.hours == 36


def with_deadline(text: str) -> str:
    """``text`` with a one-off deadline written without an offset."""
    return text.replace("\n[deadlines]", '\ndeadline = "2026-11-28 20:00"\n[deadlines]')


def test_a_file_s_own_deadline_is_read_in_the_game_s_zone(tmp_path: Path) -> None:
    """In the judge's zone for a game that names none, in UTC for one an older judge
    stored as UTC, in the file's zone when it names one."""
    app = paris_judge(tmp_path)
    unnamed, older, named = (game_file(tmp_path, NO_ZONE, n) for n in ("un", "older", "named"))
    for name, path in (("un", unnamed), ("older", older), ("named", named)):
        start(app, path, name)
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game).where(Game.name == "older")).one()
        game.settings = {**game.settings, "timezone": "UTC"}
    for path in (unnamed, older):
        path.write_text(with_deadline(path.read_text()))
    named.write_text(with_deadline(GAME_FILE.replace('name = "test01"', 'name = "named"')))
    reload(app, "2026-11-24 09:00")
    with app.sessions() as session:
        deadlines = {g.name: g.deadline for g in session.scalars(select(Game))}
    assert deadlines == {
        "un": datetime(2026, 11, 28, 19, 0, tzinfo=UTC),
        "older": datetime(2026, 11, 28, 20, 0, tzinfo=UTC),
        "named": datetime(2026, 11, 28, 20, 0, tzinfo=UTC),
    }
    assert "The deadline for S1901M is now Sat Nov 28 2026 20:00:00 +0100 (Europe/Paris)." in (
        sent(app, "un")[-1].body
    )


def test_removing_the_zone_from_a_file_changes_nothing(tmp_path: Path) -> None:
    """As for every key without a default in the game (docs/configuration.md): the game
    keeps the zone the file gave it; a zone written again is applied."""
    app = paris_judge(tmp_path)
    path = game_file(tmp_path, GAME_FILE)
    start(app, path)
    path.write_text(NO_ZONE)
    assert reload(app, "2026-11-24 09:00") == ["test01: reloaded (no changes)"]
    path.write_text(GAME_FILE.replace("Europe/London", "Asia/Tokyo"))
    assert reload(app, "2026-11-24 10:00") == ["test01: reloaded (changed the settings (timezone))"]
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game_zone(game, app.judge) == "Asia/Tokyo"
        assert phase_deadline(game) == Deadline(48.0, "20:00")


def test_mail_commands_use_the_judge_s_zone_for_a_game_that_names_none(tmp_path: Path) -> None:
    """The game master's SET DEADLINE is read in the judge's zone, and the confirmation
    and the reply show times in it (before the commands moved to the typed settings, a
    game without a zone of its own was UTC there)."""
    app = paris_judge(tmp_path)
    start(app, game_file(tmp_path, NO_ZONE))
    table = Table(app)
    table.new_mail()
    table.send("gm@example.org", "SIGNON Mtest01 gm-secret\nSET DEADLINE 2026-11-26 21:00\n",
               "2026-11-23 13:00")  # fmt: skip
    (reply,) = [r for r in table.new_mail() if r.subject.startswith("Re:")]
    assert "Deadline set to Thu Nov 26 2026 21:00:00 +0100 (Europe/Paris)." in reply.body
    with app.sessions() as session:
        game = session.scalars(select(Game)).one()
        assert game.deadline == datetime(2026, 11, 26, 20, 0, tzinfo=UTC)
    table.send("austria@example.org", "SIGNON Atest01 pw-aus\nA Vie-Gal\n", "2026-11-23 13:05")
    (confirmation,) = table.new_mail()
    assert "The deadline for S1901M is Thu Nov 26 2026 21:00:00 +0100 (Europe/Paris)." in (
        confirmation.body
    )


def test_a_games_settings_are_read_once_per_stored_dict_and_again_once_it_is_replaced() -> None:
    from judge.config import settings_from_json
    from judge.db.models import Game
    from judge.services import game_settings as module

    game = Game(name="memo01", settings={"press": "grey", "timezone": "Europe/Paris"})
    first = module.game_settings(game)
    assert module.game_settings(game) is first  # the same stored dict: read once
    assert (first.press.value, first.timezone) == ("grey", "Europe/Paris")
    # Saved settings are a new dict (the JSON column is saved only when one is assigned).
    game.settings = {**game.settings, "press": "white"}
    second = module.game_settings(game)
    assert second is not first
    assert (second.press.value, second.timezone) == ("white", "Europe/Paris")
    # A dict that is equal but another object is read on its own.
    other = Game(name="memo02", settings=dict(game.settings))
    assert module.game_settings(other) == second
    assert module.game_settings(Game(name="memo03", settings={})) == settings_from_json({})
