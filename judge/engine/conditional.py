"""Conditional orders (``IF <condition> ... ELSE IF ... ELSE ... ENDIF``) resolved to plain
order lines against a position, before anything is adjudicated.

Pure: text and a :class:`~judge.engine.position.Position` in, text out; nothing here reads
mail, a database or the clock.  (Press releases' ``IF A Par-Bur SUCCEEDS`` conditions are
another thing: :mod:`judge.engine.conditions`.)

A condition is made of:

* a unit present: ``[power] [type] place`` -- ``A Mun``, ``F Kie``, ``GERMAN F Kie``,
  ``Germany Mun``, ``Mun``.  The unit type and the power are optional: left out, any type
  or power matches.  A single ``A`` or ``F`` is always the unit type (write a power's name
  with two or more letters).  A place written with a coast (``F Stp/nc``, ``F Stp nc``)
  asks for that coast; without one, any coast of the province.  Only units standing on the
  board count (a unit dislodged and waiting to retreat does not).
* a supply centre's owner: ``Bel OWNED`` (owned by any power) or ``Bel OWNED BY France``.
* these combined with ``NOT``, ``AND``, ``OR`` and parentheses; ``NOT`` binds tighter than
  ``AND``, and ``AND`` tighter than ``OR``.  Keywords are read in any case.

Player text is bounded: at most :data:`MAX_TEXT` characters and :data:`MAX_TOKENS` words
in a condition, :data:`MAX_DEPTH` levels of parentheses and ``NOT``, :data:`MAX_DEPTH`
nested ``IF`` blocks; every pass over it is linear.

>>> from judge.engine.board import standard_map
>>> from judge.engine.position import Position
>>> m = standard_map()
>>> start = Position.initial(m)
>>> holds(parse_condition("A Mun AND NOT (Bel OWNED OR F Kie)", m), start)
False
>>> holds(parse_condition("German A Mun and not Bel owned", m), start)
True
>>> items = parse_blocks(["IF Bel OWNED", "A Par-Bur", "ELSE", "A Par-Pic", "ENDIF"], m)
>>> choose(items, start)
['A Par-Pic']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.engine.board import normalise_name
from judge.engine.units import UnitType

if TYPE_CHECKING:
    from judge.engine.board import Map
    from judge.engine.position import Position

__all__ = [
    "MAX_DEPTH",
    "MAX_TEXT",
    "MAX_TOKENS",
    "All",
    "Any",
    "Branch",
    "CentreOwned",
    "Condition",
    "IfBlock",
    "Item",
    "Not",
    "UnitPresent",
    "block_keyword",
    "choose",
    "holds",
    "outline",
    "parse_blocks",
    "parse_condition",
    "taken",
]

#: The most words (and parentheses) a condition may hold.
MAX_TOKENS = 200
#: The most characters a condition may hold (more than 200 words of place names need).
MAX_TEXT = 2000
#: The deepest nesting of parentheses and NOTs in a condition, and of IF blocks.
MAX_DEPTH = 20

_TOKEN = re.compile(r"[()]|[^\s()]+")
#: A unit in the zine's notation, ``A(Par)``, ``F (StP/nc)``: its type letter and place.
_ZINE_UNIT = re.compile(r"\b([AaFf])\s?\(\s?([A-Za-z]{2,4}(?:/[A-Za-z]{2})?)\s?\)")
_KEYWORDS = frozenset({"and", "or", "not", "owned", "by", "(", ")"})
_TYPE_WORDS = {"a": UnitType.ARMY, "army": UnitType.ARMY, "f": UnitType.FLEET}
_TYPE_WORDS["fleet"] = UnitType.FLEET


@dataclass(frozen=True, slots=True)
class UnitPresent:
    """A unit at ``location`` (a province, or a coast ``stp/nc``); ``power`` and ``type``
    ``None`` when not written (any matches)."""

    power: str | None
    type: UnitType | None
    location: str


@dataclass(frozen=True, slots=True)
class CentreOwned:
    """Supply centre ``centre`` owned by ``power`` (``None``: by any power)."""

    centre: str
    power: str | None


@dataclass(frozen=True, slots=True)
class Not:
    """The inner condition does not hold."""

    inner: Condition


@dataclass(frozen=True, slots=True)
class All:
    """Every part holds (``AND``)."""

    parts: tuple[Condition, ...]


@dataclass(frozen=True, slots=True)
class Any:
    """At least one part holds (``OR``)."""

    parts: tuple[Condition, ...]


Condition = UnitPresent | CentreOwned | Not | All | Any


class _Parser:
    """Recursive descent over the tokens; depth is bounded by :data:`MAX_DEPTH`."""

    def __init__(self, tokens: list[str], game_map: Map) -> None:
        self.tokens = tokens
        self.low = [t.lower() for t in tokens]
        self.at = 0
        self.map = game_map

    def peek(self) -> str | None:
        return self.low[self.at] if self.at < len(self.low) else None

    def after(self) -> str:
        """Words for an error: where the parser stands."""
        if self.at == 0:
            return "at the start"
        return f"after {self.tokens[self.at - 1]!r}"

    def parse_or(self, depth: int) -> Condition:
        parts = [self.parse_and(depth)]
        while self.peek() == "or":
            self.at += 1
            parts.append(self.parse_and(depth))
        return parts[0] if len(parts) == 1 else Any(tuple(parts))

    def parse_and(self, depth: int) -> Condition:
        parts = [self.parse_unary(depth)]
        while self.peek() == "and":
            self.at += 1
            parts.append(self.parse_unary(depth))
        return parts[0] if len(parts) == 1 else All(tuple(parts))

    def parse_unary(self, depth: int) -> Condition:
        word = self.peek()
        if word in ("not", "("):
            if depth >= MAX_DEPTH:
                raise ValueError(
                    f"the condition nests NOT and parentheses more than {MAX_DEPTH} deep;"
                    " write it more simply"
                )
            self.at += 1
            if word == "not":
                return Not(self.parse_unary(depth + 1))
            inner = self.parse_or(depth + 1)
            if self.peek() != ")":
                found = self.peek()
                what = "the end" if found is None else repr(self.tokens[self.at])
                raise ValueError(f"expected ')' to close '(' but found {what}")
            self.at += 1
            return inner
        return self.parse_atom()

    def parse_atom(self) -> Condition:
        start = self.at
        while self.at < len(self.low) and self.low[self.at] not in _KEYWORDS:
            self.at += 1
        words = self.tokens[start : self.at]
        if not words:
            found = self.peek()
            what = "the end" if found is None else repr(self.tokens[self.at])
            raise ValueError(
                f"expected a unit (e.g. 'A Mun') or a centre (e.g. 'Bel OWNED') {self.after()},"
                f" found {what}"
            )
        if self.peek() == "owned":
            return self.parse_owned(words)
        return self.parse_unit(words)

    def parse_owned(self, words: list[str]) -> Condition:
        text = " ".join(words)
        centre = self.map.find_province(text)
        if centre is None:
            raise ValueError(f"{text!r} is not a place on the map; expected a supply centre")
        if centre not in self.map.supply_centres:
            raise ValueError(f"{text!r} is not a supply centre; only a centre can be OWNED")
        self.at += 1  # OWNED
        if self.peek() != "by":
            return CentreOwned(centre, None)
        self.at += 1
        start = self.at
        while self.at < len(self.low) and self.low[self.at] not in _KEYWORDS:
            self.at += 1
        name = " ".join(self.tokens[start : self.at])
        if not name:
            raise ValueError(f"expected a power after 'OWNED BY' (one of {self._powers()})")
        power = self.power(name)
        if power is None:
            raise ValueError(f"{name!r} is not a power; expected one of {self._powers()}")
        return CentreOwned(centre, power)

    def parse_unit(self, words: list[str]) -> Condition:
        power: str | None = None
        unit_type = _TYPE_WORDS.get(words[0].lower()) if len(words) > 1 else None
        if unit_type is None and len(words) > 1:
            power = self.power(words[0])
            if power is not None:
                words = words[1:]
                if len(words) > 1:
                    unit_type = _TYPE_WORDS.get(words[0].lower())
        if unit_type is not None:
            words = words[1:]
        text = " ".join(words)
        location = self.map.find_location(text)
        if location is None and power is None and unit_type is None and len(words) > 2:
            rest = words[1:]
            if rest[0].lower() in _TYPE_WORDS and self.map.find_location(" ".join(rest[1:])):
                # "PRUSSIAN A Mun": a unit, with a word before it that names no power.
                raise ValueError(
                    f"{words[0]!r} is not a power; expected one of {self._powers()}"
                    " (or their adjectives: German, French ...)"
                )
        if location is None:
            # Two conditions side by side read as one long place name: say how to join them.
            join = "; join two conditions with AND or OR" if len(words) > 1 else ""
            raise ValueError(
                f"{text!r} is not a place on the map; expected a unit such as 'A Mun' or"
                f" 'German F Kie', or a centre such as 'Bel OWNED'{join}"
            )
        return UnitPresent(power, unit_type, location)

    def _powers(self) -> str:
        return ", ".join(self.map.powers)

    def power(self, text: str) -> str | None:
        """The power ``text`` names, by its name, adjective or a part of either: never by
        the map's guess at a typo (``PRUSSIAN`` is no Russian unit: a condition read as
        another power's would decide the orders silently)."""
        power = self.map.find_power(text)
        if power is None:
            return None
        word = normalise_name(text)
        names = (normalise_name(power), normalise_name(self.map.power_adjective[power]))
        if len(word) == 1 or any(name.startswith(word) for name in names):
            return power
        return None


