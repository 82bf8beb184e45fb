"""The house rules' proposals to end a game (seed 003, section 8; game option
``endgame = "house"``): putting one (``PROPOSE`` ... ``ENDPROPOSE``), announcing it
without its proposer (8.5), the players' ``VOTE <n> YES|NO|ABSTAIN``, and what LIST
shows of them.  Counting them at the deadline and the master's 8.4 decision are in
:mod:`judge.services.proposal_count`.

Who may put one: a player of a surviving power (the game master acting for a power with
``BECOME`` puts it as that power), or the game master, who alone may declare
``ABSTAIN = ASSENT`` (8.3).  Who may vote: the players of the surviving powers (the
master acting for one votes as it).  Who put a proposal is kept and shown to nobody, and
each vote is told to its voter only (8.5).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.config import Endgame
from judge.db import queries
from judge.db.models import (
    Ballot as StoredBallot,
)
from judge.db.models import (
    Game,
    GameStatus,
    Proposal,
    ProposalBallot,
    ProposalState,
)
from judge.engine.phases import Phase
from judge.engine.votes import Ballot, Terms, is_repeat, terms_error
from judge.presenters import format_deadline
from judge.services.blocks import give_back, unended_reason
from judge.services.endings import over_refusal
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.mailings.proposals import ProposalNews, Silence, send_proposal
from judge.services.proposal_terms import terms_from_json, terms_text, terms_to_json

if TYPE_CHECKING:
    from sqlalchemy.orm import Session

    from judge.services.conversation import Conversation

__all__ = [
    "MAX_NOTE_CHARS",
    "ProposalRequest",
    "Proposer",
    "check_ended",
    "listing_lines",
    "proposer_of",
    "put",
    "refuse",
    "vote",
]

#: The longest note a proposal may carry.
MAX_NOTE_CHARS = 2_000


@dataclass(frozen=True)
class ProposalRequest:
    """What a ``PROPOSE`` block asks for, read but not yet checked against the game:
    the ``terms``, the ``note`` under them, and the master's ``ABSTAIN = ASSENT``."""

    terms: Terms
    note: str = ""
    abstain_assent: bool = False


@dataclass(frozen=True)
class Proposer:
    """Who puts a proposal: ``role`` "power" (``power`` its name) or "master";
    ``by_master`` the game master acting for the power (``BECOME``)."""

    game: Game
    role: str
    power: str | None
    by_master: bool = False


def _house_game(game: Game) -> None:
    """Refuse (ServiceError) unless ``game`` is a running game with house proposals."""
    endgame = game_settings(game).endgame
    if endgame is Endgame.NJUDGE:
        raise ServiceError(
            f"game {game.name} has no proposals: its players end it by the njudge's votes, "
            "SET DRAW (and SET CONCEDE <power> where the game allows concessions)"
        )
    if endgame is Endgame.NONE:
        raise ServiceError(
            f"game {game.name} has no proposals: it ends by a solo only, with no draws or "
            "concessions by vote"
        )
    if game.status == GameStatus.FINISHED:
        raise ServiceError(over_refusal(game))
    if game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED) or game.phase is None:
        raise ServiceError(f"game {game.name} has not started yet: there is nothing to end")


def _signed_game(conversation: Conversation, what: str) -> Game:
    """The game signed on to; refuses no sign-on and observers."""
    signed = conversation.signed
    if signed is None:
        raise ServiceError(
            f"sign on first: {what} is sent in a game, as one of its players "
            "(SIGNON <power initial><game> <password>)"
        )
    if signed.observer is not None:
        raise ServiceError(f"observers do not take part in {what}: it is for the players")
    return signed.game


def _surviving(conversation: Conversation, game: Game, power: str) -> None:
    """Refuse ``power`` when it has neither units nor supply centres left."""
    if power not in conversation.position(game).powers_alive():
        raise ServiceError(
            f"{power} is out of {game.name} (no units and no supply centres): only the "
            "surviving powers take part in ending the game"
        )


