"""What one message did, in one line for the keeper's log (``judge serve``'s INFO lines):
who it signed on as in which game, the commands it ran (by their names) and how many
orders it gave and had refused, e.g. ``France in demo: 3 orders, 1 refused``,
``PROCESS demo S1901M by the game master``, ``LIST from someone@example.com``.

Only what the judge knows by name goes in: powers, games, phases, command names,
counts and the sender's address; never a password, nor any text of the message.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judge.services.signons import SignOn

__all__ = ["Activity"]

#: Command names that open or close a sign-on: not listed as things done.
_SIGNING = ("SIGNON", "SIGNOFF")
#: Commands that give orders, counted together where the first of them was.
_ORDER_LINES = ("ORDERS", "IF")


@dataclass
class _Step:
    """One command as it began: its name, the sign-on then, the game's phase then, and
    the reply's error count and the orders taken so far."""

    name: str
    signed: SignOn | None
    phase: str | None
    errors: int
    orders: int
    ahead: int = 0


@dataclass
class _Done:
    """One command done: its name, the sign-on it left, the phase it began in, and how
    many lines it had refused and orders it took."""

    name: str
    signed: SignOn | None
    phase: str | None
    refused: int
    orders: int
    ahead: int = 0


@dataclass
class Activity:
    """The record of one message's commands, summed up by :meth:`summary`.

    :meth:`began` is called as each command begins, so that each one's end is the next
    one's beginning (or the end of the message): what it did is the difference.
    """

    steps: list[_Step] = field(default_factory=list)
    #: Orders taken (checked and kept) so far; counted by the ORDERS command.
    orders_taken: int = 0
    #: Orders kept for a later phase (a PHASE section, a two-season heading): each order,
    #: or each IF block, one.
    orders_ahead: int = 0

    def began(self, name: str, signed: SignOn | None, errors: int) -> None:
        """Command ``name`` begins, under ``signed``, with ``errors`` refusals so far."""
        phase = signed.game.phase if signed is not None else None
        self.steps.append(_Step(name, signed, phase, errors, self.orders_taken, self.orders_ahead))

    def summary(self, sender: str, signed: SignOn | None, errors: int) -> str:
        """The message's line: ``signed`` and ``errors`` are the sign-on and the refusal
        count once its last command ended."""
        if not self.steps:
            return f"nothing read from {sender}"
        last = _Step("", signed, None, errors, self.orders_taken, self.orders_ahead)
        ends = [*self.steps[1:], last]
        done = [
            _Done(
                step.name,
                end.signed,
                step.phase,
                end.errors - step.errors,
                end.orders - step.orders,
                end.ahead - step.ahead,
            )
            for step, end in zip(self.steps, ends, strict=True)
        ]
        groups: list[tuple[SignOn | None, list[_Done]]] = []
        for item in done:
            opens = item.name == "SIGNON" and item.signed is not None
            if opens or not groups or groups[-1][0] is not item.signed:
                groups.append((item.signed, []))
            if not opens:
                groups[-1][1].append(item)
        return "; ".join(_group_line(signon, items, sender) for signon, items in groups)


def _group_line(signed: SignOn | None, items: list[_Done], sender: str) -> str:
    """The part of a message's line for the commands of one sign-on (or of none)."""
    words = _words(items)
    if signed is None:
        return f"{', '.join(words) or 'no command'} from {sender}"
    game = signed.game.name
    if signed.observer is not None:
        return (
            f"observer {signed.observer.address} of {game}: {', '.join(words) or 'signed on only'}"
        )
    if signed.player is None:  # the game master
        phase = next((item.phase for item in items if item.phase), signed.game.phase)
        where = f"{game} {phase}" if phase else game
        return f"{', '.join(words) or 'signed on'} {where} by the game master"
    who = f"{signed.player.power} in {game}"
    if signed.by_master:
        who += " by the game master"
    elif signed.copy_to is not None:
        who += f" from {sender}"
    return f"{who}: {', '.join(words) or 'signed on only'}"


def _words(items: list[_Done]) -> list[str]:
    """What the commands of one sign-on did, in order: the orders counted where the
    first line of orders was, the other commands by name."""
    words: list[str] = []
    orders = refused = ahead = 0
    place = None
    for item in items:
        if item.name in _ORDER_LINES:
            place = len(words) if place is None else place
            orders += item.orders
            ahead += item.ahead
            refused += item.refused
        elif item.name in _SIGNING and not item.refused:
            continue
        elif item.name == "UNKNOWN":
            words.append("a line not understood")
        else:
            words.append(f"{item.name} (refused)" if item.refused else item.name)
    if place is not None and (orders or refused or ahead):
        words.insert(place, _counted(orders, refused, ahead))
    return words


def _counted(orders: int, refused: int, ahead: int = 0) -> str:
    """``3 orders, 1 refused``; ``1 order``; ``2 orders refused``; ``1 order, 2 sent
    ahead``; ``2 orders sent ahead, 1 refused``."""
    if not orders and not ahead:
        return f"{refused} order{'s' if refused != 1 else ''} refused"
    if orders:
        counted = f"{orders} order{'s' if orders != 1 else ''}"
        counted += f", {ahead} sent ahead" if ahead else ""
    else:
        counted = f"{ahead} order{'s' if ahead != 1 else ''} sent ahead"
    return counted + (f", {refused} refused" if refused else "")