def _tokens(text: str) -> list[str]:
    """The words and parentheses of ``text``; ``ValueError`` past the bounds.

    >>> _tokens("NOT(A Mun)")
    ['NOT', '(', 'A', 'Mun', ')']
    """
    if len(text) > MAX_TEXT:
        raise ValueError(f"the condition is longer than {MAX_TEXT} characters; shorten it")
    tokens: list[str] = []
    for match in _TOKEN.finditer(text):
        if len(tokens) == MAX_TOKENS:
            raise ValueError(f"the condition has more than {MAX_TOKENS} words; shorten it")
        tokens.append(match.group())
    return tokens


def parse_condition(text: str, game_map: Map) -> Condition:
    """The condition written in ``text``; ``ValueError`` naming the bad word otherwise.

    >>> from judge.engine.board import standard_map
    >>> parse_condition("German F Kie or not Bel owned by France", standard_map())
    Any(parts=(UnitPresent(power='Germany', type=<UnitType.FLEET: 'F'>, location='kie'), \
Not(inner=CentreOwned(centre='bel', power='France'))))
    """
    # The zine's notation for a unit, A(Par) or F(StP/nc), read as A Par: checked
    # against the bound first, so the substitution's pass is bounded too.
    tokens = _tokens(text)
    tokens = _tokens(_ZINE_UNIT.sub(r"\1 \2", text)) if "(" in text else tokens
    if not tokens:
        raise ValueError("the condition is empty; write e.g. 'A Mun' or 'Bel OWNED'")
    parser = _Parser(tokens, game_map)
    condition = parser.parse_or(0)
    if parser.at < len(tokens):
        word = tokens[parser.at]
        if word == ")":
            raise ValueError(f"')' {parser.after()} closes no '('")
        raise ValueError(f"expected AND, OR or the end {parser.after()}, found {word!r}")
    return condition


