"""The house rules' proposals by mail (seed 003, 8.1-8.6; ``endgame = "house"``):
PROPOSE ... ENDPROPOSE put and announced to everyone alike without its proposer, the
three wordings of what silence counts as, a repeat only in the season after a defeat,
VOTE and its replacement, LIST, and every refusal with nothing stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at

from judge.config import JudgeSettings
from judge.db.models import (
    Game,
    GameStatus,
    OutboundMessage,
    PhaseRecord,
    Proposal,
    ProposalBallot,
    ProposalState,
)
from judge.runtime.bootstrap import App, open_app
from judge.services.game_files import load_game
from judge.services.games import start_game

WHEN = "2026-11-23 13:00"
ENGLAND = "SIGNON Etest01 pw-eng\n"
FRANCE = "SIGNON Ftest01 paris-123\n"
MASTER = "SIGNON Mtest01 gm-secret\n"
HOUSE = 'endgame = "house"\n'
#: Every reader of the announcement: the players still in, the game master.
READERS = [
    *(f"{p}@example.org" for p in ("austria", "england", "france", "germany", "italy", "russia",
                                     "turkey")),
    "gm@example.org",
]  # fmt: skip
DEADLINE = "Wed Nov 25 2026 20:00:00 +0000 (Europe/London)"


def announcement(
    number: int, terms: str, silence: str, *, note: str = "", phase: str = "S1901M",
    deadline: str = DEADLINE,
) -> str:  # fmt: skip
    """The body of a proposal's announcement, as every reader gets it."""
    noted = (
        "With it comes this note:\n\n"
        + "".join(f"  | {row}".rstrip() + "\n" for row in note.split("\n"))
        + "\n"
        if note
        else ""
    )
    return (
        "To the players, the game master and the observers of 'test01':\n"
        "\n"
        f"Proposal {number}, put in {phase}: {terms}.\n"
        "\n"
        "It is put to the players of the surviving powers under the house rules\n"
        "(section 8). Who put it is not revealed, nor how anyone votes (8.5).\n"
        "\n"
        f"{noted}"
        "To vote, send one of these lines with your orders:\n"
        f"    VOTE {number} YES\n"
        f"    VOTE {number} NO\n"
        f"    VOTE {number} ABSTAIN\n"
        "A later vote replaces an earlier one. Nobody but you is told your vote.\n"
        "\n"
        f"The vote closes when {phase} is processed: at its deadline,\n"
        f"    {deadline}\n"
        "or earlier only if every order and every surviving player's vote is in.\n"
        f"It passes only if every surviving power assents. {silence}\n"
        "\n"
        "The result will be announced as passed or defeated only.\n"
        "\n"
        "TESTJUDGE\n"
    )


FIRST = "Not voting, abstaining or\nmissing orders counts as dissent (8.2)."
REPEAT = (
    "The same terms were\n"
    "defeated last season: not voting, abstaining or sending no orders at all\n"
    "counts as assent (8.2), whether or not you voted on them then."
)
ASSENT = (
    "The game master declares\nABSTAIN = ASSENT: abstaining or sending orders without a vote "
    "counts as\nassent; a player who sends no orders at all still dissents (8.3)."
)


def make_game(tmp_path: Path, extra: str = HOUSE) -> tuple[App, Table]:
    """Game test01 (``extra`` lines in its [game] table) started at 2026-11-23 12:00."""
    settings = JudgeSettings(
        name="TESTJUDGE", address="judge@example.org", var_dir=tmp_path / "var",
        database_url=f"sqlite:///{tmp_path / 'judge.db'}",
    )  # fmt: skip
    app = open_app(settings)
    app.judge.make_password = lambda: "paris-123"
    path = tmp_path / "test01.toml"
    path.write_text(GAME_FILE.replace('rules = "2023"\n', f'rules = "2023"\n{extra}'))
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
    table = Table(app)
    table.new_mail()
    return app, table


def split(rows: list[OutboundMessage]) -> tuple[list[OutboundMessage], OutboundMessage]:
    """The announcements, and the one reply to the sender (the last row)."""
    *news, reply = rows
    assert all(r.kind == "proposal" for r in news), [r.kind for r in rows]
    assert reply.kind != "proposal"
    return news, reply


