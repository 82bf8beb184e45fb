"""The map: provinces, coasts, adjacency, powers and the starting position.

A :class:`Map` is built from a map file (see the comment header of ``maps/standard.map`` for
the format) by :meth:`Map.from_text`; :func:`standard_map` loads the standard board once.
Everything a resolver needs in its inner loops (``army_adj``, ``fleet_adj``, ``kind``...) is a
precomputed dict or frozenset, and every province and location key is an interned string.

>>> m = standard_map()
>>> m.find_location("St. Petersburg (north coast)")
'stp/nc'
>>> sorted(m.fleet_adj["stp/sc"])
['bot', 'fin', 'lvn']
>>> m.find_power("Germnay")
'Germany'
"""

from __future__ import annotations

import enum
import functools
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources

from judge.engine.units import Unit, UnitType

__all__ = [
    "RESERVED_WORDS",
    "Map",
    "MapFileError",
    "ProvinceKind",
    "normalise_name",
    "standard_map",
]


class ProvinceKind(enum.Enum):
    """What a province is: inland, coastal, sea, or impassable (Switzerland)."""

    LAND = "land"
    COAST = "coast"
    SEA = "sea"
    IMPASSABLE = "impassable"


#: Words of the order language; no province alias may be one of them (nor be shorter
#: than three characters), so an order tokenizer never mistakes a keyword for a place.
RESERVED_WORDS: frozenset[str] = frozenset(
    {
        "a", "f", "h", "s", "c", "m", "d", "b", "r", "w", "p",
        "to", "via", "by", "army", "fleet", "hold", "holds", "stand", "stands",
        "support", "supports", "convoy", "convoys", "move", "moves", "disband",
        "build", "remove", "waive", "proxy",
    }
)  # fmt: skip

# Everything but letters and digits; letters beyond a-z are kept ("Grüße" is not "gre").
_NON_ALNUM = re.compile(r"[\W_]+")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"
_FUZZY_MIN = 6  # shortest normalised input that may match a province with one typo
_FUZZY_MAX = 30  # longest one looked at for a typo: the edits of a word grow with its square
_POWER_FUZZY_MIN = 5  # shortest power name/adjective that tolerates one typo
# "stp/n", "Spain (s)", "bul-e": a one-letter coast after a separator.
_ONE_LETTER_COAST = re.compile(
    r"^(?P<place>.*[a-z0-9].*?)[\s/(\-.,_]+(?P<coast>[a-z])\s*\)?\s*\.?$"
)
_LEADING_THE = re.compile(r"^\s*the\s+", re.IGNORECASE)
#: No place is written with more characters than this ("St. Petersburg (north coast)" has
#: 28): a longer text is looked up exactly, never searched for a coast or a typo, whose
#: patterns cost more than linear time on long input.
_PLACE_TEXT_MAX = 64


def normalise_name(text: str) -> str:
    """Lowercase ``text`` and keep only its letters and digits (of any script).

    Letters outside a-z are kept, not dropped, so a foreign word cannot shrink into a
    name of this map ("Grüße" stays ``'grüße'``, not Greece's ``'gre'``).

    >>> normalise_name("St. Petersburg (North Coast)")
    'stpetersburgnorthcoast'
    """
    return _NON_ALNUM.sub("", text.lower())


def _edits1(word: str) -> set[str]:
    """Every string one deletion, insertion, substitution or adjacent swap from ``word``."""
    out: set[str] = set()
    for i in range(len(word) + 1):
        head, tail = word[:i], word[i:]
        if tail:
            out.add(head + tail[1:])
            if len(tail) > 1:
                out.add(head + tail[1] + tail[0] + tail[2:])
            for ch in _ALPHABET:
                out.add(head + ch + tail[1:])
        for ch in _ALPHABET:
            out.add(head + ch + tail)
    out.discard(word)
    return out


class MapFileError(ValueError):
    """A map file that cannot be loaded; the message names the line and the problem."""

    def __init__(self, line: int, problem: str) -> None:
        super().__init__(f"map file line {line}: {problem}")
        self.line = line
        self.problem = problem