def holds(condition: Condition, position: Position) -> bool:
    """Whether ``condition`` is true in ``position``.

    >>> from judge.engine.board import standard_map
    >>> from judge.engine.position import Position
    >>> holds(UnitPresent("Russia", UnitType.FLEET, "stp/sc"), Position.initial(standard_map()))
    True
    """
    if isinstance(condition, UnitPresent):
        province, _, coast = condition.location.partition("/")
        unit = position.units.get(province)
        return (
            unit is not None
            and (condition.power is None or unit.power == condition.power)
            and (condition.type is None or unit.type is condition.type)
            and (not coast or unit.location == condition.location)
        )
    if isinstance(condition, CentreOwned):
        owner = position.centres.get(condition.centre)
        return owner is not None and (condition.power is None or owner == condition.power)
    if isinstance(condition, Not):
        return not holds(condition.inner, position)
    if isinstance(condition, All):
        return all(holds(part, position) for part in condition.parts)
    return any(holds(part, position) for part in condition.parts)


@dataclass(frozen=True, slots=True)
class Branch:
    """One ``IF`` or ``ELSE IF`` branch: its condition as written and read, and its items."""

    text: str
    condition: Condition
    items: tuple[Item, ...]


@dataclass(frozen=True, slots=True)
class IfBlock:
    """An ``IF`` ... ``ENDIF`` block: the branches in order, then the ``ELSE`` items
    (``None`` when there is no ``ELSE``)."""

    branches: tuple[Branch, ...]
    otherwise: tuple[Item, ...] | None


