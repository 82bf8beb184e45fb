"""Games: find a game, start it, process a phase, and say which phases are due.

Loading a game master's file is :mod:`judge.services.game_files` (watching the files,
:mod:`judge.services.game_file_watch`); the game's typed settings,
:mod:`judge.services.game_settings`; its mail, :mod:`judge.services.mailings`."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy.orm import Session

from judge.config import Nmr
from judge.db import absent, queries
from judge.db.models import Game, GameStatus, PhaseRecord, Player, PlayerStatus
from judge.engine import obligations
from judge.engine.adjudicator import Adjudication
from judge.engine.board import standard_map
from judge.engine.document import position_from_document, position_to_document
from judge.engine.notation import parse_order
from judge.engine.orders import Order
from judge.engine.phases import Phase, PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.presenters import Ending, format_deadline
from judge.services import ahead, future_orders, mailings, pictures, releases, seasons
from judge.services.audience import Audience, recipients
from judge.services.context import Judge
from judge.services.deadlines import next_deadline
from judge.services.errors import ServiceError
from judge.services.game_settings import (
    game_rules,
    game_settings,
    game_zone,
    phase_deadline,
)
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
    if game.status != GameStatus.FORMING:
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
    game.status = GameStatus.ACTIVE
    game.seq = 1
    game.phase = position.phase.code
    game.deadline = next_deadline(
        now, position.phase.kind, game_settings(game), game_zone(game, judge)
    )
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
    welcomes: list[tuple[Player, str | None]] = []
    for reader in recipients(session, game, Audience.SEATS, judge):
        assert reader.player_id is not None  # a seat's reader
        player = seats[reader.player_id]
        password: str | None = None
        if not player.password_hash:
            password = judge.make_password()
            player.password_hash = hash_password(password)
        welcomes.append((player, password))
    roster = [mailings.Seat(p.power, p.address, password is not None) for p, password in welcomes]
    # House rule 12.1: the players' addresses are published at the start, unless the game
    # is anonymous.
    public = None if game_settings(game).anonymous else roster
    # The first phase's board, asked for once for every game-start mail (the sender draws it).
    board = pictures.attach(session, judge, game, [pictures.board_view(position, now)], now)
    for player, password in welcomes:
        mailings.send_welcome(
            session, judge, game, player, password, now, position=position, roster=public,
            pictures=board,
        )  # fmt: skip
    mailings.send_master_gamestart(
        session, judge, game, roster, now, position=position, pictures=board
    )
    mailings.send_observers_gamestart(
        session, judge, game, public, now, position=position, pictures=board
    )
    return game


# -- processing -----------------------------------------------------------------------


def orders_for_phase(session: Session, game: Game) -> dict[str, list[str]]:
    """Each power's current (last valid) orders for the phase being played."""
    orders: dict[str, list[str]] = {}
    for power, _unit, canonical in queries.standing_orders(session, game.id, game.seq):
        orders.setdefault(power, []).append(canonical)
    return orders


def adjudicate_current(
    session: Session, game: Game, record: PhaseRecord
) -> tuple[Position, dict[str, list[str]], Rules, seasons.Played]:
    """The game's current phase (``record``) played with the orders as they stand,
    storing nothing: its position, each power's orders, the game's rules and what was
    played (in a two-season game the whole season, :func:`judge.services.seasons.play`),
    as PROCESS keeps it (:func:`process_game`) and PREVIEW shows it
    (:mod:`judge.services.preview`)."""
    position = position_from_document(record.position, standard_map())
    orders = orders_for_phase(session, game)
    rules = game_rules(game)
    return position, orders, rules, seasons.play(session, game, record.seq, position, orders, rules)


