"""Passwords checked before the write transaction: a batch's sign-ons verified while no
transaction is open, so that argon2 (tens of milliseconds a password, on purpose) never
runs while the batch holds the database's write lock.

On SQLite one transaction writes at a time, and storing incoming mail (the embedded SMTP
server answers once a message is committed) is one of them: a batch that verified a new
player's password inside its transaction kept the mail waiting for it.  So, before the
batch's transaction, :func:`preverify` reads the batch's messages as processing will
(the same decoding, the same command reader), finds their sign-ons and the stored
hashes they will be checked against (one read-only transaction, which takes no lock),
and, with no transaction open, verifies them.  What it found is handed to the write
transaction as :class:`~judge.services.passwords.Verdicts`: a right password is also
remembered as usual, a wrong one only for the batch, so the transaction verifies
neither again (a wrong password costs one verification, as before, and nothing of it
is kept beyond the batch).  Should a hash change in between (a password set by an
earlier message of the batch, a seat taken over), the transaction sees a hash the
verdicts do not know and verifies it itself: rare, and right.

This pass only warms: it decides nothing.  Every sign-on is still checked, its lockout
counted and its answer given in the transaction, exactly as before; if this pass reads a
message differently, the transaction simply verifies what it did not.

The work is bounded as processing's is: the command reader reads at most
:data:`judge.commands.MAX_COMMANDS` commands of a message; a sign-on after a wrong
password is never checked, nor one to a seat locked by wrong passwords; and at most
:data:`MAX_PER_MESSAGE` verifications are made here for one message (the transaction
verifies any further ones itself).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session, sessionmaker

from judge.commands import REGISTRY, UNREAD, parse_commands
from judge.config import Observers
from judge.db import queries
from judge.db.models import Game, GameStatus, Player, PlayerStatus, SignonGuard
from judge.db.session import read_only
from judge.engine.board import standard_map
from judge.mail.decode import IncomingMail, read_body
from judge.mail.rules import refuse_reason
from judge.services.context import Judge
from judge.services.game_settings import game_settings
from judge.services.observers import OBSERVER_SEAT
from judge.services.passwords import Verdicts, size_memory
from judge.services.seats import seat_hashes

__all__ = ["MAX_PER_MESSAGE", "RECOUNT_SECONDS", "Ask", "preverify", "resize_memory", "signon_asks"]

#: The most passwords verified here for one message; any further sign-on of it is
#: verified by the transaction itself.  A message signs on once, or a few times (a game
#: master acting for several powers).
MAX_PER_MESSAGE = 8
#: How often the memory of verified passwords is sized again to the database's count of
#: password hashes (one COUNT statement).
RECOUNT_SECONDS = 300.0


@dataclass(frozen=True)
class Ask:
    """One sign-on of a message to check: its password against ``hashes`` in order (the
    first that matches signs on, as :func:`judge.services.signons.check_hashes` reads
    them)."""

    hashes: tuple[str | None, ...]
    password: str


#: When the memory was last sized (monotonic seconds; None: not yet in this process).
_sized_at: float | None = None


def resize_memory(session: Session) -> int | None:
    """Size the memory of verified passwords to the database's password hashes when it
    was last done :data:`RECOUNT_SECONDS` ago or more (or never): the new size, or None
    when it was not due."""
    global _sized_at
    moment = time.monotonic()
    if _sized_at is not None and moment - _sized_at < RECOUNT_SECONDS:
        return None
    _sized_at = moment
    return size_memory(queries.password_hash_count(session))


def preverify(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_ids: Sequence[int],
    decoded: Mapping[int, IncomingMail],
    sizes: Mapping[int, int],
    now: datetime,
    budget: float | None = None,
) -> tuple[Verdicts, int]:
    """Verify the passwords of the sign-ons of the messages ``inbound_ids`` (``decoded``,
    ``sizes`` as received), in order, outside any transaction: what was found, for the
    batch's write transaction (see the module's description), and how many of the
    messages it covered: all of them, or, once ``budget`` seconds are spent, those done
    (at least one; the caller leaves the others for its next batch)."""
    started = time.monotonic()
    verdicts = Verdicts()
    with sessions() as session:
        read_only(session)
        resize_memory(session)
        asks = signon_asks(session, judge, inbound_ids, decoded, sizes, now)
    # The read-only transaction is over: argon2 runs with no transaction open.
    for done, message in enumerate(asks, start=1):
        for ask in message:
            if not any(verdicts.check(stored, ask.password) for stored in ask.hashes):
                break  # a wrong password: the message's later sign-ons are not checked
        if budget is not None and time.monotonic() - started > budget:
            return verdicts, done
    return verdicts, len(inbound_ids)


def signon_asks(
    session: Session,
    judge: Judge,
    inbound_ids: Sequence[int],
    decoded: Mapping[int, IncomingMail],
    sizes: Mapping[int, int],
    now: datetime,
) -> list[list[Ask]]:
    """The sign-ons to check of each message ``inbound_ids`` (``decoded``, ``sizes`` as
    received), in order, a list each (empty for a message processing refuses unread, or
    one not decoded): at most :data:`MAX_PER_MESSAGE` a message, up to the first refused
    without a check (a locked seat)."""
    wanted: list[tuple[str, list[tuple[str, str, str | None]]]] = []
    for inbound_id in inbound_ids:
        mail = decoded.get(inbound_id)
        if mail is None or not mail.sender or _refused(judge, mail, sizes.get(inbound_id, 0)):
            wanted.append(("", []))
            continue
        wanted.append((mail.sender, _signons(mail)))
    names = {game for _sender, signons in wanted for _who, game, _password in signons}
    if not names:
        return [[] for _ in wanted]
    games, players, guards = queries.signon_seats(session, names)
    seats = _Seats(session, games, players, guards, now)
    return [seats.asks(sender, signons) for sender, signons in wanted]


def _refused(judge: Judge, mail: IncomingMail, size: int) -> bool:
    """Whether processing refuses ``mail`` unread (too large, a bounce, a loop)."""
    settings = judge.settings
    reason = refuse_reason(
        mail, size, own_addresses={settings.address}, loop_tag=settings.address,
        max_size=settings.max_message_bytes,
    )  # fmt: skip
    return reason is not None


def _signons(mail: IncomingMail) -> list[tuple[str, str, str | None]]:
    """The sign-ons of ``mail`` as the conversation reads them: (who, game, password),
    ``who`` an initial, a power's name, ``M``, or ``O`` for OBSERVE and WATCH."""
    body = read_body(mail.text, mail.subject)
    commands, _after = parse_commands(list(body.lines), REGISTRY)
    found: list[tuple[str, str, str | None]] = []
    for command in commands:
        if command.name == UNREAD or command.error is not None:
            continue
        if command.name == "SIGNON":
            who, game, password = command.args
            found.append((who, game, password))
        elif command.name in ("OBSERVE", "WATCH"):
            game, *rest = command.args
            found.append(("O", game, rest[0] if rest else None))
    return found


