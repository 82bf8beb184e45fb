"""PROPOSE and VOTE: the house rules' proposals to end a game (seed 003, section 8; game
option ``endgame = "house"``).

``PROPOSE`` owns the lines after it up to ``ENDPROPOSE`` alone on a line, a ``SIGNOFF``
or the end of the message, as ``PRESS`` does; a ``PROPOSE`` line that ends with
``ENDPROPOSE`` (``PROPOSE DRAW AEF ENDPROPOSE``) is the whole proposal and owns none.
The terms are on the ``PROPOSE`` line, or on the first line of the block when the
``PROPOSE`` line has none:

* ``DRAW A E F``: a draw among the powers named (initials, run together or apart, or
  names, with spaces or commas between them);
* ``CONCEDE F``: a concession to one power;
* ``RESULT F 1, E 2, A 2``: a ranked result (8.6), equal ranks sharing a place.

The game master may add ``ABSTAIN = ASSENT`` (8.3) after the terms, or on a line of its
own in the block.  The other lines of the block are a note shown with the announcement.

``VOTE <n> YES|NO|ABSTAIN`` (or ``Y``, ``N``, ``A``) is a player's answer, sent with the
orders.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
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
from judge.engine.votes import Ballot, Terms
from judge.services import proposals
from judge.services.errors import ServiceError
from judge.services.proposals import ProposalRequest

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = [
    "PROPOSE_BLOCK",
    "Propose",
    "Vote",
    "proposal_number",
    "read_ballot",
    "read_proposal",
    "read_terms",
]

#: The lines a proposal owns.
PROPOSE_BLOCK = Block(
    ("ENDPROPOSE",),
    spellings=("END PROPOSE",),
    stray="{end} ends a proposal, and no PROPOSE came before it",
)

#: What a proposal looks like, for the errors.
SHAPE = (
    "write the terms after PROPOSE: DRAW A E F (a draw among the powers named), "
    "CONCEDE F (a concession to one power) or RESULT F 1, E 2, A 2 (a ranked result, "
    "equal ranks sharing a place)"
)
#: The most powers or ranks one set of terms may hold (a bound on the work).
_MAX_TERMS_WORDS = 40
_ANSWERS = {
    "YES": Ballot.YES, "Y": Ballot.YES,
    "NO": Ballot.NO, "N": Ballot.NO,
    "ABSTAIN": Ballot.ABSTAIN, "A": Ballot.ABSTAIN,
}  # fmt: skip
_ABSTAIN = re.compile("abstain", re.IGNORECASE)
#: The most digits a proposal's number is read with (a bound on the work).
_MAX_NUMBER_DIGITS = 6
_VOTE_SHAPE = "write VOTE <n> YES, VOTE <n> NO or VOTE <n> ABSTAIN, <n> the proposal's number"


def _is_abstain_assent(text: str) -> bool:
    """Whether ``text`` is ``ABSTAIN = ASSENT`` (any case, any spacing)."""
    return "".join(text.split()).upper() == "ABSTAIN=ASSENT"


def _split_abstain(text: str) -> tuple[str, bool]:
    """``text`` without an ``ABSTAIN = ASSENT`` at its end, and whether it had one."""
    found = _ABSTAIN.search(text)
    if found is None:
        return text, False
    at = found.start()
    if not _is_abstain_assent(text[at:]):
        raise Malformed(
            f"{text[at:].strip()}: the game master's declaration is written ABSTAIN = ASSENT, "
            "after the terms or on a line of its own"
        )
    return text[:at], True


def _powers(words: Sequence[str], what: str) -> list[str]:
    """The powers named by ``words`` (initials run together or apart, or names), in the
    order written, each once."""
    powers, _ = read_power_names(
        words,
        lambda word: (
            f"{what} {word}: {word!r} names no power; name the powers by their initials "
            "(A E F, or AEF) or their names (Austria, England, France)"
        ),
    )
    return list(powers)


def read_terms(text: str) -> tuple[Terms, bool]:
    """The terms written in ``text`` (the words after ``PROPOSE``, or the block's first
    line), and whether ``ABSTAIN = ASSENT`` follows them; raises :class:`Malformed`
    saying what a proposal looks like.

    >>> read_terms("DRAW A, E and France")[0].powers == {"Austria", "England", "France"}
    True
    >>> read_terms("draw AEF abstain=assent")[1]
    True
    >>> read_terms("CONCEDE TO F")[0].ranks
    (('France', 1),)
    >>> read_terms("RESULT F 1, E 2, A 2")[0].ranks
    (('France', 1), ('Austria', 2), ('England', 2))
    """
    terms_text, assent = _split_abstain(text)
    words = terms_text.replace(",", " ").split()
    if not words:
        raise Malformed(f"the proposal has no terms: {SHAPE}")
    if len(words) > _MAX_TERMS_WORDS:
        raise Malformed(f"the terms are too long ({len(words)} words): {SHAPE}")
    kind, rest = keyword(words[0]), words[1:]
    try:
        if kind == "DRAW":
            return Terms.draw(_powers(rest, "DRAW")), assent
        if kind == "CONCEDE":
            if rest and keyword(rest[0]) == "TO":
                rest = rest[1:]
            named = _powers(rest, "CONCEDE")
            if len(named) != 1:
                raise Malformed(
                    "CONCEDE names one power, the one the game is conceded to: CONCEDE F"
                )
            return Terms.concede(named[0]), assent
        if kind == "RESULT":
            return Terms.result(_ranks(rest)), assent
    except ValueError as err:
        raise Malformed(f"{err}: {SHAPE}") from None
    raise Malformed(f"{words[0]!r} is not a kind of proposal: {SHAPE}")


#: Ranks written as words, refused with the shape of a rank rather than as unknown powers.
_ORDINALS = frozenset(
    ("FIRST", "SECOND", "THIRD", "FOURTH", "FIFTH", "SIXTH", "SEVENTH", "LAST", "ONE", "TWO",
     "THREE", "FOUR", "FIVE", "SIX", "SEVEN")
)  # fmt: skip


def _ranks(words: Sequence[str]) -> list[tuple[str, int]]:
    """``F 1, E 2, A 2`` (or ``F 1 EA 2``): each power before the rank it gets."""
    ranks: list[tuple[str, int]] = []
    pending: list[str] = []
    for word in words:
        rank = word.strip(".;:")
        if rank.isascii() and rank.isdigit() and len(rank) <= 2:
            if not pending:
                raise Malformed(f"RESULT: the rank {rank} follows no power: {SHAPE}")
            ranks += [(power, int(rank)) for power in _powers(pending, "RESULT")]
            pending = []
        elif any(c.isdigit() for c in rank) or rank.upper() in _ORDINALS:
            # No power's name has a digit in it: a rank written some other way.
            raise Malformed(
                f"RESULT: {rank!r} is not a rank: a rank is a whole number from 1 to 99 after "
                "the powers it ranks, RESULT F 1, E 2, A 2"
            )
        else:
            pending.append(word)
    if pending:
        raise Malformed(
            f"RESULT: {' '.join(pending)} has no rank after it: give each power its rank, "
            "RESULT F 1, E 2, A 2"
        )
    return ranks


def read_proposal(args: Sequence[str], body: Sequence[str]) -> ProposalRequest:
    """A ``PROPOSE`` line's words after the name (``args``) and its block (``body``) as a
    :class:`ProposalRequest`; raises :class:`Malformed`."""
    lines = list(body)
    assent_line = False
    kept: list[str] = []
    for row in lines:
        if _is_abstain_assent(row):
            assent_line = True
        else:
            kept.append(row)
    if args:
        terms, assent = read_terms(" ".join(args))
    else:
        first = next((i for i, row in enumerate(kept) if row.strip()), None)
        if first is None:
            raise Malformed(f"the proposal has no terms: {SHAPE}")
        terms, assent = read_terms(kept[first])
        kept = kept[first + 1 :]
    note = "\n".join(kept).strip("\n")
    return ProposalRequest(terms=terms, note=note, abstain_assent=assent or assent_line)


def proposal_number(word: str) -> int | None:
    """``word`` as a proposal's number (``3`` or ``#3``: a few ASCII digits, 1 or more),
    or None; VOTE, ACCEPT and DECLINE read it alike.

    >>> proposal_number("#3"), proposal_number("0"), proposal_number("three")
    (3, None, None)
    """
    digits = word.removeprefix("#")
    if not (digits.isascii() and digits.isdigit()) or len(digits) > _MAX_NUMBER_DIGITS:
        return None
    return int(digits) or None


def read_ballot(args: Sequence[str]) -> tuple[int, Ballot]:
    """``VOTE``'s words after the name: the proposal's number and the answer.

    >>> read_ballot(["3", "y"])
    (3, <Ballot.YES: 'yes'>)
    """
    if len(args) != 2:
        raise Malformed(_VOTE_SHAPE)
    number, answer = proposal_number(args[0]), keyword(args[1])
    if number is None:
        raise Malformed(f"{args[0]!r} is not a proposal's number: {_VOTE_SHAPE}")
    ballot = _ANSWERS.get(answer)
    if ballot is None:
        raise Malformed(f"{args[1]!r} is not an answer: {_VOTE_SHAPE}")
    return number, ballot


def _ends_on_its_line(line: Line) -> int:
    """How many of the words at the end of a ``PROPOSE`` line are its ``ENDPROPOSE``
    (``ENDPROPOSE`` or ``END PROPOSE``, after terms): 0 when it has none."""
    keys = line.arg_keys
    if len(keys) > 1 and keys[-1] == "ENDPROPOSE":
        return 1
    if len(keys) > 2 and keys[-2:] == ("END", "PROPOSE"):
        return 2
    return 0


class Propose(MailCommand):
    """``PROPOSE <terms>`` ... ``ENDPROPOSE``."""

    name = "PROPOSE"
    block = PROPOSE_BLOCK
    help = Help(
        usage=("PROPOSE DRAW|CONCEDE|RESULT <terms> ... ENDPROPOSE",),
        description=(
            "propose an end of the game (DRAW A E F, CONCEDE F, RESULT F 1, E 2, A 2) to "
            "every player, without your name (house rules, section 8); the lines up to "
            "ENDPROPOSE are a note shown with it; the game master may add ABSTAIN = ASSENT"
        ),
        audience=Audience.ANYONE,
    )

    def parse(self, line: Line) -> Command | None:
        args = line.args
        ends = _ends_on_its_line(line)
        if ends:
            return replace(line.command(self.name, args[:-ends]), end="ENDPROPOSE")
        return line.command(self.name, args)

    def owns_block(self, line: Line) -> bool:
        # PROPOSE DRAW AEF ENDPROPOSE is a whole proposal: the lines after it are the
        # sender's orders and commands, not its note.
        return not _ends_on_its_line(line)

    def process(self, conversation: Conversation, command: Command) -> None:
        try:
            proposer = proposals.proposer_of(conversation)
            proposals.check_ended(conversation, command.body, command.end)
            request = read_proposal(command.args, command.body)
            proposals.put(conversation, proposer, request)
        except (ServiceError, Malformed) as err:
            proposals.refuse(conversation, command.line, command.body, str(err))


class Vote(MailCommand):
    """``VOTE <n> YES|NO|ABSTAIN``."""

    name = "VOTE"
    help = Help(
        usage=("VOTE <n> YES|NO|ABSTAIN",),
        description=(
            "your answer to proposal <n>, with your orders (a later vote replaces it); "
            "secret: nobody else is told"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command | None:
        read_ballot(line.args)
        return line.command(self.name, line.args)

    def process(self, conversation: Conversation, command: Command) -> None:
        number, ballot = read_ballot(command.args)
        proposals.vote(conversation, number, ballot)