#: An order line (kept as written, stripped) or a block.
Item = str | IfBlock


@dataclass
class _Open:
    """An IF block being read: its finished branches and the one being filled."""

    line: int
    branches: list[Branch]
    text: str | None  # the open branch's condition text; None once in ELSE
    condition: Condition | None
    items: list[Item]
    otherwise: list[Item] | None = None

    def close_branch(self) -> None:
        if self.text is not None and self.condition is not None:
            self.branches.append(Branch(self.text, self.condition, tuple(self.items)))
        self.items = []

    def block(self) -> IfBlock:
        if self.otherwise is None:
            self.close_branch()
            return IfBlock(tuple(self.branches), None)
        return IfBlock(tuple(self.branches), tuple(self.otherwise))


def _condition_of(rest: str, number: int, line: str, game_map: Map) -> tuple[str, Condition]:
    """The condition of an IF / ELSE IF line (an optional THEN dropped)."""
    words = rest.split()
    if words and words[-1].lower() == "then":
        words = words[:-1]
    text = " ".join(words)
    if not text:
        raise ValueError(f"line {number}: {line!r} has no condition; write e.g. 'IF A Mun'")
    try:
        return text, parse_condition(text, game_map)
    except ValueError as error:
        raise ValueError(f"line {number}: {line!r}: {error}") from None


def block_keyword(line: str) -> tuple[str, str]:
    """The non-blank line's block keyword (``if``, ``else``, ``endif``, or its first word
    in lower case) and the rest of the line; ``ELSEIF``/``ELSIF`` are ``else`` with
    ``if`` ahead of the rest, ``END IF`` is ``endif``.

    >>> block_keyword("End If"), block_keyword("ELSIF A Mun")
    (('endif', ''), ('else', 'if A Mun'))
    """
    first, *tail = line.split(None, 1)  # any whitespace after the keyword (a tab too)
    rest = tail[0] if tail else ""
    keyword = first.lower()
    if keyword in ("elseif", "elsif"):
        return "else", f"if {rest}"
    if keyword == "end":
        second, *after = rest.split(None, 1) or [""]
        if second.lower() == "if":
            return "endif", after[0] if after else ""
    return keyword, rest


def parse_blocks(lines: Iterable[str], game_map: Map, first: int = 1) -> list[Item]:
    """Read ``IF`` / ``ELSE IF`` / ``ELSE`` / ``ENDIF`` blocks (any case, nestable; also
    spelt ``ELSEIF``, ``ELSIF`` and ``END IF``) out of ``lines``; every other non-blank
    line is an order line, kept as written (stripped).

    Errors raise ``ValueError`` naming the line (counted from ``first``, the number of
    the first of ``lines`` in the message they come from): an ``ELSE``, ``ELSE IF``
    or ``ENDIF`` without its ``IF``, an ``ELSE IF`` after the ``ELSE``, a second ``ELSE``,
    an ``IF`` left without ``ENDIF``, a bad condition, blocks nested too deep.

    >>> from judge.engine.board import standard_map
    >>> parse_blocks(["A Par H", "if Bel owned then", "F Bre-Mao", "endif"], standard_map())
    ['A Par H', IfBlock(branches=(Branch(text='Bel owned', \
condition=CentreOwned(centre='bel', power=None), items=('F Bre-Mao',)),), otherwise=None)]
    """
    top: list[Item] = []
    stack: list[_Open] = []

    def target() -> list[Item]:
        if not stack:
            return top
        block = stack[-1]
        return block.otherwise if block.otherwise is not None else block.items

    for number, raw in enumerate(lines, first):
        line = raw.strip()
        if not line:
            continue
        keyword, rest = block_keyword(line)
        if keyword == "if":
            if len(stack) >= MAX_DEPTH:
                raise ValueError(f"line {number}: IF blocks nest more than {MAX_DEPTH} deep")
            text, condition = _condition_of(rest, number, line, game_map)
            stack.append(_Open(number, [], text, condition, []))
        elif keyword == "else":
            if not stack:
                raise ValueError(f"line {number}: {line!r} without IF")
            block = stack[-1]
            second, *after = rest.split(None, 1) or [""]
            more = after[0] if after else ""
            if block.otherwise is not None:
                raise ValueError(
                    f"line {number}: {line!r} after the ELSE of the IF on line {block.line}"
                )
            if second.lower() == "if":
                text, condition = _condition_of(more, number, line, game_map)
                block.close_branch()
                block.text, block.condition = text, condition
            elif second:
                raise ValueError(
                    f"line {number}: {line!r}: expected 'ELSE' alone or 'ELSE IF <condition>'"
                )
            else:
                block.close_branch()
                block.text = block.condition = None
                block.otherwise = []
        elif keyword == "endif":
            if rest.strip():
                raise ValueError(f"line {number}: {line!r}: expected 'ENDIF' alone")
            if not stack:
                raise ValueError(f"line {number}: {line!r} without IF")
            done = stack.pop().block()
            target().append(done)
        else:
            target().append(line)
    if stack:
        raise ValueError(f"line {stack[-1].line}: IF without ENDIF")
    return top