class _Seats:
    """The games, seats and guards of a batch's sign-ons, read at once."""

    def __init__(
        self,
        session: Session,
        games: list[Game],
        players: list[Player],
        guards: list[SignonGuard],
        now: datetime,
    ) -> None:
        self.games = {game.name: game for game in games}
        self.players = {(player.game_id, player.power): player for player in players}
        self.locked = {
            (guard.game_id, guard.seat, guard.registered)
            for guard in guards
            if guard.locked_until is not None and guard.locked_until > now
        }
        self.map = standard_map()
        self.session = session
        #: The addresses watching each game, read when an observer's sign-on needs them.
        self.watching: dict[int, set[str]] = {}

    def asks(self, sender: str, signons: list[tuple[str, str, str | None]]) -> list[Ask]:
        """The checks the sign-ons of one message from ``sender`` will make, in order,
        up to one refused unchecked (a locked seat) and at most :data:`MAX_PER_MESSAGE`."""
        asks: list[Ask] = []
        for who, name, password in signons:
            if len(asks) >= MAX_PER_MESSAGE:
                break
            game = self.games.get(name)
            if game is None or password is None:
                continue  # refused without a check, and later sign-ons are still read
            found = self._seat(game, who, sender)
            if found is None:
                continue
            seat, registered, hashes = found
            if (game.id, seat, registered) in self.locked:
                break  # refused unchecked, and no later sign-on of the message is checked
            if any(hashes):
                asks.append(Ask(hashes, password))
        return asks

    def _seat(
        self, game: Game, who: str, sender: str
    ) -> tuple[str, bool, tuple[str | None, ...]] | None:
        """The seat ``who`` signs on to, whether ``sender`` is its registered address, and
        the hashes its password is checked against (None: nothing is checked)."""
        if who.upper() in ("O", "OBSERVER"):
            if not self._asks_observer(game, sender):
                return None
            return OBSERVER_SEAT, False, (game.observer_password_hash,)
        if who.upper() == "M":
            return "M", sender == game.master_address, (game.master_password_hash,)
        power = self.map.find_power(who)
        player = self.players.get((game.id, power)) if power is not None else None
        if player is None:
            return None
        return player.power, sender == player.address, seat_hashes(game, player)

    def _asks_observer(self, game: Game, sender: str) -> bool:
        """Whether an observer's sign-on from ``sender`` to ``game`` may be asked for the
        password: the game asks for one, and ``sender`` is neither its master nor one of
        its players, nor watching it already (it is not asked)."""
        if game.observer_password_hash is None or game.master_address == sender:
            return False
        if game.status == GameStatus.FINISHED:
            return False
        if game.id not in self.watching:
            observers = queries.observers_of(self.session, game.id)
            self.watching[game.id] = {observer.address for observer in observers}
        if sender in self.watching[game.id]:
            return False
        if game_settings(game).observers is not Observers.PASSWORD:
            return False
        return not any(
            player.address == sender and player.status != PlayerStatus.RESIGNED
            for (game_id, _power), player in self.players.items()
            if game_id == game.id
        )
