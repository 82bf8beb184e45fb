"""Counting the house rules' proposals at the deadline (issue 15, house rules 8.1-8.5),
and the game master's 8.4 decision (ACCEPT, DECLINE), with a fixed clock on a real
SQLite file.  The proposals and ballots are written as rows (PROPOSE and VOTE are
another module's); the orders come by mail; the phase is processed as the scheduler
does it."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import select
from support.servicekit import GAME_FILE, Table, at, game_row, make_app

from judge.db import models
from judge.db.models import (
    Game,
    GameStatus,
    Observer,
    OutboundMessage,
    Proposal,
    ProposalBallot,
    ProposalState,
)
from judge.engine.votes import Terms
from judge.runtime.bootstrap import App
from judge.services.endgame import not_processed_why
from judge.services.game_files import load_game
from judge.services.games import due_games, process_game, start_game
from judge.services.proposal_terms import terms_to_json

GM = "gm@example.org"
WATCHER = "watcher@example.net"
POWERS = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
PLAYERS = [f"{power.lower()}@example.org" for power in POWERS]
READERS = [*PLAYERS, GM, WATCHER]
SIGNONS = {
    "Austria": ("A", "pw-aus", "A Vie H"),
    "England": ("E", "pw-eng", "F Lon H"),
    "France": ("F", "paris-123", "A Par H"),
    "Germany": ("G", "pw-ger", "A Ber H"),
    "Italy": ("I", "pw-ita", "A Rom H"),
    "Russia": ("R", "pw-rus", "A Mos H"),
    "Turkey": ("T", "pw-tur", "A Con H"),
}
DEADLINE = "2026-11-25 20:00"  # S1901M's
DRAW = Terms.draw(["Austria", "England", "France"])


def house_game(tmp_path: Path, *, counts: bool = False, master: bool = True) -> tuple[App, Table]:
    """test01 under the house rules' endgame (``vote_counts`` as ``counts``; without a
    master when ``master`` is False), with an observer, started 2026-11-23 12:00."""
    text = GAME_FILE.replace(
        'rules = "2023"\n',
        f'rules = "2023"\nendgame = "house"\nvote_counts = {"true" if counts else "false"}\n',
    )
    if not master:
        text = text.replace('[master]\naddress = "gm@example.org"\npassword = "gm-secret"\n', "")
    app = make_app(tmp_path, f"sqlite:///{tmp_path / 'var' / 'judge.db'}")
    path = tmp_path / "test01.toml"
    path.write_text(text)
    with app.sessions() as session, session.begin():
        load_game(session, app.judge, path, at("2026-11-23 12:00"))
        game = start_game(session, app.judge, "test01", at("2026-11-23 12:00"))
        session.add(Observer(game_id=game.id, address=WATCHER))
    table = Table(app)
    table.new_mail()
    return app, table


def put(
    app: App,
    number: int,
    terms: Terms = DRAW,
    *,
    repeat: bool = False,
    abstain_assent: bool = False,
    ballots: dict[str, str] | None = None,
) -> None:
    """Proposal ``number`` put in S1901M by Turkey (a secret no mail may tell), with
    ``ballots`` (power -> yes, no or abstain)."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        proposal = Proposal(
            game_id=game.id, number=number, seq=game.seq, phase=game.phase,
            terms=terms_to_json(terms), note="", proposer_role="power",
            proposer_power="Turkey", abstain_assent=abstain_assent, repeat=repeat,
            state=ProposalState.OPEN, created_at=at("2026-11-23 13:00"),
        )  # fmt: skip
        session.add(proposal)
        session.flush()
        for power, ballot in (ballots or {}).items():
            session.add(
                ProposalBallot(
                    proposal_id=proposal.id,
                    power=power,
                    ballot=models.Ballot(ballot),
                    cast_at=at("2026-11-24 10:00"),
                )
            )


