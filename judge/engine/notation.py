"""The order language, both ways: reading what players write and printing orders.

Reading accepts the syntax of the PBEM judges (``A Par-Bur``, ``army paris moves to
burgundy``, ``F NTH C A Lon-Nwy``, ``A Par P Ge``, ``Build F StP/NC``, ...), the
zine house-rule notation (``A(Mun) S A(Ruh)-Bur``), the long form the judges print in
results (``Army Paris -> Burgundy``) and the DPP/DAIDE token form
(``(ENG FLT LON) MTO NTH``).  Everything is case-insensitive; province names are
matched against the map's names and aliases, multi-word names included.

Reading only knows the map, never the position: whether there is an army in Paris is
checked later by the legality module.  Problems raise :class:`OrderSyntaxError` (or
:class:`AmbiguousOrderError`) with a message that quotes the input and says what would
be right.

Printing gives the long form of the njudge results (``Army Paris -> Burgundy``) or a
short form (``A par-bur``); both read back to an equal order.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NoReturn

from judge.engine.board import Map, normalise_name, standard_map
from judge.engine.errors import (
    AmbiguousOrderError,
    IllegalOrderError,
    OrderError,
    OrderSyntaxError,
)
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
from judge.engine.phases import PhaseKind
from judge.engine.units import UnitType

__all__ = [
    "MAX_ORDERS",
    "MAX_WORD_LENGTH",
    "UNIT_ONLY",
    "AmbiguousOrderError",
    "OrderSyntaxError",
    "ParsedOrder",
    "format_order",
    "implied_orders",
    "parse_fast",
    "parse_order",
    "parse_order_with_power",
    "parse_orders",
    "parse_words",
]


@dataclass(frozen=True, slots=True)
class ParsedOrder:
    """One piece of a message read by :func:`parse_orders`.

    ``text`` is the piece as written (stripped); ``power`` the power the player named for
    it (a ``England:`` prefix, or the power inside a DAIDE unit), as the map's canonical
    name, else ``None``; exactly one of ``order`` and ``error`` is set.
    """

    text: str
    power: str | None
    order: Order | None
    error: OrderError | None

    @property
    def ok(self) -> bool:
        """Whether the piece was read as an order."""
        return self.order is not None


#: The error code of a piece that is only a unit or a place (``A Par``, ``Brest``) in a
#: movement or retreat phase: not an order, and a mail reader may list it among the
#: lines it did not read rather than as a refused order.
UNIT_ONLY = "UNIT_ONLY"


# -- vocabulary -----------------------------------------------------------------------

_TYPES = {"a": UnitType.ARMY, "army": UnitType.ARMY, "f": UnitType.FLEET, "fleet": UnitType.FLEET}
_HOLD = frozenset({"h", "hold", "holds", "stand", "stands"})
_MOVE = frozenset({"m", "move", "moves", "to"})
_SUPPORT = frozenset({"s", "support", "supports"})
_CONVOY = frozenset({"c", "convoy", "convoys"})
_PROXY = frozenset({"p", "proxy", "proxies"})
_RETREAT = frozenset({"retreat", "retreats"})
_DISBAND = frozenset({"d", "disband", "disbands"})
_BUILD = frozenset({"b", "build", "builds"})
_REMOVE = frozenset({"r", "remove", "removes"})
_WAIVE = frozenset({"w", "waive", "waives"})
_VIA = frozenset({"via", "by"})
_ARTICLES = frozenset({"an", "the"})
_FILLERS = frozenset({"in", "at"})
_KEYWORDS = (
    frozenset(_TYPES)
    | _HOLD
    | _MOVE
    | _SUPPORT
    | _CONVOY
    | _PROXY
    | _RETREAT
    | _DISBAND
    | _BUILD
    | _REMOVE
    | _WAIVE
    | _VIA
)

# Coast spellings, normalised: always accepted, and accepted only after '/' or '('.
_COASTS = {
    "nc": "nc",
    "sc": "sc",
    "ec": "ec",
    "wc": "wc",
    "ncs": "nc",
    "scs": "sc",
    "ecs": "ec",
    "wcs": "wc",
    "northcoast": "nc",
    "southcoast": "sc",
    "eastcoast": "ec",
    "westcoast": "wc",
}
_DELIMITED_COASTS = {
    **_COASTS,
    "n": "nc",
    "s": "sc",
    "e": "ec",
    "w": "wc",
    "north": "nc",
    "south": "sc",
    "east": "ec",
    "west": "wc",
}
_COAST_WORDS = {"nc": "north coast", "sc": "south coast", "ec": "east coast", "wc": "west coast"}


def _coast_word(location: str) -> str:
    """``'spa/nc'`` -> ``'north coast'``."""
    code = location.split("/", 1)[-1]
    return _COAST_WORDS.get(code, f"{code} coast")


_TOKEN_RE = re.compile(
    r"(?P<ws>\s+)"
    r"|(?P<word>[^\W_]+)"
    # A run of hyphens is one match (an arrow if '>' ends it, else one dash each):
    # trying "-+>" from every hyphen of a long run rescanned it, in quadratic time.
    r"|(?P<hyphens>-+>?)"
    r"|(?P<arrow>=+>|→|⇒|⟶|>)"
    r"|(?P<dash>[-‐‑‒–—−])"  # noqa: RUF001 - the dashes people paste from word processors
    r"|(?P<open>[(\[{])"
    r"|(?P<close>[)\]}])"
    r"|(?P<slash>[/\\])"
    r"|(?P<skip>[.'’‘`\"!?*])"  # noqa: RUF001
    r"|(?P<other>.)",
    re.DOTALL,
)

_MAX_NAME_WORDS = 6
_QUOTE_LIMIT = 60
#: The longest word an order may hold: longer than any province, power or order word (the
#: map's fuzzy matching stops well before), so a longer one is refused as such, never
#: looked up (a word of 8,000 letters once cost gigabytes of typo variants).
MAX_WORD_LENGTH = 64
#: The most orders :func:`parse_orders` reads from one text (more than any power has
#: units); the rest is one error saying it was not read, so a long line of short
#: pieces ("A Par, A Par, ...") costs a bounded time.
MAX_ORDERS = 100


def _q(text: str) -> str:
    """Quote ``text`` for a message, shortened when very long."""
    if len(text) > _QUOTE_LIMIT:
        text = text[: _QUOTE_LIMIT - 3] + "..."
    return repr(text)


# -- per-map tables -------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tables:
    """Lookups derived from a map, built once per map object."""

    daide_location: dict[str, str]  # 'ECH' -> 'eng' (provinces only)
    daide_power: dict[str, str]  # 'ENG' -> 'England'
    adjectives: frozenset[str]  # 'english', ...
    #: What the fast paths made of a line already read, one table a phase kind (none,
    #: movement, retreat, adjustment: see :func:`parse_fast`); the same text always reads
    #: the same on one map, and a game repeats its orders a lot.
    fast: tuple[dict[str, Order | None], ...]


#: The most lines each map's ``fast`` memo keeps (more than the distinct orders of many
#: games; a stream of new ones is still read, just not remembered).
_FAST_MEMO_LIMIT = 8192

_TABLES: dict[int, tuple[Map, _Tables]] = {}


def _tables(game_map: Map) -> _Tables:
    cached = _TABLES.get(id(game_map))
    if cached is not None and cached[0] is game_map:
        return cached[1]
    daide_location = {
        token.upper(): location for location, token in game_map.daide.items() if "/" not in location
    }
    daide_power = {token.upper(): power for power, token in game_map.power_daide.items()}
    adjectives = frozenset(adj.lower() for adj in game_map.power_adjective.values())
    tables = _Tables(daide_location, daide_power, adjectives, ({}, {}, {}, {}))
    _TABLES[id(game_map)] = (game_map, tables)
    return tables


def _find_power(game_map: Map, written: str, whole: str) -> str | None:
    """The power ``written`` names, ``None`` if none; ambiguous prefixes raise.

    The map accepts a prefix of two or more letters that belongs to one power only; a
    prefix shared by two powers is reported as ambiguous, naming both.
    """
    power = game_map.find_power(written)
    if power is not None:
        return power
    word = normalise_name(written)
    if len(word) < 2:
        return None
    owners = sorted(
        pw
        for pw in game_map.powers
        if normalise_name(pw).startswith(word)
        or normalise_name(game_map.power_adjective[pw]).startswith(word)
    )
    if len(owners) > 1:
        raise AmbiguousOrderError(
            f"{_q(whole)}: {written!r} could be {' or '.join(owners)}; "
            "write more letters of the power's name",
            text=whole,
        )
    return None


# -- tokens ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Tok:
    """A token: ``kind`` is 'word', 'arrow', 'dash', '(', ')' or '/'."""

    kind: str
    raw: str

    @property
    def low(self) -> str:
        return self.raw.lower()

    @property
    def is_word(self) -> bool:
        return self.kind == "word"

    @property
    def is_move_symbol(self) -> bool:
        return self.kind in ("arrow", "dash")


def _tokenize(text: str, whole: str) -> list[_Tok]:
    tokens: list[_Tok] = []
    for m in _TOKEN_RE.finditer(text):
        group = m.lastgroup
        if group in ("ws", "skip"):
            continue
        if group == "other":
            raise OrderSyntaxError(
                f"{_q(whole)}: unexpected character {m.group()!r}; an order is words, "
                "province names and '-', e.g. 'A Par-Bur'",
                text=whole,
            )
        if group == "hyphens":
            run = m.group()
            if run.endswith(">"):
                tokens.append(_Tok("arrow", run))
            else:
                # Two dashes read as any longer run does (a name skips them all, an
                # order finds no destination after the second), so a long run is two
                # tokens, not one a dash for every later search to walk over.
                tokens.extend(_Tok("dash", "-") for _ in run[:2])
            continue
        if group == "word" and m.end() - m.start() > MAX_WORD_LENGTH:
            word = m.group()
            raise OrderSyntaxError(
                f"{_q(whole)}: the word {_q(word)} is {len(word):,} letters long; no name or "
                f"order word is longer than {MAX_WORD_LENGTH} letters (is a space missing?)",
                text=whole,
            )
        kind = {"open": "(", "close": ")", "slash": "/"}.get(group or "", group or "")
        tokens.append(_Tok(kind, m.group()))
    return tokens


# -- the judge syntax -----------------------------------------------------------------


class _Parser:
    """Recursive descent over the tokens of one order in the judge syntax."""

    def __init__(self, whole: str, body: str, game_map: Map, kind: PhaseKind | None) -> None:
        self.whole = whole
        self.body = body.strip()
        self.map = game_map
        self.kind = kind
        self.tables = _tables(game_map)
        self.toks = _tokenize(body, whole)
        self.i = 0

    # token helpers

    def fail(self, message: str) -> NoReturn:
        raise OrderSyntaxError(f"{_q(self.whole)}: {message}", text=self.whole)

    def peek(self, ahead: int = 0) -> _Tok | None:
        j = self.i + ahead
        return self.toks[j] if j < len(self.toks) else None

    def at_end(self) -> bool:
        return self.i >= len(self.toks)

    def word(self, ahead: int = 0) -> str | None:
        tok = self.peek(ahead)
        return tok.low if tok is not None and tok.is_word else None

    def take_word(self, words: frozenset[str]) -> str | None:
        w = self.word()
        if w is not None and w in words:
            self.i += 1
            return w
        return None

    def take_kind(self, kind: str) -> bool:
        tok = self.peek()
        if tok is not None and tok.kind == kind:
            self.i += 1
            return True
        return False

    def at_move(self) -> bool:
        tok = self.peek()
        return tok is not None and (tok.is_move_symbol or (tok.is_word and tok.low in _MOVE))

    def take_move(self) -> bool:
        """Take a move word or symbol (``-``, ``->``, ``moves to``, ``to``)."""
        if not self.at_move():
            return False
        self.i += 1
        self.take_word(frozenset({"to"}))
        return True

    def rest_text(self) -> str:
        return " ".join(t.raw for t in self.toks[self.i :])

    def expect_end(self) -> None:
        tok = self.peek()
        if tok is not None:
            self.fail(
                f"unexpected {tok.raw!r} after a complete order "
                f"(the rest was {_q(self.rest_text())})"
            )

    # orders

    def parse(self) -> Order:
        if self.at_end():
            self.fail("no order given; write a unit and what it does, e.g. 'A Par-Bur'")
        keyword = self.take_word(_BUILD | _REMOVE | _DISBAND | _WAIVE)
        if keyword is not None and keyword in _WAIVE:
            return self.parse_waive()
        if keyword is not None:
            unit_type, location = self.parse_unit("the unit")
            self.expect_end()
            return self.adjustment(keyword, unit_type, location)
        unit_type, location = self.parse_unit("the unit")
        if self.at_end():
            if self.kind is PhaseKind.ADJUSTMENT:
                return Build(unit_type, location, implied=True)
            self.fail_unit_only()
        if self.at_move():
            return self.parse_move(unit_type, location, retreat=self.kind is PhaseKind.RETREAT)
        w = self.word()
        if w in _RETREAT:
            self.i += 1
            return self.parse_move(unit_type, location, retreat=True)
        if w in _HOLD:
            self.i += 1
            self.expect_end()
            return Hold(unit_type, location)
        if w in _SUPPORT:
            self.i += 1
            return self.parse_support(unit_type, location)
        if w in _CONVOY:
            self.i += 1
            return self.parse_convoy(unit_type, location)
        if w in _PROXY:
            self.i += 1
            return self.parse_proxy(unit_type, location)
        if w in _WAIVE:
            self.i += 1
            self.expect_end()
            return Waive(unit_type, location)
        if w is not None and w in _BUILD | _REMOVE | _DISBAND:
            self.i += 1
            self.expect_end()
            return self.adjustment(w, unit_type, location)
        self.fail(self.what_next_message())

    def fail_unit_only(self) -> NoReturn:
        """A unit or a place alone: not an order outside adjustments (a hold needs its
        ``H``), so that a signature's "Brest, France" is never taken for a hold."""
        # The unit as written, or as read when what was written is long (a run of
        # punctuation the tokenizer skips): a message quotes a line's worth at most.
        body = self.body
        if len(body) > _QUOTE_LIMIT:
            body = " ".join(t.raw for t in self.toks)[:_QUOTE_LIMIT]
        if self.kind is PhaseKind.RETREAT:
            choices = f"'{body} - <province>' to retreat or '{body} D' to disband"
        else:
            choices = f"'{body} H' to hold it, or say what else it does (-, S, C)"
        raise OrderSyntaxError(
            f"{_q(self.whole)}: a unit or a place alone is not an order; write {choices}",
            text=self.whole,
            code=UNIT_ONLY,
        )

    def what_next_message(self) -> str:
        tok = self.peek()
        assert tok is not None
        seen = tok.raw
        if self.kind is PhaseKind.RETREAT:
            choices = "'-' and a province (retreat) or 'D' (disband)"
        elif self.kind is PhaseKind.ADJUSTMENT:
            choices = "'Build A Par', 'Remove F Tri' or 'Waive'"
        else:
            choices = "H (hold), '-' and a province (move), S (support), C (convoy) or P (proxy)"
        if tok.is_word and tok.low not in _KEYWORDS and self.find_name() is not None:
            return (
                f"{seen!r} follows the unit without an order word; after the unit write {choices}"
            )
        return f"{seen!r} is not an order word here; after the unit write {choices}"

    def adjustment(self, keyword: str, unit_type: UnitType | None, location: str) -> Order:
        if keyword in _BUILD:
            return Build(unit_type, location)
        if keyword in _DISBAND:
            if self.kind is PhaseKind.ADJUSTMENT:
                return Remove(unit_type, location)
            return Disband(unit_type, location)
        # remove
        if self.kind is PhaseKind.RETREAT:
            return Disband(unit_type, location)
        return Remove(unit_type, location)

    def parse_waive(self) -> Order:
        if self.at_end():
            return Waive()
        unit_type, location = self.parse_unit("the centre")
        self.expect_end()
        return Waive(unit_type, location)

    def parse_move(
        self,
        unit_type: UnitType | None,
        location: str,
        *,
        retreat: bool,
    ) -> Order:
        points: list[str] = []
        self.take_move()
        while True:
            if self.at_end():
                example = "'F Tri-Alb'" if retreat else "'A Par-Bur'"
                self.fail(f"the move has no destination; write e.g. {example}")
            points.append(self.parse_location("the destination"))
            if not self.take_move():
                break
        via = self.take_via()
        self.expect_end()
        destination, route = points[-1], tuple(points[:-1])
        if retreat:
            if route or via:
                # Well formed, but no retreat may be convoyed: DAIDE's "not a valid retreat".
                raise IllegalOrderError(
                    f"{_q(self.whole)}: a retreat cannot go by convoy; "
                    f"write just the destination, e.g. 'F Tri-Alb'",
                    text=self.whole,
                    code="NVR",
                )
            return Retreat(unit_type, location, destination)
        for sea in route:
            if "/" in sea or not self.map.is_sea(sea):
                self.fail(
                    f"{self.map.location_name(sea)!r} in the convoy route is not a sea "
                    "province; a route lists the seas the army crosses, e.g. 'A Lon-NTH-Nwy'"
                )
        return Move(unit_type, location, destination, via_convoy=via or bool(route), route=route)

    def take_via(self) -> bool:
        start = self.i
        paren = self.take_kind("(")
        if self.take_word(_VIA) is None:
            self.i = start
            return False
        self.take_word(_CONVOY)
        if paren and not self.take_kind(")"):
            self.fail("'(via convoy' is missing its ')'")
        return True

    def parse_support(self, unit_type: UnitType | None, location: str) -> Order:
        if self.at_end():
            self.fail("the support names no unit to support; write e.g. 'A Mun S A Ruh-Bur'")
        target_type, target = self.parse_unit("the supported unit")
        if self.at_end():
            return SupportHold(unit_type, location, target_type, target)
        if self.take_word(_HOLD) is not None:
            self.expect_end()
            return SupportHold(unit_type, location, target_type, target)
        if self.take_move():
            if self.at_end():
                self.fail("the supported move has no destination; write e.g. 'A Mun S A Ruh-Bur'")
            destination = self.parse_location("the destination")
            self.expect_end()
            return SupportMove(unit_type, location, target_type, target, destination)
        tok = self.peek()
        assert tok is not None
        self.fail(
            f"unexpected {tok.raw!r} after the supported unit; write 'A Mun S A Ruh' "
            "(support in place) or 'A Mun S A Ruh-Bur' (support a move)"
        )

    def parse_convoy(self, unit_type: UnitType | None, location: str) -> Order:
        example = "write e.g. 'F NTH C A Lon-Nwy'"
        if self.at_end():
            self.fail(f"the convoy names no army; {example}")
        target_type, target = self.parse_unit("the convoyed army")
        if not self.take_move() or self.at_end():
            self.fail(f"the convoy order needs the army's destination; {example}")
        destination = self.parse_location("the destination")
        self.take_via()
        self.expect_end()
        return Convoy(unit_type, location, target_type, target, destination)

    def parse_proxy(self, unit_type: UnitType | None, location: str) -> Order:
        self.take_word(frozenset({"to"}))
        names = ", ".join(self.map.powers)
        if self.at_end():
            self.fail(f"the proxy order names no power; write e.g. 'A Par P Ge' ({names})")
        written = self.rest_text()
        if len(normalise_name(written)) < 2:
            # The judges take two or more letters here, not the one-letter initial.
            self.fail(
                f"{written!r} is too short to name a power; write two or more letters of a "
                f"power's name ({names})"
            )
        power = _find_power(self.map, written, self.whole)
        if power is None:
            self.fail(
                f"{written!r} is not a power; write two or more letters of a power's name ({names})"
            )
        return Proxy(unit_type, location, power)

    # units and places

    def parse_unit(self, what: str) -> tuple[UnitType | None, str]:
        """``[article] [adjective] [type] [in] location`` (``the French army in Paris``)."""
        if self.word() in _ARTICLES or (self.word() == "a" and self.word(1) in _TYPES):
            self.i += 1
        if self.word() in self.tables.adjectives and self.word(1) in _TYPES:
            self.i += 1
        unit_type: UnitType | None = None
        w = self.word()
        if w in _TYPES:
            unit_type = _TYPES[w]
            self.i += 1
            if self.word() in _FILLERS and self.peek(1) is not None:
                self.i += 1
        if self.at_end():
            self.fail(f"{what} has no province; write e.g. 'A Par' or 'F StP/NC'")
        return unit_type, self.parse_location(what)

    def find_name(self, start: int | None = None, *, dashes: bool = True) -> tuple[str, int] | None:
        """The longest alias starting at the cursor: (location, number of tokens).

        A name may contain hyphens (``Mid-Atlantic Ocean``), but a hyphen right after a
        complete name that is followed by another name is a move (``Swe-Den`` is not
        ``Sweden``), and a hyphen never joins a province to a coast word.  Order words end
        a name (``Gulf of Lyon S ...`` is not ``Gulf of Lyons``).
        """
        aliases = self.map.aliases
        first = self.i if start is None else start
        parts: list[str] = []
        best: tuple[str, int] | None = None
        crossed = False
        j = first
        while j < len(self.toks) and len(parts) < _MAX_NAME_WORDS:
            tok = self.toks[j]
            if tok.kind == "dash" and parts:
                if not dashes:
                    break
                if (
                    best is not None
                    and best[1] == j - first
                    and self.find_name(j + 1, dashes=False) is not None
                ):
                    break
                crossed = True
                j += 1
                continue
            if not tok.is_word or tok.low in _KEYWORDS:
                break
            parts.append(normalise_name(tok.raw))
            j += 1
            location = aliases.get("".join(parts))
            if location is not None and not (crossed and "/" in location):
                best = (location, j - first)
        return best

    def find_misspelt(self) -> tuple[str, int] | None:
        """A misspelt name at the cursor (the map allows one typo in a long name)."""
        run: list[str] = []
        for t in self.toks[self.i : self.i + _MAX_NAME_WORDS]:
            if not t.is_word or t.low in _KEYWORDS:
                break
            run.append(t.raw)
        for length in range(len(run), 0, -1):
            location = self.map.find_location(" ".join(run[:length]))
            if location is not None:
                return location, length
        return None

    def parse_location(self, what: str) -> str:
        """A province or coast, in any spelling: ``stp/nc``, ``(Mun)``, ``Spain (south coast)``."""
        paren = self.take_kind("(")
        match = self.find_name() or self.find_misspelt()
        if match is None:
            self.fail_not_a_province(what)
        location, length = match
        self.i += length
        province = self.map.province_of(location)
        coast = self.parse_coast(province)
        if paren:
            if not self.take_kind(")"):
                self.fail(f"the '(' before {self.map.location_name(location)!r} is not closed")
            if coast is None:
                coast = self.parse_coast(province)
        if coast is None:
            return location
        name = self.map.province_name.get(province, province)
        coasts = self.map.coasts.get(province, ())
        if coast not in coasts:
            if not coasts:
                self.fail(f"{name} has no coasts to choose from; write just {name!r}")
            have = " and ".join(_coast_word(c) for c in coasts)
            self.fail(f"{name} has no {_coast_word(coast)}; its coasts are the {have}")
        if "/" in location and location != coast:
            self.fail(f"{self.map.location_name(location)!r} is given a second, different coast")
        return coast

    def parse_coast(self, province: str) -> str | None:
        """A coast written after ``province`` (``/nc``, ``(sc)``, ``nc``, ``north coast``).

        Gives the coast location (``'stp/nc'``; for a province without that coast, a key
        that is not among its coasts, for the caller to report), or None if no coast is
        written here.  A one-letter coast (``stp/n``) needs the ``/`` or ``(``.
        """
        start = self.i
        delimiter = None
        if self.take_kind("/"):
            delimiter = "/"
        elif self.take_kind("("):
            delimiter = "("
        found: tuple[str, int] | None = None
        parts: list[str] = []
        j = self.i
        while j < len(self.toks) and len(parts) < 3 and self.toks[j].is_word:
            if self.toks[j].low in _KEYWORDS and (parts or not delimiter):
                break
            parts.append(normalise_name(self.toks[j].raw))
            j += 1
            if not delimiter and len(parts[0]) < 2:
                break
            written = "".join(parts)
            # The map knows "<province><coast word>" for each of its coasts ("stpnc").
            location = self.map.aliases.get(province + written)
            if location is not None and location.startswith(province + "/"):
                found = (location, j)
                continue
            code = (_DELIMITED_COASTS if delimiter else _COASTS).get(written)
            if code is not None:
                found = (f"{province}/{code}", j)
        if found is None:
            self.i = start
            return None
        self.i = found[1]
        if delimiter == "(" and not self.take_kind(")"):
            self.i = start
            return None
        return found[0]

    def fail_not_a_province(self, what: str) -> NoReturn:
        tok = self.peek()
        if tok is None:
            self.fail(f"{what} has no province; write e.g. 'A Par' or 'F StP/NC'")
        if not tok.is_word:
            self.fail(f"expected a province name for {what}, found {tok.raw!r}")
        if tok.low in _KEYWORDS:
            self.fail(
                f"expected the province of {what}, found the order word {tok.raw!r}; "
                "an order starts with the unit, e.g. 'A Par-Bur'"
            )
        run: list[str] = []
        for t in self.toks[self.i :]:
            if not t.is_word or t.low in _KEYWORDS:
                break
            run.append(t.raw)
            if len(run) > _MAX_NAME_WORDS * 4:
                break  # enough to quote: the message shows at most a line's worth
        written = " ".join(run)
        self.fail(f"{_q(written)} is not a province name on this map")


