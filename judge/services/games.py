"""Games: load a game master's config, start a game, process a phase."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from judge.config import rules_from_dict
from judge.db import queries
from judge.db.models import Game, PhaseRecord
from judge.engine.adjudicator import Adjudication, adjudicate
from judge.engine.adjudicator import implied_moves as engine_implied_moves
from judge.engine.board import standard_map
from judge.engine.document import (
    adjudication_to_document,
    position_from_document,
    position_to_document,
)
from judge.engine.notation import parse_order
from judge.engine.orders import Order
from judge.engine.phases import Phase, PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.engine.units import Unit
from judge.presenters import format_deadline, results_report
from judge.services import mailings
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.deadlines import next_deadline
from judge.services.errors import ServiceError
from judge.services.outbox import queue_mail
from judge.services.passwords import hash_password


def find_game(session: Session, name: str) -> Game | None:
    """The game called ``name`` (case-insensitive), if any."""
    return queries.game_by_name(session, name)


def get_game(session: Session, name: str) -> Game:
    """The game called ``name``, or a :class:`ServiceError` naming the known games."""
    game = find_game(session, name)
    if game is None:
        known = ", ".join(queries.game_names(session)) or "none yet"
        raise ServiceError(f"there is no game called {name!r} (games: {known})")
    return game


def game_zone(game: Game) -> str:
    """The game's time zone."""
    return str((game.settings or {}).get("timezone", "UTC"))


def current_phase(session: Session, game: Game) -> PhaseRecord | None:
    """The record of the phase being played."""
    return queries.phase_record(session, game.id, game.seq)


def set_deadline(session: Session, game: Game, when: datetime | None) -> None:
    """Set the deadline of the game and of the record of its current phase."""
    game.deadline = when
    record = current_phase(session, game)
    if record is not None:
        record.deadline = when


def current_position(session: Session, game: Game) -> Position:
    """The position at the start of the game's current phase."""
    record = current_phase(session, game)
    if record is None:
        raise ServiceError(f"game {game.name} has not started")
    return position_from_document(record.position, standard_map())


# -- starting -------------------------------------------------------------------------


def start_game(session: Session, judge: Judge, name: str, now: datetime) -> Game:
    """Start a forming game: first phase, deadline, and a "game starting" email each."""
    game = get_game(session, name)
    if game.status != "forming":
        raise ServiceError(f"game {game.name} has already started")
    players = queries.players_of(session, game.id)
    game_map = standard_map()
    missing = sorted(set(game_map.powers) - {p.power for p in players})
    if missing:
        raise ServiceError(
            f"game {game.name} cannot start: no player for {', '.join(missing)}; "
            "add them under [players] in the game file and load it again"
        )
    position = Position.initial(game_map)
    game.status = "active"
    game.seq = 1
    game.phase = position.phase.code
    game.deadline = next_deadline(now, position.phase.kind, game.settings or {})
    pending = (game.file_applied or {}).get("deadline")
    if pending is not None and pending.get("seq") is None:
        # A deadline written in the game file before the start is the first phase's (if
        # it is still ahead); either way it is used up, never applied to a later phase.
        when = datetime.fromisoformat(pending["at"])
        if when > now:
            game.deadline = when
        game.file_applied = {
            **(game.file_applied or {}),
            "deadline": {**pending, "seq": 1 if when > now else 0},
        }
    game.updated_at = now
    session.add(
        PhaseRecord(
            game_id=game.id,
            seq=1,
            phase=position.phase.code,
            position=position_to_document(position),
            deadline=game.deadline,
        )
    )
    seats = {p.id: p for p in players}
    for reader in recipients(session, game, Audience.SEATS):
        assert reader.player_id is not None  # a seat's reader
        player = seats[reader.player_id]
        password: str | None = None
        if not player.password_hash:
            password = judge.make_password()
            player.password_hash = hash_password(password)
        mailings.send_welcome(session, judge, game, player, password, now, position=position)
    return game


# -- processing -----------------------------------------------------------------------


def orders_for_phase(session: Session, game: Game) -> dict[str, list[str]]:
    """Each power's current (last valid) orders for the phase being played."""
    orders: dict[str, list[str]] = {}
    for power, _unit, canonical in queries.standing_orders(session, game.id, game.seq):
        orders.setdefault(power, []).append(canonical)
    return orders