def orders_from(table: Table, *powers: str) -> None:
    """``powers`` send their orders for S1901M (every unit holds)."""
    for power in powers:
        letter, password, order = SIGNONS[power]
        table.send(
            f"{power.lower()}@example.org",
            f"SIGNON {letter}test01 {password}\n{order}\n",
            "2026-11-24 09:00",
        )
    table.new_mail()


def run(app: App, when: str = DEADLINE) -> bool:
    """Process the game's phase as the scheduler would at ``when``; whether it was
    adjudicated."""
    with app.sessions() as session, session.begin():
        game = session.scalars(select(Game)).one()
        return process_game(session, app.judge, "test01", at(when), phase=game.phase) is not None


def proposal(app: App, number: int) -> Proposal:
    with app.sessions() as session:
        return session.scalars(select(Proposal).where(Proposal.number == number)).one()


def of_kind(rows: list[OutboundMessage], kind: str) -> list[OutboundMessage]:
    return [r for r in rows if r.kind == kind]


def reply(table: Table) -> str:
    rows = table.new_mail()
    assert len(rows) == 1, [(r.to_addr, r.subject) for r in rows]
    return rows[0].body


def names_nobody(rows: list[OutboundMessage], terms: Terms) -> None:
    """No proposal mail names a power but its reader (greeted) and the terms' powers:
    not the proposer (Turkey), not a voter (8.5)."""
    assert rows
    for row in rows:
        body = row.body.split("\n", 2)[2]  # after the greeting
        for power in set(POWERS) - terms.powers:
            assert power not in body, (row.to_addr, row.subject, body)


DEFEATED_BODY = """\
To England in 'test01':

Proposal 1 (a draw among Austria, England and France) was defeated. Its vote
closed when S1901M was processed, and a proposal passes only when every
surviving player assents. The game goes on.

On a first vote, abstaining, not voting and sending no orders all count as
dissent (house rule 8.2).

Who proposed it and how each player voted are never told (house rule 8.5).

TESTJUDGE
"""


def test_one_abstention_defeats_a_first_vote(tmp_path: Path) -> None:
    app, table = house_game(tmp_path)
    orders_from(table, *POWERS)
    yes = dict.fromkeys(POWERS, "yes")
    put(app, 1, ballots={**yes, "Germany": "abstain"})
    assert run(app)  # defeated: the phase is adjudicated as usual
    rows = table.new_mail()
    defeated = of_kind(rows, "proposal")
    assert [r.to_addr for r in defeated] == READERS
    assert {r.subject for r in defeated} == {"Diplomacy game test01: proposal 1 was defeated"}
    assert defeated[1].body == DEFEATED_BODY
    # The announcement first, then the results.
    assert [r.kind for r in rows] == ["proposal"] * 9 + ["results"] * 9
    names_nobody(defeated, DRAW)
    stored = proposal(app, 1)
    assert stored.state == ProposalState.DEFEATED
    assert stored.closed_at == at(DEADLINE)
    assert stored.tally == {
        "passed": False, "assent": 6, "dissent": 1, "yes": 6, "no": 0, "abstain": 1,
        "silent": 0, "missing": 0, "discretion": False,
    }  # fmt: skip
    assert game_row(app).phase == "F1901M"


def test_counts_are_shown_only_when_the_game_says_so(tmp_path: Path) -> None:
    app, table = house_game(tmp_path, counts=True)
    orders_from(table, "Austria", "England", "France", "Germany", "Italy", "Russia")
    put(app, 1, ballots={"Austria": "yes", "England": "yes", "France": "no", "Italy": "abstain"})
    assert run(app)
    defeated = of_kind(table.new_mail(), "proposal")
    assert len(defeated) == 9
    assert (
        "The counts, of the 7 surviving players:\n"
        "    voted yes                        2\n"
        "    voted no                         1\n"
        "    abstained                        1\n"
        "    sent orders without voting       2\n"
        "    sent no orders                   1\n"
        "    counted as assent                2\n"
        "    counted as dissent               5\n"
    ) in defeated[0].body
    names_nobody(defeated, DRAW)


