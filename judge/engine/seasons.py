"""The two-season year (house rules 3.1-3.5): one deadline plays a season's moves, then
its retreats from the orders given ahead, then (Autumn) its adjustments, each resolved
from the players' conditional orders against the position the step before left.

Pure: positions, order text and :mod:`judge.engine.conditional` items in, the season's
adjudications out; nothing here reads mail, a database or the clock.

What the house rules add to the plain engine, and where:

* 3.1: a retreat given ahead counts only for a unit this season's moves dislodge; one
  for a unit of the power's own that was not dislodged is *not used* (a note, not a
  refusal).  A dislodged unit without an order is disbanded (the engine's default).
* 3.2: retreat priority is :attr:`Rules.retreat_priority`; the orders of a power reach
  the engine in the order the power gave them (its IF branches resolved in place).
* 3.3 and 3.5: builds not ordered are not made and removals not ordered follow
  :attr:`Rules.civil_disorder` (the engine's defaults; the services pass ``HOUSE``).
* 3.4: ``Remove A(Par)`` (any form the notation reads as a removal) is the unit of that
  type the power had in Paris at the start of the season, wherever it is now; when it had
  none there, the unit there now.  The start unit gone (disbanded), the order is refused.
* Orders given ahead are "if owed": a build, removal or waive the power does not owe (or
  one more than it owes) is not used, not refused.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from judge.engine.adjudicator import Adjudication, OrdersInput, adjudicate
from judge.engine.conditional import Item, choose, outline
from judge.engine.errors import IllegalOrderError
from judge.engine.notation import parse_orders
from judge.engine.orders import Build, Disband, Hold, Move, Order, Remove, Retreat
from judge.engine.phases import Phase, PhaseKind, Season
from judge.engine.position import Position
from judge.engine.results import Rejection
from judge.engine.rules import Rules
from judge.engine.units import Unit

__all__ = ["AHEAD_KINDS", "SeasonOutcome", "adjudicate_season"]

#: The phases a season plays after its moves, in order: the kinds ``ahead`` may hold.
AHEAD_KINDS = (PhaseKind.RETREAT, PhaseKind.ADJUSTMENT)

#: Rejection codes that mean "not owed" in an adjustment phase: an order given ahead
#: "if owed" that turns out not to be owed is not used rather than refused.
_NOT_OWED = frozenset({"NMB", "NMR"})


@dataclass(frozen=True)
class SeasonOutcome:
    """What one season produced.

    ``steps``: the season's phases as played, in order: the movement, then the retreats
    and the adjustments that had something to do (a phase with nothing to do is not
    played).  ``notes``: by power, lines that say what became of the orders it gave
    ahead: the branch each IF block took, a retreat ignored because its unit was not
    dislodged, a removal read by house rule 3.4 as the unit that moved.
    """

    steps: tuple[Adjudication, ...]
    notes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def position(self) -> Position:
        """The position at the start of the next season."""
        return self.steps[-1].position

    @property
    def winner(self) -> str | None:
        """The power that reached the victory count, if one did."""
        return next((s.winner for s in self.steps if s.winner is not None), None)


def adjudicate_season(
    position: Position,
    orders: OrdersInput,
    ahead: Mapping[PhaseKind, Mapping[str, Sequence[Item]]],
    rules: Rules | None = None,
) -> SeasonOutcome:
    """Play the season starting at ``position`` (a movement phase): the moves with
    ``orders``, then each retreat and adjustment phase that follows before the next
    movement phase, with the orders each power gave ahead for it (``ahead[kind][power]``:
    order lines and IF blocks, in the order given), resolved against the position at
    that phase's start.

    ``ValueError`` when ``position`` is not a movement phase, ``ahead`` holds a kind other
    than retreats and adjustments, or names an unknown power (the caller's mistakes, not
    a player's).

    ``notes[power]`` (only powers that gave orders ahead) has, for each kind of phase in
    playing order, a header line naming the phase, the orders as given (indented two
    spaces, each IF block's branch taken marked as :func:`conditional.outline` marks it),
    then one line per order piece: ``Taken: ...``, ``Not used: <order>: <why>``,
    ``Refused: <engine message>``, and a ``House rule 3.4: ...`` line before a removal it
    rewrote.  A phase not played gets its header, the orders and one ``Not used: <why>``.

    >>> from judge.engine.board import standard_map
    >>> from judge.engine.conditional import parse_blocks
    >>> m = standard_map()
    >>> ahead = {PhaseKind.RETREAT: {"Germany": parse_blocks(["A Mun-Boh"], m)}}
    >>> out = adjudicate_season(Position.initial(m), {"France": ["A Par-Bur"]}, ahead)
    >>> [step.before.phase.code for step in out.steps], out.position.phase.code
    (['S1901M'], 'F1901M')
    >>> out.notes["Germany"][-1]
    'Not used: no unit had a retreat to make this season'
    """
    rules = rules or Rules()
    game_map = position.map
    if position.phase.kind is not PhaseKind.MOVEMENT:
        raise ValueError(
            f"a season starts with its moves; {position.phase.code} is not a movement phase"
        )
    given: dict[PhaseKind, dict[str, list[Item]]] = {}
    for kind, by_power in ahead.items():
        if kind not in AHEAD_KINDS:
            raise ValueError(f"ahead holds retreats and adjustments only, not {kind.word}")
        for power_text, items in by_power.items():
            power = game_map.find_power(power_text)
            if power is None:
                raise ValueError(f"ahead[{kind.word}]: {power_text!r} is not a power")
            # One power under two spellings: its items in the order given.
            given.setdefault(kind, {}).setdefault(power, []).extend(items)

    first = adjudicate(position, orders, rules)
    steps = [first]
    notes: dict[tuple[str, PhaseKind], list[str]] = {}
    while steps[-1].position.phase.kind is not PhaseKind.MOVEMENT and not _won(steps):
        here = steps[-1].position
        kind = here.phase.kind
        season = _Season(position, first, steps[1] if len(steps) > 1 else None)
        steps.append(_play(here, given.get(kind, {}), season, rules, notes))

    played = {s.before.phase.kind for s in steps[1:]}
    for kind in AHEAD_KINDS:
        if kind in played:
            continue
        for power, items in given.get(kind, {}).items():
            if items:
                why = _why_not_played(position, kind, power, steps)
                phase = _phase_of(position, kind)
                notes[(power, kind)] = [
                    f"{_title(phase)}:",
                    *outline(items, indent="  "),
                    f"Not used: {why}",
                ]
    ordered = {power: _joined(notes, power) for power in game_map.powers}
    ordered = {power: lines for power, lines in ordered.items() if lines}
    return SeasonOutcome(tuple(steps), ordered)


def _joined(notes: Mapping[tuple[str, PhaseKind], list[str]], power: str) -> tuple[str, ...]:
    """The power's notes, retreats then adjustments, a blank line between the two."""
    out: list[str] = []
    for kind in AHEAD_KINDS:
        lines = notes.get((power, kind))
        if lines:
            out.extend(["", *lines] if out else lines)
    return tuple(out)


def _won(steps: Sequence[Adjudication]) -> bool:
    return any(s.winner is not None for s in steps)


@dataclass(frozen=True)
class _Season:
    """The season so far: its start, its moves, and its retreats once played."""

    start: Position
    moves: Adjudication
    retreats: Adjudication | None

    def now(self, province: str) -> str | None:
        """Where the unit that stood in ``province`` at the start of the season stands
        now (its location), or ``None`` when it is no longer on the board."""
        moved = next(
            (
                r.order
                for r in self.moves.results
                if type(r.order) is Move and r.order.province == province and r.success
            ),
            None,
        )
        if moved is not None:
            assert isinstance(moved, Move)
            return moved.destination
        after = self.moves.position
        if after.phase.kind is PhaseKind.RETREAT and province in after.dislodged:
            if self.retreats is None:
                return None
            for result in self.retreats.results:
                if result.order.province == province:
                    order = result.order
                    if type(order) is Retreat and result.success:
                        assert isinstance(order, Retreat)
                        return order.destination
                    return None
            return None
        unit = self.start.units.get(province)
        if unit is None or any(d.province == province for d in self.moves.destroyed):
            return None
        return unit.location


@dataclass
class _Piece:
    """One order piece of the lines chosen: what reaches the engine (``fed``), or why it
    does not (``unused``, ``refused``), and a 3.4 note."""

    written: str
    fed: str | None = None
    unused: str | None = None
    refused: Rejection | None = None
    rule_note: str | None = None


def _play(
    here: Position,
    given: Mapping[str, Sequence[Item]],
    season: _Season,
    rules: Rules,
    notes: dict[tuple[str, PhaseKind], list[str]],
) -> Adjudication:
    """Play the retreat or adjustment phase at ``here`` with the orders given ahead."""
    game_map = here.map
    kind = here.phase.kind
    pieces: dict[str, list[_Piece]] = {}
    pairs: list[tuple[str | None, str]] = []
    for power, items in given.items():
        mine = pieces.setdefault(power, [])
        for line in choose(items, here):
            for parsed in parse_orders(line, game_map, kind):
                piece = _Piece(parsed.text, fed=parsed.text)
                if parsed.order is not None:
                    if kind is PhaseKind.RETREAT:
                        _retreat_piece(piece, parsed.order, power, here, season)
                    else:
                        _adjustment_piece(piece, parsed.order, power, here, season)
                mine.append(piece)
                if piece.fed is not None:
                    pairs.append((power, piece.fed))
    out = adjudicate(here, pairs, rules)

    # Match each refusal to the piece it refuses (same power and text, LAST unmatched:
    # of two same orders, the engine takes the first and refuses the one after it).
    rejected: list[Rejection] = []
    for rejection in out.rejected:
        match = next(
            (
                p
                for p in reversed(pieces.get(rejection.power or "", ()))
                if p.fed == rejection.text and p.refused is None and p.unused is None
            ),
            None,
        )
        if match is None:
            rejected.append(rejection)
        elif kind is PhaseKind.ADJUSTMENT and rejection.code in _NOT_OWED:
            assert rejection.power is not None
            match.unused = _not_owed(here, rejection.power, rejection.code)
        else:
            match.refused = rejection
            rejected.append(rejection)
    for mine in pieces.values():
        rejected.extend(p.refused for p in mine if p.fed is None and p.refused is not None)

    for power, items in given.items():
        if not items:
            continue
        lines = [f"{_title(here.phase)}, {_decided(kind)}:", *outline(items, here, "  ")]
        for piece in pieces.get(power, ()):
            if piece.rule_note:
                lines.append(piece.rule_note)
            if piece.unused is not None:
                lines.append(f"Not used: {piece.written}: {piece.unused}")
            elif piece.refused is not None:
                lines.append(f"Refused: {piece.refused.message}")
            else:
                lines.append(f"Taken: {piece.written}")
        notes[(power, kind)] = lines
    return replace(out, rejected=tuple(rejected))


def _retreat_piece(
    piece: _Piece, order: Order, power: str, here: Position, season: _Season
) -> None:
    """House rule 3.1: a retreat for one of the power's own units that this season's
    moves did not dislodge is not used (the engine would refuse it)."""
    province = order.province
    if province in here.dislodged:
        return
    game_map = here.map
    was = season.start.units.get(province)
    now = here.units.get(province)
    name = game_map.province_name[province]
    if now is not None and now.power == power:
        piece.fed, piece.unused = None, f"the {_word(now)} in {name} was not dislodged"
    elif was is not None and was.power == power:
        if any(d == was for d in season.moves.destroyed):
            why = "was dislodged with nowhere to retreat and was disbanded"
        else:
            why = "moved away and was not dislodged"
        piece.fed, piece.unused = None, f"the {_word(was)} that was in {name} {why}"


def _adjustment_piece(
    piece: _Piece, order: Order, power: str, here: Position, season: _Season
) -> None:
    """House rule 3.4: a removal names the unit the power had there at the start of the
    season, wherever it is now; refused when that unit is gone."""
    owed = here.adjustment(power)
    # As the engine reads them when removals are owed: a disband, a hold, a bare unit.
    removal = type(order) in (Remove, Disband, Hold) or (isinstance(order, Build) and order.implied)
    if owed >= 0 or not removal:
        return
    game_map = here.map
    province = order.province
    was = season.start.units.get(province)
    if was is None or was.power != power or order.unit_type not in (None, was.type):
        return  # no such unit there at the start: the one there now, as written
    now = season.now(province)
    name = game_map.province_name[province]
    what = f"the {_word(was)} that was in {name} at the start of the season"
    if now is None:
        piece.fed = None
        piece.refused = Rejection(
            power,
            piece.written,
            IllegalOrderError(
                f"{piece.written}: {what} is no longer on the board, so there is no unit to"
                " remove (house rule 3.4)",
                code="NSU",
            ),
        )
    elif game_map.province_of(now) != province:
        rewritten = f"Remove {was.type.value} {now[:1].upper()}{now[1:]}"
        there = game_map.province_name[game_map.province_of(now)]
        piece.fed = rewritten
        piece.rule_note = (
            f"House rule 3.4: {piece.written} means {what}, now in {there}: read as {rewritten}"
        )


def _not_owed(here: Position, power: str, code: str) -> str:
    """Why an adjustment order given ahead was not needed."""
    owed = here.adjustment(power)
    if owed == 0:
        return f"{power} had as many units as supply centres: no builds or removals"
    if owed > 0 and code == "NMR":
        return f"{power} was owed {_count(owed, 'build')}, not removals"
    if owed < 0 and code == "NMB":
        return f"{power} owed {_count(-owed, 'removal')}, not builds"
    if owed > 0:
        return f"{power} was owed {_count(owed, 'build')}, already ordered above"
    return f"{power} owed {_count(-owed, 'removal')}, already ordered above"


def _why_not_played(
    start: Position, kind: PhaseKind, power: str, steps: Sequence[Adjudication]
) -> str:
    """Why the phase of ``kind`` was not played this season."""
    winner = next((s.winner for s in steps if s.winner is not None), None)
    if winner is not None:
        return f"the game was won by {winner}"
    if kind is PhaseKind.RETREAT:
        return "no unit had a retreat to make this season"
    if start.phase.season is Season.SPRING:
        return "builds and removals come after the Autumn moves, not in Spring"
    owed = steps[-1].position.adjustment(power)
    if owed > 0:
        return f"{power} was owed {_count(owed, 'build')} but had no free home centre to build in"
    return f"{power} had as many units as supply centres: no builds or removals"


def _phase_of(start: Position, kind: PhaseKind) -> Phase:
    if kind is PhaseKind.RETREAT:
        return Phase(start.phase.year, start.phase.season, kind)
    return Phase(start.phase.year, Season.WINTER, kind)


def _title(phase: Phase) -> str:
    """``Retreats for Spring 1901``, ``Builds and removals for Winter 1901``."""
    what = "Retreats" if phase.kind is PhaseKind.RETREAT else "Builds and removals"
    return f"{what} for {phase.season.word} {phase.year}"


def _decided(kind: PhaseKind) -> str:
    if kind is PhaseKind.RETREAT:
        return "decided after the moves"
    return "decided after the moves and retreats"


def _word(unit: Unit) -> str:
    return unit.type.word.lower()


def _count(n: int, what: str) -> str:
    return f"{n} {what}{'' if n == 1 else 's'}"