# -- parsing ------------------------------------------------------------------------------


@dataclass
class _Province:
    abbr: str
    kind: ProvinceKind
    centre: str  # "-", "sc" or a power name
    daide: str
    name: str
    line: int


@dataclass
class _CoastCode:
    daide: str
    name: str
    words: list[str]  # normalised ways to write it (code, DAIDE, name, aliases)
    line: int


@dataclass
class _Parsed:
    """Raw records of a map file, with the line each came from."""

    variant: str = ""
    variant_line: int = 0
    last_line: int = 0
    powers: dict[str, tuple[str, str, str, int]] = field(default_factory=dict)
    coastcodes: dict[str, _CoastCode] = field(default_factory=dict)
    provinces: dict[str, _Province] = field(default_factory=dict)
    coasts: dict[str, tuple[list[str], int]] = field(default_factory=dict)
    aliases: list[tuple[int, str, str]] = field(default_factory=list)
    army: dict[str, dict[str, int]] = field(default_factory=dict)
    fleet: dict[str, dict[str, int]] = field(default_factory=dict)
    source_line: dict[tuple[str, str], int] = field(default_factory=dict)  # (key, src)
    units: list[tuple[int, str, str, str]] = field(default_factory=list)
    owns: list[tuple[int, str, str]] = field(default_factory=list)
    homes: list[tuple[int, str, str]] = field(default_factory=list)  # (line, power, province)


def _split_aliases(text: str) -> list[str]:
    return [a.strip() for a in text.split(",") if a.strip()]


def _parse_lines(text: str) -> _Parsed:
    """First pass: split the file into records, checking each line's own syntax."""
    p = _Parsed()
    n = 0
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        main, bar, extra = line.partition("|")
        words = main.split()
        key, args = words[0].lower(), words[1:]
        if bar and key not in ("coastcode", "province"):
            raise MapFileError(n, f"'|' is not allowed in a {key!r} record")
        if key == "variant":
            if p.variant:
                raise MapFileError(n, f"second variant line (first on line {p.variant_line})")
            if not args:
                raise MapFileError(n, "variant line without a name")
            p.variant, p.variant_line = " ".join(args), n
        elif key == "power":
            if len(args) != 4:
                raise MapFileError(
                    n, "a power record is: power <Name> <Adjective> <Letter> <DAIDE>"
                )
            name, adjective, letter, daide = args
            if name in p.powers:
                raise MapFileError(n, f"power {name} declared twice")
            if len(letter) != 1 or not letter.isalpha():
                raise MapFileError(n, f"power initial {letter!r} is not a single letter")
            p.powers[name] = (adjective, letter.upper(), daide.upper(), n)
        elif key == "coastcode":
            if len(args) < 3:
                raise MapFileError(n, "a coastcode record is: coastcode <code> <DAIDE> <name>")
            code = args[0].lower()
            if code in p.coastcodes:
                raise MapFileError(n, f"coast code {code!r} declared twice")
            if not code.isalnum():
                raise MapFileError(n, f"bad coast code {code!r}")
            cname = " ".join(args[2:])
            cwords = [code, args[1].lower(), cname, *_split_aliases(extra)]
            normed = list(dict.fromkeys(normalise_name(w) for w in cwords))
            if "" in normed:
                raise MapFileError(n, "empty coast alias")
            p.coastcodes[code] = _CoastCode(args[1].upper(), cname, normed, n)
        elif key == "province":
            if len(args) < 5:
                raise MapFileError(
                    n, "a province record is: province <abbr> <kind> <centre> <DAIDE> <name>"
                )
            abbr = args[0].lower()
            if not abbr.isalnum():
                raise MapFileError(n, f"bad province abbreviation {abbr!r}")
            if abbr in p.provinces:
                raise MapFileError(n, f"province {abbr!r} declared twice")
            try:
                kind = ProvinceKind(args[1].lower())
            except ValueError:
                raise MapFileError(
                    n, f"unknown province kind {args[1]!r} (land, coast, sea or impassable)"
                ) from None
            centre = "sc" if args[2].lower() == "sc" else args[2]
            name = " ".join(args[4:])
            p.provinces[abbr] = _Province(abbr, kind, centre, args[3].upper(), name, n)
            for alias in _split_aliases(extra):
                p.aliases.append((n, abbr, alias))
        elif key == "coasts":
            if len(args) < 2:
                raise MapFileError(n, "a coasts record is: coasts <province> <code> <code> ...")
            abbr = args[0].lower()
            if abbr in p.coasts:
                raise MapFileError(n, f"coasts of {abbr!r} declared twice")
            codes = [c.lower() for c in args[1:]]
            if len(set(codes)) != len(codes):
                raise MapFileError(n, f"coast repeated for {abbr!r}")
            p.coasts[abbr] = (codes, n)
        elif key == "alias":
            if len(args) < 2:
                raise MapFileError(n, "an alias record is: alias <location> <alias>, <alias>...")
            location = args[0].lower()
            rest = main.split(None, 2)[2]
            for alias in _split_aliases(rest):
                p.aliases.append((n, location, alias))
        elif key in ("army", "fleet"):
            if not args:
                raise MapFileError(n, f"a {key} record is: {key} <location> <neighbour> ...")
            table = p.army if key == "army" else p.fleet
            src = args[0].lower()
            p.source_line.setdefault((key, src), n)
            dests = table.setdefault(src, {})
            for dest in args[1:]:
                dests.setdefault(dest.lower(), n)
        elif key == "unit":
            if len(args) != 3 or args[1].upper() not in ("A", "F"):
                raise MapFileError(n, "a unit record is: unit <Power> <A|F> <location>")
            p.units.append((n, args[0], args[1].upper(), args[2].lower()))
        elif key == "owns":
            if len(args) < 2:
                raise MapFileError(n, "an owns record is: owns <Power> <centre> ...")
            for centre in args[1:]:
                p.owns.append((n, args[0], centre.lower()))
        elif key == "home":
            if len(args) < 2:
                raise MapFileError(n, "a home record is: home <Power> <province> <province> ...")
            for province in args[1:]:
                p.homes.append((n, args[0], province.lower()))
        else:
            raise MapFileError(n, f"unknown record type {words[0]!r}")
    p.last_line = n
    return p


