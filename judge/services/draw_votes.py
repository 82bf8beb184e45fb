"""The njudge's standing votes: ``SET DRAW`` / ``SET NODRAW`` and ``SET CONCEDE`` /
``SET NOCONCEDE`` (game option ``endgame = "njudge"``, the default).

A vote is one :class:`~judge.db.models.VoteRecord` per power and kind, replaced by a new
vote and deleted when withdrawn; it stands across phases until then.  The votes are
counted by the engine (:func:`judge.engine.votes.draw_passes`,
:func:`judge.engine.votes.concession_passes`) against the survivors of the current
position, a vote from a power in civil disorder (or whose player resigned) never
counting: right after a vote is stored (the game may end at once) and when the phase is
processed (:func:`settle`).  A seat taken over loses its previous player's votes
(:func:`judge.services.endgame.drop_votes`).

Votes are secret: the voter's reply says what it recorded, the game master's LIST shows
every vote, and nobody else is told who voted (:func:`listing_lines`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from judge.config import Endgame
from judge.db import queries
from judge.db.models import Game, GameStatus, Player, PlayerStatus, VoteKind, VoteRecord
from judge.engine.position import Position
from judge.engine.votes import concession_passes, draw_passes
from judge.presenters import Ending, EndingKind, and_list
from judge.services.context import Judge
from judge.services.endings import end_game, ended_how, over_refusal
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings
from judge.services.games import current_position

__all__ = [
    "cast_concession",
    "cast_draw",
    "check_votes",
    "listing_lines",
    "open_seats",
    "settle",
    "withdraw",
]


def check_votes(game: Game, what: str) -> None:
    """Raise ServiceError, naming ``what`` (``SET DRAW``), unless ``game`` takes the
    njudge's votes now: its endgame is ``njudge``, and it is under way."""
    endgame = game_settings(game).endgame
    if endgame is Endgame.HOUSE:
        raise ServiceError(
            f"{what}: game {game.name} ends by proposals, not by standing votes: propose "
            "an end with PROPOSE ... ENDPROPOSE, and answer a proposal with VOTE <n> YES, "
            "NO or ABSTAIN"
        )
    if endgame is Endgame.NONE:
        raise ServiceError(
            f"{what}: game {game.name} has no draw or concession votes: it ends on the "
            "board (or by its game master)"
        )
    if game.status == GameStatus.FORMING:
        raise ServiceError(f"{what}: game {game.name} has not started yet: there is no vote")
    if game.status == GameStatus.FINISHED:
        raise ServiceError(f"{what}: {over_refusal(game)}")


def _check_voter(game: Game, power: str, position: Position, what: str) -> list[str]:
    """The survivors; raise ServiceError unless ``power`` is one of them."""
    check_votes(game, what)
    survivors = position.powers_alive()
    if power not in survivors:
        raise ServiceError(
            f"{what}: {power} is out of the game (no units and no supply centres left) "
            "and has no vote"
        )
    return survivors


def _not_survivors(named: Sequence[str], survivors: Sequence[str], what: str) -> None:
    """Raise ServiceError naming the powers of ``named`` that are not survivors."""
    gone = [power for power in named if power not in survivors]
    if gone:
        verb = "is not a surviving power" if len(gone) == 1 else "are not surviving powers"
        raise ServiceError(
            f"{what}: {and_list(gone)} {verb}; the survivors are {and_list(list(survivors))}"
        )


def _check_concessions(game: Game, what: str) -> None:
    if not game_settings(game).concessions:
        raise ServiceError(
            f"{what}: game {game.name} does not allow concessions; a draw (SET DRAW) may "
            "still end it"
        )


def _record(session: Session, game: Game, power: str, kind: VoteKind) -> VoteRecord | None:
    return queries.vote_record(session, game.id, power, kind)


def _store(
    session: Session,
    game: Game,
    power: str,
    kind: VoteKind,
    powers: list[str] | None,
    now: datetime,
) -> None:
    """Record ``power``'s vote of ``kind``, replacing the one it had."""
    record = _record(session, game, power, kind)
    if record is None:
        session.add(VoteRecord(game_id=game.id, power=power, kind=kind, powers=powers, cast_at=now))
    else:
        record.powers = powers
        record.cast_at = now
    session.flush()