# -- DAIDE ----------------------------------------------------------------------------

_DAIDE_START = re.compile(r"^\s*\(\s*(?:[A-Za-z]{3}\s+)?(?:AMY|FLT)\b", re.IGNORECASE)
_DAIDE_WAIVE = re.compile(r"^\s*\(?\s*([A-Za-z]{3})\s*\)?\s+WVE\s*$", re.IGNORECASE)
_DAIDE_TYPES = {"AMY": UnitType.ARMY, "FLT": UnitType.FLEET}
_DaideItem = str | list["_DaideItem"]


def _looks_daide(body: str, game_map: Map) -> bool:
    if _DAIDE_START.match(body):
        return True
    w = _DAIDE_WAIVE.match(body)
    return w is not None and w.group(1).upper() in _tables(game_map).daide_power


class _Daide:
    """Reads the DPP/DAIDE token form, ``(ENG FLT LON) MTO NTH``."""

    def __init__(self, whole: str, body: str, game_map: Map, kind: PhaseKind | None) -> None:
        self.whole = whole
        self.body = body
        self.map = game_map
        self.kind = kind
        self.tables = _tables(game_map)

    def fail(self, message: str) -> NoReturn:
        raise OrderSyntaxError(f"{_q(self.whole)}: {message}", text=self.whole)

    def tree(self) -> list[_DaideItem]:
        stack: list[list[_DaideItem]] = [[]]
        for token in re.findall(r"\(|\)|[^\s()]+", self.body):
            if token == "(":
                inner: list[_DaideItem] = []
                stack[-1].append(inner)
                stack.append(inner)
            elif token == ")":
                if len(stack) == 1:
                    self.fail("a ')' has no matching '('")
                stack.pop()
            else:
                stack[-1].append(token.upper())
        if len(stack) != 1:
            self.fail("a '(' is not closed")
        return stack[0]

    def power(self, item: _DaideItem) -> str:
        if isinstance(item, str) and item in self.tables.daide_power:
            return self.tables.daide_power[item]
        self.fail(f"{_show(item)!r} is not a power token (ENG, FRA, ...)")

    def location(self, item: _DaideItem, what: str) -> str:
        if isinstance(item, list):
            if len(item) == 2 and isinstance(item[1], str):
                province = self.location(item[0], what)
                key = self.map.aliases.get(province + normalise_name(item[1]))
                if key is None or self.map.province_of(key) != province or "/" not in key:
                    self.fail(
                        f"{_show(item)!r}: {self.map.location_name(province)} has no coast "
                        f"{item[1]!r}"
                    )
                return key
            self.fail(f"{_show(item)!r} is not a province or a coast like (STP NCS) for {what}")
        location = self.tables.daide_location.get(item)
        if location is None and item not in self.tables.daide_power:
            location = self.map.aliases.get(normalise_name(item))
            if location is not None and "/" in location:
                location = None
        if location is None:
            self.fail(f"{item!r} is not a province token of this map (for {what})")
        return location

    def unit(self, item: _DaideItem, what: str) -> tuple[str | None, UnitType, str]:
        if not isinstance(item, list) or len(item) not in (2, 3):
            self.fail(f"{what} should be a unit like (ENG FLT LON), found {_show(item)!r}")
        power = self.power(item[0]) if len(item) == 3 else None
        type_token = item[-2]
        if not isinstance(type_token, str) or type_token not in _DAIDE_TYPES:
            self.fail(f"{_show(type_token)!r} in {what} is not AMY or FLT")
        return power, _DAIDE_TYPES[type_token], self.location(item[-1], what)

    def parse(self) -> tuple[str | None, Order]:
        items = self.tree()
        if len(items) == 2 and items[1] == "WVE":
            head = items[0]
            if isinstance(head, list) and len(head) == 1:
                head = head[0]
            return self.power(head), Waive()
        if not items:
            self.fail("empty DAIDE order")
        power, unit_type, location = self.unit(items[0], "the ordered unit")
        if len(items) < 2 or not isinstance(items[1], str):
            self.fail("the unit is not followed by an order token (HLD, MTO, SUP, CVY, ...)")
        verb, args = items[1], items[2:]
        order = self.order(verb, args, unit_type, location)
        return power, order

    def order(self, verb: str, args: list[_DaideItem], unit_type: UnitType, location: str) -> Order:
        def no_more(count: int) -> None:
            if len(args) > count:
                self.fail(f"unexpected {_show(args[count])!r} after {verb}")

        def need(count: int, example: str) -> None:
            if len(args) < count:
                self.fail(f"{verb} needs more, e.g. {example!r}")

        if verb == "HLD":
            no_more(0)
            return Hold(unit_type, location)
        if verb in ("MTO", "RTO"):
            need(1, f"{verb} NTH")
            no_more(1)
            destination = self.location(args[0], "the destination")
            if verb == "RTO" or self.kind is PhaseKind.RETREAT:
                return Retreat(unit_type, location, destination)
            return Move(unit_type, location, destination)
        if verb == "CTO":
            need(1, "CTO SYR VIA (ION EMS)")
            destination = self.location(args[0], "the destination")
            route: tuple[str, ...] = ()
            if len(args) > 1:
                if args[1] != "VIA" or len(args) != 3 or not isinstance(args[2], list):
                    self.fail("after CTO and the destination write VIA (sea sea ...)")
                route = tuple(self.location(sea, "the convoy route") for sea in args[2])
                for sea in route:
                    if not self.map.is_sea(sea):
                        self.fail(
                            f"{self.map.location_name(sea)!r} in the convoy route is not a sea"
                        )
            return Move(unit_type, location, destination, via_convoy=True, route=route)
        if verb == "SUP":
            need(1, "SUP (ENG FLT LON) MTO NTH")
            _, target_type, target = self.unit(args[0], "the supported unit")
            if len(args) == 1:
                return SupportHold(unit_type, location, target_type, target)
            if args[1] != "MTO" or len(args) != 3:
                self.fail("a supported move is written SUP (unit) MTO province")
            destination = self.location(args[2], "the destination")
            return SupportMove(unit_type, location, target_type, target, destination)
        if verb == "CVY":
            need(3, "CVY (ITA AMY TUN) CTO SYR")
            _, target_type, target = self.unit(args[0], "the convoyed army")
            if args[1] != "CTO":
                self.fail("a convoy is written CVY (unit) CTO province")
            no_more(3)
            destination = self.location(args[2], "the destination")
            return Convoy(unit_type, location, target_type, target, destination)
        if verb == "DSB":
            no_more(0)
            if self.kind is PhaseKind.ADJUSTMENT:
                return Remove(unit_type, location)
            return Disband(unit_type, location)
        if verb == "BLD":
            no_more(0)
            return Build(unit_type, location)
        if verb == "REM":
            no_more(0)
            if self.kind is PhaseKind.RETREAT:
                return Disband(unit_type, location)
            return Remove(unit_type, location)
        self.fail(
            f"{verb!r} is not an order token; use HLD, MTO, SUP, CVY, CTO, RTO, DSB, BLD, REM "
            "or WVE"
        )