def process_game(
    session: Session,
    judge: Judge,
    name: str,
    now: datetime,
    *,
    phase: str | None = None,
    locked: Game | None = None,
) -> Adjudication | None:
    """Adjudicate the game's current phase, store the next one and queue the results.

    Idempotent: with ``phase`` given, nothing happens unless that is still the current
    phase, so a second call for the same phase (a double fire, a retry) does nothing.
    Returns the adjudication, or ``None`` when there was nothing to do, or when the
    game's votes ended it or hold it for its master instead
    (:func:`judge.services.endgame.at_deadline`).  ``locked``: the game, its row already
    locked and read afresh in this transaction (:func:`judge.db.queries.locked_game`), as
    the deadline loop's look has it: not read a second time.
    """
    # The game's row locked and read afresh: a second judge processing the phase at the
    # same moment (one wrongly taken for dead) waits here, then finds the phase done.
    game = (
        locked
        if locked is not None and locked.name == name.strip().lower()
        else queries.game_by_name(session, name, lock=True) or get_game(session, name)
    )
    if game.status not in (GameStatus.ACTIVE, GameStatus.PAUSED):
        return None
    if phase is not None and game.phase != Phase.parse(phase).code:
        return None
    record = current_phase(session, game)
    if record is None or record.processed_at is not None:
        return None
    # What the game holds none of (votes, orders sent ahead, held releases, observers,
    # orders for the next phase), in one statement, not one a kind.
    absent.learn(session, game.id, game.seq)
    # Imported here: the endgame services end games through this module's helpers.
    from judge.services.endgame import at_deadline

    if at_deadline(session, judge, game, record, now):
        # Ended by agreement (its final mail queued), or waiting for the master (8.4).
        return None
    # What was sent ahead before processing, so that a ROLLBACK can put back the rows
    # processing retires.
    waiting = {row.id for row in future_orders.pending_in_game(session, game)}
    # The phase, or in a two-season game the whole season (house rule 3.1).
    position, orders, rules, played = adjudicate_current(session, game, record)
    outcome, report = played.outcome, played.report
    # The season's own rows sent ahead were read: they retire, used or not.
    future_orders.retire(session, game, played.used)
    # The seats, loaded once: what follows changes them and mails them as they are here.
    players = queries.players_of(session, game.id)
    # The report is kept with the results so HISTORY prints exactly what players got;
    # the seats as they stood, so that a ROLLBACK can put back what processing changes.
    record.results = {**played.document, "report": report, "seats": seat_states(players)}
    record.processed_at = now

    active = [p.power for p in players if p.status == PlayerStatus.ACTIVE]
    missed = no_moves_received(position, rules, orders, active)
    fallen: list[Player] = []
    for player in players:
        # WAIT holds one phase only, as on the njudge: a player who wants it again says so.
        player.wait = False
        if player.power in orders:
            player.missed = 0
        elif player.power in missed:
            player.missed += 1
            if player.missed >= 2:
                # House rules 4.3-4.4: two missed phases in a row put the power in civil
                # disorder; its units hold (and can be supported), removals by the rule.
                player.status = PlayerStatus.CIVIL_DISORDER
                fallen.append(player)

    nxt = outcome.position
    game.seq += 1
    game.phase = nxt.phase.code
    game.updated_at = now
    if outcome.winner is not None:
        game.status = GameStatus.FINISHED
        game.winner = outcome.winner
        game.result = [[1, [outcome.winner]]]
        game.deadline = None
    else:
        game.deadline = next_deadline(
            now, nxt.phase.kind, game_settings(game), game_zone(game, judge)
        )
        respect_absences(session, game, [p for p in players if p.status == PlayerStatus.ACTIVE])
    session.add(
        PhaseRecord(
            game_id=game.id,
            seq=game.seq,
            phase=nxt.phase.code,
            position=position_to_document(nxt),
            deadline=game.deadline,
        )
    )
    # The orders sent ahead for the phase now beginning become its first orders; each
    # player who sent some is told what became of them in their copy of the results.
    private = played.private
    if not waiting:
        # What processing retires is what waited and is left no more: with nothing
        # waiting (the common case) that is nothing, known before the next query's
        # flush, so the results are written once (and begin_phase need not look again).
        record.results = {**record.results, "ahead_retired": []}
    if outcome.winner is None:
        ahead.begin_phase(
            session, game, nxt, rules, played.skipped, now, into=private,
            pending=None if waiting else [],
        )  # fmt: skip
    if waiting:
        left = {row.id for row in future_orders.pending_in_game(session, game)}
        record.results = {**record.results, "ahead_retired": sorted(waiting - left)}
    # The press releases held for these results, decided against them (house rule 10.1).
    published = releases.publish(session, game, record.seq, played.first)
    # The phase's pictures (a two-season game's season: each phase it played), asked for
    # here and drawn by the sender from the record, as MAP draws them: once for every copy.
    drawn = pictures.results_pictures(session, judge, game, record, now)
    mailings.send_results(
        session, judge, game, position.phase, report, outcome, now, published, private,
        pictures=drawn, players=players,
    )  # fmt: skip
    # After the results, which show what the missed phase did: the power itself, the
    # master and everyone else following the game are told (house rules 4.3-4.4).
    for player in fallen:
        mailings.send_civil_disorder(session, judge, game, player, now)
        mailings.send_civil_disorder_news(session, judge, game, player, position.phase.code, now)
    if outcome.winner is not None:
        # The last results said who won; the final mail gives the whole game's end.
        solo = Ending(
            "solo", position.phase.code, position.phase.describe(), ((1, (outcome.winner,)),)
        )
        mailings.send_game_over(session, judge, game, solo, nxt, now)
    return outcome


def seat_states(players: Iterable[Player]) -> dict[str, dict[str, Any]]:
    """What processing a phase changes in each seat (missed phases, civil disorder,
    WAIT), and who held it, by power: kept with the phase's results for
    :func:`judge.services.rollback.roll_back`."""
    return {
        p.power: {"missed": p.missed, "status": p.status, "wait": p.wait, "address": p.address}
        for p in players
    }


def game_summary(session: Session, game: Game, judge: Judge) -> dict[str, Any]:
    """Plain facts about a game for LIST and the command line (the deadline in the game's
    zone, see :func:`~judge.services.game_settings.game_zone`)."""
    players = queries.players_of(session, game.id)
    zone = game_zone(game, judge)
    return {
        "name": game.name,
        "status": game.status,
        "phase": game.phase,
        "deadline": format_deadline(game.deadline, zone) if game.deadline else None,
        "players": {p.power: p.status for p in sorted(players, key=lambda p: p.power)},
    }


