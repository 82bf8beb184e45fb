"""Taking one order from a player's mail: whether a piece of text was meant as an order,
checking the order against the position and the rules, and keeping it (the last order
for a unit counts; refused orders are kept too)."""

from __future__ import annotations

import re
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Player
from judge.engine.board import Map
from judge.engine.errors import OrderError
from judge.engine.legality import check_adjustment, check_movement, check_retreat
from judge.engine.notation import UNIT_ONLY, ParsedOrder, format_order
from judge.engine.obligations import owed
from judge.engine.orders import Build, Order, Remove, Waive
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.services.unit_of_work import UnitOfWork

__all__ = ["looks_like_order", "take_order"]

_ORDER_WORDS = {
    "a", "f", "army", "fleet", "remove", "r", "waive", "w", "disband", "d", "hold", "h",
    "retreat",
}  # fmt: skip


_BUILD_WORDS = frozenset({"b", "build", "builds"})


_UNIT_WORDS = frozenset({"a", "f", "army", "fleet"})


# A word: letters and digits together, so that "b2b" is one word, not "b", "2", "b".
_WORD_RE = re.compile(r"[^\W_]+")


def looks_like_order(piece: ParsedOrder, board: Map) -> bool:
    """Whether a piece that is not an order was meant as one (it is refused, with the
    reason) rather than being other text (it is listed among the lines not read).

    A unit or a place alone is not an order (the signature line "Brest, France"); a
    first word run into digits ("b2b", "B4") is not an order word; and ``B`` or
    ``Build`` count only before a unit type or a province ("b fleet, please" is not
    a build).
    """
    if piece.error is not None and piece.error.code == UNIT_ONLY:
        return False
    text = piece.text.lstrip()
    if text.startswith("("):
        return True
    words = _WORD_RE.findall(text)
    if not words or not words[0][0].isalpha() or not words[0].isalpha():
        return False
    first = words[0].lower()
    if first in _BUILD_WORDS:
        rest = words[1:]
        return bool(rest) and (rest[0].lower() in _UNIT_WORDS or _names_a_place(rest, board))
    return first in _ORDER_WORDS or board.find_province(first) is not None


def _names_a_place(words: list[str], board: Map) -> bool:
    """Whether ``words`` start with a province name (of up to four words)."""
    return any(
        board.find_province(" ".join(words[:count])) is not None
        for count in range(1, min(4, len(words)) + 1)
    )


def take_order(
    session: Session,
    work: UnitOfWork,
    game: Game,
    player: Player,
    position: Position,
    rules: Rules,
    board: Map,
    text: str,
    order: Order,
    *,
    inbound_id: int | None,
    now: datetime,
) -> list[str]:
    """Check ``order`` (written ``text``) for ``player`` and keep it as the unit's order;
    returns the notes for the reply (an order of this very message it replaces).

    Raises :class:`OrderError` for an order the position or the rules refuse, after
    keeping it as refused.
    """
    kind = position.phase.kind
    try:
        if kind is PhaseKind.MOVEMENT:
            checked = check_movement(
                position,
                player.power,
                order,
                rules,
                proxied=_orderable(position, player, rules),
            )
            key = checked.province
        elif kind is PhaseKind.RETREAT:
            checked = check_retreat(position, player.power, order)
            key = checked.province
        else:
            checked = check_adjustment(position, player.power, order, rules)
            key = _adjustment_key(session, work, game, player, checked, position, board, rules)
    except OrderError as err:
        work.orders.add(
            session, game, player, None, text, None, err, inbound_id=inbound_id, now=now
        )
        raise
    canonical = format_order(checked, board, short=True)
    notes = []
    for earlier in work.orders.of(session, game, player):
        # The last order for a unit counts; one of this very message that gives way
        # is named, so that a line corrected further down is not dropped unseen.
        new = earlier.new
        if earlier.unit == key and new is not None and new.inbound_id == inbound_id:
            notes.append(f"'{new.raw}' was replaced by a later line of this message, '{text}'.")
    work.orders.retire(session, game, player, key)
    work.orders.add(
        session, game, player, key, text, canonical, None, inbound_id=inbound_id, now=now
    )
    return notes


def _orderable(position: Position, player: Player, rules: Rules) -> dict[str, str] | None:
    """The units of other powers ``player`` may order now, as ``proxied`` for
    :func:`check_movement`: with proxies allowed, every unit (seed 002: a power may
    order any unit; the order counts only if the owner hands the unit over by the
    deadline, which the adjudicator decides); else none."""
    if not rules.proxies:
        return None
    return {prov: player.power for prov in position.units}


def _adjustment_key(
    session: Session,
    work: UnitOfWork,
    game: Game,
    player: Player,
    order: Order,
    position: Position,
    board: Map,
    rules: Rules,
) -> str:
    if isinstance(order, Waive):
        active = work.orders.of(session, game, player)
        waives = sum(1 for o in active if (o.unit or "").startswith("waive"))
        key = f"waive:{waives + 1}"
    else:
        key = f"{'build' if isinstance(order, Build) else 'remove'}:{order.province}"
    # One order per build or removal owed (a build with no centre free to build in can
    # only be waived, as the adjudicator takes it): refuse one too many, by count.
    allowed = owed(position, player.power, (), rules).allowed
    current = [o for o in work.orders.of(session, game, player) if o.unit != key]
    if len(current) >= allowed:
        what = "removals" if isinstance(order, Remove) else "builds"
        raise OrderError(
            f"{format_order(order, board, short=True)}: you have already ordered all "
            f"{allowed} of your {what}; send CLEAR to start again",
            code="NMR" if isinstance(order, Remove) else "NMB",
        )
    return key
