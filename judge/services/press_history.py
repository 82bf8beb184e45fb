"""``HISTORY <game> PRESS``: the press of a game that one reader may read again.

Who reads what (each press as that reader was shown it when it went out; the time it
was received only to its sender and to the master who reads all press):

- anyone: the game's broadcasts and its published press releases (someone not signed on
  to the game gets these only, and only when anyone may watch the game: ``observers =
  "open"``; otherwise the answer asks them to sign on);
- a player: also the press their power sent (to its real recipients, saying how it was
  signed or faked) or received;
- an observer: also the press sent to the observers, and their own;
- the game master: also the press sent to the master, and their own; and every press,
  with its true sender, when the game sets ``master_reads_press``.

A grey press never names its sender to anyone but its sender (and the game master who
reads all press); a faked one shows what its recipients were shown.  The answer is
bounded: the most recent :data:`RECENT_ENTRIES` entries, or one phase's, or all of them,
within :data:`MAX_CHARS` characters; what was left out is said, with how to ask for it.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any

from judge.config import Observers
from judge.db import queries
from judge.db.models import Game, PressRecord, PressState
from judge.engine.phases import Phase
from judge.presenters import format_deadline
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.press_signing import sender_shown
from judge.services.releases import genuine

if TYPE_CHECKING:
    from judge.services.conversation import Conversation

__all__ = [
    "MAX_CHARS",
    "RECENT_ENTRIES",
    "Reader",
    "press_history",
    "reader_of",
]

#: Without a phase, the answer holds the reader's most recent entries, this many.
RECENT_ENTRIES = 20
#: The most characters of press one answer holds (a press is at most the game's
#: ``press_max_chars``, itself at most 100,000): older entries beyond it are left out.
MAX_CHARS = 100_000


@dataclass(frozen=True)
class Reader:
    """Who asks for a game's press.

    ``role`` "power", "master", "observer" or "public" (not signed on to the game);
    ``power`` the reader's power ("power" only); ``address`` the address signed on from
    (an observer's own press is found by it).
    """

    role: str
    power: str | None = None
    address: str | None = None


def reader_of(conversation: Conversation, game: Game) -> Reader:
    """The reader of ``game``'s press in ``conversation``: as signed on to that game (the
    game master acting for a power reads as the master), else the public."""
    signed = conversation.signed
    if signed is None or signed.game.id != game.id:
        return Reader("public")
    if signed.is_master:
        return Reader("master", address=conversation.mail.sender.lower())
    if signed.observer is not None:
        return Reader("observer", address=signed.observer.address.lower())
    assert signed.player is not None
    return Reader("power", power=signed.player.power, address=signed.player.address.lower())


def press_history(
    conversation: Conversation, game: Game, reader: Reader, which: str | None
) -> list[str]:
    """The paragraphs of the answer: a heading, the entries ``reader`` may read (oldest
    first) and, when some were left out, how to ask for them.  ``which``: None (the most
    recent entries), "ALL", or a phase code (``S1901M``); a bad one raises
    :class:`ServiceError` naming it."""
    settings = game_settings(game)
    if reader.role == "public" and settings.observers is not Observers.OPEN:
        raise ServiceError(
            f"the press of {game.name} is read by its players, its game master and its "
            f"observers: sign on to the game first (SIGNON <power initial>{game.name} "
            "<password>, or OBSERVE for an observer), then HISTORY "
            f"{game.name} PRESS"
        )
    phase = _phase(which, game)
    reads_all = reader.role == "master" and settings.master_reads_press
    zone = game_zone(game, conversation.judge)
    visible = [
        record
        for record in queries.press_of(conversation.session, game.id, phase)
        if _visible(record, reader, reads_all, conversation.now)
    ]
    master_dateline = settings.master_dateline
    # Only the entries the answer may hold are written out: a long game's older press
    # is counted, not formatted.
    chosen = visible if which is not None else visible[-RECENT_ENTRIES:]
    kept = [_entry(record, reader, reads_all, zone, master_dateline) for record in chosen]
    size = 0
    start = len(kept)
    # The newest first, until the size limit: one pass, each entry measured once.
    while start > 0 and size + len(kept[start - 1]) <= MAX_CHARS:
        start -= 1
        size += len(kept[start])
    left_out = len(visible) - (len(kept) - start)
    paragraphs = [_fill(_heading(game, reader, reads_all, phase))]
    if not visible:
        paragraphs.append("There is none yet." if phase is None else f"There is none of {phase}.")
        return paragraphs
    paragraphs += kept[start:]
    if left_out:
        paragraphs.append(_fill(_left_out(game, visible[:left_out], which)))
    return paragraphs


def _fill(text: str) -> str:
    """A paragraph of the judge's own words, wrapped to the width of its mail."""
    return textwrap.fill(text, 76, break_long_words=False, break_on_hyphens=False)


