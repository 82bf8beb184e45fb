"""House rule 12.1: in a game that is not anonymous, the game-start mails and ``LIST
<game>`` give every player's address, so that the players can write to each other; an
anonymous game gives none (only its master's LIST and game-start mail); and both say the
game's press settings."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.servicekit import GAME_FILE, Table, at, make_app

from judge.runtime.bootstrap import App
from judge.services.game_files import load_game
from judge.services.games import start_game

WATCHER = "watcher@example.net"
PRESS = 'press = "white/grey"\nobserver_press = "broadcast"\nmaster_reads_press = true\n'
PRESS_LINE = (
    "white/grey (white by default), partial allowed; observers: broadcasts only; the game "
    "master reads all press"
)
POWERS = ("austria", "england", "france", "germany", "italy", "russia", "turkey")
ADDRESSES = [f"{power}@example.org" for power in POWERS]
ROSTER = "".join(
    f"  {(power.capitalize() + ':').ljust(9)}{address}\n"
    for power, address in zip(POWERS, ADDRESSES, strict=True)
)


#: LIST's line on how the game may end by agreement (the njudge's votes, the default).
ENDINGS = (
    "Endings: draw votes (SET DRAW; every survivor is in the draw) and concessions\n"
    "  (SET CONCEDE <power>).\n"
)


#: The game-start mail's line on it, under Press:.
START_ENDINGS = ENDINGS.replace("\n  ", "\n         ")


def started(tmp_path: Path, extra: str) -> tuple[App, Table, dict[str, str]]:
    """Game test01 (``extra`` in its [game]) with an observer, started at 12:00: the
    game-start mails by address."""
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 11:00"))
    table = Table(app)
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 11:30")
    table.new_mail()
    with app.sessions() as session, session.begin():
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    return app, table, {row.to_addr: row.body for row in table.new_mail()}


def listing(table: Table, sender: str, body: str) -> str:
    table.send(sender, body, "2026-11-23 13:00", subject="list")
    rows = table.new_mail()
    assert [row.to_addr for row in rows] == [sender]
    return rows[0].body


def test_a_game_that_is_not_anonymous_gives_every_address_and_its_press(
    tmp_path: Path,
) -> None:
    _app, table, mails = started(tmp_path, PRESS)
    france = mails["france@example.org"]
    assert (
        f"Press:   {PRESS_LINE}\n{START_ENDINGS}"
        "Game master: gm@example.org\n\n"
        "The players, so that you can write to each other:\n\n" + ROSTER
    ) in france
    assert (
        f"Press:   {PRESS_LINE}\n{START_ENDINGS}Game master: gm@example.org\n\nThe players:\n\n"
        + ROSTER
        in (mails[WATCHER])
    )
    assert f"Press: {PRESS_LINE}\n{ENDINGS}\nThe players:\n\n" in mails["gm@example.org"]
    body = listing(table, "someone@example.net", "LIST test01\n")
    assert f"Press: {PRESS_LINE}.\n{ENDINGS}Not anonymous: players' addresses are shown.\n" in body
    assert (
        "Players:\n"
        + "".join(
            f"  {power.capitalize():<8} {address:<19} active          no orders yet\n"
            for power, address in zip(POWERS, ADDRESSES, strict=True)
        )
    ) in body


@pytest.mark.parametrize("press", ["", 'press = "none"\n'])
def test_an_anonymous_game_gives_no_player_s_address_but_to_its_master(
    tmp_path: Path, press: str
) -> None:
    _app, table, mails = started(tmp_path, "anonymous = true\n" + press)
    shown = "none (only to and from the game master)" if press else (
        "white, partial allowed; observers: any"
    )  # fmt: skip
    for reader in ("france@example.org", WATCHER):
        assert f"Press:   {shown}\n" in mails[reader]
        assert not [address for address in ADDRESSES if address in mails[reader]]
    assert (
        ROSTER.replace("france@example.org", "france@example.org  (password by mail)")
        in (mails["gm@example.org"])
    )
    body = listing(table, "someone@example.net", "LIST test01\n")
    assert f"Press: {shown}.\n{ENDINGS}Anonymous: players' addresses are not shown.\n" in body
    assert not [address for address in ADDRESSES if address in body]
    body = listing(table, "gm@example.org", "SIGNON Mtest01 gm-secret\nLIST test01\n")
    assert all(address in body for address in ADDRESSES)


def test_the_game_start_says_how_the_game_may_end(tmp_path: Path) -> None:
    (tmp_path / "njudge").mkdir()
    (tmp_path / "house").mkdir()
    _app, _table, mails = started(tmp_path / "njudge", "")
    for reader in ("france@example.org", WATCHER):
        assert (
            "Endings: draw votes (SET DRAW; every survivor is in the draw) and concessions\n"
            "         (SET CONCEDE <power>).\n"
        ) in mails[reader], mails[reader]
    assert (
        "Endings: draw votes (SET DRAW; every survivor is in the draw) and concessions\n"
        "  (SET CONCEDE <power>).\n"
    ) in mails["gm@example.org"]
    _app, _table, mails = started(tmp_path / "house", 'endgame = "house"\n')
    assert (
        "Endings: proposals put to a vote (PROPOSE, then VOTE <n> YES, NO or ABSTAIN;\n"
        "         house rules, section 8), passed or defeated only.\n"
    ) in mails["france@example.org"]