def _show(item: _DaideItem) -> str:
    if isinstance(item, str):
        return item
    return "(" + " ".join(_show(i) for i in item) + ")"


# -- entry points ---------------------------------------------------------------------

_PREFIX_RE = re.compile(r"^([^:]*):(.*)$", re.DOTALL)


def _split_power(text: str, game_map: Map, whole: str) -> tuple[str | None, str]:
    """Split a ``Power:`` prefix from ``text`` (a piece of ``whole``)."""
    m = _PREFIX_RE.match(text)
    if m is None:
        return None, text
    written = m.group(1).strip()
    power = _find_power(game_map, written, whole) if written else None
    if power is None:
        names = ", ".join(game_map.powers)
        raise OrderSyntaxError(
            f"{_q(whole)}: {written!r} before ':' is not a power; write e.g. "
            f"'England: F Lon-NTH' ({names})",
            text=whole,
        )
    return power, m.group(2)


# The canonical short form (what ``format_order(short=True)`` writes, and what the judge
# stores) is read by one regular expression instead of the general parser: the judge
# re-reads every stored order at each deadline, and batch tools send this form.
_LOC = r"[a-z]{3}(?:/[a-z]{2})?"
_FAST = re.compile(
    rf"^(?:(?P<keyword>build|remove) )?(?P<type>[af]) (?P<loc>{_LOC})"
    rf"(?:(?P<move>-(?P<dest>{_LOC})(?P<via> via convoy)?)|(?P<hold> h)|(?P<disband> d)"
    rf"|(?P<verb> [sc]) (?P<ttype>[af]) (?P<target>{_LOC})(?:-(?P<tdest>{_LOC}))?)?$"
)
_FAST_TYPES = {"a": UnitType.ARMY, "f": UnitType.FLEET}