def process_game(
    session: Session, judge: Judge, name: str, now: datetime, *, phase: str | None = None
) -> Adjudication | None:
    """Adjudicate the game's current phase, store the next one and queue the results.

    Idempotent: with ``phase`` given, nothing happens unless that is still the current
    phase, so a second call for the same phase (a double fire, a retry) does nothing.
    Returns the adjudication, or ``None`` when there was nothing to do.
    """
    game = get_game(session, name)
    if game.status not in ("active", "paused"):
        return None
    if phase is not None and game.phase != Phase.parse(phase).code:
        return None
    record = current_phase(session, game)
    if record is None or record.processed_at is not None:
        return None
    position = position_from_document(record.position, standard_map())
    orders = orders_for_phase(session, game)
    rules = rules_from_dict(game.rules or {})
    outcome = adjudicate(position, orders, rules)
    report = results_report(game.name, game.seq, outcome)
    # The report is kept with the results so HISTORY prints exactly what players got.
    record.results = {**adjudication_to_document(outcome), "report": report}
    record.processed_at = now

    players = queries.players_of(session, game.id)
    owing = powers_owing(position, game)
    for player in players:
        if player.power in orders:
            player.missed = 0
        elif player.power in owing and player.status == "active":
            player.missed += 1
            if player.missed >= 2:
                # House rules 4.3-4.4: two missed phases in a row put the power in civil
                # disorder; its units hold (and can be supported), removals by the rule.
                player.status = "civil_disorder"
                mailings.send_civil_disorder(session, judge, game, player, now)

    nxt = outcome.position
    game.seq += 1
    game.phase = nxt.phase.code
    game.updated_at = now
    if outcome.winner is not None:
        game.status = "finished"
        game.winner = outcome.winner
        game.deadline = None
    else:
        game.deadline = next_deadline(now, nxt.phase.kind, game.settings or {})
        respect_absences(session, game)
    session.add(
        PhaseRecord(
            game_id=game.id,
            seq=game.seq,
            phase=nxt.phase.code,
            position=position_to_document(nxt),
            deadline=game.deadline,
        )
    )
    mailings.send_results(session, judge, game, position.phase, report, outcome, now)
    return outcome


def game_summary(session: Session, game: Game) -> dict[str, Any]:
    """Plain facts about a game for LIST and the command line."""
    players = queries.players_of(session, game.id)
    return {
        "name": game.name,
        "status": game.status,
        "phase": game.phase,
        "deadline": format_deadline(game.deadline, game_zone(game)) if game.deadline else None,
        "players": {p.power: p.status for p in sorted(players, key=lambda p: p.power)},
    }


# -- when a phase is due ----------------------------------------------------------------


def implied_moves(
    position: Position, power: str, orders: Iterable[Order], rules: Rules
) -> list[Order]:
    """The moves ``power``'s supports and convoys order for its own units that have no
    order of their own, under house rule 3.8, as the adjudicator will use them
    (:func:`judge.engine.adjudicator.implied_moves`): such a unit is ordered, not owed.
    An order for another power's unit (proxies) implies nothing for ``power``."""
    own = [o for o in orders if (u := position.units.get(o.province)) and u.power == power]
    return list(engine_implied_moves(position, power, own, rules).values())


@dataclass(frozen=True)
class Owed:
    """What a power still owes this phase, given its orders (see :func:`owed`)."""

    implied: tuple[Order, ...]
    """The moves its supports and convoys imply for its own unordered units (house rule
    3.8): those units are ordered."""
    units: tuple[Unit, ...]
    """Movement and retreat phases: its units still without an order."""
    needed: int
    """Adjustment phases: how many build, waive or remove orders it must give (builds
    only as many as it has centres free to build in); 0 otherwise."""
    places: int
    """Adjustment phases: how many centres it has free to build in; 0 otherwise."""
    complete: bool
    """Whether it has ordered all it owes."""


def owed(position: Position, game: Game, power: str, orders: Sequence[Order], rules: Rules) -> Owed:
    """What ``power`` still owes with ``orders`` (its active orders this phase): every unit
    in movement (a unit a support or convoy orders under house rule 3.8 is ordered), every
    dislodged unit in retreats, and in adjustments every removal and as many builds as it
    has free centres to build in.  Early processing, the reminders, the late notices and
    the confirmation all ask this, so they never disagree."""
    kind = position.phase.kind
    if kind is PhaseKind.ADJUSTMENT:
        adjustment = position.adjustment(power)
        places = build_places(position, game, power) if adjustment > 0 else 0
        needed = -adjustment if adjustment < 0 else min(adjustment, places)
        return Owed((), (), needed, places, len(orders) >= needed)
    implied = tuple(implied_moves(position, power, orders, rules))
    ordered = {o.province for o in orders} | {o.province for o in implied}
    if kind is PhaseKind.MOVEMENT:
        units = tuple(u for u in position.units_of(power) if u.province not in ordered)
    else:
        units = tuple(
            d.unit
            for d in position.dislodged.values()
            if d.unit.power == power and d.unit.province not in ordered
        )
    return Owed(implied, units, 0, 0, not units)