@dataclass
class _Built:
    """Validated map content handed to :class:`Map`."""

    name: str
    powers: dict[str, tuple[str, str, str]]
    coastcodes: dict[str, _CoastCode]
    provinces: dict[str, _Province]
    coasts: dict[str, list[str]]
    aliases: dict[str, str]
    army: dict[str, set[str]]
    fleet: dict[str, set[str]]
    units: list[Unit]
    owns: dict[str, str]
    homes: dict[str, set[str]]


def _validate(p: _Parsed) -> _Built:
    """Second pass: check cross-references and build the tables."""
    if not p.variant:
        raise MapFileError(p.last_line, "end of file reached without a variant record")
    seen_power_words: dict[str, str] = {}
    for power, (adjective, letter, daide, line) in p.powers.items():
        for word in dict.fromkeys(normalise_name(w) for w in (power, adjective, letter, daide)):
            if word in seen_power_words:
                raise MapFileError(
                    line, f"power {power}: {word!r} already names {seen_power_words[word]}"
                )
            seen_power_words[word] = power
    provinces = p.provinces
    for prov in provinces.values():
        if prov.centre not in ("-", "sc") and prov.centre not in p.powers:
            raise MapFileError(
                prov.line, f"centre field {prov.centre!r} is not '-', 'sc' or a declared power"
            )
        if prov.centre != "-" and prov.kind in (
            ProvinceKind.SEA,
            ProvinceKind.IMPASSABLE,
        ):
            raise MapFileError(prov.line, f"{prov.kind.value} province {prov.abbr!r} is a centre")
    if not provinces:
        raise MapFileError(p.last_line, "the map has no provinces")

    # Coasts and locations.
    coasts: dict[str, list[str]] = {}
    coast_line: dict[str, int] = {}
    for abbr, (codes, line) in p.coasts.items():
        if abbr not in provinces:
            raise MapFileError(line, f"coasts for unknown province {abbr!r}")
        if provinces[abbr].kind is not ProvinceKind.COAST:
            raise MapFileError(line, f"province {abbr!r} has split coasts but is not a coast")
        if len(codes) < 2:
            raise MapFileError(line, f"province {abbr!r} needs two or more coasts to split")
        for code in codes:
            if code not in p.coastcodes:
                raise MapFileError(line, f"unknown coast code {code!r} (declare it by coastcode)")
        coasts[abbr] = [f"{abbr}/{code}" for code in codes]
        for loc in coasts[abbr]:
            coast_line[loc] = line
    coast_locs = {loc for locs in coasts.values() for loc in locs}

    army_places = {
        a for a, pr in provinces.items() if pr.kind in (ProvinceKind.LAND, ProvinceKind.COAST)
    }
    fleet_places = {a for a, pr in provinces.items() if pr.kind is ProvinceKind.SEA}
    fleet_places |= {
        a for a, pr in provinces.items() if pr.kind is ProvinceKind.COAST and a not in coasts
    }
    fleet_places |= coast_locs

    # Aliases.
    aliases: dict[str, str] = {}
    alias_line: dict[str, int] = {}

    def add_alias(line: int, location: str, alias: str) -> None:
        key = normalise_name(alias)
        if len(key) < 3:
            raise MapFileError(line, f"alias {alias!r} is shorter than three letters")
        if key in RESERVED_WORDS:
            raise MapFileError(line, f"alias {alias!r} is an order keyword")
        old = aliases.get(key)
        if old is not None and old != location:
            raise MapFileError(
                line,
                f"alias {alias!r} of {location!r} already names {old!r} (line {alias_line[key]})",
            )
        aliases[key] = location
        alias_line.setdefault(key, line)

    for abbr, prov in provinces.items():
        add_alias(prov.line, abbr, abbr)
        add_alias(prov.line, abbr, prov.daide)
        add_alias(prov.line, abbr, prov.name)
    for line, location, alias in p.aliases:
        if location not in provinces and location not in coast_locs:
            raise MapFileError(line, f"alias for unknown location {location!r}")
        add_alias(line, location, alias)
    # Province aliases followed by a coast word name the coast: "stpnc", "spainsouthcoast".
    for abbr, locs in coasts.items():
        names = [a for a, loc in aliases.items() if loc == abbr]
        for loc in locs:
            coast_code = p.coastcodes[loc.split("/", 1)[1]]
            add_alias(coast_line[loc], loc, loc)
            for name in names:
                for word in coast_code.words:
                    if len(word) >= 2:
                        aliases.setdefault(name + word, loc)

    # Adjacency.
    def check_adjacency(
        table: dict[str, dict[str, int]], what: str, places: set[str]
    ) -> dict[str, set[str]]:
        out: dict[str, set[str]] = {place: set() for place in places}
        for src, dests in table.items():
            if src not in places:
                raise MapFileError(
                    p.source_line[(what, src)], f"{what} record for {src!r}: no {what} can be there"
                )
            for dest, line in dests.items():
                if dest not in places:
                    raise MapFileError(
                        line, f"{what} adjacency {src}-{dest}: no {what} can be in {dest!r}"
                    )
                if dest.split("/", 1)[0] == src.split("/", 1)[0]:
                    raise MapFileError(line, f"{what} adjacency {src}-{dest} within one province")
                if src not in table.get(dest, {}):
                    raise MapFileError(
                        line, f"{what} adjacency {src}-{dest} is not listed for {dest!r} as well"
                    )
                out[src].add(dest)
        return out

    army = check_adjacency(p.army, "army", army_places)
    fleet = check_adjacency(p.fleet, "fleet", fleet_places)

    # Starting position.
    units: list[Unit] = []
    occupied: dict[str, int] = {}
    for line, power, utype, location in p.units:
        if power not in p.powers:
            raise MapFileError(line, f"unit of undeclared power {power!r}")
        places = army_places if utype == "A" else fleet_places
        if location not in places:
            raise MapFileError(
                line, f"{'an army' if utype == 'A' else 'a fleet'} cannot stand in {location!r}"
            )
        prov_key = location.split("/", 1)[0]
        if prov_key in occupied:
            raise MapFileError(
                line, f"second unit in {prov_key!r} (first on line {occupied[prov_key]})"
            )
        occupied[prov_key] = line
        units.append(Unit(power, UnitType(utype), sys.intern(location)))
    owns: dict[str, str] = {}
    for line, power, centre in p.owns:
        if power not in p.powers:
            raise MapFileError(line, f"centres owned by undeclared power {power!r}")
        if centre not in provinces or provinces[centre].centre == "-":
            raise MapFileError(line, f"{centre!r} is not a supply centre")
        if centre in owns:
            raise MapFileError(line, f"centre {centre!r} owned twice")
        owns[centre] = power
    if not p.owns:
        owns = {a: pr.centre for a, pr in provinces.items() if pr.centre not in ("-", "sc")}

    homes = _home_countries(p)

    return _Built(
        name=p.variant,
        powers={k: v[:3] for k, v in p.powers.items()},
        coastcodes=p.coastcodes,
        provinces=provinces,
        coasts=coasts,
        aliases=aliases,
        army=army,
        fleet=fleet,
        units=units,
        owns=owns,
        homes=homes,
    )


