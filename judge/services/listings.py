"""What the information commands read: the games on the judge, a game's processed phases,
and one game's listing (``LIST <game>``): its settings, schedule, phase, players and who
has orders in, and for its game master the orders themselves and who is late.

Values only: the layout is the template ``all/listing.txt.j2``."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.config import DEADLINE_KINDS, Deadline, GameSettings
from judge.db import queries
from judge.db.models import Game, GameStatus, Player, PlayerStatus, Rollback
from judge.engine.obligations import owed, powers_owing
from judge.engine.orders import Order
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.presenters import format_deadline, order_standing
from judge.services import endgame
from judge.services.context import Judge
from judge.services.endings import ended_how
from judge.services.game_settings import (
    endgame_text,
    game_rules,
    game_settings,
    game_zone,
    press_text,
    year_text,
)
from judge.services.games import current_position, phase_orders

__all__ = ["GameListing", "ScheduleLine", "SeatLine", "all_games", "game_listing", "phase_reports"]


def all_games(session: Session) -> list[Game]:
    """Every game on the judge, in the order of their names."""
    return queries.games_by_name(session)


def phase_reports(session: Session, game: Game, zone: str) -> list[str]:
    """The results report of each processed phase of ``game``, first to last; then each
    ROLLBACK of the game master, in order (its date in ``zone``), with the results it
    undid, as the players got them."""
    reports = [
        str((record.results or {}).get("report", "")).rstrip()
        for record in queries.processed_phases(session, game.id)
    ]
    for rollback in queries.rollbacks_of(session, game.id):
        reports += _rolled_back(rollback, zone)
    return reports


def _rolled_back(rollback: Rollback, zone: str) -> list[str]:
    """A rollback as HISTORY shows it: one line saying who went back where, when and why,
    then the reports it undid."""
    when = format_deadline(rollback.created_at, zone)
    undone = [
        str(phase["results"].get("report", "")).rstrip()
        for phase in rollback.undone.get("phases", [])
        if isinstance(phase.get("results"), dict)
    ]
    heading = (
        f"Rolled back from {rollback.from_phase} to {rollback.to_phase} by the game master on\n"
        f"{when}.\n"
        f"Reason: {rollback.reason or 'no reason given'}\n"
        f"{'These results were' if len(undone) != 1 else 'This result was'} undone by it:"
    )
    return [heading, *undone]


# -- one game's listing ------------------------------------------------------------------


@dataclass(frozen=True)
class ScheduleLine:
    """The deadline rule of one kind of phase, as numbers written for reading."""

    kind: str  #: "Movement", "Retreat", "Adjustment"
    hours: str
    at: str | None
    days: str | None  #: "Mon, Wed, Fri"; None: every day
    grace: str
    early: str


@dataclass(frozen=True)
class SeatLine:
    """One power of the game.

    ``address`` None when the game is anonymous (and the reader not its master);
    ``status`` "active", "civil disorder", "resigned" (or another stored status, its
    underscores as spaces: "open"); ``orders`` how far its orders for the current phase
    are in ("complete", "partly in", "none yet", "not needed"), None when not shown (an
    anonymous game, a game not running, a player not active).  The rest is the game
    master's only: ``late`` (the deadline passed with orders missing), ``wait``, the
    ``absence`` not over yet (from, to), the power's current orders and what is
    missing, a line each."""

    power: str
    address: str | None
    status: str
    orders: str | None
    late: bool = False
    wait: bool = False
    absence: tuple[str, str] | None = None
    order_lines: tuple[str, ...] = ()
    missing_lines: tuple[str, ...] = ()


@dataclass(frozen=True)
class GameListing:
    """What ``LIST <game>`` shows (``for_master``: the game master's listing).

    Times are formatted in the game's ``zone`` (``*_game``) and, when the reader has a zone
    of their own, in it (``deadline_own``); ``grace_game`` is when the grace after the
    deadline ends (None without grace).  ``orders_in`` of ``orders_due``: the active powers
    that owe orders this phase and have them all in.  ``observers``: their addresses (the
    game master's listing only; ``observer_count`` for everyone)."""

    name: str
    status: str
    winner: str | None
    ending: str | None
    #: How a finished game ended ("won by France", "drawn among ..."), else None.
    ended: str | None
    variant: str
    edition: str
    press: str
    #: How the players may end the game by agreement (the game's ``endgame``).
    endgame: str
    #: A pending draw, the open proposals; the master's: who voted how (njudge votes);
    #: each a sentence, which the listing wraps.
    endgame_lines: tuple[str, ...]
    nmr: str
    anonymous: bool
    observers_allowed: str
    master_address: str | None
    zone: str
    schedule: tuple[ScheduleLine, ...]
    phase_code: str | None
    phase_text: str | None
    deadline_game: str | None
    deadline_own: str | None
    grace_game: str | None
    seats: tuple[SeatLine, ...]
    orders_in: int
    orders_due: int
    observer_count: int
    observers: tuple[str, ...]
    for_master: bool
    #: How the year is played, when it is not the standard year (two seasons, 3.1).
    year: str | None = None
    #: The game sends map pictures (its file's ``maps``; LIST says so only when it does
    #: not).
    maps: bool = True


_WEEKDAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


def game_listing(
    session: Session,
    judge: Judge,
    game: Game,
    now: datetime,
    *,
    for_master: bool,
    reader_zone: str | None = None,
) -> GameListing:
    """The listing of ``game`` at ``now`` for its master (``for_master``: every address,
    every power's orders, who is late, WAITs, absences, the observers) or for anyone
    (addresses unless the game is anonymous and not over; who has orders in, not the orders; in an
    anonymous game only how many).  ``reader_zone``: the reader's own zone, if any.  The
    orders are read from the database: the caller writes the batch's first."""
    settings = game_settings(game)
    rules = game_rules(game)
    zone = game_zone(game, judge)
    observers = queries.observers_of(session, game.id)
    running = game.phase is not None and game.status in (GameStatus.ACTIVE, GameStatus.PAUSED)
    position = current_position(session, game) if running else None
    seats, due, done = _seats(session, game, position, rules, now, zone, for_master, settings)
    deadline = game.deadline if running else None
    grace = settings.deadline(position.phase.kind).grace if position is not None else 0.0
    return GameListing(
        name=game.name,
        status=str(game.status),
        winner=game.winner,
        ending=game.ending,
        ended=ended_how(game),
        variant=game.variant.capitalize(),
        edition=rules.edition.value,
        press=press_text(settings),
        endgame=endgame_text(settings),
        year=year_text(settings),
        maps=settings.maps,
        endgame_lines=(
            endgame.listing_lines(session, game, for_master=for_master) if running else ()
        ),
        nmr=settings.nmr.value,
        anonymous=settings.anonymous,
        observers_allowed=_observers_allowed(settings),
        master_address=game.master_address,
        zone=zone,
        schedule=tuple(_schedule_line(kind, getattr(settings, kind)) for kind in DEADLINE_KINDS),
        phase_code=position.phase.code if position is not None else None,
        phase_text=position.phase.describe() if position is not None else None,
        deadline_game=format_deadline(deadline, zone) if deadline else None,
        deadline_own=(
            format_deadline(deadline, reader_zone)
            if deadline and reader_zone and reader_zone != zone
            else None
        ),
        grace_game=(
            format_deadline(deadline + timedelta(hours=grace), zone) if deadline and grace else None
        ),
        seats=tuple(seats),
        orders_in=done,
        orders_due=due,
        observer_count=len(observers),
        observers=tuple(o.address for o in observers) if for_master else (),
        for_master=for_master,
    )


def _seats(
    session: Session,
    game: Game,
    position: Position | None,
    rules: Rules,
    now: datetime,
    zone: str,
    for_master: bool,
    settings: GameSettings,
) -> tuple[list[SeatLine], int, int]:
    """Each seat's line, and how many active powers owe orders and have them all in."""
    order = {power: index for index, power in enumerate(position.map.powers)} if position else {}
    players = sorted(
        queries.players_of(session, game.id), key=lambda p: (order.get(p.power, 99), p.power)
    )
    orders = phase_orders(session, game, position) if position is not None else {}
    owing = powers_owing(position, rules) if position is not None else frozenset()
    late_now = game.deadline is not None and now >= game.deadline
    # An anonymous game hides its players until it is over (its final mail names them).
    hidden = settings.anonymous and not for_master and game.status != GameStatus.FINISHED
    seats: list[SeatLine] = []
    due = done = 0
    for player in players:
        active = player.status == PlayerStatus.ACTIVE
        given = orders.get(player.power, [])
        state: str | None = None
        complete = True
        lines: tuple[str, ...] = ()
        missing: tuple[str, ...] = ()
        if position is not None:
            state, complete, lines, missing = _orders_of(position, player.power, given, rules,
                                                         player.power in owing)  # fmt: skip
        if active and player.power in owing:
            due += 1
            done += complete
        seats.append(
            SeatLine(
                power=player.power,
                address=None if hidden else player.address,
                status=_seat_status(player),
                orders=state if active and not hidden else None,
                late=for_master and active and late_now and not complete,
                wait=for_master and player.wait,
                absence=_absence(player, now, zone) if for_master else None,
                order_lines=lines if for_master else (),
                missing_lines=missing if for_master else (),
            )
        )
    return seats, due, done


def _orders_of(
    position: Position, power: str, given: list[Order], rules: Rules, owes: bool
) -> tuple[str, bool, tuple[str, ...], tuple[str, ...]]:
    """How far ``power``'s orders are in, whether complete, its order lines (canonical,
    as its confirmation echoes them) and what is still missing, a line each."""
    if not owes and not given:
        return "not needed", True, (), ()
    standing = order_standing(position, owed(position, power, given, rules), given)
    lines, missing = standing.order_lines, standing.missing_lines
    state = "complete" if standing.complete else "partly in" if given else "none yet"
    return state, standing.complete, lines, missing


def _seat_status(player: Player) -> str:
    """The seat's status as LIST shows it: "ejected" for a player the game master ejected
    (the stored status is civil disorder: the seat is open, its units hold), else the
    stored status, its underscores as spaces."""
    if player.ejected_at is not None:
        return "ejected"
    return str(player.status).replace("_", " ")


def _absence(player: Player, now: datetime, zone: str) -> tuple[str, str] | None:
    """The player's absence not over yet (from, to), in the game's zone."""
    start, end = player.absence_from, player.absence_to
    if start is None or end is None or end <= now:
        return None
    return format_deadline(start, zone), format_deadline(end, zone)


def _schedule_line(kind: str, spec: Deadline) -> ScheduleLine:
    days = None if set(spec.days) >= set(range(7)) else ", ".join(_WEEKDAYS[d] for d in spec.days)
    return ScheduleLine(
        kind=kind.capitalize(),
        hours=f"{spec.hours:g}",
        at=spec.at,
        days=days,
        grace=f"{spec.grace:g}",
        early=f"{spec.early:g}",
    )


def _observers_allowed(settings: GameSettings) -> str:
    """The game's ``observers`` policy: "open", "password" or "none"."""
    return settings.observers.value