def test_not_voting_is_assent_on_a_repeat(tmp_path: Path) -> None:
    app, table = house_game(tmp_path)
    # Four mention it, two send orders without a word of it, Turkey sends nothing: on a
    # repeat (8.2) all of it is assent, and 2 of 6 silent is no case for 8.4.
    orders_from(table, "Austria", "England", "France", "Germany", "Italy", "Russia")
    put(
        app, 1, repeat=True,
        ballots={"Austria": "yes", "England": "abstain", "France": "yes", "Germany": "abstain"},
    )  # fmt: skip
    assert not run(app)  # ended: not adjudicated
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [(reader, "game_over") for reader in READERS]
    assert (
        rows[0].subject == "Diplomacy game test01 is over: a draw among Austria, England and France"
    )
    assert (
        "The game 'test01' is over: it ended in a draw among Austria, England and\n"
        "France, agreed during Movement for Spring of 1901 (S1901M)."
    ) in rows[0].body
    game = game_row(app)
    assert (game.status, game.ending, game.phase, game.deadline) == (
        GameStatus.FINISHED, "draw", "S1901M", None,
    )  # fmt: skip
    assert game.result == [[1, ["Austria", "England", "France"]]]
    assert proposal(app, 1).state == ProposalState.PASSED


@pytest.mark.parametrize(
    ("ordering", "passes"),
    [
        pytest.param(POWERS, True, id="abstentions-assent"),
        pytest.param(POWERS[:-1], False, id="missing-orders-dissent"),
    ],
)
def test_abstain_as_assent_from_the_first_vote(
    tmp_path: Path, ordering: tuple[str, ...], passes: bool
) -> None:
    app, table = house_game(tmp_path)
    orders_from(table, *ordering)
    # 8.3: abstaining assents; Turkey, who votes nothing, either sent orders (silent:
    # assent) or sent none (an NMR: dissent even under 8.3).
    ballots = {p: "yes" for p in POWERS[:4]} | {"Italy": "abstain", "Russia": "abstain"}
    concede = Terms.concede("France")
    put(app, 1, concede, abstain_assent=True, ballots=ballots)
    assert run(app) is not passes
    rows = table.new_mail()
    if passes:
        assert [(r.to_addr, r.kind) for r in rows] == [(reader, "game_over") for reader in READERS]
        assert rows[0].subject == "Diplomacy game test01 is over: conceded to France"
        game = game_row(app)
        assert (game.ending, game.winner, game.result) == (
            "concession",
            "France",
            [[1, ["France"]]],
        )
        assert proposal(app, 1).state == ProposalState.PASSED
    else:
        defeated = of_kind(rows, "proposal")
        assert len(defeated) == 9
        assert (
            "The game master declared that abstention counts as assent (house rule 8.3):\n"
            "abstaining or sending orders without voting counted as assent, and sending\n"
            "no orders as dissent.\n"
        ) in defeated[0].body
        names_nobody(defeated, concede)
        assert (proposal(app, 1).tally or {}).get("missing") == 1
        assert game_row(app).phase == "F1901M"


RESULT = Terms.result({"France": 1, "England": 2, "Russia": 2, "Austria": 4, "Germany": 4,
                       "Italy": 4, "Turkey": 4})  # fmt: skip


def discretion_case(tmp_path: Path, *, counts: bool = False) -> tuple[App, Table]:
    """Every player sends orders; only Austria and France vote (yes), the others make no
    mention of proposal 1 (a ranked result, repeat terms): it passes, but 5 of 7 silent
    gives the master the 8.4 discretion."""
    app, table = house_game(tmp_path, counts=counts)
    orders_from(table, *POWERS)
    put(app, 1, RESULT, repeat=True, ballots={"Austria": "yes", "France": "yes"})
    return app, table