def cast_draw(
    session: Session,
    judge: Judge,
    game: Game,
    power: str,
    named: Sequence[str],
    position: Position,
    now: datetime,
) -> str:
    """``power`` votes for a draw (``named``: the powers of the draw, empty for ``SET
    DRAW`` alone); the game ends at once if the draw passes with it.  Returns what the
    voter is told; raises ServiceError, storing nothing, for a vote the game refuses."""
    what = "SET DRAW"
    survivors = _check_voter(game, power, position, what)
    dias = game_settings(game).dias
    if dias and named:
        raise ServiceError(
            f"{what} {' '.join(named)}: every survivor is in a draw in this game (DIAS: "
            "Draws Include All Survivors): write SET DRAW alone"
        )
    if not dias and not named:
        raise ServiceError(
            f"{what}: in this game a draw names its powers (no DIAS): write SET DRAW and the "
            "powers of the draw, their initials run together or their names (SET DRAW AEF, "
            "SET DRAW Austria, England, France)"
        )
    _not_survivors(named, survivors, what)
    ordered = sorted(named)
    _store(session, game, power, VoteKind.DRAW, ordered or None, now)
    among = "every survivor" if dias else and_list(ordered)
    said = (
        f"{power}'s vote for a draw ({among}) is recorded; it stands until SET NODRAW.  "
        f"{_who_sees(game)}{_uncounted(session, game, power)}"
    )
    ended = _end_now(session, judge, game, position, now)
    return f"{power}'s vote for a draw ({among}) is recorded.{ended}" if ended else said


def cast_concession(
    session: Session,
    judge: Judge,
    game: Game,
    power: str,
    winner: str,
    position: Position,
    now: datetime,
) -> str:
    """``power`` concedes the game to ``winner``; the game ends at once if every other
    survivor has.  Returns what the voter is told; raises ServiceError, storing nothing,
    for a concession the game refuses."""
    what = f"SET CONCEDE {winner}"
    survivors = _check_voter(game, power, position, what)
    _check_concessions(game, what)
    if winner == power:
        raise ServiceError(
            f"{what}: {power} cannot concede to itself; name the power you concede the game to"
        )
    _not_survivors([winner], survivors, what)
    _store(session, game, power, VoteKind.CONCEDE, [winner], now)
    said = (
        f"{power}'s concession to {winner} is recorded; it stands until SET NOCONCEDE.  "
        f"{_who_sees(game)}{_uncounted(session, game, power)}"
    )
    ended = _end_now(session, judge, game, position, now)
    return f"{power}'s concession to {winner} is recorded.{ended}" if ended else said


def withdraw(session: Session, game: Game, power: str, kind: VoteKind) -> str:
    """Withdraw ``power``'s vote of ``kind``; what the voter is told (what was withdrawn,
    or that there was none).  Raises ServiceError for a game without such votes."""
    what = "SET NODRAW" if kind is VoteKind.DRAW else "SET NOCONCEDE"
    check_votes(game, what)
    if kind is VoteKind.CONCEDE:
        _check_concessions(game, what)
    record = _record(session, game, power, kind)
    if record is None:
        if kind is VoteKind.DRAW:
            return f"{power} had no vote for a draw standing: nothing to withdraw."
        return f"{power} had no concession standing: nothing to withdraw."
    said = (
        f"{power}'s vote for a draw ({_draw_words(record)}) is withdrawn."
        if kind is VoteKind.DRAW
        else f"{power}'s concession to {_winner(record)} is withdrawn."
    )
    session.delete(record)
    session.flush()
    return said


def _draw_words(record: VoteRecord) -> str:
    """The powers a draw vote names, in words (``every survivor`` for none)."""
    return and_list(list(record.powers)) if record.powers else "every survivor"


def _winner(record: VoteRecord) -> str:
    return record.powers[0] if record.powers else "?"


def _votes(session: Session, game: Game) -> list[VoteRecord]:
    # A power's draw vote before its concession.
    return queries.votes_of(session, game.id)


#: Why an open seat's vote does not count, as the master's LIST says it.
_OPEN_SEAT = {
    PlayerStatus.CIVIL_DISORDER: "in civil disorder",
    PlayerStatus.RESIGNED: "resigned",
}


def open_seats(players: Iterable[Player]) -> dict[str, str]:
    """The powers whose seat is open (in civil disorder, or its player resigned), whose
    votes and ballots never count, each with why (a resigned player's vote must not
    decide a game it left, as one in civil disorder does not).  The one rule of who may
    not decide a game, for the njudge's votes and the house proposals alike."""
    return {
        player.power: _OPEN_SEAT[PlayerStatus(player.status)]
        for player in players
        if player.status in _OPEN_SEAT
    }


def _disorder(session: Session, game: Game) -> dict[str, str]:
    """:func:`open_seats` of ``game``'s players."""
    return open_seats(queries.players_of(session, game.id))