_G = {name: index - 1 for name, index in _FAST.groupindex.items()}
(_F_KEYWORD, _F_TYPE, _F_LOCG, _F_MOVE, _F_DEST, _F_VIA) = (
    _G[n] for n in ("keyword", "type", "loc", "move", "dest", "via")
)
(_F_HOLD, _F_DISBAND, _F_VERB, _F_TTYPE, _F_TARGET, _F_TDEST) = (
    _G[n]
    for n in ("hold", "disband", "verb", "ttype", "target", "tdest")
)  # fmt: skip


def parse_short(text: str, game_map: Map, kind: PhaseKind | None = None) -> Order | None:
    """The order if ``text`` is in the canonical short form (``A par-bur``), else ``None``.

    A fast path for what the judge itself writes; anything else goes to the full parser.

    >>> parse_short("F stp/nc-bar", standard_map())  # doctest: +ELLIPSIS
    Move(unit_type=<UnitType.FLEET: 'F'>, location='stp/nc', destination='bar', ...)
    >>> parse_short("Army Paris -> Burgundy", standard_map()) is None
    True
    """
    m = _FAST.match(text.strip().lower())
    if m is None:
        return None
    g = m.groups()
    known = game_map.location_keys
    location = known.get(g[_F_LOCG])
    if location is None:
        return None
    unit_type = _FAST_TYPES[g[_F_TYPE]]
    adjusting = kind is PhaseKind.ADJUSTMENT
    keyword = g[_F_KEYWORD]
    if keyword is not None:
        if not adjusting or g[_F_MOVE] or g[_F_HOLD] or g[_F_DISBAND] or g[_F_VERB]:
            return None
        return Build(unit_type, location) if keyword == "build" else Remove(unit_type, location)
    if adjusting:
        return None
    retreating = kind is PhaseKind.RETREAT
    if g[_F_MOVE]:
        dest = known.get(g[_F_DEST])
        if dest is None:
            return None
        if retreating:
            return None if g[_F_VIA] else Retreat(unit_type, location, dest)
        return Move(unit_type, location, dest, g[_F_VIA] is not None)
    if g[_F_HOLD]:
        return None if retreating else Hold(unit_type, location)
    if g[_F_DISBAND]:
        return Disband(unit_type, location) if retreating else None
    verb = g[_F_VERB]
    if verb is None or retreating:
        return None
    target_type = _FAST_TYPES[g[_F_TTYPE]]
    target = known.get(g[_F_TARGET])
    written = g[_F_TDEST]
    dest = known.get(written) if written is not None else None
    if target is None or (written is not None and dest is None):
        return None
    if verb == " c":
        if dest is None:
            return None
        return Convoy(unit_type, location, target_type, target, dest)
    if dest is None:
        return SupportHold(unit_type, location, target_type, target)
    return SupportMove(unit_type, location, target_type, target, dest)