GM_DECISION = """\
To the game master of 'test01':

Proposal 1 (a result: 1. France; 2. England and Russia; 4. Austria, Germany,
Italy and Turkey) passed when its vote closed, as S1901M was processed: all
7 surviving players counted as assenting. But of the 7 players who sent
orders for S1901M, 2 mentioned the proposal in their orders and 5 made no
mention of it: more than half. Under house rule 8.4 you may therefore
decline to end the game on it.

To end the game on it now, write (after SIGNON Mtest01 <password>)
    ACCEPT 1
Or, to go on with the game and process S1901M at once, write
    DECLINE 1

Decide by
    Thu Nov 26 2026 20:00:00 +0000 (Europe/London)
Silence is not declining: if you send neither by then, the proposal stands
and the game ends on its terms. Until then S1901M is not processed, and
PROCESS is refused.

The players and observers were told that it passed and that you may decline
it by then, without the counts (the game does not show them). Nobody, you
included, is told who proposed it or how anyone voted (house rule 8.5).

TESTJUDGE
"""


def test_discretion_holds_the_phase_and_asks_the_master(tmp_path: Path) -> None:
    app, table = discretion_case(tmp_path)
    assert not run(app)
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [(GM, "proposal")] + [
        (reader, "proposal") for reader in [*PLAYERS, WATCHER]
    ]
    assert rows[0].subject == "Diplomacy game test01: proposal 1 awaits your ACCEPT or DECLINE"
    assert rows[0].body == GM_DECISION
    russia = rows[6]  # in Moscow: the time in its own zone too
    assert russia.subject == (
        "Diplomacy game test01: proposal 1 passed; the game master may decline it"
    )
    assert (
        "master decides by\n"
        "    Thu Nov 26 2026 20:00:00 +0000 (Europe/London)\n"
        "which in your own time zone is\n"
        "    Thu Nov 26 2026 23:00:00 +0300 (Europe/Moscow)\n"
    ) in russia.body
    assert "The counts" not in russia.body
    names_nobody(rows[1:], RESULT)
    decide_by = at(DEADLINE) + timedelta(hours=24)
    stored = proposal(app, 1)
    assert (stored.state, stored.decide_by) == (ProposalState.AWAITING, decide_by)
    game = game_row(app)
    assert (game.status, game.phase, game.deadline) == (GameStatus.ACTIVE, "S1901M", decide_by)
    # Held: not due while the master may decide, though every order is in; asked again
    # before then, nothing happens and nobody is mailed.
    with app.sessions() as session:
        assert due_games(session, at("2026-11-26 12:00")) == []
        assert due_games(session, at("2026-11-26 20:00")) == [("test01", "S1901M")]
    assert not run(app, "2026-11-26 12:00")
    assert table.new_mail() == []
    assert game_row(app).phase == "S1901M"
    # `judge process` and the keeper's log say why the phase was not processed.
    with app.sessions() as session:
        held = session.scalars(select(Game)).one()
        assert not_processed_why(session, held) == (
            "the votes were counted; a proposal that passed awaits the game master's ACCEPT "
            "or DECLINE (house rule 8.4), and the phase waits for it"
        )
    # The master's PROCESS is refused meanwhile.
    table.send(GM, "SIGNON Mtest01 gm-secret\nPROCESS\n", "2026-11-26 12:00")
    assert (
        "> PROCESS\n"
        "Proposal 1 awaits your ACCEPT or DECLINE: write 'ACCEPT 1' to end the game on it, "
        "or 'DECLINE 1' to go on and process S1901M.\n"
    ) in reply(table)
    assert game_row(app).phase == "S1901M"


def test_the_counts_go_with_the_news_when_the_game_shows_them(tmp_path: Path) -> None:
    app, table = discretion_case(tmp_path, counts=True)
    assert not run(app)
    rows = table.new_mail()
    assert "with the counts. Nobody" in rows[0].body.replace("\n", " ")
    assert "    sent orders without voting       5\n" in rows[1].body
    names_nobody(rows[1:], RESULT)