def _home_countries(p: _Parsed) -> dict[str, set[str]]:
    """Each power's home country: its ``home`` records, else just its home centres."""
    homes: dict[str, set[str]] = {}
    owner: dict[str, str] = {}
    for line, power, province in p.homes:
        if power not in p.powers:
            raise MapFileError(line, f"home country of undeclared power {power!r}")
        prov = p.provinces.get(province)
        if prov is None:
            raise MapFileError(line, f"home country of {power}: unknown province {province!r}")
        if prov.kind in (ProvinceKind.SEA, ProvinceKind.IMPASSABLE):
            raise MapFileError(
                line, f"{prov.kind.value} province {province!r} cannot be in a home country"
            )
        if province in owner:
            raise MapFileError(line, f"{province!r} is already in {owner[province]}'s home country")
        owner[province] = power
        homes.setdefault(power, set()).add(province)
    last_line = {power: line for line, power, _prov in p.homes}
    for abbr, prov in p.provinces.items():
        if prov.centre in p.powers:
            country = homes.get(prov.centre)
            if country is None:
                continue  # no home record: filled with the home centres below
            if abbr not in country:
                raise MapFileError(
                    last_line[prov.centre],
                    f"home centre {abbr!r} of {prov.centre} is not in its home country",
                )
    for power in p.powers:
        if power not in homes:
            homes[power] = {a for a, pr in p.provinces.items() if pr.centre == power}
    return homes