# The common spellings outside the canonical form (``A PAR - BUR``, ``F NTH C A LON - NWY``,
# ``A PAR S A MAR - BUR``, ``A LON - NWY VIA``, ``Army Paris moves to Burgundy``, ``F StP/NC
# -> Bar``) are read by a small reader over words that follows the general parser's own
# rules step by step, but only where they cannot differ: every name is a whole run of
# words that is exactly a name of the map, every word is plain ASCII, and anything the
# general parser would refuse, correct or read in a roundabout way (articles, fillers,
# routes, proxies, parentheses, misspellings, a power prefix, DAIDE) is left to it.  The
# property tests (tests/engine/test_notation_fast.py) hold the two to the same answer.

#: Longest line the word reader looks at (longer than any order it reads).
_WORDS_MAX = 120
#: The characters the word reader accepts at all: ASCII letters, spaces, '-', '>', '/'.
_WORDS_CHARS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ ->/")
#: A move: the dash, the arrow ('->' and '>' are one arrow token to the general parser
#: as here, after '->' is written '>') or a move word.
_MOVE_TOKENS = _MOVE | {"-", ">"}
_COAST_CODES = frozenset({"nc", "sc", "ec", "wc"})
_TO = frozenset({"to"})
#: Tokens that end a name: order words and symbols.
_NAME_STOP = _KEYWORDS | {"-", ">", "/"}


