"""Counting the house rules' proposals when their phase is processed (8.1-8.4), the
announcement of each result (8.5: passed or defeated, the counts only if the game says
so), and the game master's 8.4 decision (``ACCEPT <n>``, ``DECLINE <n>``).

A proposal's vote closes when the phase it was put in is processed: :func:`settle`
counts it there, before the phase is adjudicated, with the engine's
:func:`judge.engine.votes.tally`.

* Defeated: everyone is told, without a name (8.5).
* Passed: the game ends on its terms (:func:`judge.services.endings.end_game`), unless
  more than half of the players who sent orders made no mention of it (8.4) and the
  game has a master: then the proposal *awaits* the master's ``ACCEPT`` or ``DECLINE``
  until ``decide_by`` (``master_decision_hours`` later), the phase is held, and the
  game's deadline becomes ``decide_by`` so that the scheduler comes back.  Silence is not
  declining: a proposal still awaiting at ``decide_by`` stands, and the game ends on it.
* Two proposals passing at once: the lowest number ends the game; the others are void.
"""

from __future__ import annotations

from dataclasses import asdict
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.config import Endgame
from judge.db import queries
from judge.db.models import (
    Game,
    GameStatus,
    PhaseRecord,
    Proposal,
    ProposalState,
)
from judge.engine.board import standard_map
from judge.engine.document import position_from_document
from judge.engine.position import Position
from judge.engine.votes import Ballot, Tally, tally
from judge.services import mailings
from judge.services.context import Judge
from judge.services.draw_votes import open_seats
from judge.services.endings import end_game
from judge.services.errors import ServiceError
from judge.services.game_settings import game_rules, game_settings
from judge.services.games import (
    current_position,
    no_moves_received,
    orders_for_phase,
    set_deadline,
)
from judge.services.proposal_terms import terms_ending, terms_from_json

__all__ = [
    "accept",
    "awaiting_proposal",
    "decide",
    "decline",
    "holds_early_processing",
    "settle",
    "stored_tally",
]


def awaiting_proposal(session: Session, game: Game) -> Proposal | None:
    """The proposal of ``game`` that waits for its master's decision (8.4), if any (one
    at most: the game is held while one waits)."""
    return queries.awaiting_proposal(session, game.id)


def holds_early_processing(session: Session, game: Game) -> bool:
    """Whether ``game``'s phase must not be processed early, every order in though it is:
    a proposal awaits the master's decision (8.4), or a proposal put in this phase has not
    yet been answered by every surviving player who can vote (not in civil disorder).
    Its vote closes at the deadline (8.1): early processing must not close it on players
    who have sent their orders and not yet their vote."""
    proposals = queries.unsettled_proposals(session, game.id)
    if any(p.state == ProposalState.AWAITING for p in proposals):
        return True
    open_now = [p for p in proposals if p.seq == game.seq]
    if not open_now:
        return False
    survivors = set(current_position(session, game).powers_alive())
    players = queries.players_of(session, game.id)
    closed = open_seats(players)
    voters = {p.power for p in players if p.power in survivors and p.power not in closed}
    answered = queries.ballot_powers(session, [p.id for p in open_now])
    return any(not voters <= answered[p.id] for p in open_now)


def stored_tally(proposal: Proposal) -> Tally | None:
    """The counts ``proposal`` closed with, as the engine's value (None while open)."""
    return Tally(**proposal.tally) if proposal.tally is not None else None


def settle(session: Session, judge: Judge, game: Game, record: PhaseRecord, now: datetime) -> bool:
    """Count the proposals whose vote closes with this phase (``record``, the game's
    current one); True if the game ended or waits for its master (8.4), so that the
    phase is not adjudicated."""
    waiting = awaiting_proposal(session, game)
    if waiting is not None:
        assert waiting.decide_by is not None  # set with the state
        if now < waiting.decide_by:
            # Still the master's time: the game's deadline is the decision's, so that the
            # scheduler comes back then (a deadline moved meanwhile is put back).
            if game.deadline != waiting.decide_by:
                set_deadline(session, game, waiting.decide_by)
            return True
        # 8.4 is the master's discretion to decline; silence is not declining.
        _end_on(session, judge, game, waiting, now)
        return True
    proposals = queries.open_proposals_through(session, game.id, game.seq)
    if not proposals:
        return False
    position = position_from_document(record.position, standard_map())
    survivors, ordered, disorder = _electorate(session, game, position)
    winner: Proposal | None = None
    for proposal in proposals:
        ballots = _ballots(session, proposal)
        counted = tally(
            survivors,
            ballots,
            ordered | set(ballots),
            repeat=proposal.repeat,
            abstain_is_assent=proposal.abstain_assent,
            disorder=disorder,
        )
        proposal.tally = asdict(counted)
        proposal.closed_at = now
        if not counted.passed:
            proposal.state = ProposalState.DEFEATED
            mailings.send_proposal_defeated(session, judge, game, proposal, counted, now)
        elif winner is None:
            winner = proposal
        else:
            # Two passed at once: the lowest number ends the game (or awaits the master).
            proposal.state = ProposalState.VOID
    if winner is None:
        return False
    counted = Tally(**(winner.tally or {}))
    if counted.discretion and game.master_address:
        hours = game_settings(game).master_decision_hours
        winner.state = ProposalState.AWAITING
        winner.decide_by = now + timedelta(hours=hours)
        set_deadline(session, game, winner.decide_by)
        mailings.send_proposal_awaiting(session, judge, game, winner, counted, now)
        return True
    _end_on(session, judge, game, winner, now)
    return True


