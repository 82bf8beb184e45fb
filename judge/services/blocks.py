"""What PRESS and PROPOSE share as block commands (the lines up to their end line are
theirs): the refusal of a block that no end line ended while lines of it read as orders,
and the block given back in the reply of a refusal, so that nothing the sender wrote is
lost."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from judge.engine.notation import parse_orders

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = ["MAX_LINES_CHECKED", "UNSIGNED_ECHO_CHARS", "give_back", "unended_reason"]

#: The most lines of a block that no end line ended looked at for orders.
MAX_LINES_CHECKED = 200
#: Of a block refused to a sender who is not signed on (the address may be forged), at
#: most this much of its text is given back.
UNSIGNED_ECHO_CHARS = 2_000


def unended_reason(
    conversation: Conversation,
    body: Sequence[str],
    end: str | None,
    *,
    end_word: str,
    what: str,
    done: str,
) -> str | None:
    """Why a block (``what``: "press", "proposal") that ``end`` (``SIGNOFF``, or None:
    the end of the message) ended instead of its ``end_word`` is refused, or None when
    none of its lines reads as an order.  Its lines that read as orders are the sender's
    orders after a forgotten or misspelt end line far more often than its text; ``done``
    says what was not done ("nothing was sent"); a lone word that starts with END is
    asked about."""
    orders: list[str] = []
    typo: str | None = None
    for line in body[:MAX_LINES_CHECKED]:
        words = line.split()
        if len(words) == 1 and words[0].upper().startswith("END") and typo is None:
            typo = words[0]
        pieces = parse_orders(line, conversation.map)
        if pieces and all(piece.order is not None for piece in pieces):
            orders.append(line.strip())
    if not orders:
        return None
    how = "SIGNOFF did" if end == "SIGNOFF" else "it ran to the end of your message"
    count = len(orders)
    shown = ", ".join(orders[:3]) + (", ..." if count > 3 else "")
    lines = (
        "1 of its lines reads as an order" if count == 1 else f"{count} of its lines read as orders"
    )
    reason = (
        f"no {end_word} ended this {what} ({how}) and {lines} ({shown}): {done}; write "
        f"{end_word} alone on the line after the {what}, and your orders after it"
    )
    if typo is not None:
        reason += f" (is {typo!r} meant as {end_word}?)"
    return reason


def give_back(
    conversation: Conversation, line: str, reason: str, body: Sequence[str], *, heading: str
) -> None:
    """Refuse the block of ``line`` with ``reason`` (the error flag), giving its lines
    (``body``) back under ``heading`` ("This press was not sent ({line}); its text")
    so that nothing the sender wrote is lost (to a sender not signed on, whose address
    may be forged, an excerpt of it)."""
    conversation.reject(line, reason)
    text = "\n".join(body).strip("\n")
    if not text.strip():
        return
    if conversation.signed is None and len(text) > UNSIGNED_ECHO_CHARS:
        more = len(text) - UNSIGNED_ECHO_CHARS
        text = f"{text[:UNSIGNED_ECHO_CHARS]}\n[... {more:,} more characters]"
    conversation.reply.paragraphs.append(
        f"{heading}, for you to send again:\n\n"
        + "\n".join(f"  | {row}" for row in text.split("\n"))
    )