def _words_run(
    toks: list[str], i: int, aliases: dict[str, str], coasts: dict[str, tuple[str, ...]]
) -> tuple[str, int] | None:
    """The location named by the run of plain words at ``toks[i]`` (stopping at an order
    word or a symbol), with an optional ``/nc`` after it: (location, next index), or
    ``None`` unless the whole run is exactly a name of the map (as the general parser's
    longest match then is the whole run too)."""
    n = len(toks)
    if i >= n:
        return None
    first = toks[i]
    j = i + 1
    while j < n and toks[j] not in _NAME_STOP:
        j += 1
    if first in _NAME_STOP or j - i > _MAX_NAME_WORDS or first in _FILLERS or first in _ARTICLES:
        return None
    location = aliases.get(first if j == i + 1 else "".join(toks[i:j]))
    if location is None:
        return None
    if j < n and toks[j] == "/":
        # 'stp/nc': one of the four two-letter codes, for a coast the province has; the
        # general parser's parse_coast reads it the same way.
        if "/" in location or j + 2 > n or toks[j + 1] not in _COAST_CODES:
            return None
        coast = aliases.get(location + toks[j + 1])
        if coast is None or not coast.startswith(location + "/"):
            coast = f"{location}/{toks[j + 1]}"
        return (coast, j + 2) if coast in coasts.get(location, ()) else None
    return location, j


def _words_unit(
    toks: list[str], i: int, aliases: dict[str, str], coasts: dict[str, tuple[str, ...]]
) -> tuple[UnitType, str, int] | None:
    """A unit at ``toks[i]``: its type word, then a name (``A PAR``, ``Fleet North Sea``)."""
    unit_type = _TYPES.get(toks[i]) if i < len(toks) else None
    if unit_type is None:
        return None
    read = _words_run(toks, i + 1, aliases, coasts)
    return None if read is None else (unit_type, read[0], read[1])


def parse_words(text: str, game_map: Map, kind: PhaseKind | None = None) -> Order | None:
    """The order if ``text`` is one of the common plain spellings the general parser reads
    (``A PAR - BUR``, ``F NTH C A LON - NWY``, ``A LON - NWY VIA``, ``A PAR D``, ``WAIVE``,
    ``Army Paris moves to Burgundy``), else ``None`` (then the general parser decides,
    and gives the error if there is one).  Where it gives an order, it is the one the
    general parser gives for the same text and phase kind.

    >>> parse_words("Fleet North Sea convoys Army London to Norway", standard_map())
    ... # doctest: +ELLIPSIS
    Convoy(unit_type=<UnitType.FLEET: 'F'>, location='nth', target_type=<UnitType.ARMY: 'A'>, ...)
    >>> parse_words("A Par R Bur", standard_map(), PhaseKind.RETREAT) is None
    True
    """
    if len(text) > _WORDS_MAX or not _WORDS_CHARS.issuperset(text) or "--" in text:
        return None
    low = text.lower()
    if ">" in low:
        low = low.replace("->", ">").replace(">", " > ")
    if "-" in low:
        low = low.replace("-", " - ")
    if "/" in low:
        low = low.replace("/", " / ")
    toks = low.split()
    n = len(toks)
    if n == 0 or toks[-1] == "wve":  # 'ENG WVE' is DAIDE's
        return None
    aliases = game_map.aliases
    coasts = game_map.coasts
    first = toks[0]
    if first in _WAIVE:
        return Waive() if n == 1 else None
    keyword = None
    i = 0
    if first in _BUILD or first in _REMOVE or first in _DISBAND:
        keyword = first
        i = 1
    if i + 1 < n and toks[i + 1] in _TYPES:
        return None  # 'a army': the general parser skips an article
    head = _words_unit(toks, i, aliases, coasts)
    if head is None:
        return None
    unit_type, location, i = head
    if keyword is not None:
        return _adjust(keyword, unit_type, location, kind) if i == n else None
    if i == n:
        return Build(unit_type, location, implied=True) if kind is PhaseKind.ADJUSTMENT else None
    w = toks[i]
    i += 1
    if w in _MOVE_TOKENS or w in _RETREAT:
        retreat = kind is PhaseKind.RETREAT or w in _RETREAT
        if w in _RETREAT and i < n and toks[i] in _MOVE_TOKENS:
            i += 1
        if i < n and toks[i] in _TO:
            i += 1
        read = _words_run(toks, i, aliases, coasts)
        if read is None:
            return None
        destination, i = read
        via = i < n and toks[i] in _VIA
        if via:
            i += 2 if i + 1 < n and toks[i + 1] in _CONVOY else 1
        if i != n:
            return None
        if retreat:
            return None if via else Retreat(unit_type, location, destination)
        return Move(unit_type, location, destination, via_convoy=via)
    if w in _HOLD:
        return Hold(unit_type, location) if i == n else None
    if w in _WAIVE:
        return Waive(unit_type, location) if i == n else None
    if w in _BUILD or w in _REMOVE or w in _DISBAND:
        return _adjust(w, unit_type, location, kind) if i == n else None
    supporting = w in _SUPPORT
    if not supporting and w not in _CONVOY:
        return None
    if i + 1 < n and toks[i + 1] in _TYPES:
        return None  # 'a army' again
    target = _words_unit(toks, i, aliases, coasts)
    if target is None:
        return None
    target_type, target_location, i = target
    if supporting and (i == n or (i + 1 == n and toks[i] in _HOLD)):
        return SupportHold(unit_type, location, target_type, target_location)
    if i == n or toks[i] not in _MOVE_TOKENS:
        return None
    i += 1
    if i < n and toks[i] in _TO:
        i += 1
    read = _words_run(toks, i, aliases, coasts)
    if read is None:
        return None
    destination, i = read
    if supporting:
        if i != n:
            return None
        return SupportMove(unit_type, location, target_type, target_location, destination)
    if i < n and toks[i] in _VIA:
        i += 2 if i + 1 < n and toks[i + 1] in _CONVOY else 1
    if i != n:
        return None
    return Convoy(unit_type, location, target_type, target_location, destination)


