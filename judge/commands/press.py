"""PRESS, BROADCAST and POSTALPRESS: press to other players, the game master and the
observers, and press releases published with the next results.

A press line owns the lines after it up to ``ENDPRESS`` or ``ENDBROADCAST`` alone on a
line (either ends either), a ``SIGNOFF`` (which also ends the message) or the end of the
message: they are the press, never read as orders or commands.  The words after the
command's name are its options, the njudge's (``TO <powers>``, ``+<initials>``, ``TO ALL
BUT <powers>``, ``-<initials>``, ``WHITE``, ``GREY``, ``FAKE ...``) and the house rules'
press releases (``PUBLISH [IF <order> SUCCEEDS|FAILS [AND ...]]``).  A line whose first
word after the name is none of them is prose that starts with the word ("Press the
attack"), read as orders.  Options written wrong never stop the block from being the
press's: the press is refused with the reason and its text given back.

Powers are named by initials run together, as on the njudge (``FG``: France and
Germany; ``M`` the game master, ``O`` the observers), or by names (``France, Germany``):
a word made of distinct initials only is initials (``FR`` is France and Russia, as on the
njudge), any other a power's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from judge.commands.base import (
    Audience,
    Block,
    Command,
    Help,
    Line,
    MailCommand,
    Malformed,
    keyword,
    read_power_names,
)
from judge.engine.board import standard_map
from judge.services import press, releases
from judge.services.press import EVERYONE, Condition, PressRequest, Targets

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["PRESS_BLOCK", "Broadcast", "PostalPress", "Press", "read_request"]

#: The lines a press owns.
PRESS_BLOCK = Block(
    ("ENDPRESS", "ENDBROADCAST"),
    spellings=("END PRESS", "END BROADCAST"),
    stray="{end} ends a press, and no PRESS or BROADCAST came before it",
)

_WHITE = frozenset({"WHITE", "UNANONYMOUS", "UNANONYMOUSLY"})
_GREY = frozenset({"GREY", "GRAY", "ANONYMOUS", "ANONYMOUSLY"})
#: The words that start an option (and end a list of powers).
_OPTIONS = _WHITE | _GREY | {"TO", "FAKE", "NOFAKE", "BROADCAST", "PUBLISH", "IF", "PARTIAL"}
_OUTCOMES = {"SUCCEEDS": True, "SUCCEED": True, "FAILS": False, "FAIL": False}
#: The most conditions one release may have, and words in one condition's order.
MAX_CONDITIONS = 10
_MAX_ORDER_WORDS = 12
_SPECIAL = {"M": "master", "O": "observers"}


def _is_press(keys: Sequence[str]) -> bool:
    """Whether the words after PRESS make a press line (else prose starting "Press")."""
    if not keys:
        return True
    first = keys[0]
    return first in _OPTIONS or first == "ALL" or (len(first) > 1 and first[0] in "+-")


def read_request(
    name: str, line: str, words: Sequence[str], body: Sequence[str] = (), end: str | None = None
) -> PressRequest:
    """The press line ``line`` of command ``name`` with the ``words`` after the name, as a
    :class:`PressRequest`; raises :class:`Malformed` saying what is wrong and what would
    be right.

    >>> r = read_request("PRESS", "", "TO FG grey".split())
    >>> r.to.powers, r.signed
    (('France', 'Germany'), 'grey')
    >>> read_request("PRESS", "", "to France, Germany and M".split()).to
    Targets(every=False, but=(), powers=('France', 'Germany'), master=True, observers=False)
    >>> read_request("PRESS", "", ["-GO"]).to
    Targets(every=True, but=('Germany',), powers=(), master=True, observers=False)
    >>> r = read_request("PRESS", "", "TO E FAKE AS G".split())
    >>> r.fake, r.fake_as
    (True, 'Germany')
    >>> r = read_request("PRESS", "", "PUBLISH IF A Par-Bur SUCCEEDS AND F Bre-MAO FAILS".split())
    >>> r.publish, r.conditions[1]
    (True, Condition(order='F Bre-MAO', succeeds=False))
    >>> read_request("BROADCAST", "", []).to.every
    True
    >>> try:
    ...     read_request("PRESS", "", "TO Q".split())
    ... except Malformed as err:
    ...     print(str(err)[:26])
    TO Q: 'Q' names no power;
    """
    reader = _Reader(name, [keyword(w) for w in words], list(words))
    reader.read()
    to = reader.to
    if to is None and name == "BROADCAST":
        to = EVERYONE
    return PressRequest(
        command=name,
        line=line,
        to=to,
        signed=reader.signed,
        fake=reader.fake,
        fake_as=reader.fake_as,
        fake_to=reader.fake_to,
        publish=reader.publish or name == "POSTALPRESS",
        conditions=tuple(reader.conditions),
        body=tuple(body),
        end=end,
    )


class _Reader:
    """One pass over a press line's words (linear: each word is looked at once)."""

    def __init__(self, name: str, keys: list[str], words: list[str]) -> None:
        self.name = name
        self.keys = keys
        self.words = words
        self.at = 0
        self.to: Targets | None = None
        self.signed: str | None = None
        self.fake = False
        self.fake_as: str | None = None
        self.fake_to: Targets | None = None
        self.publish = False
        self.conditions: list[Condition] = []

    def _peek(self) -> str | None:
        return self.keys[self.at] if self.at < len(self.keys) else None

    def read(self) -> None:
        while (key := self._peek()) is not None:
            word = self.words[self.at]
            self.at += 1
            if key in _WHITE or key in _GREY:
                signed = "white" if key in _WHITE else "grey"
                if self.signed is not None and self.signed != signed:
                    raise Malformed("a press is either WHITE or GREY, not both")
                self.signed = signed
            elif key == "TO" or key == "ALL" or (len(key) > 1 and key[0] in "+-"):
                if self.to is not None:
                    raise Malformed(f"{word}: the recipients are named twice; name them once")
                self.to = self._targets(key, word)
            elif key == "BROADCAST":
                if self.to is not None:
                    raise Malformed("BROADCAST: the recipients are named twice; name them once")
                self.to = EVERYONE
            elif key == "FAKE":
                self._fake()
            elif key == "NOFAKE":
                self.fake = False
            elif key == "PUBLISH":
                self.publish = True
            elif key == "IF":
                self._condition()
            elif key == "PARTIAL":
                continue
            else:
                raise Malformed(
                    f"{word}: not an option of {self.name}; write PRESS TO <powers> (or "
                    "BROADCAST), then if you like WHITE or GREY, FAKE AS <power>, or "
                    "PUBLISH [IF <order> SUCCEEDS|FAILS]"
                )

    def _targets(self, key: str, word: str) -> Targets:
        """The recipients after ``TO`` (or ``ALL``, ``+FG``, ``-G``)."""
        if key[0] in "+-":
            powers, master, observers = _names([word[1:]], word)
            if key[0] == "+":
                return Targets(powers=powers, master=master, observers=observers)
            # "ALL BUT": the observers too unless named (the njudge's "-o").
            return Targets(every=True, but=powers, master=not master, observers=not observers)
        if key == "TO":
            after = self._peek()
            if after is None:  # "" is a word of other letters than ASCII: a name to read
                raise Malformed(
                    "TO: name the recipients after it: PRESS TO FG, PRESS TO France, "
                    "Germany, PRESS TO ALL BUT R"
                )
            if after != "ALL":
                return self._listed(word)
            self.at += 1
        # ALL [BUT <powers>]
        if self._peek() != "BUT":
            return EVERYONE
        self.at += 1
        listed = self._listed("ALL BUT")
        return Targets(
            every=True, but=listed.powers, master=not listed.master,
            observers=not listed.observers,
        )  # fmt: skip

    def _listed(self, after: str) -> Targets:
        """The powers listed from here up to the next option word."""
        start = self.at
        while self.at < len(self.keys) and self.keys[self.at] not in _OPTIONS:
            self.at += 1
        words = self.words[start : self.at]
        if not words:
            raise Malformed(f"{after}: name the powers after it (initials or names)")
        powers, master, observers = _names(words, after)
        return Targets(powers=powers, master=master, observers=observers)

    def _fake(self) -> None:
        """``FAKE [AS <power>] [BROADCAST | [PARTIAL] TO <powers> | +FG | -G]``."""
        self.fake = True
        if self._peek() == "AS":
            self.at += 1
            if self._peek() is None:
                raise Malformed("FAKE AS: name the power the press should seem to come from")
            word = self.words[self.at]
            self.at += 1
            power = standard_map().find_power(word)
            if power is None:
                raise Malformed(f"FAKE AS {word}: {word!r} names no power; write FAKE AS G")
            self.fake_as = power
        if self._peek() == "PARTIAL":
            self.at += 1
        key = self._peek()
        if key == "BROADCAST":
            self.at += 1
            self.fake_to = EVERYONE
        elif key is not None and (key in ("TO", "ALL") or (len(key) > 1 and key[0] in "+-")):
            word = self.words[self.at]
            self.at += 1
            self.fake_to = self._targets(key, word)

    def _condition(self) -> None:
        """``IF <order> SUCCEEDS|FAILS [AND <order> SUCCEEDS|FAILS ...]``."""
        while True:
            start = self.at
            while self.at < len(self.keys) and self.keys[self.at] not in _OUTCOMES:
                self.at += 1
            order = " ".join(self.words[start : self.at])
            if self.at >= len(self.keys):
                raise Malformed(
                    f"IF {order}: say whether the order SUCCEEDS or FAILS: "
                    "PRESS PUBLISH IF A Par-Bur SUCCEEDS"
                )
            if not order or self.at - start > _MAX_ORDER_WORDS:
                raise Malformed(
                    "IF: write one order, then SUCCEEDS or FAILS: PRESS PUBLISH IF A Par-Bur "
                    "SUCCEEDS"
                )
            self.conditions.append(Condition(order, _OUTCOMES[self.keys[self.at]]))
            if len(self.conditions) > MAX_CONDITIONS:
                raise Malformed(f"a press release may have at most {MAX_CONDITIONS} conditions")
            self.at += 1
            if self._peek() not in ("AND", "IF"):
                return
            self.at += 1


