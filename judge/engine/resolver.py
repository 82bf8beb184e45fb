"""Movement adjudication: Kruijswijk's guess-and-check resolver (DATC section 5).

Every order is a node whose resolution is a boolean: a move *succeeds*, a support is
*given* (neither cut nor dislodged), any other order's unit is *not dislodged*.  A node
is resolved on demand and memoised; when resolving it needs its own (guessed) value, the
node is resolved both ways; a cycle that admits both or neither outcome is settled by the
backup rule: Szykman's rule for convoy paradoxes (the convoyed armies of the cycle do not
move and have no effect) and "all move" for circular movement.

Provinces are the node keys.  The orders given to :class:`Resolver` are normalised by
:mod:`judge.engine.legality` first.
"""

from __future__ import annotations

from collections.abc import Mapping

from judge.engine.board import Map
from judge.engine.orders import Convoy, Move, Order, SupportHold, SupportMove
from judge.engine.units import Unit

_UNRESOLVED, _GUESSING, _RESOLVED = 0, 1, 2


class Resolver:
    """Resolve one movement phase.

    ``orders`` maps each unit's province to its normalised order (every unit has one;
    a unit without an order holds).  ``convoyed`` lists the provinces of armies that move
    by convoy.  After :meth:`run`, :attr:`result` holds every node's resolution.
    """

    __slots__ = (
        "_deps",
        "_state",
        "convoy_fleets",
        "convoyed",
        "dest",
        "game_map",
        "hold_supports",
        "move_supports",
        "moves_to",
        "no_path",
        "orders",
        "result",
        "route_fleets",
        "units",
    )

    def __init__(
        self,
        game_map: Map,
        units: Mapping[str, Unit],
        orders: Mapping[str, Order],
        convoyed: set[str],
        convoy_fleets: dict[str, list[str]],
        move_supports: dict[str, list[str]],
        hold_supports: dict[str, list[str]],
    ) -> None:
        self.game_map = game_map
        self.units = units
        self.orders = orders
        self.convoyed = convoyed
        self.convoy_fleets = convoy_fleets
        self.move_supports = move_supports
        self.hold_supports = hold_supports
        dest: dict[str, str] = {}
        moves_to: dict[str, list[str]] = {}
        for prov, order in orders.items():
            if type(order) is Move:
                d = order.destination.split("/", 1)[0]
                dest[prov] = d
                lst = moves_to.get(d)
                if lst is None:
                    moves_to[d] = [prov]
                else:
                    lst.append(prov)
        self.dest = dest
        self.moves_to = moves_to
        self.no_path: set[str] = set()
        self.route_fleets: dict[str, frozenset[str]] = {}
        self.result: dict[str, bool] = {}
        self._state: dict[str, int] = {}
        self._deps: list[str] = []

    # -- driver -----------------------------------------------------------------------

    def run(self) -> dict[str, bool]:
        """Resolve every order; return province -> resolution."""
        for prov in self.orders:
            self.resolve(prov)
        return self.result

    def resolve(self, p: str) -> bool:
        """The resolution of the order of the unit in ``p`` (Kruijswijk's ``resolve``)."""
        state = self._state.get(p, _UNRESOLVED)
        if state == _RESOLVED:
            return self.result[p]
        deps = self._deps
        if state == _GUESSING:
            # Always record the read, even of a node already listed: the caller tells
            # whether it depended on a guess by whether the list grew.
            deps.append(p)
            return self.result[p]
        old = len(deps)
        self.result[p] = False
        self._state[p] = _GUESSING
        first = self._adjudicate(p)
        if len(deps) == old:
            if self._state[p] != _RESOLVED:
                self.result[p] = first
                self._state[p] = _RESOLVED
            return first
        if deps[old] != p:
            # Depends on a guess made further up: leave it to that node's cycle.
            deps.append(p)
            self.result[p] = first
            return first
        # ``p`` opened a cycle: try the other guess.
        for q in deps[old:]:
            self._state[q] = _UNRESOLVED
        del deps[old:]
        self.result[p] = True
        self._state[p] = _GUESSING
        second = self._adjudicate(p)
        if first == second:
            for q in deps[old:]:
                self._state[q] = _UNRESOLVED
            del deps[old:]
            self.result[p] = first
            self._state[p] = _RESOLVED
            return first
        self._backup_rule(old)
        return self.resolve(p)

    def _backup_rule(self, old: int) -> None:
        cycle = self._deps[old:]
        del self._deps[old:]
        # A convoy paradox has a convoying fleet in the cycle; a cycle of moves alone
        # (convoyed or not) is circular movement.
        armies: set[str] = set()
        for q in cycle:
            order = self.orders[q]
            if type(order) is Convoy and order.target in self.convoyed:
                armies.add(order.target)
        for q in cycle:
            self._state[q] = _UNRESOLVED
        if armies:
            # Szykman: the convoyed armies of a paradox do not move and cut nothing.
            for a in armies:
                self.no_path.add(a)
                self.result[a] = False
                self._state[a] = _RESOLVED
        else:
            # Circular movement: everything moves.
            for q in cycle:
                if q in self.dest:
                    self.result[q] = True
                    self._state[q] = _RESOLVED

    # -- decisions --------------------------------------------------------------------

    def _adjudicate(self, p: str) -> bool:
        order = self.orders[p]
        kind = type(order)
        if kind is Move:
            return self._move(p)
        if (kind is SupportMove or kind is SupportHold) and not self._support_cut(p):
            return False
        attackers = self.moves_to.get(p)
        if attackers:
            for a in attackers:
                if self.resolve(a):
                    return False
        return True

    def _support_cut(self, p: str) -> bool:
        """``False`` when the support of ``p`` is cut by an attack (dislodging aside)."""
        return self.cutter(p) is None

    def cutter(self, p: str) -> str | None:
        """The province of the first unit whose attack cuts the support of ``p``, if any.

        A support is cut by an attack from any power but its own, except from the province
        the support is given into (DATC 6.D.15); that province is compared without its
        coast, as a support naming ``bul/ec`` is still given into Bulgaria.  A convoyed
        army without a route cuts nothing.
        """
        attackers = self.moves_to.get(p)
        if not attackers:
            return None
        order = self.orders[p]
        power = self.units[p].power
        target_dest = order.destination.split("/", 1)[0] if isinstance(order, SupportMove) else None
        units = self.units
        for a in attackers:
            if units[a].power == power or a == target_dest:
                continue
            if a in self.convoyed and not self.path(a):
                continue
            return a
        return None

    def path(self, a: str) -> bool:
        """Whether the army in ``a`` has a route: always for a land move, else a convoy."""
        if a not in self.convoyed:
            return True
        if a in self.no_path:
            return False
        fleets = self.convoy_fleets.get(a)
        if not fleets:
            return False
        game_map = self.game_map
        dest = self.dest[a]
        adj = game_map.fleet_adj_prov
        frontier = [f for f in fleets if a in adj[f]]
        seen = set(frontier)
        while frontier:
            f = frontier.pop()
            if not self.resolve(f):
                continue
            near = adj[f]
            if dest in near:
                return True
            for g in fleets:
                if g not in seen and g in near:
                    seen.add(g)
                    frontier.append(g)
        return False

    def _given(self, supporters: list[str] | None, exclude_power: str | None = None) -> int:
        if not supporters:
            return 0
        n = 0
        units = self.units
        for s in supporters:
            if exclude_power is not None and units[s].power == exclude_power:
                continue
            if self.resolve(s):
                n += 1
        return n

    def head_to_head(self, p: str) -> bool:
        """Whether the move from ``p`` meets a move coming the other way over land."""
        d = self.dest.get(p)
        return (
            d is not None
            and self.dest.get(d) == p
            and p not in self.convoyed
            and d not in self.convoyed
        )

    def attack_strength(self, p: str) -> int:
        """The attack strength of the move from ``p``."""
        d = self.dest[p]
        sups = self.move_supports.get(p)
        occupant = self.units.get(d)
        if occupant is None:
            return 1 + self._given(sups)
        if d in self.dest and not self.head_to_head(p) and self.resolve(d):
            return 1 + self._given(sups)
        if occupant.power == self.units[p].power:
            return 0
        return 1 + self._given(sups, occupant.power)

    def hold_strength(self, d: str) -> int:
        """The hold strength of province ``d``."""
        if d not in self.units:
            return 0
        if d in self.dest:
            return 0 if self.resolve(d) else 1
        return 1 + self._given(self.hold_supports.get(d))

    def prevent_strength(self, p: str) -> int:
        """The prevent strength of the move from ``p``."""
        if p in self.convoyed and not self.path(p):
            return 0
        if self.head_to_head(p) and self.resolve(self.dest[p]):
            return 0
        return 1 + self._given(self.move_supports.get(p))

    def _defence(self, p: str) -> int:
        """What the move from ``p`` must beat in its destination: the defend strength of
        the unit coming the other way in a head-to-head battle, else the hold strength."""
        d = self.dest[p]
        if self.head_to_head(p):
            return 1 + self._given(self.move_supports.get(d))
        return self.hold_strength(d)

    def support_spent_on_own_unit(self, s: str) -> bool:
        """After :meth:`run`: whether the support of move given by ``s`` counted for
        nothing because the move would dislodge a unit of the supporter's own power (the
        unit stays in the destination: it did not move, or lost a head-to-head battle).

        Such a support still adds to the move's prevent strength (DATC 5), so it counts
        when that stopped another move into the destination which would have succeeded
        without it; otherwise it was spent on nothing.
        """
        order = self.orders[s]
        if type(order) is not SupportMove:
            return False
        t = order.target
        d = self.dest.get(t)
        if d is None:
            return False
        occupant = self.units.get(d)
        if occupant is None or occupant.power != self.units[s].power:
            return False
        if d in self.dest and not self.head_to_head(t) and self.resolve(d):
            return False  # the unit left: the support counted in the attack
        return not any(self._stopped_by_one(o, t) for o in self.moves_to[d] if o != t)

    def _stopped_by_one(self, o: str, t: str) -> bool:
        """Whether the move from ``o`` failed only because the move from ``t`` prevented
        it with exactly its strength: one support less for ``t`` and ``o`` would have won
        against everything else in its way."""
        if o in self.convoyed and not self.path(o):
            return False  # it never arrived: nothing prevented it
        attack = self.attack_strength(o)
        if attack == 0 or attack != self.prevent_strength(t):
            return False
        d = self.dest[o]
        others = (self.prevent_strength(r) for r in self.moves_to[d] if r not in (o, t))
        return attack > self._defence(o) and all(attack > strength for strength in others)

    def bouncer(self, p: str) -> str | None:
        """After :meth:`run`: the province of the unit that stopped the failed move from ``p``.

        The unit in the destination when its defence held (its hold strength, or its own
        move in a head-to-head battle), else the first other move into the destination
        whose prevent strength was enough; a convoyed army without a route prevents
        nothing and is never named.
        """
        d = self.dest[p]
        attack = self.attack_strength(p)
        if d in self.units and attack <= self._defence(p):
            return d
        for o in self.moves_to[d]:
            if o != p and attack <= self.prevent_strength(o):
                return o
        return d if d in self.units else None

    def _move(self, p: str) -> bool:
        if p in self.convoyed and not self.path(p):
            return False
        d = self.dest[p]
        attack = self.attack_strength(p)
        if attack == 0 or attack <= self._defence(p):
            return False
        return all(o == p or attack > self.prevent_strength(o) for o in self.moves_to[d])