def proposals(app: App) -> list[Proposal]:
    with app.sessions() as session:
        return list(session.scalars(select(Proposal).order_by(Proposal.number)))


def ballots(app: App) -> list[tuple[str, str]]:
    with app.sessions() as session:
        rows = session.scalars(select(ProposalBallot).order_by(ProposalBallot.id))
        return [(b.power, b.ballot) for b in rows]


def set_state(app: App, number: int, state: ProposalState, phase: str | None = None) -> None:
    """Close proposal ``number`` as the count would (a test stands in for the count)."""
    with app.sessions() as session, session.begin():
        row = session.scalars(select(Proposal).where(Proposal.number == number)).one()
        row.state = state
        if phase is not None:
            row.phase = phase


def flagged(reply: OutboundMessage, line: str, reason: str) -> None:
    """The player's confirmation refuses ``line`` with ``reason``, with the error flag."""
    assert reply.subject.startswith("[Error Flag] "), reply.subject
    assert f"  {line}\n    -> {reason}\n" in reply.body, reply.body


def given_back(reply: OutboundMessage, line: str, text: str) -> None:
    """The refused proposal's lines are given back."""
    back = "\n".join(f"  | {row}" for row in text.split("\n"))
    assert (
        f"This proposal was not put ({line}); its lines, for you to send again:\n\n{back}\n"
    ) in reply.body, reply.body