def orders_complete(session: Session, game: Game) -> bool:
    """Whether every power that has something to do this phase has ordered all of it."""
    position = current_position(session, game)
    rules = rules_from_dict(game.rules or {})
    parsed: dict[str, list[Order]] = {}
    for power, _unit, canonical in queries.standing_orders(session, game.id, game.seq):
        parsed.setdefault(power, []).append(
            parse_order(canonical, position.map, position.phase.kind)
        )
    return all(
        owed(position, game, power, parsed.get(power, []), rules).complete
        for power in position.map.powers
    )


def build_places(position: Position, game: Game, power: str) -> int:
    """How many centres ``power`` owns, empty, where it may build (its home centres, or
    any under the build-anywhere option)."""
    anywhere = bool((game.rules or {}).get("build_anywhere", False))
    homes = position.map.home_centres.get(power, frozenset())
    return sum(
        1
        for centre, owner in position.centres.items()
        if owner == power and centre not in position.units and (anywhere or centre in homes)
    )


def due_games(session: Session, now: datetime) -> list[tuple[str, str]]:
    """Games whose current phase should be processed now: the deadline (plus grace) has
    passed, or every order is in, nobody has SET WAIT, and the early delay has run."""
    due: list[tuple[str, str]] = []
    for game in queries.games_with_status(session, "active"):
        if game.phase is None:
            continue
        spec = phase_spec(game)
        if game.deadline is not None and now >= game.deadline + timedelta(
            hours=float(spec.get("grace", 0.0))
        ):
            # "wait": with orders missing from an active player the game waits for the
            # game master (a replacement player, or PROCESS by hand).
            if (game.settings or {}).get("nmr") != "wait" or _active_orders_in(session, game):
                due.append((game.name, game.phase))
            continue
        if queries.someone_waits(session, game.id):
            continue
        last = queries.last_order_at(session, game.id, game.seq)
        if last is None and game.deadline is not None:
            continue
        early = timedelta(minutes=float(spec.get("early", 10.0)))
        if (last is None or now >= last + early) and orders_complete(session, game):
            due.append((game.name, game.phase))
    return due


def phase_spec(game: Game) -> dict[str, Any]:
    """The game's deadline settings for the kind of its current phase (``[deadlines.*]``)."""
    key = {"M": "movement", "R": "retreat", "A": "adjustment"}[(game.phase or "S1901M")[-1]]
    spec = (game.settings or {}).get("deadlines", {}).get(key, {})
    return spec if isinstance(spec, dict) else {}


def powers_owing(position: Position, game: Game) -> set[str]:
    """The powers that have something to order in ``position``'s phase: a build owed
    counts only where the power has somewhere to build (see :func:`build_places`)."""
    kind = position.phase.kind.value
    if kind == "M":
        return {u.power for u in position.units.values()}
    if kind == "R":
        return {d.unit.power for d in position.dislodged.values()}
    return {
        power
        for power in position.map.powers
        if position.adjustment(power) < 0
        or (position.adjustment(power) > 0 and build_places(position, game, power) > 0)
    }


def notify_master(
    session: Session, judge: Judge, game: Game, now: datetime, subject: str, text: str
) -> None:
    """Queue a notice in words of the caller's (``gm/notice.txt.j2``) to the game's master,
    if it has one.

    Only the conversation still calls this (a resignation); every other notice has a
    template of its own in :mod:`judge.services.mailings` (the resignation's is
    :func:`~judge.services.mailings.send_player_resigned`)."""
    mail = judge.renderer.render(
        "gm/notice.txt.j2",
        judge_name=judge.settings.name,
        game_name=game.name,
        subject=subject,
        paragraphs=[text],
    )
    for reader in recipients(session, game, Audience.MASTER):
        queue_mail(session, judge, to=reader.address, mail=mail, kind="notice", now=now,
                   game_id=game.id)  # fmt: skip


#: The conversation's name for :func:`judge.services.mailings.send_signon_locked`.
notify_signon_locked = mailings.send_signon_locked


def _active_orders_in(session: Session, game: Game) -> bool:
    """Whether every active (not in civil disorder) player owing orders has sent them all."""
    position = current_position(session, game)
    owing = powers_owing(position, game)
    active = {p.power for p in queries.players_of(session, game.id, status="active")}
    missing = (owing & active) - set(orders_for_phase(session, game))
    return not missing


def respect_absences(session: Session, game: Game) -> bool:
    """Move the deadline past any active player's announced absence; whether it moved."""
    if game.deadline is None:
        return False
    moved = False
    players = queries.players_of(session, game.id, status="active")
    for _ in range(len(players) + 1):  # absences may chain
        pushed = False
        for player in players:
            start, end = player.absence_from, player.absence_to
            if start is not None and end is not None and start <= game.deadline < end:
                set_deadline(session, game, end)
                pushed = moved = True
        if not pushed:
            break
    return moved