# -- the map ------------------------------------------------------------------------------


def _fs(items: Iterable[str]) -> frozenset[str]:
    return frozenset(sys.intern(i) for i in items)


class Map:
    """A Diplomacy board: powers, provinces, coasts, adjacency and the starting position.

    Build one with :meth:`from_text` or :func:`standard_map`.  All attributes are computed
    once; treat them as read-only.
    """

    name: str
    powers: tuple[str, ...]
    power_adjective: dict[str, str]
    power_letter: dict[str, str]
    power_daide: dict[str, str]
    provinces: tuple[str, ...]
    province_name: dict[str, str]
    kind: dict[str, ProvinceKind]
    coasts: dict[str, tuple[str, ...]]
    daide: dict[str, str]
    supply_centres: frozenset[str]
    home_centres: dict[str, frozenset[str]]
    #: Each power's home country: every province of its colour on the board (the home
    #: centres among them); a map without ``home`` records gives just the home centres.
    home_country: dict[str, frozenset[str]]
    start_units: tuple[Unit, ...]
    start_centres: dict[str, str]
    army_adj: dict[str, frozenset[str]]
    fleet_adj: dict[str, frozenset[str]]
    fleet_adj_prov: dict[str, frozenset[str]]
    aliases: dict[str, str]

    def __init__(self, built: _Built) -> None:
        """Index validated content; use :meth:`from_text` rather than calling this."""
        it = sys.intern
        self.name = built.name
        self.powers = tuple(sorted(built.powers))
        self.power_adjective = {pw: built.powers[pw][0] for pw in self.powers}
        self.power_letter = {pw: built.powers[pw][1] for pw in self.powers}
        self.power_daide = {pw: built.powers[pw][2] for pw in self.powers}

        provs = built.provinces
        self.provinces = tuple(it(a) for a in sorted(provs))
        self.province_name = {it(a): provs[a].name for a in self.provinces}
        self.kind = {it(a): provs[a].kind for a in self.provinces}
        self.coasts = {
            it(a): tuple(it(loc) for loc in locs) for a, locs in sorted(built.coasts.items())
        }
        coast_names: dict[str, str] = {}
        self.daide = {it(a): provs[a].daide for a in self.provinces}
        self._coast_loc: dict[tuple[str, str], str] = {}
        for abbr, locs in self.coasts.items():
            for loc in locs:
                code = loc.split("/", 1)[1]
                cc = built.coastcodes[code]
                self.daide[loc] = f"({provs[abbr].daide} {cc.daide})"
                coast_names[loc] = f"{provs[abbr].name} ({cc.name})"
                self._coast_loc[(abbr, code)] = loc

        self.supply_centres = _fs(a for a in self.provinces if provs[a].centre != "-")
        self.home_centres = {
            pw: _fs(a for a in self.provinces if provs[a].centre == pw) for pw in self.powers
        }
        self.home_country = {pw: _fs(built.homes.get(pw, ())) for pw in self.powers}
        self._home_owner = {prov: pw for pw, provs in self.home_country.items() for prov in provs}
        self.start_units = tuple(built.units)
        self.start_centres = {it(c): pw for c, pw in sorted(built.owns.items())}

        self.army_adj = {it(a): _fs(dests) for a, dests in sorted(built.army.items())}
        self.fleet_adj = {it(a): _fs(dests) for a, dests in sorted(built.fleet.items())}
        self.fleet_adj_prov = {
            a: _fs(d.split("/", 1)[0] for d in dests) for a, dests in self.fleet_adj.items()
        }
        self.aliases = {k: it(v) for k, v in sorted(built.aliases.items())}

        # Query indexes.
        all_locs = [*self.provinces, *(loc for locs in self.coasts.values() for loc in locs)]
        self._province_of: dict[str, str] = {loc: it(loc.split("/", 1)[0]) for loc in all_locs}
        #: Every canonical location key, mapped to its interned self (fast exact lookups).
        self.location_keys: dict[str, str] = {it(loc): it(loc) for loc in all_locs}
        self._location_name: dict[str, str] = {**self.province_name, **coast_names}

        def locs_of(kinds: tuple[ProvinceKind, ...]) -> frozenset[str]:
            return frozenset(loc for loc in all_locs if self.kind[self._province_of[loc]] in kinds)

        self._sea = locs_of((ProvinceKind.SEA,))
        self._landish = locs_of((ProvinceKind.LAND, ProvinceKind.COAST))
        self._coastal = locs_of((ProvinceKind.COAST,))

        suffixes: list[tuple[str, str]] = []
        self._coast_letters: dict[str, str] = {}
        for code, cc in built.coastcodes.items():
            for word in cc.words:
                if len(word) == 1:
                    self._coast_letters[word] = code
                else:
                    suffixes.append((word, code))
        suffixes.sort(key=lambda wc: (-len(wc[0]), wc[0]))
        self._coast_suffixes = tuple(suffixes)

        power_exact: dict[str, str] = {}
        power_full: dict[str, str] = {}
        prefix_owners: dict[str, set[str]] = {}
        for pw in self.powers:
            full = [normalise_name(pw), normalise_name(self.power_adjective[pw])]
            for word in full:
                power_exact[word] = pw
                if len(word) >= _POWER_FUZZY_MIN:
                    power_full[word] = pw
                for i in range(2, len(word) + 1):
                    prefix_owners.setdefault(word[:i], set()).add(pw)
            power_exact[self.power_letter[pw].lower()] = pw
            power_exact[self.power_daide[pw].lower()] = pw
        self._power_exact = power_exact
        self._power_full = power_full
        self._power_prefix = {
            pre: next(iter(owners)) for pre, owners in prefix_owners.items() if len(owners) == 1
        }
        self._no_fuzzy = RESERVED_WORDS | frozenset(power_exact)

    def __repr__(self) -> str:
        return f"<Map {self.name!r}: {len(self.provinces)} provinces, {len(self.powers)} powers>"

    @classmethod
    def from_text(cls, text: str) -> Map:
        """Parse the text of a map file; raise ``ValueError`` naming the line of any problem.

        >>> tiny = Map.from_text('''
        ... variant Tiny
        ... power Utopia Utopian U UTO
        ... province aaa coast Utopia AAA Alpha
        ... province bbb coast sc BBB Beta
        ... province ccc sea - CCC Gamma Sea
        ... army aaa bbb
        ... army bbb aaa
        ... fleet aaa bbb ccc
        ... fleet bbb aaa ccc
        ... fleet ccc aaa bbb
        ... unit Utopia F aaa
        ... ''')
        >>> sorted(tiny.fleet_adj["ccc"]), tiny.find_province("gamma sea")
        (['aaa', 'bbb'], 'ccc')
        """
        return cls(_validate(_parse_lines(text)))

    # -- geometry -------------------------------------------------------------------------

    def province_of(self, location: str) -> str:
        """The province of a location: ``'stp/nc'`` -> ``'stp'``, ``'lon'`` -> ``'lon'``."""
        prov = self._province_of.get(location)
        return prov if prov is not None else location.split("/", 1)[0]

    def home_country_of(self, location: str) -> str | None:
        """The power whose home country holds ``location`` (any coast), or ``None``.

        >>> standard_map().home_country_of("fin"), standard_map().home_country_of("swe")
        ('Russia', None)
        """
        return self._home_owner.get(self.province_of(location))

    def location_name(self, location: str) -> str:
        """English name of a location, e.g. ``'St Petersburg (north coast)'``.

        Raises ``KeyError`` for a location not on the map.
        """
        return self._location_name[location]

    def is_sea(self, province: str) -> bool:
        """Whether the province is a sea."""
        return province in self._sea

    def is_land(self, province: str) -> bool:
        """Whether armies may stand there: an inland or coastal province (or its coast)."""
        return province in self._landish

    def is_coastal(self, province: str) -> bool:
        """Whether the province (or the province of a coast location) is of the coast kind."""
        return province in self._coastal

    def can_hold(self, unit_type: UnitType, location: str) -> bool:
        """Whether a unit of ``unit_type`` may stand at ``location``.

        An army needs an inland or coastal province (not a coast location such as
        ``'stp/nc'``); a fleet needs a sea, a coastal province without split coasts, or one
        coast of a split province.
        """
        if unit_type is UnitType.ARMY:
            return location in self.army_adj
        return location in self.fleet_adj

    # -- names ----------------------------------------------------------------------------

    def _fuzzy(self, word: str) -> str | None:
        """The location one typo away from ``word``, or its province if several coasts tie.

        ``None`` when ``word`` is short, reserved, a power word, or near two provinces.
        """
        if not _FUZZY_MIN <= len(word) <= _FUZZY_MAX or word in self._no_fuzzy:
            return None
        found = {self.aliases[v] for v in _edits1(word) if v in self.aliases}
        if len(found) == 1:
            return found.pop()
        provinces = {self.province_of(loc) for loc in found}
        return provinces.pop() if len(provinces) == 1 else None

    def _split_coast(self, word: str, fuzzy: bool) -> tuple[str, str] | None:
        """``'stpnorthcoast'`` -> ``('stp', 'nc')`` for a written coast; else ``None``."""
        for suffix, code in self._coast_suffixes:
            if len(word) > len(suffix) and word.endswith(suffix):
                head = word[: -len(suffix)]
                loc = self._fuzzy(head) if fuzzy else self.aliases.get(head)
                if loc is not None:
                    return self.province_of(loc), code
        return None

    def _resolve(self, text: str) -> tuple[str, str | None] | None:
        """Find the place named by ``text``: (location, written coast code or ``None``)."""
        word = normalise_name(text)
        loc = self.aliases.get(word)
        if loc is not None:
            return loc, None
        if _LEADING_THE.match(text):  # "the Ruhr", "the North Sea"
            text = _LEADING_THE.sub("", text)
            word = normalise_name(text)
            loc = self.aliases.get(word)
            if loc is not None:
                return loc, None
        if not word or len(text) > _PLACE_TEXT_MAX:
            return None
        letter = _ONE_LETTER_COAST.match(text.lower())
        letter_code = self._coast_letters.get(letter.group("coast")) if letter else None
        letter_head = normalise_name(letter.group("place")) if letter else ""
        for fuzzy in (False, True):
            split = self._split_coast(word, fuzzy)
            if split is not None:
                return split
            if letter_code is not None and letter_head:
                loc = self._fuzzy(letter_head) if fuzzy else self.aliases.get(letter_head)
                if loc is not None:
                    return self.province_of(loc), letter_code
            if fuzzy:
                loc = self._fuzzy(word)
                if loc is not None:
                    return loc, None
        return None

    def find_province(self, text: str) -> str | None:
        """The province abbreviation ``text`` names, or ``None``.

        Accepts abbreviations, full names, aliases, DAIDE tokens and listed misspellings,
        ignoring case, spaces and punctuation; a written coast is dropped (``'stp/nc'`` ->
        ``'stp'``).  Failing an exact match, a name of six or more letters may carry one
        typo (a wrong, missing, extra or swapped letter) if that points to one province only.

        >>> standard_map().find_province("Edinborough"), standard_map().find_province("Sevastapl")
        ('edi', 'sev')
        """
        found = self._resolve(text)
        return None if found is None else self.province_of(found[0])

    def find_location(self, text: str) -> str | None:
        """Like :meth:`find_province`, but keeps a written coast: ``'stp nc'`` -> ``'stp/nc'``.

        Coasts may be written ``stp/nc``, ``stp(nc)``, ``stp nc``, ``stp.nc``, ``stp/ncs``,
        ``stp north coast``, ``St Petersburg (north coast)``, ``stp/n`` or DAIDE
        ``(STP NCS)``.  A coast that the province does not have gives ``None``.

        >>> standard_map().find_location("(STP NCS)"), standard_map().find_location("Spain")
        ('stp/nc', 'spa')
        """
        found = self._resolve(text)
        if found is None:
            return None
        loc, code = found
        if code is None:
            return loc
        return self._coast_loc.get((self.province_of(loc), code))

    def find_power(self, text: str) -> str | None:
        """The power named by ``text``: name, adjective, initial, DAIDE code, or a prefix.

        Any prefix of two or more letters of a power's name or adjective that belongs to one
        power only is accepted, as is a name or adjective of five or more letters with one
        typo.

        >>> [standard_map().find_power(t) for t in ("ENG", "English", "e", "fr", "Itlay")]
        ['England', 'England', 'England', 'France', 'Italy']
        """
        word = normalise_name(text)
        if not word:
            return None
        power = self._power_exact.get(word) or self._power_prefix.get(word)
        if power is not None:
            return power
        if (
            not _POWER_FUZZY_MIN - 1 <= len(word) <= _FUZZY_MAX
            or word in self.aliases
            or word in RESERVED_WORDS
        ):
            return None
        found = {self._power_full[v] for v in _edits1(word) if v in self._power_full}
        return found.pop() if len(found) == 1 else None


@functools.cache
def standard_map() -> Map:
    """The standard Diplomacy board, loaded once from ``maps/standard.map``."""
    text = resources.files("judge.engine").joinpath("maps/standard.map").read_text("utf-8")
    return Map.from_text(text)
