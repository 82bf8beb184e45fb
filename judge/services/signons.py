"""Signing on: the seat a message signs on as, its password check and the lockout after
too many wrong passwords (counted per seat and per kind of sender)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, GameStatus, Observer, Player, PlayerStatus, SignonGuard
from judge.presenters import format_deadline
from judge.services import mailings
from judge.services.context import Judge
from judge.services.errors import ServiceError
from judge.services.game_settings import game_zone
from judge.services.passwords import verify_password
from judge.services.unit_of_work import UnitOfWork

__all__ = [
    "SIGNON_FAILURE_WINDOW",
    "SIGNON_LOCKOUT",
    "SIGNON_MAX_FAILURES",
    "Marks",
    "SignOn",
    "check_hashes",
    "check_password",
    "count_wrong",
    "seat_guard",
    "wrong_password",
]

#: Wrong passwords for one seat (a power, or the game master) within
#: :data:`SIGNON_FAILURE_WINDOW` that lock its sign-ons for :data:`SIGNON_LOCKOUT`.  Counted
#: apart for sign-ons from the seat's registered address and from any other address, so
#: that a stranger's guesses never lock the player's own address out.
SIGNON_MAX_FAILURES = 5


SIGNON_FAILURE_WINDOW = timedelta(hours=1)


SIGNON_LOCKOUT = timedelta(hours=1)


@dataclass(frozen=True)
class Marks:
    """How far each list of a :class:`~judge.services.replies.Reply` had grown at one
    point of a message."""

    actions: int
    paragraphs: int
    rejected: int
    ignored: int
    errors: int
    #: The map pictures (``Reply.attachments``, MAP).
    attachments: int = 0


@dataclass
class SignOn:
    """One sign-on of a message that succeeded."""

    game: Game
    player: Player | None  # None: the game master, or an observer
    copy_to: str | None = None
    #: The game master acting for ``player`` (``BECOME``): the orders are the power's,
    #: the answer goes to the master and a copy to the power, saying who entered them.
    by_master: bool = False
    #: Signed on as an observer of the game (``player`` is None).
    observer: Observer | None = None
    #: Where this sign-on's part of the reply begins and (once another sign-on follows)
    #: ends: a copy to the registered address shows that part only.
    start: Marks | None = None
    end: Marks | None = None

    @property
    def confirms(self) -> bool:
        """Whether the answer is an order confirmation: a player signed on to a started
        game that is not over (the game master, a player of a game not started or over,
        or one who resigned in the message, gets a reply)."""
        return (
            self.player is not None
            and self.game.phase is not None
            and self.game.status != GameStatus.FINISHED
            and self.player.status != PlayerStatus.RESIGNED
        )

    @property
    def is_master(self) -> bool:
        """Whether the game master signed on (acting for a power or not)."""
        return self.by_master or (self.player is None and self.observer is None)


def check_password(
    session: Session,
    judge: Judge,
    work: UnitOfWork,
    game: Game,
    player: Player | None,
    password: str,
    *,
    sender: str,
    now: datetime,
) -> None:
    """Raise ServiceError unless ``password`` is the seat's (``player`` None: the game
    master's).  A seat locked by too many wrong passwords is refused without checking
    (see :data:`SIGNON_MAX_FAILURES`); a wrong password counts towards its lockout."""
    stored_hash = player.password_hash if player is not None else game.master_password_hash
    check_hashes(
        session, judge, work, game, player, password, (stored_hash,),
        sender=sender, now=now, wrong=lambda: wrong_password(game, player),
    )  # fmt: skip


def check_hashes(
    session: Session,
    judge: Judge,
    work: UnitOfWork,
    game: Game,
    player: Player | None,
    password: str,
    hashes: Sequence[str | None],
    *,
    sender: str,
    now: datetime,
    wrong: Callable[[], str],
) -> int:
    """The index of the first of ``hashes`` that ``password`` matches, for a sign-on to
    the seat of ``player`` (None: the game master's); raises ServiceError, with
    ``wrong()`` as its reason, when it matches none.  The lockout is the seat's whatever
    the hashes (an open seat's takeover password is guarded as its own): a seat locked by
    too many wrong passwords is refused without checking (see
    :data:`SIGNON_MAX_FAILURES`), and a wrong password counts towards its lockout."""
    seat = player.power if player is not None else "M"
    registered_address = player.address if player is not None else game.master_address
    registered = registered_address is not None and registered_address == sender
    guard = seat_guard(session, work, game, seat, registered)
    who = player.power if player is not None else f"the game master of {game.name}"
    as_who = player.power if player is not None else "game master"
    whose = f"{player.power}'s" if player is not None else "the game master's"
    if guard is not None and guard.locked_until is not None and guard.locked_until > now:
        until = format_deadline(guard.locked_until, game_zone(game, judge))
        where = "" if player is None else f" in {game.name}"
        if registered:
            raise ServiceError(
                f"not checked: after {SIGNON_MAX_FAILURES} wrong passwords for {who}{where} "
                f"within an hour from its registered address, sign-ons as {as_who} from "
                f"that address are refused until {until}; send it again after then"
            )
        raise ServiceError(
            f"not checked: after {SIGNON_MAX_FAILURES} wrong passwords for {who}{where} "
            f"within an hour, sign-ons as {as_who} from any address but its registered "
            f"one are refused until {until}; send it again after then, or from {whose} "
            "registered address"
        )
    for index, stored_hash in enumerate(hashes):
        if verify_password(stored_hash, password, work.verdicts):
            return index
    _count_failure(session, judge, work, game, player, seat, registered, guard, sender, now)
    raise ServiceError(wrong())


def wrong_password(game: Game, player: Player | None) -> str:
    """The refusal of a wrong password for ``player``'s seat (None: the game master's):
    where the right one is, never what it is."""
    if player is None:
        return (
            f"wrong game master password for {game.name}: it is the [master] password "
            "of the game's file"
        )
    power = player.power
    # A password written in the game's file is the game master's to give; one the judge
    # made was mailed.
    seat_file = ((game.file_applied or {}).get("players") or {}).get(power) or {}
    if seat_file.get("password"):
        source = "the one your game master gave you (it is written in the game's file)"
    else:
        source = f'the one in the judge\'s "game starts" mail to {power}'
    return (
        f"wrong password for {power} in {game.name}: the password is {source}, unless "
        f"it was changed since with SET PASSWORD; the judge's mail for {power} goes "
        f"to {player.address}"
    )


def count_wrong(
    session: Session,
    work: UnitOfWork,
    game: Game,
    seat: str,
    registered: bool,
    guard: SignonGuard | None,
    now: datetime,
) -> bool:
    """Count a wrong password for ``seat`` (a power, "M" for the game master, or the
    observers' seat) from this kind of sender, in ``guard`` (made when None); the last
    one allowed within :data:`SIGNON_FAILURE_WINDOW` locks it for
    :data:`SIGNON_LOCKOUT` and the count starts again.  Whether it locked it."""
    if guard is None:
        guard = SignonGuard(game_id=game.id, seat=seat, registered=registered, failures=0)
        session.add(guard)
        work.guards[(game.id, seat, registered)] = guard
    if guard.window_start is None or now - guard.window_start >= SIGNON_FAILURE_WINDOW:
        guard.window_start, guard.failures = now, 0
    guard.failures += 1
    if guard.failures < SIGNON_MAX_FAILURES:
        return False
    guard.locked_until = now + SIGNON_LOCKOUT
    guard.window_start, guard.failures = None, 0
    return True


def seat_guard(
    session: Session, work: UnitOfWork, game: Game, seat: str, registered: bool
) -> SignonGuard | None:
    """The sign-on guard of ``seat`` for this kind of sender, if it has one (a game's
    guards are read at once); the observers' password uses it too."""
    if game.id not in work.guard_games:
        work.guard_games.add(game.id)
        with session.no_autoflush:
            for row in queries.signon_guards(session, game.id):
                work.guards[(game.id, row.seat, row.registered)] = row
    return work.guards.get((game.id, seat, registered))


def _count_failure(
    session: Session,
    judge: Judge,
    work: UnitOfWork,
    game: Game,
    player: Player | None,
    seat: str,
    registered: bool,
    guard: SignonGuard | None,
    sender: str,
    now: datetime,
) -> None:
    """Count a wrong password; the last one allowed locks the seat's sign-ons of this
    kind for :data:`SIGNON_LOCKOUT`, and the game master and the player are told."""
    if not count_wrong(session, work, game, seat, registered, guard, now):
        return
    # Locked just now: told once per lockout.
    mailings.send_signon_locked(
        session, judge, game, player, now,
        failures=SIGNON_MAX_FAILURES, sender=sender, registered=registered,
        until=now + SIGNON_LOCKOUT,
    )  # fmt: skip
