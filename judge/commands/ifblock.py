"""IF ... ELSE IF ... ELSE ... ENDIF: conditional orders, one block command (its lines up
to the ENDIF that closes it, inner blocks nested).

For the current phase the block is decided at once against the position (the one the
phase began with): the chosen lines are taken as orders, each checked and refused one by
one as any order line, and the reply shows the block with the branch taken.  Inside a
PHASE section or a two-season heading it is kept whole (one row) and decided when that
phase begins.  A block with any error (its structure, a condition, a line that is no order
of that phase's kind, a line for another power, no ENDIF) is refused whole, its lines
given back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from judge.commands.base import Audience, Block, Command, Help, Line, MailCommand
from judge.commands.orders import playing, take_line
from judge.engine.board import Map, standard_map
from judge.engine.conditional import choose, outline, parse_condition
from judge.services import future_orders
from judge.services.blocks import give_back
from judge.services.errors import ServiceError
from judge.services.orders_ahead import block_lines, check_block, is_block_word
from judge.services.phase_sections import auto_adjustment

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["IF_BLOCK", "IfCommand"]

IF_BLOCK = Block(
    ("ENDIF",),
    spellings=("END IF",),
    nests=True,
    stray=(
        "{end} belongs to an IF block (IF <condition> ... ELSE ... ENDIF), and no IF came before it"
    ),
    inner=("ELSE", "ELSEIF", "ELSIF"),
)

_UNIT_WORDS = frozenset({"A", "F", "ARMY", "FLEET"})
# The words that may follow a unit in a condition.
_AFTER_ATOM = frozenset({"AND", "OR", "THEN", "OWNED"})
# The longest word taken for a mistyped place after A or F ("IF A Mnu").
_SHORT = 3


class IfCommand(MailCommand):
    """``IF <condition> [THEN]``, its lines, ``ENDIF``.

    A line starting with IF is the command when its condition reads, it ends with THEN,
    or it starts as a condition does (NOT, a parenthesis, a place, or A/F and a place or a
    short word); otherwise it is prose ("If you agree, ..."), read as orders (not read).
    """

    name = "IF"
    block = IF_BLOCK
    help = Help(
        usage=("IF <condition> [THEN] ... [ELSE IF <condition> ...] [ELSE ...] ENDIF",),
        description=(
            "conditional orders: the first branch whose condition holds when the phase "
            "begins is taken (A Mun, NOT F Kie, Bel OWNED BY France, AND, OR, parentheses)"
        ),
        audience=Audience.PLAYER,
    )

    def parse(self, line: Line) -> Command | None:
        words, keys = line.args, line.arg_keys
        if not words:
            return line.command(self.name)
        board = standard_map()
        try:
            parse_condition(line.text.split(None, 1)[1], board)
        except ValueError:
            pass
        else:
            return line.command(self.name, words)
        starts = keys[-1] == "THEN" or _starts_condition(words, board)
        return line.command(self.name, words) if starts else None

    def process(self, conversation: Conversation, command: Command) -> None:
        ended = command.end == "ENDIF"
        written = [command.line, *command.body, *(["ENDIF"] if ended else [])]
        try:
            game, player = playing(conversation)
        except ServiceError as err:
            # Not signed on, or the game not running: refused, its lines given back.
            _refuse(conversation, command, written, str(err))
            return
        position = conversation.position(game)
        current = position.phase
        words = command.line.upper().split()
        if "THEN" in words[:-1]:
            # "IF A Mun THEN A Mun-Ruh": the orders of a branch go on the lines after it.
            _refuse(
                conversation, command, written,
                "write the orders on the lines after 'IF <condition> THEN', one a line, and "
                "ENDIF alone on the line after them",
            )  # fmt: skip
            return
        if not ended:
            how = "SIGNOFF did" if command.end == "SIGNOFF" else "it ran to the end of your message"
            _refuse(
                conversation, command, written,
                f"no ENDIF ended this IF block ({how}): nothing of it was taken; write ENDIF "
                "alone on the line after the block",
            )  # fmt: skip
            return
        section = conversation.section
        if section is not None and section.phase is None:
            _refuse(conversation, command, written, section.refusal)
            return
        if section is None or section.now:
            # In a two-season Autumn, a block of builds and removals only is the year's
            # adjustments, as such order lines are outside any section.
            orders = [line for line in command.body if line.strip() and not is_block_word(line)]
            sections = [auto_adjustment(game, current, line) for line in orders]
            section = sections[0] if sections and None not in sections else None
        target = section.phase if section is not None and section.phase is not None else current
        try:
            items = check_block(written, command.number, target, player.power, conversation.map)
        except ValueError as err:
            _refuse(conversation, command, written, str(err))
            return
        if target != current:
            kept = block_lines(command.line, command.body, "ENDIF")
            full = future_orders.room_refusal(
                game, future_orders.kept_lines(conversation.session, game, player), len(kept)
            )
            if full is not None:
                _refuse(conversation, command, written, full)
                return
            future_orders.add(
                conversation.session, game, player, target.code, kept,
                conversation.inbound_id, conversation.now, cache=conversation.work.ahead,
            )  # fmt: skip
            conversation.activity.orders_ahead += 1
            return
        shown = outline(items, position)
        chosen = choose(items, position)
        heading = f"IF block decided on the position of {current.code}:"
        after = [] if chosen else ["No branch was taken: no orders from this block."]
        conversation.reply.actions.append("\n".join([heading, *(f"  {x}" for x in shown), *after]))
        for line in chosen:
            take_line(conversation, game, player, line)


def _starts_condition(words: Sequence[str], board: Map) -> bool:
    """Whether ``words`` (after IF, not a condition as written) start as one does, so
    that the line is a mistyped condition, not prose: after any ``NOT`` and opening
    parentheses, a place, or A/F and a place, or A/F and a short word ("A Mnu")
    followed by nothing, AND, OR, OWNED or a closing parenthesis ("If a war comes" and
    "If not you, who?" are prose)."""
    index = 0
    # Bounded by the words of one line.
    while index < len(words) and (words[index].upper() == "NOT" or not words[index].lstrip("(")):
        index += 1
    if index == len(words):
        return False
    first = words[index].lstrip("(")
    if first.upper() not in _UNIT_WORDS:
        return board.find_province(first) is not None
    second = words[index + 1] if index + 1 < len(words) else ""
    if board.find_province(second.rstrip(")")) is not None:
        return True
    if len(second) > _SHORT:
        return False
    # A short word that is no place ("Mnu", or "war"): a condition only if it ends or
    # the words after it go on as one.
    after = words[index + 2] if index + 2 < len(words) else ""
    return not after or after.startswith(")") or after.upper() in _AFTER_ATOM


def _refuse(conversation: Conversation, command: Command, written: list[str], reason: str) -> None:
    """Refuse the whole block with ``reason`` and give its lines back."""
    give_back(
        conversation, command.line, reason, written,
        heading="Nothing of this IF block was taken; its lines",
    )  # fmt: skip