def _names(words: Sequence[str], after: str) -> tuple[tuple[str, ...], bool, bool]:
    """The powers named by ``words`` (initials run together, or names; commas and AND
    between them), and whether the game master (M) and the observers (O) are named."""
    powers, named = read_power_names(
        words,
        lambda part: (
            f"{after} {part}: {part!r} names no power; write the powers' initials run "
            "together (PRESS TO FG) or their names (PRESS TO France, Germany), M for the "
            "game master, O for the observers"
        ),
        specials="".join(_SPECIAL),
    )
    return powers, "M" in named, "O" in named


class Press(MailCommand):
    """``PRESS <options>`` ... ``ENDPRESS``."""

    name = "PRESS"
    block = PRESS_BLOCK
    help = Help(
        usage=(
            "PRESS TO <powers> [WHITE|GREY] [FAKE AS <power>] ... ENDPRESS",
            "PRESS TO ALL BUT <powers> ... ENDPRESS",
            "PRESS PUBLISH [IF <order> SUCCEEDS|FAILS] ... ENDPRESS",
        ),
        description=(
            "press to other players (initials PRESS TO FG, or names), to the game master "
            "(PRESS TO M) or the observers (O); PUBLISH holds a press release for the next "
            "results; the lines up to ENDPRESS are the press, never orders"
        ),
        audience=Audience.ANYONE,
    )

    def parse(self, line: Line) -> Command | None:
        if not _is_press(line.arg_keys):
            return None
        return line.command(self.name, line.args)

    def process(self, conversation: Conversation, command: Command) -> None:
        try:
            request = read_request(self.name, command.line, command.args, command.body, command.end)
        except Malformed as err:
            press.refuse(conversation, command.line, command.body, str(err))
            return
        try:
            press.check_ended(conversation, request)
        except press.PressRefused as err:
            press.refuse(conversation, command.line, command.body, str(err))
            return
        if request.publish:
            releases.hold(conversation, request)
        else:
            press.send(conversation, request)


class Broadcast(Press):
    """``BROADCAST [<options>]`` ... ``ENDBROADCAST``: press to everyone."""

    name = "BROADCAST"
    help = Help(
        usage=("BROADCAST ... ENDPRESS",),
        description=(
            "press to every player, the game master and the observers (BROADCAST with "
            "options is PRESS)"
        ),
        audience=Audience.ANYONE,
    )


class PostalPress(Press):
    """``POSTALPRESS`` ... ``ENDPRESS``: the njudge's name for a press release to all."""

    name = "POSTALPRESS"
    spellings = ("POSTAL PRESS",)
    help = Help(
        usage=("POSTALPRESS ... ENDPRESS",),
        description="a press release to everyone, published with the next results",
        audience=Audience.ANYONE,
    )

    def parse(self, line: Line) -> Command | None:
        if line.args and not _is_press(line.arg_keys):
            return None
        return line.command(self.name, line.args)