def _phase(which: str | None, game: Game) -> str | None:
    """The phase code asked for (None: every phase)."""
    if which is None or which.upper() == "ALL":
        return None
    try:
        return Phase.parse(which).code
    except ValueError:
        raise ServiceError(
            f"{which!r} is not a phase: write HISTORY {game.name} PRESS, HISTORY "
            f"{game.name} PRESS S1901M (one phase) or HISTORY {game.name} PRESS ALL"
        ) from None


def _visible(record: PressRecord, reader: Reader, reads_all: bool, now: datetime) -> bool:
    """Whether ``reader`` may read ``record`` at ``now``: a press whose mail is still held
    (a grey or faked press's random delay) is its sender's only until the mail goes, so
    that asking again and again does not tell when it was written."""
    to: dict[str, Any] = record.recipients or {}
    held = to.get("held_until")
    if isinstance(held, str) and datetime.fromisoformat(held) > now:
        return _own(record, reader)
    if record.release:
        if record.state == PressState.PUBLISHED or reads_all:
            return True
        return _own(record, reader)
    if to.get("broadcast") or reads_all or _own(record, reader):
        return True
    if reader.role == "power":
        return reader.power in (to.get("powers") or ())
    if reader.role == "master":
        return bool(to.get("master"))
    if reader.role == "observer":
        return bool(to.get("observers"))
    return False


def _own(record: PressRecord, reader: Reader) -> bool:
    """Whether ``reader`` sent ``record``."""
    if reader.role == "power":
        return record.sender_role == "power" and record.sender_power == reader.power
    if reader.role == "master":
        return record.sender_role == "master"
    if reader.role == "observer":
        return record.sender_role == "observer" and record.sender_address == reader.address
    return False


def _entry(
    record: PressRecord, reader: Reader, reads_all: bool, zone: str, master_dateline: str
) -> str:
    """One press as ``reader`` reads it: its phase (and to its sender and the master who
    reads all press, the time it was received), who sent it to whom, and its text indented
    (so that no line of it passes for the start of another entry).

    Nobody else is shown the time: a grey or faked press received in the same second as
    its sender's white one would name that sender, and the time would undo the random
    hold of its mail (:func:`judge.services.press_signing.held_until`)."""
    when = ""
    phase = record.phase or "Before the start"
    if _own(record, reader):
        heading = _true_heading(record, f"you ({_shown_name(record)})", master_dateline)
        when = f", {format_deadline(record.created_at, zone)}"
    elif reads_all:
        heading = _true_heading(record, _true_sender(record), master_dateline)
        when = f", {format_deadline(record.created_at, zone)}"
    else:
        heading = _shown_heading(record, master_dateline)
    body = "\n".join(f"  {line}" if line else "" for line in record.body.strip("\n").split("\n"))
    return f"{phase}{when}\n{heading}:\n{body}"


def _shown_heading(record: PressRecord, master_dateline: str) -> str:
    """Who sent it to whom, as its recipients were shown it."""
    shown = sender_shown(record.shown_from)
    if record.release:
        sender = f" from {shown}" if shown else ""
        return f"Press release{sender}{_dateline(record, master_dateline)}"
    if shown is None:
        return f"Grey press to {record.shown_to}"
    return f"From {shown} to {record.shown_to}"