def proposer_of(conversation: Conversation) -> Proposer:
    """Who puts a proposal in ``conversation``; raises ServiceError (nothing stored)
    when nobody may: no sign-on, an observer, a game without house proposals or not
    running, a power out of the game."""
    game = _signed_game(conversation, "a proposal")
    _house_game(game)
    signed = conversation.signed
    assert signed is not None
    if signed.player is None:
        return Proposer(game, "master", None)
    _, player = conversation.player()
    _surviving(conversation, game, player.power)
    return Proposer(game, "power", player.power, by_master=signed.by_master)


def check_ended(conversation: Conversation, body: Sequence[str], end: str | None) -> None:
    """Refuse (ServiceError) a proposal that no ENDPROPOSE ended when lines of it read
    as orders: they are the sender's orders after a forgotten ENDPROPOSE far more often
    than a note, and they were not entered."""
    if end == "ENDPROPOSE":
        return
    reason = unended_reason(
        conversation, body, end,
        end_word="ENDPROPOSE", what="proposal", done="nothing was put nor entered",
    )  # fmt: skip
    if reason is not None:
        raise ServiceError(reason)


def put(conversation: Conversation, proposer: Proposer, request: ProposalRequest) -> None:
    """Check ``request``, store it as the game's next proposal, announce it to every
    player, the game master and the observers (the same mail for all, naming nobody),
    and say so in the reply; ServiceError (nothing stored) when it cannot be put."""
    game, session = proposer.game, conversation.session
    survivors = conversation.position(game).powers_alive()
    reason = terms_error(request.terms, survivors)
    if reason is not None:
        raise ServiceError(f"{reason}; nothing was put")
    if request.abstain_assent and proposer.by_master:
        raise ServiceError(
            f"acting for {proposer.power}, you propose as {proposer.power}: ABSTAIN = ASSENT "
            "is the game master's own declaration (house rule 8.3); put the proposal before "
            "BECOME to declare it"
        )
    if request.abstain_assent and proposer.role != "master":
        raise ServiceError(
            "only the game master may declare ABSTAIN = ASSENT (house rule 8.3): put the "
            "proposal without it"
        )
    if len(request.note) > MAX_NOTE_CHARS:
        raise ServiceError(
            f"the note under the terms is {len(request.note):,} characters long; a "
            f"proposal's note may be at most {MAX_NOTE_CHARS:,}: shorten it"
        )
    assert game.phase is not None
    phase = Phase.parse(game.phase)
    earlier = queries.proposals_of(session, game.id)
    defeated = [
        (terms_from_json(p.terms), Phase.parse(p.phase))
        for p in earlier
        if p.state == ProposalState.DEFEATED
    ]
    repeat = is_repeat(request.terms, phase, defeated)
    number = max((p.number for p in earlier), default=0) + 1
    now = conversation.now
    session.add(
        Proposal(
            game_id=game.id, number=number, seq=game.seq, phase=game.phase,
            terms=terms_to_json(request.terms), note=request.note,
            proposer_role=proposer.role, proposer_power=proposer.power,
            abstain_assent=request.abstain_assent, repeat=repeat,
            state=ProposalState.OPEN, created_at=now,
        )
    )  # fmt: skip
    silence = (
        Silence.REPEAT if repeat else Silence.ASSENT if request.abstain_assent else Silence.FIRST
    )
    closes = _closes(conversation, game)
    news = ProposalNews(
        number=number,
        phase_code=game.phase,
        terms=terms_text(request.terms),
        note=request.note,
        silence=silence,
        closes=closes,
        counts=game_settings(game).vote_counts,
    )
    send_proposal(session, conversation.judge, game, news, now)
    when = (
        f"the deadline of {game.phase}, {closes}" if closes else f"when {game.phase} is processed"
    )
    conversation.reply.actions.append(
        f"Proposal {number} is put and announced to every player, the game master and the "
        f"observers, without your name: {terms_text(request.terms)}. Its vote closes at {when}."
    )