def _adjust(keyword: str, unit_type: UnitType, location: str, kind: PhaseKind | None) -> Order:
    """What the general parser makes of an adjustment word for a unit (``_Parser.adjustment``)."""
    if keyword in _BUILD:
        return Build(unit_type, location)
    if keyword in _DISBAND:
        return (
            Remove(unit_type, location)
            if kind is PhaseKind.ADJUSTMENT
            else Disband(unit_type, location)
        )
    if kind is PhaseKind.RETREAT:
        return Disband(unit_type, location)
    return Remove(unit_type, location)


def fast_orders_read(game_map: Map, kind: PhaseKind | None) -> dict[str, Order | None]:
    """The lines :func:`parse_fast` has read already for ``kind`` on ``game_map``, and what
    it made of them (``None``: left to the general parser); a caller reading many lines
    may look there first.  Not to be changed."""
    # The table is chosen by identity: hashing an enum member runs Python code.
    tables = _tables(game_map).fast
    if kind is None:
        return tables[0]
    if kind is PhaseKind.MOVEMENT:
        return tables[1]
    if kind is PhaseKind.RETREAT:
        return tables[2]
    return tables[3]


def parse_fast(text: str, game_map: Map, kind: PhaseKind | None = None) -> Order | None:
    """The order if ``text`` is in the canonical short form or a common plain spelling
    (:func:`parse_short`, then :func:`parse_words`), else ``None``: the general parser's
    answer whenever there is one, much faster."""
    memo = fast_orders_read(game_map, kind)
    if text in memo:
        return memo[text]
    order = parse_short(text, game_map, kind) or parse_words(text, game_map, kind)
    if len(memo) < _FAST_MEMO_LIMIT and len(text) <= _WORDS_MAX:
        memo[text] = order
    return order


_fast = parse_fast


def _parse_one(text: str, game_map: Map, kind: PhaseKind | None) -> tuple[str | None, Order]:
    fast = _fast(text.strip(), game_map, kind)
    if fast is not None:
        return None, fast
    return _parse_general(text, game_map, kind)


def _parse_general(text: str, game_map: Map, kind: PhaseKind | None) -> tuple[str | None, Order]:
    """The general parser, every syntax (no fast path): what the fast paths must match."""
    whole = text.strip()
    body = whole.rstrip(" \t.")
    if not body:
        raise OrderSyntaxError(
            f"{_q(whole)}: empty order; write a unit and what it does, e.g. 'A Par-Bur'",
            text=whole,
        )
    pieces = [p for p in re.split(r"[,;\n\r]", body) if p.strip(" \t.")]
    if len(pieces) > 1:
        raise OrderSyntaxError(
            f"{_q(whole)}: this holds {len(pieces)} orders; give one order here",
            text=whole,
        )
    body = pieces[0] if pieces else body
    prefix_power, body = _split_power(body, game_map, whole)
    body = body.strip().rstrip(" \t.")
    if not body:
        raise OrderSyntaxError(
            f"{_q(whole)}: no order after the power; write e.g. 'England: F Lon-NTH'",
            text=whole,
        )
    if _looks_daide(body, game_map):
        power, order = _Daide(whole, body, game_map, kind).parse()
        if prefix_power is not None and power is not None and power != prefix_power:
            raise OrderSyntaxError(
                f"{_q(whole)}: the order is headed {prefix_power} but its unit is {power}'s",
                text=whole,
            )
        return (power or prefix_power), order
    return prefix_power, _Parser(whole, body, game_map, kind).parse()


def _guarded(text: str, game_map: Map, kind: PhaseKind | None) -> tuple[str | None, Order]:
    try:
        return _parse_one(text, game_map, kind)
    except OrderError:
        raise
    except Exception as exc:  # a bug must not take the mail service down
        raise OrderSyntaxError(
            f"{_q(str(text))}: this could not be read as an order; write e.g. 'A Par-Bur'",
            text=str(text),
        ) from exc


def parse_order_with_power(
    text: str, game_map: Map | None = None, kind: PhaseKind | None = None
) -> tuple[str | None, Order]:
    """Read one order and the power the player named for it (or ``None``).

    >>> parse_order_with_power("England: F Lon-NTH")  # doctest: +ELLIPSIS
    ('England', Move(unit_type=<UnitType.FLEET: 'F'>, location='lon', destination='nth', ...))
    >>> parse_order_with_power("(ENG AMY LVP) HLD")
    ('England', Hold(unit_type=<UnitType.ARMY: 'A'>, location='lvp'))
    """
    return _guarded(text, game_map or standard_map(), kind)


def parse_order(text: str, game_map: Map | None = None, kind: PhaseKind | None = None) -> Order:
    """Read exactly one order; a power prefix (``England:``) is allowed and dropped.

    ``kind`` is the kind of phase the order is for: ``None`` or movement reads movement
    orders, retreat reads ``F Tri-Alb`` as a retreat, adjustment reads a bare ``A Par`` as
    a build.  Raises only :class:`OrderSyntaxError` or :class:`AmbiguousOrderError`.

    >>> parse_order("Army Paris moves to Burgundy")  # doctest: +ELLIPSIS
    Move(unit_type=<UnitType.ARMY: 'A'>, location='par', destination='bur', via_convoy=False, ...)
    >>> parse_order("F stp(nc) - bar") == parse_order("(RUS FLT (STP NCS)) MTO BAR")
    True
    >>> parse_order("F Tri d", kind=PhaseKind.RETREAT)
    Disband(unit_type=<UnitType.FLEET: 'F'>, location='tri')
    >>> parse_order("A Par-Bru")
    Traceback (most recent call last):
    ...
    judge.engine.errors.OrderSyntaxError: 'A Par-Bru': 'Bru' is not a province name on this map
    """
    return parse_order_with_power(text, game_map, kind)[1]