def test_accept_ends_the_game_on_the_proposal(tmp_path: Path) -> None:
    app, table = discretion_case(tmp_path)
    run(app)
    table.new_mail()
    table.send(GM, "SIGNON Mtest01 gm-secret\nACCEPT 1\n", "2026-11-26 09:00")
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        *[(reader, "game_over") for reader in READERS],
        (GM, "reply-signed"),
    ]
    assert rows[0].subject == "Diplomacy game test01 is over: a result agreed by the players"
    assert (
        "  1. France\n  2. England, Russia\n  4. Austria, Germany, Italy, Turkey\n" in rows[0].body
    )
    assert (
        "Proposal 1 accepted: game test01 is over, and every player and observer gets its "
        "final mail."
    ) in rows[-1].body.replace("\n", " ")
    game = game_row(app)
    assert (game.status, game.ending) == (GameStatus.FINISHED, "result")
    assert game.result == [
        [1, ["France"]], [2, ["England", "Russia"]], [4, ["Austria", "Germany", "Italy", "Turkey"]],
    ]  # fmt: skip
    assert proposal(app, 1).state == ProposalState.PASSED


def test_decline_goes_on_and_processes_the_phase(tmp_path: Path) -> None:
    app, table = discretion_case(tmp_path)
    run(app)
    table.new_mail()
    table.send(GM, "SIGNON Mtest01 gm-secret\nDECLINE 1\n", "2026-11-26 09:00")
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        *[(reader, "proposal") for reader in READERS],
        *[(reader, "results") for reader in READERS],
        (GM, "reply-signed"),
    ]
    declined = rows[0]
    assert declined.subject == "Diplomacy game test01: proposal 1 declined; the game goes on"
    assert declined.body == (
        "To Austria in 'test01':\n\n"
        "The game master has declined to end the game on proposal 1 (a result: 1.\n"
        "France; 2. England and Russia; 4. Austria, Germany, Italy and Turkey), which\n"
        "had passed: more than half of the players who sent orders had made no\n"
        "mention of it, and house rule 8.4 leaves the game master that choice. The\n"
        "game goes on: S1901M is processed now, and its results follow.\n\n"
        "TESTJUDGE\n"
    )
    names_nobody(rows[:9], RESULT)
    assert (
        "Proposal 1 declined: the game goes on; everyone was told. Processed S1901M; now F1901M."
    ) in rows[-1].body.replace("\n", " ")
    assert proposal(app, 1).state == ProposalState.DECLINED
    game = game_row(app)
    assert (game.status, game.phase) == (GameStatus.ACTIVE, "F1901M")
    assert game.deadline is not None and game.deadline > at("2026-11-26 09:00")


def test_silence_until_the_decide_by_time_ends_the_game(tmp_path: Path) -> None:
    app, table = discretion_case(tmp_path)
    run(app)
    table.new_mail()
    assert not run(app, "2026-11-26 20:00")
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [(reader, "game_over") for reader in READERS]
    game = game_row(app)
    assert (game.status, game.ending, game.phase) == (GameStatus.FINISHED, "result", "S1901M")
    assert proposal(app, 1).state == ProposalState.PASSED


def test_without_a_master_a_discretion_case_simply_passes(tmp_path: Path) -> None:
    app, table = house_game(tmp_path, master=False)
    orders_from(table, *POWERS)
    put(app, 1, repeat=True, ballots={"Austria": "yes"})
    assert not run(app)
    rows = table.new_mail()
    assert [(r.to_addr, r.kind) for r in rows] == [
        (reader, "game_over") for reader in [*PLAYERS, WATCHER]
    ]
    assert game_row(app).ending == "draw"


def test_two_passing_at_once_the_lowest_number_ends_the_game(tmp_path: Path) -> None:
    app, table = house_game(tmp_path)
    orders_from(table, *POWERS)
    yes = dict.fromkeys(POWERS, "yes")
    put(app, 1, Terms.concede("France"), ballots=yes)
    put(app, 2, DRAW, ballots=yes)
    put(app, 3, Terms.draw(["England", "France"]), ballots={**yes, "Italy": "no"})
    assert not run(app)
    rows = table.new_mail()
    assert [r.kind for r in rows] == ["proposal"] * 9 + ["game_over"] * 9
    assert rows[0].subject == "Diplomacy game test01: proposal 3 was defeated"
    assert rows[-1].subject == "Diplomacy game test01 is over: conceded to France"
    states = [proposal(app, n).state for n in (1, 2, 3)]
    assert states == [ProposalState.PASSED, ProposalState.VOID, ProposalState.DEFEATED]