# -- when a phase is due ----------------------------------------------------------------


def phase_orders(session: Session, game: Game, position: Position) -> dict[str, list[Order]]:
    """Each power's standing orders for ``position``'s phase (the game's current one), as
    order values, keyed by the power that gave them (with proxies, some may be for other
    powers' units)."""
    kind = position.phase.kind
    return {
        power: [parse_order(text, position.map, kind) for text in texts]
        for power, texts in orders_for_phase(session, game).items()
    }


def orders_complete(session: Session, game: Game) -> bool:
    """Whether every active player has ordered all its power owes this phase
    (:func:`judge.engine.obligations.owed`).  Resigned players and powers in civil
    disorder are not waited for: they get no reminder and are never named late either."""
    position = current_position(session, game)
    rules = game_rules(game)
    orders = phase_orders(session, game, position)
    return all(
        obligations.owed(position, player.power, orders.get(player.power, []), rules).complete
        for player in queries.players_of(session, game.id, status=PlayerStatus.ACTIVE)
    )


def due_games(session: Session, now: datetime) -> list[tuple[str, str]]:
    """Games whose current phase should be processed now: the deadline (plus grace) has
    passed, or every order is in, nobody has SET WAIT, and the early delay has run
    (:func:`phase_due`, for every active game; the running judge asks only the games
    whose moment came, :mod:`judge.services.wakes`)."""
    return [
        (game.name, game.phase)
        for game in queries.games_with_status(session, GameStatus.ACTIVE)
        if game.phase is not None and phase_due(session, game, now)
    ]


def phase_due(session: Session, game: Game, now: datetime) -> bool:
    """Whether the active ``game``'s current phase should be processed at ``now`` (see
    :func:`due_games`)."""
    spec = phase_deadline(game)
    if game.deadline is not None and now >= game.deadline + timedelta(hours=spec.grace):
        # "wait": with a missed phase the game waits for the missing orders or the
        # game master (a replacement player, or PROCESS by hand).
        return not waiting_for(session, game)
    early = early_moment(session, game)
    return early is not None and now >= early


def early_moment(session: Session, game: Game) -> datetime | None:
    """When the active ``game``'s current phase is due early, as its orders stand: the
    last order's time plus the early delay, once every order is in and nobody has SET
    WAIT or is voting on a proposal; None while it is not (the deadline decides)."""
    # Imported here: the endgame services process phases through this module.
    from judge.services.endgame import held_for_votes

    # The cheapest answer first: a phase without an order and with a deadline (every
    # phase just begun, the deadline burst's next phases) is not due early, whoever waits.
    last = queries.last_order_at(session, game.id, game.seq)
    if last is None and game.deadline is not None:
        return None
    if queries.someone_waits(session, game.id):
        return None
    if held_for_votes(session, game):
        return None  # a proposal's vote or the master's decision on it is awaited
    if not orders_complete(session, game):
        return None
    if last is None:
        # No deadline and nothing owed: due at once.
        return datetime.min.replace(tzinfo=UTC)
    return last + timedelta(minutes=phase_deadline(game).early)


def no_moves_received(
    position: Position, rules: Rules, orders: Iterable[str], active: Iterable[str]
) -> set[str]:
    """The ``active`` powers that missed ``position``'s phase (``orders``: the powers that
    gave some order): a missed phase towards civil disorder (house rules 4.3-4.4), and
    what the NMR policy "wait" waits for.

    Only a movement phase with no order at all for a power that has units, or an
    adjustment phase with removals owed and no order given, is missed: an unused build
    is waived by house rule 3.3 and an unordered retreat disbands, neither an NMR.
    """
    kind = position.phase.kind
    if kind is PhaseKind.RETREAT:
        return set()
    if kind is PhaseKind.ADJUSTMENT:
        owing = {power for power in active if position.adjustment(power) < 0}
    else:
        owing = set(active) & obligations.powers_owing(position, rules)
    return owing - set(orders)


def waiting_for(session: Session, game: Game) -> set[str]:
    """The powers a game under the NMR policy "wait" does not go ahead without once its
    deadline and grace have passed: the active powers missing the phase
    (:func:`no_moves_received`).  Empty under the policy "process"."""
    if game_settings(game).nmr is not Nmr.WAIT:
        return set()
    position = current_position(session, game)
    active = [p.power for p in queries.players_of(session, game.id, status=PlayerStatus.ACTIVE)]
    rules = game_rules(game)
    return no_moves_received(position, rules, orders_for_phase(session, game), active)


def respect_absences(session: Session, game: Game, players: Sequence[Player] | None = None) -> bool:
    """Move the deadline past any active player's announced absence; whether it moved.
    ``players``: the game's active players, when the caller has them loaded already."""
    if game.deadline is None:
        return False
    moved = False
    if players is None:
        players = queries.players_of(session, game.id, status=PlayerStatus.ACTIVE)
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