def _electorate(
    session: Session, game: Game, position: Position
) -> tuple[list[str], set[str], set[str]]:
    """Who votes on the game's proposals at this phase: the surviving powers; those
    among them that sent orders (a power that owed no orders this phase, as in a retreat
    phase it has no retreat in, did not miss it: it is no NMR); those whose seat is open
    (in civil disorder, or the player resigned)."""
    survivors = position.powers_alive()
    players = queries.players_of(session, game.id)
    # An open seat (civil disorder, or its player resigned): its ballot never counts.
    disorder = set(open_seats(players))
    orders = orders_for_phase(session, game)
    missed = no_moves_received(position, game_rules(game), orders, survivors)
    return survivors, set(survivors) - missed, disorder


def _ballots(session: Session, proposal: Proposal) -> dict[str, Ballot]:
    rows = queries.proposal_ballots(session, proposal.id)
    return {row.power: Ballot(row.ballot) for row in rows}


def _end_on(session: Session, judge: Judge, game: Game, proposal: Proposal, now: datetime) -> None:
    """End ``game`` on ``proposal``'s terms, in the phase being played; its final mail
    says how."""
    proposal.state = ProposalState.PASSED
    if proposal.closed_at is None:
        proposal.closed_at = now
    position = current_position(session, game)
    ending = terms_ending(terms_from_json(proposal.terms), position.phase)
    end_game(session, judge, game, ending, position, now)


# -- the master's decision (8.4) ------------------------------------------------------


def decide(session: Session, game: Game, number: int, word: str) -> Proposal:
    """The proposal ``number`` of ``game`` that the master's ``word`` (ACCEPT or DECLINE)
    decides; raises ServiceError, changing nothing, when there is none to decide."""
    if game_settings(game).endgame is not Endgame.HOUSE:
        raise ServiceError(
            f"{word} {number}: game {game.name} does not end by the house rules' proposals "
            '(its endgame is not "house"), so there is nothing to decide'
        )
    proposal = queries.proposal_by_number(session, game.id, number)
    if proposal is None:
        numbers = queries.proposal_numbers(session, game.id, limit=10)
        known = f"its proposals: {', '.join(map(str, numbers))}" if numbers else "it has none"
        raise ServiceError(f"{word} {number}: game {game.name} has no proposal {number} ({known})")
    if proposal.state != ProposalState.AWAITING or game.status == GameStatus.FINISHED:
        raise ServiceError(
            f"{word} {number}: proposal {number} does not await your decision: "
            f"{_state_words(proposal)}"
        )
    return proposal


def _state_words(proposal: Proposal) -> str:
    state = proposal.state
    if state == ProposalState.OPEN:
        return f"its vote is still open, until {proposal.phase} is processed"
    if state == ProposalState.PASSED:
        return "it passed, and the game ended on it"
    if state == ProposalState.DEFEATED:
        return "it was defeated"
    if state == ProposalState.DECLINED:
        return "it passed, and was declined already"
    if state == ProposalState.VOID:
        return "it is void (the game ended another way, or its phase was taken back)"
    return f"it is {state}"


def accept(session: Session, judge: Judge, game: Game, number: int, now: datetime) -> Proposal:
    """``ACCEPT <number>``: the game ends now on the awaiting proposal's terms."""
    proposal = decide(session, game, number, "ACCEPT")
    _end_on(session, judge, game, proposal, now)
    return proposal


def decline(session: Session, judge: Judge, game: Game, number: int, now: datetime) -> Proposal:
    """``DECLINE <number>``: the game goes on (8.4); everyone is told.  The caller
    processes the held phase next."""
    proposal = decide(session, game, number, "DECLINE")
    proposal.state = ProposalState.DECLINED
    mailings.send_proposal_declined(session, judge, game, proposal, now)
    return proposal