def parse_orders(
    text: str, game_map: Map | None = None, kind: PhaseKind | None = None
) -> list[ParsedOrder]:
    """Read many orders: one per line, or several on a line separated by ``,`` or ``;``.

    Never raises: each piece gives a :class:`ParsedOrder` holding either the order or the
    error.  Blank pieces are skipped.  A line that is only ``England:`` names the power
    for the lines after it (until the next such line); ``England: A Par-Bur, A Mar H``
    names it for the rest of its own line.

    >>> [p.order for p in parse_orders("A Par H; A Mar-Bur")]  # doctest: +ELLIPSIS
    [Hold(...location='par'), Move(...location='mar', destination='bur'...)]
    >>> parse_orders("A Par-Xyz")[0].error
    OrderSyntaxError("'A Par-Xyz': 'Xyz' is not a province name on this map")
    """
    results: list[ParsedOrder] = []
    try:
        game_map = game_map or standard_map()
    except Exception as exc:  # no map, no orders: report it on every piece
        error = OrderSyntaxError(f"the map could not be loaded: {exc}", text=str(text))
        return [ParsedOrder(str(text).strip(), None, None, error)]
    header: str | None = None
    for line in str(text).splitlines():
        line_power = header
        for raw_piece in re.split(r"[,;]", line):
            piece = raw_piece.strip()
            if not piece.strip(" \t."):
                continue
            header_power = _header(piece, game_map)
            if header_power is not None:
                header = line_power = header_power
                continue
            if len(results) >= MAX_ORDERS:
                error = OrderSyntaxError(
                    f"{_q(piece)}: this order and the rest of the text after it were not "
                    f"read: at most {MAX_ORDERS} orders are read at once",
                    text=piece,
                )
                results.append(ParsedOrder(piece, line_power, None, error))
                return results
            try:
                power, order = _guarded(piece, game_map, kind)
            except OrderError as exc:
                results.append(
                    ParsedOrder(piece, _prefix_power(piece, game_map, line_power), None, exc)
                )
                continue
            if power is not None and _PREFIX_RE.match(piece):
                line_power = power
            results.append(ParsedOrder(piece, power or line_power, order, None))
    return results


def _header(piece: str, game_map: Map) -> str | None:
    """The power of a piece that is only ``England:``, else None."""
    m = _PREFIX_RE.match(piece)
    if m is None or m.group(2).strip(" \t."):
        return None
    try:
        return game_map.find_power(m.group(1).strip()) if m.group(1).strip() else None
    except Exception:
        return None


def _prefix_power(piece: str, game_map: Map, default: str | None) -> str | None:
    """The power named by a piece that failed to parse, as best it can be told."""
    m = _PREFIX_RE.match(piece)
    if m is None:
        return default
    try:
        return game_map.find_power(m.group(1).strip()) or default
    except Exception:
        return default


# -- printing -------------------------------------------------------------------------


def format_order(order: Order, game_map: Map | None = None, *, short: bool = False) -> str:
    """Print ``order`` in the long form of the judge results, or the short form.

    >>> from judge.engine.units import ARMY, FLEET
    >>> format_order(Move(ARMY, "par", "bur"))
    'Army Paris -> Burgundy'
    >>> format_order(SupportMove(ARMY, "bul", ARMY, "gal", "rum"), short=True)
    'A bul S A gal-rum'
    >>> format_order(Move(FLEET, "stp/nc", "bar"))
    'Fleet St Petersburg (north coast) -> Barents Sea'
    >>> format_order(Waive())
    'Waive'
    """
    game_map = game_map or standard_map()
    return _format_short(order) if short else _format_long(order, game_map)


def _name(location: str, game_map: Map) -> str:
    if location and game_map.province_of(location) in game_map.province_name:
        return game_map.location_name(location)
    return location


def _long_unit(unit_type: UnitType | None, location: str, game_map: Map) -> str:
    name = _name(location, game_map)
    return f"{unit_type.word} {name}" if unit_type is not None else name


def _short_unit(unit_type: UnitType | None, location: str) -> str:
    return f"{unit_type.value} {location}" if unit_type is not None else location


def _format_long(order: Order, game_map: Map) -> str:
    unit = _long_unit(order.unit_type, order.location, game_map)
    match order:
        case Hold():
            return f"{unit} HOLD"
        case Move(destination=destination, via_convoy=via, route=route):
            path = " -> ".join(_name(p, game_map) for p in (*route, destination))
            suffix = " via Convoy" if via and not route else ""
            return f"{unit} -> {path}{suffix}"
        case SupportHold(target_type=target_type, target=target):
            return f"{unit} SUPPORT {_long_unit(target_type, target, game_map)}"
        case SupportMove(target_type=target_type, target=target, destination=destination):
            supported = _long_unit(target_type, target, game_map)
            return f"{unit} SUPPORT {supported} -> {_name(destination, game_map)}"
        case Convoy(target_type=target_type, target=target, destination=destination):
            convoyed = _long_unit(target_type, target, game_map)
            return f"{unit} CONVOY {convoyed} -> {_name(destination, game_map)}"
        case Proxy(power=power):
            return f"{unit} PROXY to {power}"
        case Retreat(destination=destination):
            return f"{unit} -> {_name(destination, game_map)}"
        case Disband():
            return f"{unit} DISBAND"
        case Build():
            return f"Build {unit}"
        case Remove():
            return f"Remove {unit}"
        case Waive():
            return f"Waive {unit}" if order.location else "Waive"
    raise TypeError(f"cannot format {order!r}: not an order class this module knows")


def _format_short(order: Order) -> str:
    unit = _short_unit(order.unit_type, order.location)
    match order:
        case Hold():
            return f"{unit} H"
        case Move(destination=destination, via_convoy=via, route=route):
            path = "-".join((*route, destination))
            suffix = " via convoy" if via and not route else ""
            return f"{unit}-{path}{suffix}"
        case SupportHold(target_type=target_type, target=target):
            return f"{unit} S {_short_unit(target_type, target)}"
        case SupportMove(target_type=target_type, target=target, destination=destination):
            return f"{unit} S {_short_unit(target_type, target)}-{destination}"
        case Convoy(target_type=target_type, target=target, destination=destination):
            return f"{unit} C {_short_unit(target_type, target)}-{destination}"
        case Proxy(power=power):
            return f"{unit} P {power}"
        case Retreat(destination=destination):
            return f"{unit}-{destination}"
        case Disband():
            return f"{unit} D"
        case Build():
            return f"Build {unit}"
        case Remove():
            return f"Remove {unit}"
        case Waive():
            return f"Waive {unit}" if order.location else "Waive"
    raise TypeError(f"cannot format {order!r}: not an order class this module knows")


# -- implied orders -------------------------------------------------------------------


def implied_orders(order: Order) -> list[Order]:
    """The orders ``order`` implies for other units (house rule 3.8 of the zine rules).

    A support of a move implies that move; a convoy implies the army's move by convoy; a
    support in place implies nothing, since a unit without orders holds anyway.  Whether
    implied orders are used is a rule option decided elsewhere.

    >>> from judge.engine.units import ARMY, FLEET
    >>> implied_orders(SupportMove(ARMY, "mun", ARMY, "ruh", "bur")) == [Move(ARMY, "ruh", "bur")]
    True
    >>> implied = implied_orders(Convoy(FLEET, "nth", ARMY, "lon", "nwy"))
    >>> [format_order(o, short=True) for o in implied]
    ['A lon-nwy via convoy']
    >>> implied_orders(SupportHold(ARMY, "mun", ARMY, "ber"))
    []
    """
    match order:
        case SupportMove(target_type=target_type, target=target, destination=destination):
            return [Move(target_type, target, destination)]
        case Convoy(target_type=target_type, target=target, destination=destination):
            return [Move(target_type, target, destination, via_convoy=True)]
    return []


def _iter_keywords() -> Iterator[str]:
    """Every keyword of the judge syntax (for tests that check the map does not clash)."""
    yield from sorted(_KEYWORDS | _ARTICLES | _FILLERS)