def choose(items: Sequence[Item], position: Position) -> list[str]:
    """The order lines of ``items`` with each block resolved in ``position``: the first
    branch whose condition holds, else the ``ELSE`` items, else nothing.

    >>> from judge.engine.board import standard_map
    >>> from judge.engine.position import Position
    >>> m = standard_map()
    >>> items = parse_blocks(["IF F Kie", "IF A Mun", "A Mun-Bur", "ENDIF", "ENDIF"], m)
    >>> choose(items, Position.initial(m))
    ['A Mun-Bur']
    """
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.append(item)
            continue
        index = taken(item, position)
        if index is not None:
            out.extend(choose(_branch_items(item, index), position))
    return out


def _branch_items(block: IfBlock, index: int) -> Sequence[Item]:
    """The items of the branch :func:`taken` names by ``index`` (the ``ELSE`` past the
    last ``ELSE IF``)."""
    if index == len(block.branches):
        assert block.otherwise is not None
        return block.otherwise
    return block.branches[index].items


def taken(block: IfBlock, position: Position) -> int | None:
    """Which branch of ``block`` ``position`` takes: the index of the first branch whose
    condition holds, ``len(block.branches)`` for the ``ELSE``, ``None`` for none."""
    for index, branch in enumerate(block.branches):
        if holds(branch.condition, position):
            return index
    return len(block.branches) if block.otherwise is not None else None


#: What :func:`outline` writes after the line of the branch taken.
TAKEN = "  <- taken"
#: What :func:`outline` writes after the ENDIF of a block that took no branch.
NONE_TAKEN = "  <- no branch taken"


def outline(items: Sequence[Item], position: Position | None = None, indent: str = "") -> list[str]:
    """``items`` written out again, one line each, each level of blocks indented by two
    spaces; with ``position``, the branch each block takes there is marked (:data:`TAKEN`,
    :data:`NONE_TAKEN`), and the blocks inside a branch not taken are not decided.

    >>> from judge.engine.board import standard_map
    >>> from judge.engine.position import Position
    >>> m = standard_map()
    >>> items = parse_blocks(["IF NOT A Mun", "A Ber-Mun", "ELSE", "A Mun-Ruh", "ENDIF"], m)
    >>> print("\\n".join(outline(items, Position.initial(m))))
    IF NOT A Mun
      A Ber-Mun
    ELSE  <- taken
      A Mun-Ruh
    ENDIF
    """
    out: list[str] = []
    for item in items:
        if isinstance(item, str):
            out.append(indent + item)
            continue
        chosen = None if position is None else taken(item, position)
        inner = indent + "  "
        for index, branch in enumerate(item.branches):
            word = "IF" if index == 0 else "ELSE IF"
            mark = TAKEN if chosen == index else ""
            out.append(f"{indent}{word} {branch.text}{mark}")
            out.extend(outline(branch.items, position if chosen == index else None, inner))
        if item.otherwise is not None:
            mark = TAKEN if chosen == len(item.branches) else ""
            out.append(f"{indent}ELSE{mark}")
            chosen_else = chosen == len(item.branches)
            out.extend(outline(item.otherwise, position if chosen_else else None, inner))
        none = position is not None and chosen is None
        out.append(f"{indent}ENDIF{NONE_TAKEN if none else ''}")
    return out
