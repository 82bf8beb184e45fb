"""Acceptance (issue 15): ending a game by agreement, by injected mail with a fixed clock.

The njudge's standing votes: a DIAS draw that passes on its last vote, a non-DIAS draw
that fails on a mismatched set (and passes once the sets agree), a concession.  The house
rules' proposals (seed 003, section 8): a proposal defeated by one abstention on its first
vote and passed by abstention when put again the next season (8.2), the master's
ABSTAIN = ASSENT (8.3), and the master's 8.4 discretion.  Every phase is processed as the
scheduler does it (:func:`judge.services.games.due_games`).  Every email the judge sends
is compared word for word with a golden file per step (``UPDATE_GOLDEN=1`` rewrites them:
then read them), the final email included; and no email, LIST or HISTORY ever names who
proposed or how anyone voted (8.5; njudge votes: nobody but the game master).
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select
from support.mailgame import ADDRESS, GM, POWERS, post, send, seven, tick
from support.servicekit import Table, game_row

from judge.db.models import GameStatus, OutboundMessage
from judge.runtime.bootstrap import App

WATCHER = "watcher@example.net"
#: Spring 1901 openings that do not bounce, and each unit holding where it then stands.
SPRING = {
    "Austria": "A Vie-Gal\nA Bud-Ser\nF Tri-Alb\n",
    "England": "F Lon-NTH\nF Edi-NWG\nA Lvp-Yor\n",
    "France": "A Par-Bur\nA Mar-Spa\nF Bre-MAO\n",
    "Germany": "A Ber-Kie\nA Mun-Ruh\nF Kie-Den\n",
    "Italy": "A Ven-Tyr\nA Rom-Apu\nF Nap-ION\n",
    "Russia": "A Mos-Ukr\nA War-Sil\nF Sev-Rum\nF StP/sc-BOT\n",
    "Turkey": "A Con-Bul\nA Smy-Arm\nF Ank-BLA\n",
}
FALL = {
    "Austria": "A Gal H\nA Ser H\nF Alb H\n",
    "England": "F NTH H\nF NWG H\nA Yor H\n",
    "France": "A Bur H\nA Spa H\nF MAO H\n",
    "Germany": "A Kie H\nA Ruh H\nF Den H\n",
    "Italy": "A Tyr H\nA Apu H\nF ION H\n",
    "Russia": "A Ukr H\nA Sil H\nF Rum H\nF BOT H\n",
    "Turkey": "A Bul H\nA Arm H\nF BLA H\n",
}
SPRING_DEADLINE = "2026-11-25 20:00"
FALL_DEADLINE = "2026-11-27 20:00"


def game(tmp_path: Path, settings: str = "") -> tuple[App, Table]:
    """The seven's game ``test01`` (``settings`` added to its [game] table), started
    2026-11-23 12:00 (S1901M, deadline Nov 25 20:00), with an observer."""
    app, table = seven(tmp_path, settings)
    table.send(WATCHER, "OBSERVE test01\n", "2026-11-23 12:05")
    table.new_mail()  # the game start and the observer's welcome: their own tests pin them
    return app, table


def master(table: Table, text: str, when: str) -> list[OutboundMessage]:
    """The game master signs on and sends ``text``; the mail it caused."""
    table.send(GM, f"SIGNON Mtest01 gm-secret\n{text}", when)
    return table.new_mail()


def to(rows: list[OutboundMessage]) -> list[str]:
    return [row.to_addr for row in rows]


def listing(table: Table, who: str, when: str) -> str:
    """LIST test01 as ``who`` (a power, or "stranger") gets it."""
    if who == "stranger":
        table.send("stranger@example.net", "LIST test01\n", when)
        (reply,) = table.new_mail()
        return reply.body
    (reply,) = send(table, who, "LIST\n", when)
    return reply.body


def alike(rows: list[OutboundMessage]) -> str:
    """The one body every row has, but for the greeting that names its reader ("To
    Austria in 'test01':"): the same mail to everyone singles nobody out."""
    bodies = {row.body.split("\n", 1)[1] if row.body.startswith("To ") else row.body
              for row in rows}  # fmt: skip
    assert len(bodies) == 1, "the readers got different mails"
    return bodies.pop()


def everyone() -> set[str]:
    return {*ADDRESS.values(), GM, WATCHER}


# -- the njudge's standing votes ---------------------------------------------------------


def test_a_dias_draw_passes_on_the_last_vote(tmp_path: Path) -> None:
    app, table = game(tmp_path, "show_pending_draw = true\n")
    # Each vote is answered to its voter alone: nobody else learns who voted.
    post(table, "Austria", "SET DRAW\n", "2026-11-24 09:00")
    rows = table.check("endings_01_dias_vote_reply")
    assert to(rows) == [ADDRESS["Austria"]]
    for minute, power in enumerate(POWERS[1:-1], start=1):
        rows = send(table, power, "SET DRAW\n", f"2026-11-24 09:{minute:02}")
        assert to(rows) == [ADDRESS[power]]
    # LIST tells anyone a draw vote is pending, with no names; the master sees the votes.
    public = listing(table, "stranger", "2026-11-24 10:00")
    assert "A vote for a draw is pending" in public
    assert all(f"{power}: draw" not in public for power in POWERS)
    table.send(GM, "SIGNON Mtest01 gm-secret\nLIST\n", "2026-11-24 10:01")
    table.check("endings_02_dias_master_list")

    # The last survivor's vote ends the game at once, in the position as it stands.
    post(table, "Turkey", "SET DRAW\n", "2026-11-24 11:00")
    rows = table.check("endings_03_dias_draw_passes")
    # The final mail to every reader, then the voter's reply.
    assert (set(to(rows[:-1])), rows[-1].to_addr) == (everyone(), ADDRESS["Turkey"])
    finished = game_row(app)
    assert (finished.status, finished.ending, finished.winner) == (
        GameStatus.FINISHED,
        "draw",
        None,
    )
    assert finished.result == [[1, list(POWERS)]]
    assert "Game test01: finished, drawn among Austria, England, France, Germany, Italy,\n" in (
        listing(table, "stranger", "2026-11-24 12:00")
    )
    (refused,) = send(table, "France", "A Par-Bur\n", "2026-11-24 12:10")
    assert "it ended in a draw among Austria, England, France, Germany, Italy, Russia and " in (
        refused.body
    )
    assert tick(app, SPRING_DEADLINE) == []


def test_a_non_dias_draw_fails_on_a_mismatched_set(tmp_path: Path) -> None:
    app, table = game(tmp_path, "dias = false\n")
    for minute, power in enumerate(POWERS):
        # Italy alone leaves itself out of the draw it votes for.
        named = "AEFGRT" if power == "Italy" else "AEFGIRT"
        rows = send(
            table, power, f"SET DRAW {named}\n{SPRING[power]}", f"2026-11-24 09:{minute:02}"
        )
        assert to(rows) == [ADDRESS[power]]
    # Every survivor voted, for two sets: no draw; the phase is processed at its deadline.
    assert game_row(app).status == GameStatus.ACTIVE
    assert tick(app, SPRING_DEADLINE) == ["S1901M"]
    assert table.phase() == "F1901M"
    table.new_mail()
    # A set naming a power out of the game, or no set at all, is refused.
    (refused,) = send(table, "Italy", "SET DRAW\n", "2026-11-26 09:00")
    assert refused.subject.startswith("[Error Flag]")
    # The votes stand: once Italy's set matches, the draw passes.
    send(table, "Italy", "SET DRAW AEFGIRT\n", "2026-11-26 10:00")
    assert game_row(app).ending == "draw"


def test_a_concession(tmp_path: Path) -> None:
    app, table = game(tmp_path)
    post(table, "France", "SET CONCEDE France\n", "2026-11-24 09:00")
    (refused,) = table.check("endings_04_concede_to_oneself")
    assert refused.subject.startswith("[Error Flag]")
    for minute, power in enumerate(p for p in POWERS if p != "France"):
        post(table, power, "SET CONCEDE F\n", f"2026-11-24 10:{minute:02}")
        if power != "Turkey":
            assert to(table.new_mail()) == [ADDRESS[power]]
    finished = game_row(app)
    assert (finished.status, finished.ending, finished.winner) == (
        GameStatus.FINISHED,
        "concession",
        "France",
    )
    rows = table.check("endings_05_concession")
    assert (set(to(rows[:-1])), rows[-1].to_addr) == (everyone(), ADDRESS["Turkey"])


# -- the house rules' proposals ----------------------------------------------------------

HOUSE = 'endgame = "house"\n'
ALL_SEVEN = "DRAW A E F G I R T"


def test_a_proposal_defeated_by_one_abstention_passes_when_put_again(tmp_path: Path) -> None:
    app, table = game(tmp_path, HOUSE)
    # England puts a draw of all seven; every reader gets the same announcement.
    post(table, "England", f"PROPOSE {ALL_SEVEN}\nENDPROPOSE\n{SPRING['England']}", (
        "2026-11-24 09:00"
    ))  # fmt: skip
    rows = table.check("endings_06_house_proposal")
    announced = [row for row in rows if row.kind == "proposal"]
    assert set(to(announced)) == everyone()
    alike(announced)
    # Everyone votes with their orders: Italy abstains.
    for minute, power in enumerate(POWERS):
        ballot = "ABSTAIN" if power == "Italy" else "YES"
        rows = send(table, power, f"VOTE 1 {ballot}\n{SPRING[power]}", f"2026-11-24 10:{minute:02}")
        assert to(rows) == [ADDRESS[power]]
    # Every order and every vote is in: the phase is processed early, as usual, and the
    # vote closes with it: one abstention on a first vote is dissent (8.2).
    assert tick(app, "2026-11-24 10:20") == ["S1901M"]
    rows = table.check("endings_07_house_defeated")
    defeated = [row for row in rows if row.kind != "results"]
    assert set(to(defeated)) == everyone()
    assert "defeated" in alike(defeated)
    assert table.phase() == "F1901M"

    # France puts the same terms again the next season: not voting now counts as assent.
    # (the same terms in other words: one draw among the seven)
    terms = "DRAW Turkey, Russia, Italy, Germany, France, England and Austria"
    send(table, "France", f"PROPOSE\n{terms}\nENDPROPOSE\n", "2026-11-26 09:00")
    for minute, power in enumerate(POWERS):
        vote = "" if power == "Italy" else "VOTE 2 YES\n"
        send(table, power, f"{vote}{FALL[power]}", f"2026-11-26 10:{minute:02}")
    table.new_mail()
    # Italy has not voted: its orders are in, but the vote stays open until the deadline.
    assert tick(app, "2026-11-26 11:00") == []
    assert tick(app, FALL_DEADLINE) == ["F1901M"]
    rows = table.check("endings_08_house_passed_final")
    assert set(to(rows)) == everyone()
    finished = game_row(app)
    assert (finished.status, finished.ending) == (GameStatus.FINISHED, "draw")
    # Nothing anyone but the proposer got names who proposed: no address, no sign-on.
    assert_secret(app, table)


def test_the_master_s_abstain_as_assent(tmp_path: Path) -> None:
    app, table = game(tmp_path, HOUSE)
    rows = master(table, "PROPOSE CONCEDE F ABSTAIN = ASSENT\nENDPROPOSE\n", "2026-11-24 09:00")
    assert "ABSTAIN = ASSENT" in alike([row for row in rows if row.kind == "proposal"])
    for minute, power in enumerate(POWERS):
        vote = "VOTE 1 ABSTAIN\n" if power in ("Italy", "Russia") else "VOTE 1 YES\n"
        send(table, power, f"{vote}{SPRING[power]}", f"2026-11-24 10:{minute:02}")
    assert tick(app, SPRING_DEADLINE) == ["S1901M"]
    finished = game_row(app)
    assert (finished.status, finished.ending, finished.winner) == (
        GameStatus.FINISHED,
        "concession",
        "France",
    )


def test_the_master_s_discretion_under_8_4(tmp_path: Path) -> None:
    app, table = game(tmp_path, HOUSE)
    master(table, f"PROPOSE {ALL_SEVEN}\nABSTAIN = ASSENT\nENDPROPOSE\n", "2026-11-24 09:00")
    # Two vote; five send orders without a word on it: it passes (8.3), but more than half
    # of those who sent orders made no mention of it (8.4).
    for minute, power in enumerate(POWERS):
        vote = "VOTE 1 YES\n" if power in ("Austria", "England") else ""
        send(table, power, f"{vote}{SPRING[power]}", f"2026-11-24 10:{minute:02}")
    table.new_mail()
    assert tick(app, SPRING_DEADLINE) == ["S1901M"]
    rows = table.check("endings_09_house_discretion")
    assert GM in to(rows)
    # The phase waits for the master: the scheduler does not process it meanwhile.
    assert tick(app, "2026-11-25 22:00") == []
    assert table.phase() == "S1901M"
    master(table, "DECLINE 1\n", "2026-11-26 08:00")
    assert table.phase() == "F1901M"
    assert game_row(app).status == GameStatus.ACTIVE


def assert_secret(app: App, table: Table) -> None:
    """No mail, LIST or HISTORY says who proposed or how anyone voted (8.5).

    Every mail but a sender's own reply (each vote's reply was seen to go to its voter
    alone) goes alike to all its readers, so it can single nobody out; and none of them,
    nor LIST or HISTORY as a player gets them, says who put a proposal or how a power
    voted."""
    with app.sessions() as session:
        rows = session.scalars(
            select(OutboundMessage).where(OutboundMessage.kind.in_(("proposal", "results")))
        ).all()
    groups: dict[tuple[str, str], list[OutboundMessage]] = {}
    for row in rows:
        groups.setdefault((row.kind, row.subject), []).append(row)
    readers = everyone()
    for (kind, _subject), group in groups.items():
        if kind == "proposal":
            assert {row.to_addr for row in group} == readers
        alike(group)
    texts = [row.body for row in rows] + [
        listing(table, "stranger", "2026-11-28 09:00"),
        *(row.body for row in send(table, "Italy", "HISTORY test01\n", "2026-11-28 09:10")),
    ]
    for text in texts:
        lower = " ".join(text.lower().split())
        assert "proposed by" not in lower and "put by" not in lower
        for power in POWERS:
            name = power.lower()
            for tell in ("proposed", "put it", "voted", "abstained", "votes yes", ": yes"):
                assert f"{name} {tell}" not in lower and f"{name}{tell}" not in lower


# -- the master's ROLLBACK -----------------------------------------------------------------


def test_a_rollback_undoes_a_draw_and_its_votes(tmp_path: Path) -> None:
    """A game drawn by vote and rolled back goes on without the votes that drew it: else
    the next vote or the next processing would end it again at once."""
    app, table = game(tmp_path)
    for power in POWERS:
        post(table, power, SPRING[power], "2026-11-24 09:00")
    assert tick(app, "2026-11-24 10:00") == ["S1901M"]
    for minute, power in enumerate(POWERS):
        post(table, power, "SET DRAW\n", f"2026-11-26 09:{minute:02}")
    assert game_row(app).ending == "draw"
    master(table, "ROLLBACK S1901M the draw was agreed by mistake\n", "2026-11-26 10:00")
    again = game_row(app)
    assert (again.status, again.ending, again.result, again.phase) == (
        GameStatus.ACTIVE,
        None,
        None,
        "S1901M",
    )
    post(table, "Austria", "SET DRAW\n", "2026-11-26 11:00")
    assert game_row(app).status == GameStatus.ACTIVE


def test_a_rollback_voids_a_proposal_awaiting_the_master(tmp_path: Path) -> None:
    app, table = game(tmp_path, HOUSE)
    for power in POWERS:
        post(table, power, SPRING[power], "2026-11-24 09:00")
    assert tick(app, "2026-11-24 10:00") == ["S1901M"]
    master(table, f"PROPOSE {ALL_SEVEN}\nABSTAIN = ASSENT\nENDPROPOSE\n", "2026-11-26 09:00")
    for minute, power in enumerate(POWERS):
        vote = "VOTE 1 YES\n" if power == "Austria" else ""
        post(table, power, f"{vote}{FALL[power]}", f"2026-11-26 10:{minute:02}")
    assert tick(app, FALL_DEADLINE) == ["F1901M"]
    assert table.phase() == "F1901M"  # held for the master (8.4)
    master(table, "ROLLBACK S1901M\n", "2026-11-27 21:00")
    assert table.phase() == "S1901M"
    # The proposal's phase is undone: it is void, and its decide-by time ends nothing.
    for power in POWERS:
        post(table, power, SPRING[power], "2026-11-27 22:00")
    assert tick(app, "2026-11-28 21:00") == ["S1901M"]
    assert (table.phase(), game_row(app).status) == ("F1901M", GameStatus.ACTIVE)
    table.new_mail()
    assert "Proposal 1" not in listing(table, "stranger", "2026-11-28 22:00")