def _true_heading(record: PressRecord, sender: str, master_dateline: str) -> str:
    """Who really sent it to whom, and how it was signed, faked or published."""
    notes: list[str] = []
    if record.signed == "grey" or (record.signed == "fake" and record.shown_from is None):
        notes.append("sent grey")
    elif record.signed == "fake" and record.shown_from != _shown_name(record):
        notes.append(f"faked as {record.shown_from}")
    if record.release:
        notes.append(_release_state(record))
        return f"Press release from {sender}{_dateline(record, master_dateline)}" + "".join(
            f", {n}" for n in notes
        )
    real = _real_recipients(record)
    if real != record.shown_to:
        notes.append(f"shown as to {record.shown_to}")
    return f"From {sender} to {real}" + "".join(f", {n}" for n in notes)


def _shown_name(record: PressRecord) -> str:
    """How a white press of this sender names it."""
    if record.sender_role == "power":
        return str(record.sender_power)
    return "Master" if record.sender_role == "master" else "Observer"


def _true_sender(record: PressRecord) -> str:
    """The true sender, for the game master who reads all press."""
    if record.sender_role == "master":
        return "the game master"
    if record.sender_role == "observer":
        return f"an observer ({record.sender_address})"
    return str(record.sender_power)


def _real_recipients(record: PressRecord) -> str:
    """To whom the press really went, in the words readers see: what they were shown
    when it was not faked, else from its recipients."""
    if record.signed != "fake":
        return record.shown_to
    to: dict[str, Any] = record.recipients or {}
    if to.get("broadcast"):
        return "all"
    names = [str(power) for power in to.get("powers") or ()]
    names += ["the game master"] if to.get("master") else []
    names += ["the observers"] if to.get("observers") else []
    return ", ".join(names)


def _dateline(record: PressRecord, master_dateline: str) -> str:
    """A release's dateline, marked as the results marked it when it is its sender's own."""
    if not record.dateline:
        return ""
    mark = " (guaranteed genuine)" if genuine(record, master_dateline) else ""
    return f", dateline {record.dateline}{mark}"


def _release_state(record: PressRecord) -> str:
    if record.state == PressState.PUBLISHED:
        return "published"
    if record.state == PressState.WITHHELD:
        return "not published" + (f" ({record.outcome})" if record.outcome else "")
    return "held for the next results"


def _heading(game: Game, reader: Reader, reads_all: bool, phase: str | None) -> str:
    """What the answer holds, for whom."""
    of = f"{game.name}, {phase}" if phase else game.name
    if reads_all:
        return f"All the press of {of}, with the true senders (the game master reads all press):"
    common = "the broadcasts and the published press releases"
    if reader.role == "power":
        return f"The press of {of} that {reader.power} sent or received, and {common}:"
    if reader.role == "master":
        return f"The press of {of} that the game master sent or received, and {common}:"
    if reader.role == "observer":
        return f"The press of {of} sent to the observers or by you, and {common}:"
    return (
        f"The public press of {of}: {common} (sign on to the game to read the press you "
        "sent or received):"
    )


def _left_out(game: Game, older: list[PressRecord], which: str | None) -> str:
    """The closing paragraph: how many older entries were left out, and how to ask."""
    first = older[0].phase or "the start"
    last = older[-1].phase or "the start"
    span = first if first == last else f"{first} to {last}"
    said = f"{len(older)} earlier press {'was' if len(older) == 1 else 'were'} left out"
    example = f"HISTORY {game.name} PRESS {last}" if older[-1].phase else None
    if which is None:
        return (
            f"{said} ({span}): ask for one phase"
            + (f", e.g. {example}," if example else "")
            + f" or for all of them: HISTORY {game.name} PRESS ALL."
        )
    limit = f"an answer holds at most {MAX_CHARS:,} characters of press"
    if which.upper() == "ALL" and example:
        return f"{said} ({span}): {limit}; ask for one phase, e.g. {example}."
    return f"{said} ({span}): {limit}."
