"""Who reads a press, and how its recipients are shown to them.

**The real recipients** (:func:`resolve`): the powers a press line names, each played by
a player still in the game (:attr:`~judge.services.audience.Audience.PLAYERS`: not
resigned nor ejected) and not out of it (no units and no supply centres): a power named
that has no player or is out is refused by name.  ``ALL`` / ``BROADCAST`` are every such
power (less ``BUT`` ones; those out or without a player are passed over), the game master
(``M``) and the observers (``O``).  The sender's own power is dropped (the confirmation
says so), and so is the sender's own address; each address reads a press once.

**What readers are shown** (:func:`shown_to`), as the njudge writes it: the powers by
name in the map's order ("England, Germany"), or "all but Germany" for a press to all
but some, or "all" for a broadcast (every power still in besides the sender, the game
master and the observers); "the game master" and "the observers" are added when a press
that is not a broadcast reaches them ("England, the game master").

**Anonymity of grey press.**  A reader of a grey press knows that its sender is a power
still in the game and not among the recipients shown (nobody writes to themselves).  The
list must not narrow that down to the sender: so of the two true ways to show the same
recipients, the list of powers (possible senders: the powers not listed) and "all but
X", where X is every power still in that neither received it nor sent it (possible
senders: the powers not in X, the sender among them), a grey press is shown in the form
that leaves more possible senders; the list on a tie.  A grey press that reaches every
other power still in is shown to "all" (X is empty).  A white press is shown as its line
named the recipients (a list, or "all but X" for ``ALL BUT``); a faked press (``FAKE
TO``, ``FAKE BROADCAST``) is shown to the recipients it claims.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from judge.db.models import GameStatus
from judge.engine.board import standard_map
from judge.presenters import and_list
from judge.services.audience import Audience, Recipient, recipients

if TYPE_CHECKING:
    from judge.services.conversation import Conversation
    from judge.services.press import Sender, Targets

__all__ = ["Readers", "Shown", "real_text", "resolve", "shown", "shown_to", "still_in"]


@dataclass(frozen=True)
class Readers:
    """The real recipients of one press.

    ``powers`` (map order) and their ``players``; ``master`` the game master's
    recipient; ``observers`` the observers reached; ``universe`` the powers still in the
    game (a player, units or centres); ``dropped_own`` the sender named their own power;
    ``broadcast`` the press reaches every power still in but the sender, the master (when
    the game has one) and the observers (when it has any).
    """

    powers: tuple[str, ...]
    players: tuple[Recipient, ...]
    master: Recipient | None
    observers: tuple[Recipient, ...]
    universe: tuple[str, ...]
    dropped_own: bool
    has_master: bool
    has_observers: bool
    to_master: bool
    to_observers: bool

    @property
    def all(self) -> list[Recipient]:
        """Every recipient: the players, the master, the observers."""
        master = [self.master] if self.master is not None else []
        return [*self.players, *master, *self.observers]


def still_in(conversation: Conversation, sender: Sender) -> tuple[dict[str, Recipient], set[str]]:
    """The players still in the sender's game by power, and the powers out of it (no
    units and no supply centres; none before the game starts)."""
    session, judge, game = conversation.session, conversation.judge, sender.game
    players = {r.power: r for r in recipients(session, game, Audience.PLAYERS, judge) if r.power}
    out: set[str] = set()
    if game.phase is not None and game.status != GameStatus.FORMING:
        position = conversation.position(game)
        out = {p for p in players if not position.units_of(p) and not position.centres_of(p)}
    return players, out


def resolve(conversation: Conversation, sender: Sender, targets: Targets) -> Readers:
    """The real recipients of a press from ``sender`` to ``targets``; raises
    :class:`~judge.services.press.PressRefused` naming a power that cannot read it, or
    when nobody is left."""
    from judge.services.press import PressRefused

    game = sender.game
    players, out = still_in(conversation, sender)
    order = standard_map().powers
    universe = tuple(p for p in order if p in players and p not in out)
    dropped_own = sender.power is not None and sender.power in targets.powers
    if targets.every:
        powers = [p for p in universe if p not in targets.but and p != sender.power]
    else:
        powers = []
        for power in targets.powers:
            if power == sender.power:
                continue
            if power not in players:
                raise PressRefused(
                    f"{power} has no player in {game.name} (its seat is open): no press "
                    "reaches it; name the powers still played"
                )
            if power in out:
                raise PressRefused(
                    f"{power} is out of {game.name} (no units and no supply centres): no "
                    "press reaches it"
                )
            powers.append(power)
        powers.sort(key=order.index)
    master = None
    if targets.master and sender.role != "master":
        if not game.master_address and not targets.every:
            raise PressRefused(f"game {game.name} has no game master: leave M out")
        if game.master_address:
            master = recipients(conversation.session, game, Audience.MASTER, conversation.judge)[0]
    others = [
        r
        for r in recipients(conversation.session, game, Audience.OBSERVERS, conversation.judge)
        if r.address != sender.address
    ]
    observers = others if targets.observers else []
    if targets.observers and not others and not targets.every:
        raise PressRefused(f"game {game.name} has no observers: leave O out")
    # Each address once, never the sender's own (a master who plays, an observer who plays).
    taken = {sender.address}
    kept_players = _once((players[power] for power in powers), taken)
    kept_master = _once([master] if master is not None else [], taken)
    master = kept_master[0] if kept_master else None
    kept_observers = _once(observers, taken)
    if not kept_players and master is None and not kept_observers:
        own = f" ({sender.power} is your own power)" if dropped_own else ""
        raise PressRefused(f"the press reaches nobody{own}: name other powers, M or O")
    has_master = bool(game.master_address) and sender.role != "master"
    return Readers(
        powers=tuple(powers),
        players=tuple(kept_players),
        master=master,
        observers=tuple(kept_observers),
        universe=universe,
        dropped_own=dropped_own,
        has_master=has_master,
        has_observers=bool(others),
        to_master=targets.master and has_master,
        to_observers=targets.observers and bool(others),
    )


def _once(readers: Iterable[Recipient], taken: set[str]) -> list[Recipient]:
    """``readers`` whose address is not in ``taken``, each address once; the addresses
    kept are added to ``taken``."""
    kept: list[Recipient] = []
    for reader in readers:
        if reader.address not in taken:
            taken.add(reader.address)
            kept.append(reader)
    return kept


@dataclass(frozen=True)
class Shown:
    """The recipients as readers see them: ``text`` ("England, Germany", "all but
    Germany", "all"), and whether the mail reads as a broadcast (``text`` "all")."""

    text: str
    broadcast: bool


def shown_to(
    universe: Sequence[str],
    powers: Iterable[str],
    sender: str | None,
    *,
    master: tuple[bool, bool] = (False, False),
    observers: tuple[bool, bool] = (False, False),
    complement: bool = False,
    grey: bool = False,
) -> Shown:
    """How the recipients ``powers`` of a press from ``sender`` (a power, or None) are
    shown; ``master`` and ``observers``: (the game has them, the press reaches them);
    ``complement`` the line named them as "all but"; ``grey`` the form is chosen for
    anonymity (see the module's docstring).

    >>> U = ("Austria", "England", "France", "Germany", "Italy", "Russia", "Turkey")
    >>> def grey(powers):
    ...     return shown_to(U, powers, "France", grey=True).text
    >>> grey(["England"]), grey(["Germany", "England"])
    ('England', 'England, Germany')
    >>> grey(["Austria", "England", "Italy", "Russia", "Turkey"])
    'all but Germany'
    >>> grey(["Austria", "England", "Germany", "Italy", "Russia", "Turkey"])
    'all'
    >>> shown_to(U, ["England"], "France", master=(True, True)).text
    'England, the game master'
    >>> shown_to(U, U, "France", master=(True, True), observers=(True, False)).text
    'all but the observers'
    """
    wanted = set(powers)
    listed = [p for p in universe if p in wanted]
    extras = (("the game master", master), ("the observers", observers))
    reached = [name for name, (has, on) in extras if has and on]
    missed = [name for name, (has, on) in extras if has and not on]
    left_out = [p for p in universe if p not in wanted and p != sender]
    if grey:
        # Who may have sent it: the powers not listed; shown "all but X", those not in X
        # (the sender among them).  The form that leaves more of them.
        complement = len(listed) + (sender in universe) > len(universe) - len(listed)
    if not left_out and not missed:
        return Shown("all", True)
    if (complement or not left_out) and listed:
        return Shown("all but " + ", ".join([*left_out, *missed]), False)
    return Shown(", ".join([*listed, *reached]), False)


def shown(readers: Readers, sender: str | None, *, complement: bool, grey: bool) -> Shown:
    """How the real recipients ``readers`` of a press from ``sender`` are shown."""
    return shown_to(
        readers.universe, readers.powers, sender,
        master=(readers.has_master, readers.to_master),
        observers=(readers.has_observers, readers.to_observers),
        complement=complement, grey=grey,
    )  # fmt: skip


def real_text(readers: Readers) -> str:
    """The real recipients, for the sender's confirmation: "England and Germany", "Austria,
    England, ..., the game master and 2 observers"."""
    names = list(readers.powers)
    if readers.master is not None:
        names.append("the game master")
    if readers.observers:
        count = len(readers.observers)
        names.append("1 observer" if count == 1 else f"{count} observers")
    return and_list(names)
