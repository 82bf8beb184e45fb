"""Orders sent ahead, applied when their phase begins: each pending row of the phase
(one order line, or one IF block, kept by :mod:`judge.services.future_orders`) decided
against the phase's position, each chosen order checked as if the player had sent it
first thing in the phase (:func:`judge.services.order_intake.take_order`), and the rows
retired; the rows of phases that did not happen, or are past, retire unused.

Each player with such rows is told what became of them in their own copy of the results
(:func:`what_became`'s lines, ``private`` in
:func:`judge.services.mailings.send_results`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import FutureOrder, Game, Player, PlayerStatus
from judge.engine.conditional import Item, choose, outline, parse_blocks
from judge.engine.errors import OrderError
from judge.engine.notation import parse_orders
from judge.engine.phases import Phase
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.services import future_orders
from judge.services.order_intake import take_order
from judge.services.phase_sections import phase_words
from judge.services.standing_orders import ActiveOrder
from judge.services.unit_of_work import UnitOfWork, write_changes

__all__ = ["APPLIED", "begin_phase", "phase_name", "tell"]

#: The seats whose orders sent ahead are applied: a player in civil disorder still
#: gave them (a seat left open by a resignation did not give them to its next holder).
APPLIED = frozenset({PlayerStatus.ACTIVE, PlayerStatus.CIVIL_DISORDER})

#: A phase as players name it after ``PHASE``: ``Fall 1902 Movement``; the one naming
#: the intake uses too (:func:`judge.services.phase_sections.phase_words`), so that what a
#: player is told when the phase begins names it as their confirmation did.
phase_name = phase_words


def begin_phase(
    session: Session,
    game: Game,
    position: Position,
    rules: Rules,
    skipped: Iterable[Phase],
    now: datetime,
    *,
    into: dict[int, list[str]] | None = None,
    pending: Sequence[FutureOrder] | None = None,
) -> dict[int, list[str]]:
    """Apply the rows due for ``position``'s phase, the one ``game`` now plays (its
    ``seq`` already the new phase's): stored as each player's orders of the phase, the
    refused ones with their error.  Rows of the ``skipped`` phases and of phases now past
    retire unused.  Returns, by ``Player.id``, what each player is told about them, added
    after the lines already ``into`` (returned, changed) when given.  ``pending``: the
    game's pending rows when the caller knows them (processing, which read them in its
    transaction and found none), else they are read."""
    phase = position.phase
    missed = {p.code for p in skipped}
    rows: dict[str, list[FutureOrder]] = {}
    if pending is None:
        pending = future_orders.pending_in_game(session, game)
    for row in pending:
        if _phase_of(row) <= phase:
            rows.setdefault(row.phase, []).append(row)
    told: dict[int, list[str]] = {} if into is None else into
    if not rows:
        return told
    players = {p.id: p for p in queries.players_of(session, game.id)}
    work = UnitOfWork()
    # Phases in playing order, then each player's rows oldest first: the last order for
    # a unit counts, as it would have had the player sent them in that order.
    for code in sorted(rows, key=lambda c: Phase.parse(c).sort_key):
        for player_id, own in _by_player(rows[code]).items():
            player = players[player_id]
            items = [row.lines for row in own]
            if code != phase.code:
                why = "did not happen" if code in missed else "is past"
                lines = _unused(Phase.parse(code), items, position, why)
            elif player.status not in APPLIED:
                lines = _unused(phase, items, position, "began with your seat open")
            else:
                lines = _apply(session, work, game, player, position, rules, own, now)
            tell(told, player_id, lines)
    write_changes(session, work)
    future_orders.retire(session, game, sorted(rows))
    return told


def tell(told: dict[int, list[str]], player_id: int, lines: Sequence[str]) -> None:
    """Add ``lines`` to what ``player_id`` is told, a blank line from what is there."""
    said = told.setdefault(player_id, [])
    said.extend(["", *lines] if said else lines)


def _phase_of(row: FutureOrder) -> Phase:
    return Phase.parse(row.phase)


def _by_player(rows: Sequence[FutureOrder]) -> dict[int, list[FutureOrder]]:
    """The rows by player, each player's oldest first (``rows`` are oldest first)."""
    out: dict[int, list[FutureOrder]] = {}
    for row in rows:
        out.setdefault(row.player_id, []).append(row)
    return out


def _heading(phase: Phase) -> str:
    return f"Orders you sent ahead for {phase_name(phase)}:"


def _unused(
    phase: Phase, written: Sequence[Sequence[str]], position: Position, why: str
) -> list[str]:
    """What a player is told of rows that were not used: the orders as they sent them
    (undecided: their phase never began), and why."""
    lines = [_heading(phase)]
    for rows in written:
        lines.extend(_written(rows, position))
    lines.append(f"Not used: {phase_name(phase)} {why}")
    return lines


def _written(rows: Sequence[str], position: Position) -> list[str]:
    """A row's lines as its outline (two-space indents), or as written when they do not
    read (they were checked when received: only a changed judge could fail here)."""
    try:
        return outline(parse_blocks(rows, position.map), None, "  ")
    except ValueError:
        return [f"  {line.strip()}" for line in rows if line.strip()]


def _apply(
    session: Session,
    work: UnitOfWork,
    game: Game,
    player: Player,
    position: Position,
    rules: Rules,
    rows: Sequence[FutureOrder],
    now: datetime,
) -> list[str]:
    """One player's rows for the phase beginning (``position``): decided, checked and
    kept as the player's orders; the lines that tell the player so."""
    shown = [_heading(position.phase)]
    became: list[str] = []
    for row in rows:
        try:
            items: list[Item] = parse_blocks(row.lines, position.map)
        except ValueError as err:
            shown.extend(_written(row.lines, position))
            became.append(f"Refused, the whole block: {err}")
            continue
        shown.extend(outline(items, position, "  "))
        for text in choose(items, position):
            became.extend(
                _take(session, work, game, player, position, rules, text, row.inbound_id, now)
            )
    if not became:
        return [*shown, "Taken: nothing (no branch with orders was taken)"]
    return [*shown, *_replaced(became, work.orders.of(session, game, player))]


def _replaced(became: list[str], active: Sequence[ActiveOrder]) -> list[str]:
    """``became`` with each order taken and then replaced by a later one for the same
    unit said so: only the last order for a unit counts, as in a message."""
    standing = {order.new.raw for order in active if order.new is not None}
    out: list[str] = []
    for line in became:
        text = line.removeprefix("Taken: ")
        if text != line and text not in standing:
            line = f"Replaced: {text}: a later order for the same unit counts"
        out.append(line)
    return out


def _take(
    session: Session,
    work: UnitOfWork,
    game: Game,
    player: Player,
    position: Position,
    rules: Rules,
    text: str,
    inbound_id: int | None,
    now: datetime,
) -> list[str]:
    """One chosen order line taken as the player's, piece by piece, as the ORDERS line
    takes it from a message; what became of each piece."""
    board = position.map
    out: list[str] = []
    for piece in parse_orders(text, board, position.phase.kind):
        if piece.order is None:
            assert piece.error is not None
            out.append(f"Refused: {piece.error.message}")
            continue
        if piece.power is not None and piece.power != player.power:
            out.append(f"Refused: {piece.text}: you play {player.power}, not {piece.power}")
            continue
        try:
            take_order(
                session, work, game, player, position, rules, board, piece.text, piece.order,
                inbound_id=inbound_id, now=now,
            )  # fmt: skip
        except OrderError as err:
            out.append(f"Refused: {err.message}")
            continue
        out.append(f"Taken: {piece.text}")
    return out