def _closes(conversation: Conversation, game: Game) -> str | None:
    """When the vote closes: the phase's deadline in the game's zone, if it has one."""
    if game.deadline is None:
        return None
    return format_deadline(game.deadline, game_zone(game, conversation.judge))


def refuse(conversation: Conversation, line: str, body: Sequence[str], reason: str) -> None:
    """Refuse the ``PROPOSE`` of ``line`` with ``reason`` (the error flag), giving the
    block (``body``) back so that nothing the sender wrote is lost."""
    give_back(
        conversation, line, reason, body,
        heading=f"This proposal was not put ({line.strip()}); its lines",
    )  # fmt: skip


_CLOSED = {
    ProposalState.PASSED: "it passed",
    ProposalState.DEFEATED: "it was defeated",
    ProposalState.AWAITING: "it passed, and awaits the game master's decision",
    ProposalState.DECLINED: "it passed, and the game master declined to end the game on it",
    ProposalState.VOID: "it was closed without a count",
}


def vote(conversation: Conversation, number: int, ballot: Ballot) -> None:
    """Store the signed-on player's answer to proposal ``number`` (a later one replaces
    an earlier), and confirm it to the voter alone; ServiceError (nothing stored) when
    it cannot be taken."""
    game = _signed_game(conversation, "a vote")
    _house_game(game)
    signed = conversation.signed
    assert signed is not None
    if signed.player is None:
        raise ServiceError(
            "the game master does not vote: the players of the surviving powers do (house rule "
            "8.1); to vote for a power, write BECOME <power> first"
        )
    _, player = conversation.player()
    _surviving(conversation, game, player.power)
    session = conversation.session
    proposal = queries.proposal_by_number(session, game.id, number)
    if proposal is None:
        raise ServiceError(
            f"there is no proposal {number} in {game.name}: LIST shows the proposals open to a vote"
        )
    if proposal.state != ProposalState.OPEN or proposal.seq != game.seq:
        state = _CLOSED.get(ProposalState(proposal.state), "its vote closed")
        raise ServiceError(
            f"proposal {number} is closed: {state}; its vote closed when {proposal.phase} "
            "was processed"
        )
    answer = ballot.value.upper()
    row = queries.proposal_ballot(session, proposal.id, player.power)
    before = None if row is None else row.ballot.upper()
    if row is None:
        session.add(
            ProposalBallot(
                proposal_id=proposal.id, power=player.power,
                ballot=StoredBallot(ballot.value), cast_at=conversation.now,
            )
        )  # fmt: skip
    else:
        row.ballot = StoredBallot(ballot.value)
        row.cast_at = conversation.now
    if signed.by_master:
        # 8.5: not even the master learns a vote, nor whether the player sent one.
        power = player.power
        said = (
            f"{power}'s vote on proposal {number}: {answer} (it replaces any vote {power} "
            "sent before)."
        )
    elif before is None:
        said = f"Your vote on proposal {number}: {answer}."
    else:
        said = f"Your vote on proposal {number}: {answer} (it replaces your earlier {before})."
    session.flush()
    conversation.reply.actions.append(f"{said} Nobody else is told it.")


def listing_lines(session: Session, game: Game, *, for_master: bool) -> tuple[str, ...]:
    """What LIST shows of the proposals: each one open to a vote in the current phase,
    or awaiting the game master's decision (8.4), by number and terms; never a proposer,
    a vote or a count (8.5)."""
    lines: list[str] = []
    for proposal in queries.proposals_of(session, game.id):
        terms = terms_text(terms_from_json(proposal.terms))
        if proposal.state == ProposalState.OPEN and proposal.seq == game.seq:
            lines.append(f"Proposal {proposal.number}: {terms} (vote closes at the deadline)")
        elif proposal.state == ProposalState.AWAITING:
            lines.append(
                f"Proposal {proposal.number}: {terms} (passed; awaiting the game master's decision)"
            )
    return tuple(lines)