def knock_out_italy(app: App) -> None:
    """Italy loses every unit and supply centre (to Austria)."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        record = session.scalars(
            select(PhaseRecord).where(PhaseRecord.game_id == game.id, PhaseRecord.seq == game.seq)
        ).one()
        position = dict(record.position)
        position["units"] = {k: v for k, v in position["units"].items() if k != "Italy"}
        centres = dict(position["centers"])
        centres["Austria"] = [*centres["Austria"], *centres.pop("Italy")]
        position["centers"] = centres
        record.position = position


# -- putting a proposal -----------------------------------------------------------------


def test_a_proposal_is_stored_and_announced_to_everyone_alike(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("england@example.org", (
        f"{ENGLAND}PROPOSE DRAW A F, Italy\nThe east is stuck.\n\nLet us stop here.\n"
        "ENDPROPOSE\nF Lon-NTH\n"
    ), WHEN)  # fmt: skip
    news, reply = split(table.new_mail())
    # The proposer gets the announcement too, the same as everyone's.
    assert [r.to_addr for r in news] == READERS
    body = announcement(
        1, "a draw among Austria, France and Italy", FIRST,
        note="The east is stuck.\n\nLet us stop here.",
    )  # fmt: skip
    for row in news:
        assert row.subject == "Diplomacy game test01: proposal 1 to end the game"
        assert row.body == body
    assert reply.subject == "Re: orders"
    assert reply.body.startswith(
        ":: Judge: TESTJUDGE  Game: test01  Variant: Standard\n"
        f":: Deadline: S1901M {DEADLINE}\n"
        "\n"
        "Proposal 1 is put and announced to every player, the game master and the "
        "observers, without your name: a draw among Austria, France and Italy. Its vote "
        f"closes at the deadline of S1901M, {DEADLINE}.\n"
        "\n"
        "Movement orders for Spring of 1901.  (test01.001)\n"
        "\n"
        "England: Fleet London -> North Sea.\n"
    ), reply.body
    [stored] = proposals(app)
    assert (stored.number, stored.seq, stored.phase, stored.state) == (1, 1, "S1901M", "open")
    assert stored.terms == {"kind": "draw", "ranks": [["Austria", 1], ["France", 1], ["Italy", 1]]}
    assert stored.note == "The east is stuck.\n\nLet us stop here."
    assert (stored.proposer_role, stored.proposer_power) == ("power", "England")
    assert (stored.abstain_assent, stored.repeat) == (False, False)
    # The next proposal takes the next number.
    table.send("france@example.org", f"{FRANCE}PROPOSE CONCEDE F\nENDPROPOSE\n", WHEN)
    news, _ = split(table.new_mail())
    assert news[0].body == announcement(2, "a concession to France", FIRST)
    assert [p.number for p in proposals(app)] == [1, 2]


@pytest.mark.parametrize(
    ("lines", "terms"),
    [
        ("PROPOSE DRAW AFI", [["Austria", 1], ["France", 1], ["Italy", 1]]),
        ("PROPOSE draw a f i\nENDPROPOSE", [["Austria", 1], ["France", 1], ["Italy", 1]]),
        ("PROPOSE\nDRAW Austria, France and Italy\nENDPROPOSE",
         [["Austria", 1], ["France", 1], ["Italy", 1]]),
        ("PROPOSE CONCEDE TO France", [["France", 1]]),
        ("PROPOSE RESULT F 1, E 2, A 2, G 2, I 2, R 2, T 2",
         [["France", 1], ["Austria", 2], ["England", 2], ["Germany", 2], ["Italy", 2],
          ["Russia", 2], ["Turkey", 2]]),
        ("PROPOSE RESULT F 1. AEGIRT 3.", [["France", 1], ["Austria", 2], ["England", 2],
                                         ["Germany", 2], ["Italy", 2], ["Russia", 2],
                                         ["Turkey", 2]]),
    ],
)  # fmt: skip
def test_terms_are_read_however_they_are_written(
    tmp_path: Path, lines: str, terms: list[list[object]]
) -> None:
    app, table = make_game(tmp_path)
    table.send("england@example.org", f"{ENGLAND}{lines}\n", WHEN)
    split(table.new_mail())
    [stored] = proposals(app)
    assert stored.terms["ranks"] == terms
    assert stored.note == ""


def test_the_game_master_may_declare_abstain_as_assent(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("gm@example.org", (
        f"{MASTER}PROPOSE DRAW AEF\n  abstain =assent \nYou have been warned.\nENDPROPOSE\n"
        "PROPOSE CONCEDE R ABSTAIN=ASSENT\n"
    ), WHEN)  # fmt: skip
    rows = table.new_mail()
    reply = rows[-1]
    assert [r.kind for r in rows] == ["proposal"] * 16 + ["reply-signed"]
    assert rows[0].body == announcement(
        1, "a draw among Austria, England and France", ASSENT, note="You have been warned."
    )
    assert rows[8].body == announcement(2, "a concession to Russia", ASSENT)
    assert reply.body == (
        "Signed on as game master of test01.\n"
        "\n"
        "Proposal 1 is put and announced to every player, the game master and the "
        "observers, without your name: a draw among Austria, England and France. Its vote "
        f"closes at the deadline of S1901M, {DEADLINE}.\n"
        "\n"
        "Proposal 2 is put and announced to every player, the game master and the "
        "observers, without your name: a concession to Russia. Its vote closes at the "
        f"deadline of S1901M, {DEADLINE}.\n"
        "\n"
        "TESTJUDGE\n"
    )
    first, second = proposals(app)
    assert (first.proposer_role, first.proposer_power, first.abstain_assent) == (
        "master", None, True
    )  # fmt: skip
    assert first.note == "You have been warned."
    assert second.abstain_assent


def test_the_same_terms_are_a_repeat_only_in_the_season_after_their_defeat(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    draw = "PROPOSE DRAW A E F\n"
    table.send("england@example.org", f"{ENGLAND}{draw}", WHEN)
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E\n", WHEN)
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E G\n", WHEN)
    # Put again in the same season after a defeat: no repeat (8.2 says "the following
    # season").
    set_state(app, 1, ProposalState.DEFEATED)
    table.send("france@example.org", f"{FRANCE}{draw}", WHEN)
    table.new_mail()
    assert [p.repeat for p in proposals(app)] == [False] * 4
    # Close the others as the count would: one declined by the master (8.4: not
    # defeated), one open whose count never ran, one defeated with other terms.
    set_state(app, 2, ProposalState.DECLINED)
    set_state(app, 3, ProposalState.DEFEATED)
    set_state(app, 4, ProposalState.VOID)
    table.process("2026-11-25 20:00")
    assert table.phase() == "F1901M"
    table.new_mail()
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E\n", "2026-11-26 10:00")
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW AEGR\n", "2026-11-26 10:00")
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW F, A, E\n", "2026-11-26 10:00")
    rows = [r for r in table.new_mail() if r.kind == "proposal"]
    assert [p.repeat for p in proposals(app)] == [False] * 4 + [False, False, True]
    deadline = "Fri Nov 27 2026 20:00:00 +0000 (Europe/London)"
    assert rows[-1].body == announcement(
        7, "a draw among Austria, England and France", REPEAT, phase="F1901M", deadline=deadline
    )
    assert rows[0].body == announcement(
        5, "a draw among Austria and England", FIRST, phase="F1901M", deadline=deadline
    )
    # Defeated two seasons back: no repeat.
    set_state(app, 1, ProposalState.DEFEATED, phase="F1900M")
    set_state(app, 7, ProposalState.VOID)
    table.send("england@example.org", f"{ENGLAND}{draw}", "2026-11-26 10:00")
    assert proposals(app)[-1].repeat is False


# -- refusals of PROPOSE ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("PROPOSE PEACE NOW",
         "'PEACE' is not a kind of proposal: write the terms after PROPOSE: DRAW A E F (a "
         "draw among the powers named), CONCEDE F (a concession to one power) or RESULT F 1, "
         "E 2, A 2 (a ranked result, equal ranks sharing a place)"),
        ("PROPOSE DRAW A Q",
         "DRAW Q: 'Q' names no power; name the powers by their initials (A E F, or AEF) or "
         "their names (Austria, England, France)"),
        ("PROPOSE DRAW",
         "a draw names no powers: expected the powers of the draw, e.g. A E F: write the "
         "terms after PROPOSE: DRAW A E F (a draw among the powers named), CONCEDE F (a "
         "concession to one power) or RESULT F 1, E 2, A 2 (a ranked result, equal ranks "
         "sharing a place)"),
        ("PROPOSE CONCEDE F E",
         "CONCEDE names one power, the one the game is conceded to: CONCEDE F"),
        ("PROPOSE RESULT F 1, E",
         "RESULT: E has no rank after it: give each power its rank, RESULT F 1, E 2, A 2"),
        ("PROPOSE RESULT F first, E 2",
         "RESULT: 'first' is not a rank: a rank is a whole number from 1 to 99 after the "
         "powers it ranks, RESULT F 1, E 2, A 2"),
        ("PROPOSE RESULT F 1, E -1",
         "RESULT: '-1' is not a rank: a rank is a whole number from 1 to 99 after the "
         "powers it ranks, RESULT F 1, E 2, A 2"),
        ("PROPOSE RESULT F 1, E 100",
         "RESULT: '100' is not a rank: a rank is a whole number from 1 to 99 after the "
         "powers it ranks, RESULT F 1, E 2, A 2"),
        ("PROPOSE DRAW F",
         "a draw needs two powers or more: to end the game with France alone, propose a "
         "concession; nothing was put"),
        ("PROPOSE RESULT F 1, E 2",
         "a result ranks every survivor: Austria, Germany, Italy, Russia, Turkey not ranked; "
         "nothing was put"),
        ("PROPOSE DRAW A E F ABSTAIN = ASSENT",
         "only the game master may declare ABSTAIN = ASSENT (house rule 8.3): put the "
         "proposal without it"),
        ("PROPOSE DRAW A \u00c9 F",
         "DRAW \u00c9: '\u00c9' names no power; name the powers by their initials (A E F, or "
         "AEF) or their names (Austria, England, France)"),
        ("PROPOSE DRAW A E F ABSTAIN",
         "ABSTAIN: the game master's declaration is written ABSTAIN = ASSENT, after the terms "
         "or on a line of its own"),
    ],
)  # fmt: skip
def test_a_proposal_that_cannot_be_put_is_refused(tmp_path: Path, line: str, reason: str) -> None:
    app, table = make_game(tmp_path)
    table.send("england@example.org", f"{ENGLAND}{line}\nA note.\nENDPROPOSE\n", WHEN)
    [reply] = table.new_mail()
    flagged(reply, line, reason)
    given_back(reply, line, "A note.")
    assert proposals(app) == []


def test_a_proposal_is_refused_where_the_game_has_none(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, "")
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E F\nVOTE 1 YES\n", WHEN)
    [reply] = table.new_mail()
    flagged(reply, "PROPOSE DRAW A E F", (
        "game test01 has no proposals: its players end it by the njudge's votes, SET DRAW "
        "(and SET CONCEDE <power> where the game allows concessions)"
    ))  # fmt: skip
    app, table = make_game(tmp_path / "none", 'endgame = "none"\n')
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E F\nENDPROPOSE\nVOTE 1 Y\n", WHEN)
    [reply] = table.new_mail()
    reason = (
        "game test01 has no proposals: it ends by a solo only, with no draws or concessions by vote"
    )
    flagged(reply, "PROPOSE DRAW A E F", reason)
    flagged(reply, "VOTE 1 Y", reason)
    assert proposals(app) == []


def test_a_proposal_in_a_game_that_is_over_is_refused(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    with app.sessions() as session, session.begin():
        session.scalars(select(Game)).one().status = GameStatus.FINISHED
    table.send("gm@example.org", f"{MASTER}PROPOSE DRAW A E F\n", WHEN)
    [reply] = table.new_mail()
    refused = "> PROPOSE DRAW A E F\nGame test01 is over: no more orders are taken.\n"
    assert refused in reply.body, reply.body
    assert proposals(app) == []


def test_a_long_note_or_a_forgotten_endpropose_is_refused(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    note = "x" * 2_001
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E F\n{note}\nENDPROPOSE\n", WHEN)
    [reply] = table.new_mail()
    flagged(reply, "PROPOSE DRAW A E F", (
        "the note under the terms is 2,001 characters long; a proposal's note may be at "
        "most 2,000: shorten it"
    ))  # fmt: skip
    given_back(reply, "PROPOSE DRAW A E F", note)
    table.send("england@example.org", (
        f"{ENGLAND}PROPOSE DRAW A E F\nPeace.\nF Lon-NTH\nA Lvp-Yor\n"
    ), WHEN)  # fmt: skip
    [reply] = table.new_mail()
    flagged(reply, "PROPOSE DRAW A E F", (
        "no ENDPROPOSE ended this proposal (it ran to the end of your message) and 2 of its "
        "lines read as orders (F Lon-NTH, A Lvp-Yor): nothing was put nor entered; write "
        "ENDPROPOSE alone on the line after the proposal, and your orders after it"
    ))  # fmt: skip
    given_back(reply, "PROPOSE DRAW A E F", "Peace.\nF Lon-NTH\nA Lvp-Yor")
    assert proposals(app) == []


def test_a_misspelt_endpropose_is_named_as_a_misspelt_endpress_is(tmp_path: Path) -> None:
    # The press's refusal asks whether a lone END... word was meant as ENDPRESS; the
    # proposal's did not follow it.
    app, table = make_game(tmp_path)
    table.send("england@example.org", (
        f"{ENGLAND}PROPOSE DRAW A E F\nPeace.\nENDPROPSE\nF Lon-NTH\n"
    ), WHEN)  # fmt: skip
    [reply] = table.new_mail()
    flagged(reply, "PROPOSE DRAW A E F", (
        "no ENDPROPOSE ended this proposal (it ran to the end of your message) and 1 of its "
        "lines reads as an order (F Lon-NTH): nothing was put nor entered; write ENDPROPOSE "
        "alone on the line after the proposal, and your orders after it (is 'ENDPROPSE' "
        "meant as ENDPROPOSE?)"
    ))  # fmt: skip
    given_back(reply, "PROPOSE DRAW A E F", "Peace.\nENDPROPSE\nF Lon-NTH")
    assert proposals(app) == []


def test_observers_and_powers_out_of_the_game_may_not_propose_nor_vote(tmp_path: Path) -> None:
    app, table = make_game(tmp_path, HOUSE + 'observers = "open"\n')
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E F\n", WHEN)
    table.send(
        "watcher@example.net", "OBSERVE test01\nPROPOSE DRAW A E\nENDPROPOSE\nVOTE 1 YES\n", WHEN
    )
    rows = table.new_mail()
    reply = rows[-1]
    assert reply.to_addr == "watcher@example.net"
    assert "> PROPOSE DRAW A E\nObservers do not take part in a proposal: it is for the " in (
        reply.body
    ), reply.body
    assert "> VOTE 1 YES\nObservers do not take part in a vote: it is for the players.\n" in (
        reply.body
    )
    knock_out_italy(app)
    table.send("italy@example.org", (
        "SIGNON Itest01 pw-ita\nPROPOSE DRAW A E\nENDPROPOSE\nVOTE 1 NO\n"
    ), WHEN)  # fmt: skip
    [reply] = table.new_mail()
    reason = (
        "Italy is out of test01 (no units and no supply centres): only the surviving powers "
        "take part in ending the game"
    )
    flagged(reply, "PROPOSE DRAW A E", reason)
    flagged(reply, "VOTE 1 NO", reason)
    table.send("england@example.org", f"{ENGLAND}PROPOSE CONCEDE I\n", WHEN)
    [reply] = table.new_mail()
    flagged(reply, "PROPOSE CONCEDE I", (
        "Italy is not a surviving power (survivors: Austria, England, France, Germany, "
        "Russia, Turkey); nothing was put"
    ))  # fmt: skip
    assert len(proposals(app)) == 1
    assert ballots(app) == []


# -- voting -----------------------------------------------------------------------------


def test_a_vote_is_confirmed_to_the_voter_alone_and_a_later_one_replaces_it(
    tmp_path: Path,
) -> None:
    app, table = make_game(tmp_path)
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E F\n", WHEN)
    table.new_mail()
    table.send("france@example.org", f"{FRANCE}vote 1 y\nA Par H\n", WHEN)
    [reply] = table.new_mail()
    assert reply.to_addr == "france@example.org"
    assert "\n\nYour vote on proposal 1: YES. Nobody else is told it.\n\n" in reply.body
    table.send("france@example.org", f"{FRANCE}VOTE 1 Abstain\nVOTE #1 NO\n", WHEN)
    [reply] = table.new_mail()
    assert (
        "Your vote on proposal 1: ABSTAIN (it replaces your earlier YES). Nobody else is told "
        "it.\nYour vote on proposal 1: NO (it replaces your earlier ABSTAIN). Nobody else is "
        "told it.\n"
    ) in reply.body, reply.body
    assert ballots(app) == [("France", "no")]
    # The master acting for a power votes as that power.
    table.send("gm@example.org", f"{MASTER}BECOME GERMANY\nVOTE 1 A\n", WHEN)
    rows = table.new_mail()
    assert all("ABSTAIN" not in r.body for r in rows if r.to_addr not in (
        "gm@example.org", "germany@example.org"
    ))  # fmt: skip
    assert ballots(app) == [("France", "no"), ("Germany", "abstain")]


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("VOTE 7 YES",
         "there is no proposal 7 in test01: LIST shows the proposals open to a vote"),
        ("VOTE 1 MAYBE",
         "'MAYBE' is not an answer: write VOTE <n> YES, VOTE <n> NO or VOTE <n> ABSTAIN, "
         "<n> the proposal's number"),
        ("VOTE YES",
         "write VOTE <n> YES, VOTE <n> NO or VOTE <n> ABSTAIN, <n> the proposal's number"),
        ("VOTE one YES",
         "'one' is not a proposal's number: write VOTE <n> YES, VOTE <n> NO or VOTE <n> "
         "ABSTAIN, <n> the proposal's number"),
        ("VOTE 2 YES",
         "proposal 2 is closed: it was defeated; its vote closed when S1901M was processed"),
        ("VOTE 3 NO",
         "proposal 3 is closed: it passed, and awaits the game master's decision; its vote "
         "closed when S1901M was processed"),
    ],
)  # fmt: skip
def test_a_vote_that_cannot_be_taken_is_refused(tmp_path: Path, line: str, reason: str) -> None:
    app, table = make_game(tmp_path)
    for terms in ("DRAW A E F", "DRAW A E", "DRAW E F"):
        table.send("england@example.org", f"{ENGLAND}PROPOSE {terms}\n", WHEN)
    set_state(app, 2, ProposalState.DEFEATED)
    set_state(app, 3, ProposalState.AWAITING)
    table.new_mail()
    table.send("france@example.org", f"{FRANCE}{line}\n", WHEN)
    [reply] = table.new_mail()
    flagged(reply, line, reason)
    assert ballots(app) == []


def test_the_game_master_does_not_vote(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("gm@example.org", f"{MASTER}PROPOSE DRAW A E F\nENDPROPOSE\nVOTE 1 YES\n", WHEN)
    reply = table.new_mail()[-1]
    assert (
        "> VOTE 1 YES\nThe game master does not vote: the players of the surviving powers do "
        "(house rule 8.1); to vote for a power, write BECOME <power> first.\n"
    ) in reply.body, reply.body
    assert ballots(app) == []


# -- secrecy (8.5) and LIST ------------------------------------------------------------


def test_no_mail_listing_or_history_names_the_proposer_or_a_vote(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path, HOUSE + 'observers = "open"\n')
    table.send("watcher@example.net", "OBSERVE test01\n", WHEN)
    looks = "LIST\nHISTORY\n"
    table.send("italy@example.org", f"SIGNON Itest01 pw-ita\n{looks}", WHEN)
    table.send("gm@example.org", f"{MASTER}{looks}", WHEN)
    *_, italy_before, master_before = table.new_mail()
    table.send("england@example.org", (
        f"{ENGLAND}PROPOSE DRAW A F I\nA fair end.\nENDPROPOSE\nVOTE 1 YES\n"
    ), WHEN)  # fmt: skip
    table.send("france@example.org", f"{FRANCE}VOTE 1 NO\n", WHEN)
    table.send("italy@example.org", "SIGNON Itest01 pw-ita\nVOTE 1 ABSTAIN\n", WHEN)
    rows = table.new_mail()
    news = [r for r in rows if r.kind == "proposal"]
    assert [r.to_addr for r in news] == [*READERS, "watcher@example.net"]
    assert len({r.body for r in news}) == 1
    votes = {"england@example.org": "YES", "france@example.org": "NO",
             "italy@example.org": "ABSTAIN"}  # fmt: skip
    for row in rows:
        if row.to_addr != "england@example.org":
            assert "England" not in row.body and "England" not in row.subject, row.body
        for address, word in votes.items():
            if row.to_addr != address:
                assert f"proposal 1: {word}" not in row.body, row.body
    # LIST and HISTORY differ from what they said before by the proposal's line only.
    table.send("italy@example.org", f"SIGNON Itest01 pw-ita\n{looks}", WHEN)
    table.send("gm@example.org", f"{MASTER}{looks}", WHEN)
    italy, master = table.new_mail()
    line = "Proposal 1: a draw among Austria, France and Italy (vote closes at the\n  deadline)\n"
    endings = "section 8), passed or defeated only.\n"
    for before, after in ((italy_before, italy), (master_before, master)):
        assert after.body.count(line) == 1, after.body
        assert after.body.replace(endings + line, endings) == before.body


def test_list_shows_open_and_awaiting_proposals_only(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    for terms in ("DRAW A E F", "DRAW A E", "DRAW E F", "CONCEDE R"):
        table.send("england@example.org", f"{ENGLAND}PROPOSE {terms}\n", WHEN)
    set_state(app, 2, ProposalState.DEFEATED)
    set_state(app, 3, ProposalState.AWAITING)
    set_state(app, 4, ProposalState.VOID)
    table.new_mail()
    table.send("france@example.org", f"{FRANCE}LIST\n", WHEN)
    [reply] = table.new_mail()
    assert (
        "\nProposal 1: a draw among Austria, England and France (vote closes at the\n"
        "  deadline)\nProposal 3: a draw among England and France (passed; awaiting the game\n"
        "  master's decision)\n"
    ) in reply.body, reply.body
    assert "Proposal 2" not in reply.body and "Proposal 4" not in reply.body


def test_a_stray_endpropose_is_refused_and_end_propose_ends_a_block(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("england@example.org", (
        f"{ENGLAND}ENDPROPOSE\nPROPOSE DRAW A E F\nNote.\nEND PROPOSE\nF Lon-NTH\n"
    ), WHEN)  # fmt: skip
    _news, reply = split(table.new_mail())
    flagged(reply, "ENDPROPOSE", "ENDPROPOSE ends a proposal, and no PROPOSE came before it")
    assert "England: Fleet London -> North Sea.\n" in reply.body
    assert [p.note for p in proposals(app)] == ["Note."]


def test_the_game_master_acting_for_a_power_proposes_as_that_power(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("gm@example.org", (
        f"{MASTER}BECOME ENGLAND\nPROPOSE DRAW A E F ABSTAIN = ASSENT\nENDPROPOSE\n"
        "PROPOSE DRAW A E F\n"
    ), WHEN)  # fmt: skip
    rows = table.new_mail()
    assert [r.kind for r in rows].count("proposal") == 8
    master = next(r for r in rows if r.to_addr == "gm@example.org" and r.kind != "proposal")
    assert (
        "  PROPOSE DRAW A E F ABSTAIN = ASSENT\n    -> acting for England, you propose as "
        "England: ABSTAIN = ASSENT is the game master's own declaration (house rule 8.3); put "
        "the proposal before BECOME to declare it\n"
    ) in master.body, master.body
    [stored] = proposals(app)
    assert (stored.proposer_role, stored.proposer_power, stored.abstain_assent) == (
        "power", "England", False
    )  # fmt: skip


def test_the_game_master_acting_for_a_power_is_not_told_its_earlier_vote(
    tmp_path: Path,
) -> None:
    # 8.5: not even the master learns a vote; voting as France after BECOME must not
    # tell the master how (or whether) France voted before.
    app, table = make_game(tmp_path)
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E F\n", WHEN)
    table.send("france@example.org", f"{FRANCE}VOTE 1 NO\n", WHEN)
    table.new_mail()
    table.send("gm@example.org", f"{MASTER}BECOME FRANCE\nVOTE 1 YES\n", WHEN)
    table.send("gm@example.org", f"{MASTER}BECOME GERMANY\nVOTE 1 YES\n", WHEN)
    rows = [r for r in table.new_mail() if r.to_addr == "gm@example.org"]
    said = [
        "France's vote on proposal 1: YES (it replaces any vote France sent before). "
        "Nobody else is told it.",
        "Germany's vote on proposal 1: YES (it replaces any vote Germany sent before). "
        "Nobody else is told it.",
    ]
    for row, line in zip(rows, said, strict=True):
        assert " ".join(row.body.split()).count(line) == 1, row.body
        assert "NO" not in row.body.replace("NOT", "").split(), row.body
    assert ballots(app) == [("France", "yes"), ("Germany", "yes")]


def test_a_seat_taken_over_drops_the_previous_players_ballots(tmp_path: Path) -> None:
    # The new player never cast the previous player's secret ballot on an open proposal.
    app, table = make_game(tmp_path)
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW A E F\n", WHEN)
    table.send("france@example.org", f"{FRANCE}VOTE 1 YES\n", WHEN)
    table.send("gm@example.org", f"{MASTER}EJECT France\nSET PASSWORD France take-over-1\n", WHEN)
    table.send("new@example.net", "SIGNON france@test01 take-over-1\n", WHEN)
    rows = table.new_mail()
    assert any(r.to_addr == "new@example.net" and r.kind == "takeover" for r in rows)
    assert ballots(app) == []


def test_a_proposal_on_one_line_with_its_endpropose(tmp_path: Path) -> None:
    app, table = make_game(tmp_path)
    table.send("england@example.org", (
        f"{ENGLAND}PROPOSE DRAW AEF ENDPROPOSE\nF Lon-NTH\n"
        "PROPOSE CONCEDE TO F abstain = assent end propose\nA Lvp-Yor\n"
    ), WHEN)  # fmt: skip
    _news, reply = split(table.new_mail())
    # The lines after it are orders, never a note of the proposal.
    assert "England: Fleet London -> North Sea.\n" in reply.body
    assert "England: Army Liverpool -> Yorkshire.\n" in reply.body
    flagged(
        reply,
        "PROPOSE CONCEDE TO F abstain = assent end propose",
        "only the game master may declare ABSTAIN = ASSENT (house rule 8.3): put the "
        "proposal without it",
    )
    assert [(p.number, p.note) for p in proposals(app)] == [(1, "")]


def test_list_wraps_the_endings_line_and_the_proposals_to_78_columns(tmp_path: Path) -> None:
    _app, table = make_game(tmp_path)
    table.send("england@example.org", f"{ENGLAND}PROPOSE DRAW AEFGIRT\nENDPROPOSE\n", WHEN)
    table.new_mail()
    table.send("france@example.org", f"{FRANCE}LIST\n", WHEN)
    [reply] = table.new_mail()
    assert (
        "\nEndings: proposals put to a vote (PROPOSE, then VOTE <n> YES, NO or ABSTAIN;\n"
        "  house rules, section 8), passed or defeated only.\n"
        "Proposal 1: a draw among Austria, England, France, Germany, Italy, Russia and\n"
        "  Turkey (vote closes at the deadline)\n"
    ) in reply.body, reply.body
    assert max(len(line) for line in reply.body.splitlines()) <= 78
