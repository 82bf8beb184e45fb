"""The results of the house rules' proposals (seed 003, section 8): a proposal defeated,
one passed that the game master may decline (8.4, and the master's own mail asking for
``ACCEPT`` or ``DECLINE``), and one the master declined.  None names a proposer or a
voter (8.5); the counts are shown only when the game's ``vote_counts`` says so (the
master's 8.4 mail gives the two numbers the decision needs, whatever it says)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Proposal
from judge.engine.votes import Tally
from judge.presenters import format_deadline
from judge.services.audience import Audience, Recipient, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_settings, game_zone
from judge.services.mailings.common import own_zone, queue, render
from judge.services.proposal_terms import terms_from_json, terms_text

__all__ = ["send_proposal_awaiting", "send_proposal_declined", "send_proposal_defeated"]


def _common(game: Game, proposal: Proposal) -> dict[str, object]:
    """What every result mail shows of the proposal: its number, its terms in words, the
    phase whose processing closed its vote, and how not voting was counted."""
    return {
        "number": proposal.number,
        "terms": terms_text(terms_from_json(proposal.terms)),
        "phase_code": game.phase,
        "repeat": proposal.repeat,
        "abstain_assent": proposal.abstain_assent,
    }


def _reader(reader: Recipient) -> dict[str, object]:
    return {"power": reader.power, "observer": reader.observer}


def _decide_by(
    judge: Judge, game: Game, reader: Recipient, when: datetime | None
) -> dict[str, object]:
    """The master's time to decide, in the game's zone and in the reader's own (None
    when the same)."""
    assert when is not None  # an awaiting proposal has one
    return {
        "decide_game": format_deadline(when, game_zone(game, judge)),
        "decide_player": own_zone(judge, game, reader, when),
    }


def send_proposal_defeated(
    session: Session, judge: Judge, game: Game, proposal: Proposal, counted: Tally, now: datetime
) -> None:
    """``proposal`` was defeated (``all/proposal_defeated.txt.j2``), to everyone reading
    the game; with ``counted`` when the game shows the counts."""
    counts = counted if game_settings(game).vote_counts else None
    for reader in recipients(session, game, Audience.EVERYONE, judge):
        mail = render(
            judge, "all/proposal_defeated.txt.j2", game,
            **_reader(reader), **_common(game, proposal), counts=counts,
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "proposal", now)


def send_proposal_awaiting(
    session: Session, judge: Judge, game: Game, proposal: Proposal, counted: Tally, now: datetime
) -> None:
    """``proposal`` passed, but more than half of the players who sent orders made no
    mention of it (8.4): the game master is asked for ``ACCEPT`` or ``DECLINE`` by
    ``proposal.decide_by`` (``gm/proposal_decision.txt.j2``, with the numbers the
    decision needs), and the players and observers are told that it passed and that the
    master may decline it by then (``all/proposal_awaiting.txt.j2``)."""
    shown = game_settings(game).vote_counts
    sent = counted.yes + counted.no + counted.abstain + counted.silent
    masters = recipients(session, game, Audience.MASTER, judge)
    for reader in masters:
        mail = render(
            judge, "gm/proposal_decision.txt.j2", game,
            **_common(game, proposal),
            survivors=counted.assent + counted.dissent,
            sent=sent,
            mentioned=sent - counted.silent,
            silent=counted.silent,
            counts_shown=shown,
            **_decide_by(judge, game, reader, proposal.decide_by),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "proposal", now)
    master_addresses = {r.address for r in masters}
    for reader in recipients(session, game, Audience.EVERYONE, judge):
        if reader.power is None and not reader.observer and reader.address in master_addresses:
            continue  # the master has its own mail
        mail = render(
            judge, "all/proposal_awaiting.txt.j2", game,
            **_reader(reader), **_common(game, proposal),
            counts=counted if shown else None,
            **_decide_by(judge, game, reader, proposal.decide_by),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "proposal", now)


def send_proposal_declined(
    session: Session, judge: Judge, game: Game, proposal: Proposal, now: datetime
) -> None:
    """The game master declined to end the game on ``proposal`` (8.4): the game goes on,
    and the phase it held is processed now (``all/proposal_declined.txt.j2``), to everyone
    reading the game."""
    for reader in recipients(session, game, Audience.EVERYONE, judge):
        mail = render(
            judge, "all/proposal_declined.txt.j2", game,
            **_reader(reader), **_common(game, proposal),
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "proposal", now)
