"""Orders sent ahead, as the intake sees them: an IF block checked whole (structure,
conditions, every order line read for its phase's kind, no line for another power), and
a player's pending orders listed by phase for the confirmation.

One ``future_orders`` row holds one order piece as written, or one IF block's lines from
its IF to its ENDIF (:mod:`judge.services.future_orders`); legality is checked when the
phase begins, by the processing.
"""

from __future__ import annotations

from collections.abc import Sequence

from sqlalchemy.orm import Session

from judge.db.models import FutureOrder, Game, Player
from judge.engine.board import Map
from judge.engine.conditional import Item, block_keyword, outline, parse_blocks
from judge.engine.notation import ParsedOrder, parse_orders
from judge.engine.orders import (
    Build,
    Convoy,
    Disband,
    Hold,
    Move,
    Order,
    Proxy,
    Remove,
    Retreat,
    SupportHold,
    SupportMove,
    Waive,
)
from judge.engine.phases import Phase, PhaseKind
from judge.services import future_orders
from judge.services.phase_sections import own_phases, phase_words

__all__ = [
    "MAX_BLOCK_LINES",
    "ahead_paragraphs",
    "block_lines",
    "check_block",
    "is_block_word",
    "kind_refusal",
]

#: The most lines an IF block may hold (its IF and ENDIF included): as many as the order
#: lines one message may hold.
MAX_BLOCK_LINES = 200

#: What :func:`~judge.engine.conditional.block_keyword` calls an IF block's own lines.
_BLOCK_WORDS = frozenset({"if", "else", "endif"})

# The orders each kind of phase takes, as the order reader gives them (the reader takes
# a move in any phase, and a build anywhere; legality is checked when the phase begins).
_KIND_ORDERS: dict[PhaseKind, tuple[tuple[type[Order], ...], str]] = {
    PhaseKind.MOVEMENT: (
        (Hold, Move, SupportHold, SupportMove, Convoy, Proxy),
        "only hold, move, support and convoy orders are",
    ),
    PhaseKind.RETREAT: ((Retreat, Disband, Move, Remove), "only retreats and disbands are"),
    PhaseKind.ADJUSTMENT: (
        (Build, Remove, Waive, Disband, Hold),
        "only builds, removals and waives are",
    ),
}


def kind_refusal(piece: ParsedOrder, phase: Phase) -> str | None:
    """Why ``piece`` (an order) is no order of ``phase``'s kind (None: it is one)."""
    allowed, words = _KIND_ORDERS[phase.kind]
    if isinstance(piece.order, allowed):
        return None
    kind = phase.kind.word.lower()
    article = "an" if kind[0] in "aeiou" else "a"
    return f"{piece.text!r}: {phase.code} is {article} {kind} phase; {words} taken then"


def is_block_word(line: str) -> bool:
    """Whether ``line`` is one of an IF block's own lines (``IF``, ``ELSE [IF]``,
    ``ELSEIF``, ``ELSIF``, ``ENDIF``, ``END IF``), not an order line."""
    return bool(line.strip()) and block_keyword(line)[0] in _BLOCK_WORDS


def block_lines(first: str, body: Sequence[str], end: str) -> list[str]:
    """The block as one row keeps it: its non-blank lines, stripped, from the IF line to
    the end line."""
    return [first.strip(), *(line.strip() for line in body if line.strip()), end]


def check_block(
    lines: Sequence[str], number: int, phase: Phase, power: str, board: Map
) -> list[Item]:
    """The IF block ``lines`` (as written, blank lines kept, its IF line on line
    ``number`` of the message) read for ``phase``, played by ``power``;
    ``ValueError`` naming the line (numbered as in the message) for the first error:
    its structure, a condition, an order line that does not read as an order of that
    kind, or one for another power."""
    if len(lines) > MAX_BLOCK_LINES:
        raise ValueError(
            f"this IF block has {len(lines):,} lines; at most {MAX_BLOCK_LINES} are read "
            "from one block: split it"
        )
    # Numbered as in the message (not fed the lines before it: one message may hold
    # many blocks, far down).
    items = parse_blocks(lines, board, first=number)
    for offset, line in enumerate(lines):
        if not line.strip() or is_block_word(line):
            continue
        for piece in parse_orders(line, board, phase.kind):
            where = f"line {number + offset}"
            if piece.order is None:
                assert piece.error is not None
                raise ValueError(f"{where}: {piece.error.message}")
            wrong = kind_refusal(piece, phase)
            if wrong is not None:
                raise ValueError(f"{where}: {wrong}")
            if piece.power is not None and piece.power != power:
                raise ValueError(f"{where}: {piece.text!r}: you play {power}, not {piece.power}")
    return items


def _row_lines(row: FutureOrder, board: Map, suffix: str) -> list[str]:
    """One pending row as the confirmation shows it, indented by two spaces."""
    lines = [str(line) for line in row.lines]
    if len(lines) == 1:
        return [f"  {lines[0]}{suffix}"]
    try:
        return outline(parse_blocks(lines, board), indent="  ")
    except ValueError:  # a row kept by an earlier version: shown as it was kept
        return [f"  {line}" for line in lines]


def ahead_paragraphs(
    session: Session,
    game: Game,
    player: Player,
    current: Phase,
    board: Map,
    cache: dict[int, set[int]] | None = None,
) -> list[str]:
    """The player's pending orders sent ahead, one paragraph a phase in the order of
    play; a two-season game's season's own retreats and adjustments are headed as
    such, their plain lines marked "if dislodged" and "if owed".  With ``cache`` (the
    transaction's ``UnitOfWork.ahead``), a player who keeps none costs no query."""
    if cache is not None and not future_orders.keeps(cache, session, game, player):
        return []
    groups: dict[str, list[FutureOrder]] = {}
    for row in future_orders.pending(session, game, player):
        groups.setdefault(row.phase, []).append(row)
    own = own_phases(game, current)
    paragraphs: list[tuple[tuple[int, int, int], str]] = []
    for code, rows in groups.items():
        try:
            phase = Phase.parse(code)
        except ValueError:
            continue
        if phase in own and phase.kind is PhaseKind.RETREAT:
            heading, suffix = "Retreats this season, if dislodged:", "  (if dislodged)"
        elif phase in own:
            heading, suffix = "Builds and removals this year, if owed:", "  (if owed)"
        else:
            heading = (
                f"Orders sent ahead for {phase_words(phase)} (checked when that phase begins):"
            )
            suffix = ""
        body = [line for row in rows for line in _row_lines(row, board, suffix)]
        paragraphs.append((phase.sort_key, "\n".join([heading, *body])))
    return [text for _key, text in sorted(paragraphs, key=lambda item: item[0])]