def test_accept_and_decline_are_refused_with_the_reason(tmp_path: Path) -> None:
    app, table = house_game(tmp_path)
    put(app, 1)
    master = "SIGNON Mtest01 gm-secret\n"
    table.send(GM, master + "ACCEPT 1\nDECLINE 2\nACCEPT\nDECLINE one\n", "2026-11-24 09:00")
    body = reply(table)
    assert (
        "> ACCEPT 1\n"
        "ACCEPT 1: proposal 1 does not await your decision: its vote is still open, until "
        "S1901M is processed.\n"
    ) in body
    assert "> DECLINE 2\nDECLINE 2: game test01 has no proposal 2 (its proposals: 1).\n" in body
    assert (
        "> ACCEPT\nACCEPT needs the number of the proposal and nothing else, as in 'ACCEPT 1'.\n"
    ) in body
    assert (
        "> DECLINE one\nDECLINE: 'one' is not a proposal's number; give it as in 'DECLINE 1'.\n"
        in body
    )
    table.send("france@example.org", "SIGNON Ftest01 paris-123\nACCEPT 1\n", "2026-11-24 09:05")
    assert (
        "  ACCEPT 1\n    -> only the game master can do this: SIGNON M<game> <password> first\n"
    ) in reply(table)
    assert proposal(app, 1).state == ProposalState.OPEN
    assert game_row(app).status == GameStatus.ACTIVE


def test_accept_in_a_game_without_house_proposals_is_refused(tmp_path: Path) -> None:
    from support.servicekit import started_game

    app, table = started_game(tmp_path)
    table.send(GM, "SIGNON Mtest01 gm-secret\nDECLINE 1\n", "2026-11-24 09:00")
    assert (
        "> DECLINE 1\n"
        "DECLINE 1: game test01 does not end by the house rules' proposals (its endgame is "
        'not "house"), so there is nothing to decide.\n'
    ) in reply(table)
    assert game_row(app).phase == "S1901M"


def test_accept_and_decline_read_a_proposal_number_as_vote_does(tmp_path: Path) -> None:
    # VOTE #1 YES was read as proposal 1, ACCEPT #1 refused as no number: one reader now.
    app, table = house_game(tmp_path)
    put(app, 1)
    table.send(GM, "SIGNON Mtest01 gm-secret\nACCEPT #1\nDECLINE 0\n", "2026-11-24 09:00")
    body = reply(table)
    assert (
        "> ACCEPT #1\n"
        "ACCEPT 1: proposal 1 does not await your decision: its vote is still open, until "
        "S1901M is processed.\n"
    ) in body
    assert "> DECLINE 0\nDECLINE: '0' is not a proposal's number; give it as in 'DECLINE 1'.\n" in (
        body
    )


def test_a_resigned_players_ballot_never_counts(tmp_path: Path) -> None:
    # A resigned player's seat is open like one in civil disorder: its ballot left
    # behind must not pass a proposal for a game it left.
    app, table = house_game(tmp_path)
    orders_from(table, *POWERS)
    put(app, 1, ballots=dict.fromkeys(POWERS, "yes"))
    table.send("turkey@example.org", "SIGNON Ttest01 pw-tur\nRESIGN\n", "2026-11-24 11:00")
    table.new_mail()
    assert run(app)  # defeated on a first vote: the phase is adjudicated
    stored = proposal(app, 1)
    assert stored.state == ProposalState.DEFEATED
    assert stored.tally is not None
    assert (stored.tally["yes"], stored.tally["dissent"]) == (6, 1)