def _uncounted(session: Session, game: Game, power: str) -> str:
    """What the voter must know when its vote will not count yet: its power is in civil
    disorder (it counts again once the player sends orders); else nothing."""
    why = _disorder(session, game).get(power)
    if why is None:
        return ""
    if why == _OPEN_SEAT[PlayerStatus.CIVIL_DISORDER]:
        return (
            f"  {power} is in civil disorder: its votes do not count until orders are sent "
            "for it again."
        )
    return f"  {power}'s seat is open ({why}): its votes do not count while it is."


def _passing(
    session: Session, game: Game, position: Position, records: Sequence[VoteRecord]
) -> Ending | None:
    """The ending the standing votes ``records`` agree on in ``position``, or None."""
    survivors = position.powers_alive()
    disorder = _disorder(session, game)
    settings = game_settings(game)
    phase = position.phase
    draws = {r.power: r.powers for r in records if r.kind == VoteKind.DRAW}
    drawn = draw_passes(survivors, draws, dias=settings.dias, disorder=disorder)
    if drawn is not None:
        powers = tuple(sorted(drawn))
        # A draw of one power is a concession to it in all but name.
        kind: EndingKind = "draw" if len(powers) > 1 else "concession"
        return Ending(kind, phase.code, phase.describe(), ((1, powers),))
    if not settings.concessions:
        return None
    concessions = {r.power: r.powers[0] for r in records if r.kind == VoteKind.CONCEDE and r.powers}
    winner = concession_passes(survivors, concessions, disorder)
    if winner is None:
        return None
    return Ending("concession", phase.code, phase.describe(), ((1, (winner,)),))


def _end_now(session: Session, judge: Judge, game: Game, position: Position, now: datetime) -> str:
    """End the game if the votes pass now; the words the voter is told about it."""
    if not settle(session, judge, game, now, position=position):
        return ""
    return (
        f"  With it the vote passed: game {game.name} is over, {ended_how(game)}.  "
        "Every player and observer gets the final mail."
    )


def settle(
    session: Session,
    judge: Judge,
    game: Game,
    now: datetime,
    *,
    position: Position | None = None,
) -> bool:
    """End the game if its standing votes pass a draw or a concession; True if it ended.

    ``position`` the game's current position (read when not given)."""
    if game_settings(game).endgame is not Endgame.NJUDGE:
        return False
    if game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED):
        return False
    records = _votes(session, game)
    if not records:
        # No vote stands (most games, most phases): neither the position nor a seat is
        # read (a deadline burst asks this of every game).
        return False
    if position is None:
        position = current_position(session, game)
    ending = _passing(session, game, position, records)
    if ending is None:
        return False
    end_game(session, judge, game, ending, position, now)
    return True


def _who_sees(game: Game) -> str:
    """Who learns a vote, as the voter's reply says it (``secret_votes``)."""
    if game_settings(game).secret_votes:
        return "Votes are secret: only the game master sees who voted."
    return "Votes are open in this game: LIST shows every standing vote to everyone."


def listing_lines(session: Session, game: Game, *, for_master: bool) -> tuple[str, ...]:
    """What LIST shows of the standing votes.

    The game master, and everyone in a game whose votes are open (``secret_votes =
    false``): every survivor's vote, in one sentence (``Votes: England: draw;
    Italy: concede to France``), or nothing while no survivor votes.  Anyone else: when
    the game shows a pending draw (``show_pending_draw``) and a survivor's vote for a draw
    stands, a sentence that says so, with no names and no count; otherwise nothing.  LIST
    wraps each sentence to fit a mail's lines."""
    settings = game_settings(game)
    survivors = current_position(session, game).powers_alive()
    records = [r for r in _votes(session, game) if r.power in survivors]
    if not for_master and settings.secret_votes:
        if settings.show_pending_draw and any(r.kind == VoteKind.DRAW for r in records):
            return (
                "A vote for a draw is pending: not every survivor has voted for the same draw yet.",
            )
        return ()
    disorder = _disorder(session, game)
    parts: list[str] = []
    for power in survivors:
        mine = [r for r in records if r.power == power]
        if not mine:
            continue
        said = [
            f"draw ({and_list(list(r.powers))})" if r.kind == VoteKind.DRAW and r.powers
            else "draw" if r.kind == VoteKind.DRAW
            else f"concede to {_winner(r)}"
            for r in mine
        ]  # fmt: skip
        note = f" ({disorder[power]}: not counted)" if power in disorder else ""
        parts.append(f"{power}: {', '.join(said)}{note}")
    # No line while nobody votes: the master's LIST stays as it was.
    heading = "Votes (only you see them)" if settings.secret_votes else "Votes"
    return (f"{heading}: {'; '.join(parts)}.",) if parts else ()
