"""Inbound mail: store first, then process each message in one transaction.

A message is stored raw and deduplicated by Message-ID before anything else happens;
processing reads the commands in its body, changes the game, and queues exactly one
reply (plus a copy to a player's registered address when someone signed on from
elsewhere).  An exception rolls the transaction back and parks the message as failed,
to be retried; nothing the player sent is lost.
"""

from __future__ import annotations

import hashlib
import logging
import os
import re
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.orm import Session, sessionmaker

from judge.commands import NJUDGE_COMMANDS, NJUDGE_SETTINGS, UNREAD, Command, parse_commands
from judge.config import rules_from_dict
from judge.db import queries
from judge.db.models import Game, InboundMessage, Player, SignonGuard
from judge.db.session import read_only
from judge.engine.board import Map, standard_map
from judge.engine.errors import OrderError
from judge.engine.legality import check_adjustment, check_movement, check_retreat
from judge.engine.notation import (
    UNIT_ONLY,
    ParsedOrder,
    format_order,
    parse_order,
    parse_orders,
)
from judge.engine.orders import Build, Order, Remove, Waive
from judge.engine.phases import PhaseKind
from judge.engine.position import Position
from judge.engine.rules import Rules
from judge.mail.decode import (
    MAX_HEADER_BYTES,
    BodyText,
    IncomingMail,
    decode,
    header_block,
    read_body,
)
from judge.mail.redact import mask_passwords, redact_passwords
from judge.mail.rules import deserves_reply, refuse_reason
from judge.mail.subjects import strip_prefixes
from judge.presenters import (
    adjustment_status,
    echo_lines,
    format_deadline,
    missing_lines,
    phase_heading,
    position_report,
)
from judge.render import RenderedMail
from judge.services.context import Judge
from judge.services.deadlines import next_deadline, parse_deadline
from judge.services.errors import ServiceError
from judge.services.games import (
    current_position,
    find_game,
    game_summary,
    game_zone,
    notify_master,
    notify_signon_locked,
    owed,
    process_game,
    respect_absences,
    set_deadline,
)
from judge.services.outbox import insert_outbox, queue_mail
from judge.services.passwords import (
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    hash_password,
    verify_password,
)

log = logging.getLogger(__name__)


# -- storing --------------------------------------------------------------------------

#: Of a message larger than ``max_message_bytes``, the bytes of its body stored besides
#: its header (enough to see what it was); its original size is kept in ``size``.
STORED_PREFIX_BYTES = 65536


def receive(
    session: Session, raw: bytes, now: datetime, *, max_bytes: int | None = None
) -> tuple[InboundMessage, bool]:
    """Store a raw message unless one with its Message-ID is already stored.

    Returns the stored row and whether it is new.  The caller commits.  ``max_bytes``:
    of a larger message only the header and a prefix of the body are stored.
    """
    fields = _stored_fields(raw, now, max_bytes)
    existing = queries.inbound_by_message_id(session, str(fields["message_id"]))
    if existing is not None:
        return existing, False
    row = InboundMessage(**fields)
    session.add(row)
    session.flush()
    return row, True


@dataclass(frozen=True)
class Stored:
    """What :func:`receive_many` did with one message."""

    message_id: str
    sender: str | None
    new: bool


def receive_many(
    session: Session, raws: Sequence[bytes], now: datetime, *, max_bytes: int | None = None
) -> list[Stored]:
    """Store raw messages like :func:`receive`, with one query for the Message-IDs already
    stored and one statement for the new rows.  The caller commits."""
    rows = [_stored_fields(raw, now, max_bytes) for raw in raws]
    known = queries.stored_message_ids(session, (str(row["message_id"]) for row in rows))
    done: list[Stored] = []
    new_rows = []
    for row in rows:
        message_id = str(row["message_id"])
        new = message_id not in known
        if new:
            known.add(message_id)  # the same message twice in one fetch
            new_rows.append(row)
        done.append(Stored(message_id, cast("str | None", row["sender"]), new))
    queries.insert_inbound(session, new_rows)
    return done


def _stored_fields(raw: bytes, now: datetime, max_bytes: int | None = None) -> dict[str, object]:
    """The inbound row's columns for a raw message."""
    # Storing needs only the header: the body is decoded once, when the message is read.
    mail = decode(header_block(raw))
    message_id = mail.message_id
    if not message_id or message_id.endswith("@judge.invalid>"):
        # No Message-ID: name the message by all of its bytes, not just its header.
        message_id = f"<{hashlib.sha256(raw).hexdigest()}@judge.invalid>"
    kept = raw
    if max_bytes is not None and len(raw) > max_bytes:
        # Too large to read: what answers it (the header) and a sample for the record.
        kept = header_block(raw) + _body(raw)[:STORED_PREFIX_BYTES]
    return {
        "message_id": message_id,
        "sender": mail.sender or None,
        "subject": mail.subject[:500] or None,
        "raw": kept,
        "size": len(raw),
        "received_at": now,
        "state": "new",
        "attempts": 0,
    }


def _body(raw: bytes) -> bytes:
    """The body of a raw message: what follows the first empty line (none: no body)."""
    crlf, lf = raw.find(b"\r\n\r\n"), raw.find(b"\n\n")
    if lf >= 0 and (crlf < 0 or lf < crlf):
        return raw[lf + 2 :]
    return raw[crlf + 4 :] if crlf >= 0 else b""


def read_stored(raw: bytes, size: int, max_bytes: int) -> IncomingMail:
    """A stored message decoded as processing reads it; of a message larger than
    ``max_bytes`` (``size``: as received), the header alone, which is all that is needed
    to refuse it.  The header is read as storing read it: both go through the decoder's
    caps (:func:`judge.mail.decode.header_block`)."""
    return decode(header_block(raw)) if size > max_bytes else decode(raw)


#: Stored messages processed in one transaction: one commit (and one flush of all their
#: rows) for the lot.
BATCH_SIZE = 50
#: Attempts at a message that did not finish (its worker died, was stopped as stalled, or
#: an error rolled it back) before it is parked: set aside, its sender told, not tried again.
MAX_ATTEMPTS = 3
#: How long one transaction of processing may run before it commits what it did so far
#: and lets the other writers in (storing new mail first of all: SQLite has one writer).
BATCH_SECONDS = 0.5
#: The pause between two batches of a backlog.
BATCH_GAP_SECONDS = 0.003
#: The most of a parked message's subject its sender's answer quotes.
PARKED_SUBJECT_CHARS = 80


def process_pending(
    sessions: sessionmaker[Session],
    judge: Judge,
    now: Callable[[], datetime],
    batch_size: int = BATCH_SIZE,
    should_stop: Callable[[], bool] | None = None,
    after_batch: Callable[[], None] | None = None,
    progress: Callable[[], None] | None = None,
) -> int:
    """Process every stored message not yet done; return how many were handled.

    ``should_stop()`` is asked before each batch (the rest waits for the next call), and
    ``after_batch()`` called after each one's commit (to wake the sender at once);
    ``progress()`` as each message's work begins (a watchdog's heartbeat).

    Messages never tried go in batches; one tried before (its worker may have died on it)
    goes alone, so that its batch-mates are not held back by it; one that did not finish
    alone either goes after the rest (it lost its place); one tried :data:`MAX_ATTEMPTS`
    times is parked (:func:`park`).
    """
    with sessions() as session:
        read_only(session)
        pending = queries.pending_inbound(session)
    done = 0
    for inbound_id, attempts in pending:
        if attempts >= MAX_ATTEMPTS:
            park(sessions, judge, inbound_id, now())
            done += 1
    if done and after_batch is not None:
        after_batch()  # the answers to parked messages
    waiting = [(i, n) for i, n in pending if n < MAX_ATTEMPTS]
    # Python's sort is stable: id order, except that suspects go last.
    waiting.sort(key=lambda item: item[1] >= 2)
    position = 0
    while position < len(waiting):
        if should_stop is not None and should_stop():
            break
        batch = [waiting[position][0]]
        if waiting[position][1] == 0:
            while (
                len(batch) < batch_size
                and position + len(batch) < len(waiting)
                and waiting[position + len(batch)][1] == 0
            ):
                batch.append(waiting[position + len(batch)][0])
        states = process_batch(sessions, judge, batch, now(), progress=progress)
        position += len(states)
        done += len(states)
        if after_batch is not None:
            after_batch()
        if position < len(waiting):
            # Let the other writers in (SQLite has one writer at a time): without a gap
            # between batches they would wait until the whole backlog is processed.
            time.sleep(BATCH_GAP_SECONDS)
    return done


def process_batch(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_ids: Sequence[int],
    now: datetime,
    *,
    budget: float = BATCH_SECONDS,
    progress: Callable[[], None] | None = None,
) -> dict[int, str]:
    """Process stored messages in order in one transaction; return the new state of each
    one processed: the first ones of ``inbound_ids``, as many as ``budget`` seconds allow
    (at least one; the rest wait for the next batch).

    Each message's attempt is counted and committed first, so that one that kills or
    stalls the worker still counts (:func:`process_pending` then tries it alone).  The
    messages are decoded before the transaction starts, so that their header parsing does
    not hold the write lock.  When anything fails, the whole transaction is undone and
    every message of the batch is processed again in a transaction of its own
    (:func:`process_one`), so the failing one is marked alone and the others go through.
    Failures are rare (a bug, the database going away), so the common case pays for no
    savepoints.
    """
    if len(inbound_ids) == 1:
        only = inbound_ids[0]
        return {only: process_one(sessions, judge, only, now, progress=progress)}
    _count_attempts(sessions, inbound_ids)
    decoded = _decode_rows(sessions, judge, inbound_ids, progress)
    states: dict[int, str] = {}
    try:
        with sessions() as session, session.begin():
            started = time.monotonic()
            rows = queries.inbound_rows(session, inbound_ids)
            cache = _BatchCache(decoded=decoded)
            senders = {row.sender for row in rows.values() if row.sender}
            _count_replies(session, judge, senders, now, cache)
            for inbound_id in inbound_ids:
                if progress is not None:
                    progress()
                states[inbound_id] = _process_in(session, judge, rows.get(inbound_id), now, cache)
                if time.monotonic() - started > budget:
                    break
            # Those left for the next batch were not attempted.
            queries.count_inbound_attempts(session, inbound_ids[len(states) :], -1)
            _write_orders(session, cache)
    except Exception:
        log.warning(
            "processing %d messages together failed; processing them one by one",
            len(inbound_ids),
            exc_info=True,
        )
        return {
            i: process_one(sessions, judge, i, now, count=False, progress=progress)
            for i in inbound_ids
        }
    return states


def process_one(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_id: int,
    now: datetime,
    *,
    count: bool = True,
    progress: Callable[[], None] | None = None,
) -> str:
    """Process one stored message in one transaction; on error mark it failed (to be
    tried again, up to :data:`MAX_ATTEMPTS` attempts).  ``count``: count the attempt
    first (False: the caller did)."""
    if count:
        _count_attempts(sessions, [inbound_id])
    decoded = _decode_rows(sessions, judge, [inbound_id], progress)
    try:
        with sessions() as session, session.begin():
            row = session.get(InboundMessage, inbound_id)
            cache = _BatchCache(decoded=decoded)
            if row is not None and row.sender:
                _count_replies(session, judge, {row.sender}, now, cache)
            if progress is not None:
                progress()
            state = _process_in(session, judge, row, now, cache)
            _write_orders(session, cache)
            return state
    except Exception as err:
        log.warning("message %d failed", inbound_id, exc_info=True)
        with sessions() as session, session.begin():
            row = session.get(InboundMessage, inbound_id)
            if row is not None:
                row.state = "failed"
                row.reason = f"{type(err).__name__}: {err}"[:1000]
        return "failed"


def _count_attempts(sessions: sessionmaker[Session], inbound_ids: Sequence[int]) -> None:
    """Count an attempt at each message, committed before the attempt starts."""
    with sessions() as session, session.begin():
        queries.count_inbound_attempts(session, inbound_ids, 1)


def _decode_rows(
    sessions: sessionmaker[Session],
    judge: Judge,
    inbound_ids: Sequence[int],
    progress: Callable[[], None] | None,
) -> dict[int, IncomingMail]:
    """The messages ``inbound_ids`` decoded (:func:`read_stored`), read without taking
    the write lock and decoded outside any transaction."""
    with sessions() as session:
        read_only(session)
        stored = queries.inbound_raws(session, inbound_ids)
    decoded = {}
    for inbound_id, (raw, size) in stored.items():
        if progress is not None:
            progress()
        _test_fault(raw)
        decoded[inbound_id] = read_stored(raw, size, judge.settings.max_message_bytes)
    return decoded


#: The environment variable of the test-only fault hook (:func:`_test_fault`).
TEST_FAULT_HOOK = "JUDGE_TEST_FAULT_HOOK"


def _test_fault(raw: bytes) -> None:
    """A test hook, off unless the environment variable :data:`TEST_FAULT_HOOK` is ``1``:
    then a message holding the line ``X-Judge-Test-Fault: kill`` (``stall``, ``memory``)
    kills its worker process (stalls it, exhausts its memory), as a poisonous message
    would.  No real input is known to do so any more; the tests need one that does."""
    if os.environ.get(TEST_FAULT_HOOK) != "1":
        return
    found = re.search(rb"(?m)^X-Judge-Test-Fault: (kill|stall|memory)\r?$", raw[:MAX_HEADER_BYTES])
    if found is None:
        return
    fault = found.group(1)
    log.warning("test fault hook: %s", fault.decode())
    if fault == b"kill":
        os._exit(70)
    elif fault == b"stall":
        time.sleep(3600)
    else:
        hoard = []
        while True:
            hoard.append(bytearray(64 << 20))


def _process_in(
    session: Session, judge: Judge, row: InboundMessage | None, now: datetime, cache: _BatchCache
) -> str:
    """Process one message inside the caller's transaction (which fails if it raises)."""
    if row is None or row.state in ("done", "ignored", "parked"):
        return row.state if row is not None else "missing"
    handle(session, judge, row, now, cache)
    return row.state


def park(sessions: sessionmaker[Session], judge: Judge, inbound_id: int, now: datetime) -> str:
    """Set aside a message whose attempts all failed to finish: state ``parked``, kept for
    the keeper of the judge, never tried again; its sender is told once, in a few lines
    that quote nothing of it but (a bounded excerpt of) its subject."""
    with sessions() as session, session.begin():
        row = session.get(InboundMessage, inbound_id)
        if row is None or row.state not in ("new", "failed"):
            return row.state if row is not None else "missing"
        last = f"; the last error: {row.reason}" if row.state == "failed" and row.reason else ""
        row.state = "parked"
        row.processed_at = now
        row.reason = (
            f"parked after {row.attempts} attempts that did not finish (the worker died, "
            f"was stopped as stalled, or failed){last}"
        )[:1000]
        log.error("message %d %s from %s: %s", row.id, row.message_id, row.sender, row.reason)
        # Only the header is read again: storing read it already, so it is known to be
        # harmless; the rules keep the answer from bounces, robots and the judge itself.
        mail = decode(header_block(row.raw))
        refused = refuse_reason(
            mail, 0, own_addresses={judge.settings.address}, loop_tag=judge.settings.address,
            max_size=judge.settings.max_message_bytes,
        )  # fmt: skip
        if not mail.sender or refused is not None:
            return "parked"
        cache = _BatchCache()
        subject = _cut(mail.subject, PARKED_SUBJECT_CHARS - 3, note=False)
        mail = replace(mail, subject=subject)
        _refuse(session, judge, row, mail, now, cache, [
            _wrapped(
                f"This judge could not process your message of "
                f"{row.received_at:%Y-%m-%d %H:%M} UTC: it was tried {row.attempts} times "
                "and could not be finished. Nothing in it was carried out."
            ),
            _wrapped(
                "The message is kept, and the keeper of this judge (or your game master) "
                "can look at it. Please send your commands again in a short plain-text "
                "message."
            ),
        ])  # fmt: skip
        _write_orders(session, cache)
    return "parked"


@dataclass
class _ActiveOrder:
    """An active order as a message's confirmation lists it: what it is for (see
    ``OrderRecord.unit``) and its canonical text; ``row``: its column values while the
    transaction has not written it yet (see :class:`_OrderWrites`)."""

    unit: str | None
    canonical: str | None
    row: dict[str, object] | None = None


@dataclass
class _OrderWrites:
    """The order rows a transaction changes, written together (:func:`_write_orders`)
    before anything reads them from the database: SQLite cannot insert many rows at
    once and tell the ORM each one's id, so the rows are written without the ORM, and
    retired by what they are for rather than by id."""

    #: The new rows, as column values, oldest first; an entry's ``active`` may still
    #: turn False.
    new: list[dict[str, object]] = field(default_factory=list)
    #: The rows already stored to retire, by (game, seq, player, unit).
    retire: list[tuple[int, int, int, str]] = field(default_factory=list)
    #: The (game, seq, player) whose stored rows all retire (CLEAR).
    clear: list[tuple[int, int, int]] = field(default_factory=list)
    #: Replies queued (outbox rows, see ``queue_mail``'s ``into``), written with the
    #: order rows: one statement for a batch's replies too.
    outbox: list[dict[str, object]] = field(default_factory=list)


@dataclass
class _BatchCache:
    """What the messages of one transaction look up again and again.

    Only values that stay right for the whole transaction are kept: a position is filed
    under its game's phase counter, and the ORM objects are the session's own.
    """

    games: dict[str, Game | None] = field(default_factory=dict)
    #: The players of the games in ``player_games``, all read at once, by (game, power).
    players: dict[tuple[int, str], Player] = field(default_factory=dict)
    player_games: set[int] = field(default_factory=set)
    positions: dict[tuple[int, int], Position] = field(default_factory=dict)
    rules: dict[int, Rules] = field(default_factory=dict)
    #: The active orders of a player in a phase, oldest first, by (game, seq, player),
    #: read for all the players of a phase at once (the phases in ``order_phases``):
    #: every change to them in the transaction goes through these lists too.
    orders: dict[tuple[int, int, int], list[_ActiveOrder]] = field(default_factory=dict)
    order_phases: set[tuple[int, int]] = field(default_factory=set)
    #: The order rows changed and not yet written.
    writes: _OrderWrites = field(default_factory=_OrderWrites)
    #: Replies to an address in the last hour, by kind (the reply rations), once counted.
    replies: dict[str, dict[str, int]] = field(default_factory=dict)
    #: The messages of the transaction decoded before it began, by inbound id.
    decoded: dict[int, IncomingMail] = field(default_factory=dict)
    #: The sign-on guards of the games in ``guard_games``, by (game, seat, registered).
    guards: dict[tuple[int, str, bool], SignonGuard] = field(default_factory=dict)
    guard_games: set[int] = field(default_factory=set)
    #: Copies to a registered address in the last hour (the copy ration), once read: when
    #: each was queued, and whether the "held back" notice went.
    copies: dict[str, _CopyLog] = field(default_factory=dict)


def _write_orders(session: Session, cache: _BatchCache) -> None:
    """Write the order rows the transaction changed so far (the retirements first, so
    that they cannot touch the rows written after them), and the replies it queued."""
    writes, cache.writes = cache.writes, _OrderWrites()
    queries.clear_orders(session, writes.clear)
    queries.retire_orders(session, writes.retire)
    queries.insert_orders(session, writes.new)
    insert_outbox(session, writes.outbox)


# -- handling one message -------------------------------------------------------------


@dataclass
class _CopyLog:
    """The copies queued to one registered address in the last hour (see
    :data:`MAX_COPIES_PER_HOUR`)."""

    times: list[datetime] = field(default_factory=list)
    held_notice: bool = False


@dataclass(frozen=True)
class _Marks:
    """How far each list of a :class:`_Reply` had grown at one point of a message."""

    actions: int
    paragraphs: int
    rejected: int
    ignored: int
    errors: int


@dataclass
class _Signed:
    game: Game
    player: Player | None  # None: the game master
    copy_to: str | None = None
    #: Where this sign-on's part of the reply begins and (once another sign-on follows)
    #: ends: a copy to the registered address shows that part only.
    start: _Marks | None = None
    end: _Marks | None = None

    @property
    def confirms(self) -> bool:
        """Whether the answer is an order confirmation: a player signed on to a started
        game (the game master, or a player of a game not started, gets a reply)."""
        return self.player is not None and self.game.phase is not None


@dataclass
class _Reply:
    """What the reply will say."""

    paragraphs: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    errors: int = 0
    #: What the message held that was not read, each with the reason (see _not_read).
    not_read: list[str] = field(default_factory=list)
    #: The message held no line to read at all.
    nothing_read: bool = False
    #: The outbox kind of the reply (see :data:`REPLY_KINDS`), which says its ration.
    kind: str = "reply"
    #: How many entries of each quoted list were left out of the reply, by list name
    #: ("ignored", "rejected", "not_read"; see :func:`_bound_reply`).
    left_out: dict[str, int] = field(default_factory=dict)


#: The longest address SMTP carries (RFC 5321: a 256-octet path less its brackets).
MAX_ADDRESS_LENGTH = 254

#: What a reply quotes from the message is an excerpt (junk from a forged address must not
#: come back to that address at full size): each list it quotes (lines not read, lines
#: refused, what was left out of the message) shows at most this many entries...
MAX_QUOTED_LINES = 20
#: ...each cut to this many characters, and says how much more it left out.
MAX_QUOTED_CHARS = 200
#: The subject echoed in the reply's subject, at most this many characters.
MAX_SUBJECT_ECHO = 200
#: A reason or an action, which may quote a word of the message, at most this many.
MAX_REASON_CHARS = 500

#: Wrong passwords for one seat (a power, or the game master) within
#: :data:`SIGNON_FAILURE_WINDOW` that lock its sign-ons for :data:`SIGNON_LOCKOUT`.  Counted
#: apart for sign-ons from the seat's registered address and from any other address, so
#: that a stranger's guesses never lock the player's own address out.
SIGNON_MAX_FAILURES = 5
SIGNON_FAILURE_WINDOW = timedelta(hours=1)
SIGNON_LOCKOUT = timedelta(hours=1)
#: Copies to a registered address of mail signed on from elsewhere, per hour; beyond it
#: one notice says that further copies are held back, and until when.
MAX_COPIES_PER_HOUR = 5

#: Absences are bounded, as judges do: length of one, and how many a player may take.
MAX_ABSENCE_DAYS = 14
MAX_ABSENCES = 3


def _wrapped(text: str) -> str:
    """``text`` broken into lines of at most 80 characters, at spaces (not inside the
    words :func:`_keep` joined)."""
    wrapped = textwrap.fill(text, 80, break_long_words=False, break_on_hyphens=False)
    return wrapped.replace("\xa0", " ")


def _keep(words: str) -> str:
    """``words`` kept on one line by :func:`_wrapped`."""
    return words.replace(" ", "\xa0")


def _with_time(text: str, default: str) -> str:
    """A bare date gets a time of day (the start or the end of that day)."""
    return text if re.search(r"\d:\d", text) else f"{text.strip()} {default}"


HELP_TEXT = f"""\
Send commands in the body of an email, one per line:
  SIGNON <power initial><game> <password>   e.g. SIGNON Fwinter01 secret
  (or SIGNON france@winter01 secret), then your orders, one or more per line:
    A Par-Bur        F Bre-MAO        A Mar S A Par-Bur     F NTH C A Lon-Nwy
    A Par H (hold: a unit or a place alone is not an order)
    F Tri-Alb / F Tri D (retreats)    Build A Par / Remove F Tri / Waive
  Orders can be sent again until the deadline; the last order for a unit counts.
  CLEAR drops your orders for this phase.
  SIGNOFF ends the message (nothing after it is read).
Other commands: LIST [game], HELP, HISTORY [game], SUMMARY [game], SET PASSWORD <new>,
SET ADDRESS [<address>], SET WAIT, SET NOWAIT, SET TIMEZONE <zone>,
SET ABSENCE <from> TO <to>, SET NOABSENCE, RESIGN.
Game masters: SIGNON M<game> <password>, then PROCESS, PAUSE, RESUME,
SET DEADLINE <YYYY-MM-DD HH:MM>.
{
    _wrapped(
        "Commands of the njudge that this judge does not have yet are answered so, and the "
        "lines of a PRESS, BROADCAST, POSTALPRESS or DIARY (up to ENDPRESS), of a REGISTER "
        "(up to END) or of a PHASE (up to ENDPHASE) are not read: "
        + ", ".join(_keep(w) for w in NJUDGE_COMMANDS)
        + "; and "
        + ", ".join(_keep(f"SET {w}") for w in NJUDGE_SETTINGS)
        + "."
    )
}"""

_ORDER_WORDS = {
    "a", "f", "army", "fleet", "remove", "r", "waive", "w", "disband", "d", "hold", "h",
    "retreat",
}  # fmt: skip
_BUILD_WORDS = frozenset({"b", "build", "builds"})
_UNIT_WORDS = frozenset({"a", "f", "army", "fleet"})
# A word: letters and digits together, so that "b2b" is one word, not "b", "2", "b".
_WORD_RE = re.compile(r"[^\W_]+")


def handle(
    session: Session,
    judge: Judge,
    row: InboundMessage,
    now: datetime,
    cache: _BatchCache,
) -> None:
    """Read one stored message and queue its reply (the caller holds the transaction).

    ``cache`` is shared by the messages of one transaction (see :func:`process_batch`),
    which writes the order rows it holds (:func:`_write_orders`) before committing.
    """
    size = row.original_size
    # Decoded before the transaction began (process_batch), else now; of a message too
    # large to read, the header alone: enough to refuse it politely.
    mail = cache.decoded.pop(row.id, None) or read_stored(
        row.raw, size, judge.settings.max_message_bytes
    )
    reason = refuse_reason(
        mail,
        size,
        own_addresses={judge.settings.address},
        loop_tag=judge.settings.address,
        max_size=judge.settings.max_message_bytes,
    )
    row.processed_at = now
    # What is kept of the message has its passwords masked (issue 11 item 6), also the
    # bounded prefix kept of one too large to read; the message itself is read from
    # ``mail``, decoded above.
    row.raw = redact_passwords(row.raw)
    # The subject comes back in the reply's subject: an excerpt of it, like every other
    # part of the message a reply quotes.
    mail = replace(mail, subject=_cut(mail.subject, MAX_SUBJECT_ECHO, note=False))
    if reason is not None:
        row.state = "ignored"
        row.reason = reason
        if deserves_reply(reason) and mail.sender:
            # Too large: answered, but under the tight ration (a person needs to be told
            # once or twice; sixty oversized mails an hour are not a person).
            spent = _refuse(session, judge, row, mail, now, cache, [
                f"Your message of {size:,} bytes is larger than this judge reads "
                f"({judge.settings.max_message_bytes:,} bytes). Please send your commands "
                "as plain text, without attachments."
            ])  # fmt: skip
            if spent is not None:
                row.reason = f"{reason}; not answered: {spent}"
        return
    if not mail.sender:
        row.state = "ignored"
        row.reason = "no sender address to answer"
        return
    body = read_body(mail.text, mail.subject)
    commands, _after = parse_commands(list(body.lines))
    unread = [str(c.error) for c in commands if c.name == UNREAD]
    commands = [c for c in commands if c.name != UNREAD]
    conversation = _Conversation(session, judge, mail, now, cache, row.id)
    for command in commands:
        conversation.run(command)
    # Lines that were read but held no command or order ("Thanks!" above a quote) do
    # not make a message understood: the sender is told what was left out and why.
    understood = (
        conversation.signed is not None
        or any(command.name != "ORDERS" for command in commands)
        or bool(conversation.reply.rejected)
    )
    reply = conversation.reply
    reply.not_read = [*_not_read(mail, body, conversation, read=understood), *unread]
    reply.nothing_read = not understood
    reply.kind = _reply_kind(conversation, judge, understood)
    _bound_reply(reply)
    if reply.kind == "confirm":
        # The confirmation lists its quotes under its own headings; what was left out of
        # them is said among the actions at its top.
        reply.actions += _left_out_notes(reply)
        reply.left_out = {}
    spent = _rate_limited(session, judge, mail.sender, now, cache, reply.kind)
    if spent is not None:
        # The commands were carried out; only the answer is held back, as a last defence
        # against a mail loop with a robot the rules did not recognise.
        row.reason = spent
        # Copies to registered addresses are security notices with a ration of their own.
        conversation.queue_copies(row)
    else:
        conversation.finish(row)
        _note_reply(cache, mail.sender, reply.kind)
    row.state = "done"


# -- the reply rations ----------------------------------------------------------------

#: The outbox kinds of the reply to one message, each counted in its rations
#: (:func:`_rate_limited`): replies to signed-on mail ...
SIGNED_KINDS = ("confirm", "reply-signed")
#: ... replies to mail that may be a robot's: it carried out no command (nothing in it
#: was read, or every line was refused), or it answers the judge's own mail without
#: signing on ("reply-loop"); too large ("refusal") ...
LOOP_KINDS = ("reply-loop", "refusal")
#: ... and every reply to mail that did not sign on.
UNSIGNED_KINDS = ("reply", *LOOP_KINDS)
REPLY_KINDS = (*SIGNED_KINDS, *UNSIGNED_KINDS)


def _reply_kind(conversation: _Conversation, judge: Judge, understood: bool) -> str:
    """The kind of the reply a message gets, which says the rations it counts in."""
    signed = conversation.signed
    if signed is not None:
        return "confirm" if signed.confirms else "reply-signed"
    # Mail that carried out no command (nothing in it read, or every line refused) gets
    # an answer that carries out none either: two programs answering each other so (one
    # judge's refusal, quoted, is the other's refused line) are a loop.
    # A wrong password for a real seat is a person's mistake (a robot's line never names
    # one): the sign-on lockout bounds the guesses, the ordinary ration the answers.
    did_nothing = not conversation.seat_named and not (
        understood and (conversation.reply.paragraphs or conversation.reply.actions)
    )
    if did_nothing or _answers_own_mail(conversation.mail, judge):
        return "reply-loop"
    return "reply"


def _answers_own_mail(mail: IncomingMail, judge: Judge) -> bool:
    """Whether ``mail`` names one of the judge's own Message-IDs in In-Reply-To or
    References (a relay may strip the headers that mark automatic mail; these stay)."""
    domain = judge.settings.address.rpartition("@")[2].strip().lower()
    if not domain:
        return False
    ours = f"@{domain}>"
    ids = [mail.in_reply_to or "", *mail.references]
    return any(i.strip().lower().endswith(ours) for i in ids)


def _rate_limited(
    session: Session, judge: Judge, address: str, now: datetime, cache: _BatchCache, kind: str
) -> str | None:
    """Why a reply of ``kind`` to ``address`` must be held back: the reason, when one of
    its rations for the last hour is spent; else ``None``.

    Replies to signed-on mail count only against each other: a stranger forging a
    player's From cannot spend them.  Every other reply counts in ``replies_per_hour``,
    and those that may be a robot's also in the much smaller ``loop_replies_per_hour``.
    """
    if address not in cache.replies:
        _count_replies(session, judge, {address}, now, cache)
    counts = cache.replies[address]
    settings = judge.settings

    def spent(kinds: Sequence[str], limit: int) -> bool:
        return sum(counts.get(k, 0) for k in kinds) >= limit

    if kind in SIGNED_KINDS:
        if spent(SIGNED_KINDS, settings.signed_replies_per_hour):
            return (
                f"rate limit: more than {settings.signed_replies_per_hour} replies an hour "
                "to signed-on mail"
            )
        return None
    if kind in LOOP_KINDS and spent(LOOP_KINDS, settings.loop_replies_per_hour):
        return (
            f"rate limit: more than {settings.loop_replies_per_hour} replies an hour to mail "
            "that carried out no command, was too large or answered the judge's own mail"
        )
    if spent(UNSIGNED_KINDS, settings.replies_per_hour):
        return f"rate limit: more than {settings.replies_per_hour} replies an hour"
    return None


def _count_replies(
    session: Session, judge: Judge, addresses: set[str], now: datetime, cache: _BatchCache
) -> None:
    """Count the replies of the last hour to each of ``addresses``, by kind (one query
    for all)."""
    addresses = {a for a in addresses if a not in cache.replies}
    if not addresses:
        return
    since = now - timedelta(hours=1)
    # The replies this transaction queued are counted by _note_reply, not by the query:
    # no flush is needed first.
    with session.no_autoflush:
        counts = queries.reply_counts(session, addresses, since, REPLY_KINDS)
    for address in addresses:
        cache.replies[address] = counts.get(address, {})


def _note_reply(cache: _BatchCache, address: str, kind: str) -> None:
    """Count a reply of ``kind`` queued to ``address`` in the transaction's rations, once
    counted."""
    counts = cache.replies.get(address)
    if counts is not None:
        counts[kind] = counts.get(kind, 0) + 1


def _refuse(
    session: Session, judge: Judge, row: InboundMessage, mail: IncomingMail, now: datetime,
    cache: _BatchCache, paragraphs: list[str],
) -> str | None:  # fmt: skip
    """Answer ``mail`` with a refusal of ``paragraphs`` (too large, parked) under the
    tight loop ration; return why it was not answered (the ration is spent), else None."""
    spent = _rate_limited(session, judge, mail.sender, now, cache, "refusal")
    if spent is None:
        _reply(session, judge, row, mail, now, _Reply(paragraphs=paragraphs, kind="refusal"), cache)
        _note_reply(cache, mail.sender, "refusal")
    return spent


# -- what a reply quotes --------------------------------------------------------------


def _cut(text: str, limit: int, *, note: bool = True) -> str:
    """``text``, or its first ``limit`` characters and ``...`` (with ``note``, also how
    many characters were left out)."""
    if len(text) <= limit:
        return text
    if not note:
        return text[:limit] + "..."
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


# A word longer than a quoted line may be: a run of that many characters and one more.
_LONG_WORD = re.compile(rf"\S{{{MAX_QUOTED_CHARS}}}\S+")


def _explained(text: str) -> str:
    """A reason or an action for the reply: each word of it longer than
    :data:`MAX_QUOTED_CHARS` (a word of the message it quotes) cut, and the whole at most
    :data:`MAX_REASON_CHARS` characters."""
    text = _LONG_WORD.sub(lambda m: _cut(m.group(), MAX_QUOTED_CHARS), text)
    return _cut(text, MAX_REASON_CHARS)


def _bound_reply(reply: _Reply) -> None:
    """Cut what ``reply`` quotes from the message to an excerpt: at most
    :data:`MAX_QUOTED_LINES` entries of each list, each of at most
    :data:`MAX_QUOTED_CHARS` characters (a reason, which may quote a word of the
    message, at most :data:`MAX_REASON_CHARS`); ``reply.left_out`` counts the entries
    left out.  A paragraph that repeats an earlier one (the answer to a command written
    twice) is dropped."""
    reply.paragraphs = list(dict.fromkeys(reply.paragraphs))
    reply.actions = [_explained(a) for a in dict.fromkeys(reply.actions)]
    if len(reply.actions) > MAX_QUOTED_LINES:
        more = len(reply.actions) - MAX_QUOTED_LINES
        reply.actions = reply.actions[:MAX_QUOTED_LINES]
        reply.actions.append(f"({more:,} more lines of this kind are left out of this reply.)")
    kept = reply.ignored[:MAX_QUOTED_LINES]
    reply.left_out["ignored"] = len(reply.ignored) - len(kept)
    reply.ignored = [_cut(line, MAX_QUOTED_CHARS) for line in kept]
    refused = reply.rejected[:MAX_QUOTED_LINES]
    reply.left_out["rejected"] = len(reply.rejected) - len(refused)
    reply.rejected = [
        {"line": _cut(r["line"], MAX_QUOTED_CHARS), "reason": _explained(r["reason"])}
        for r in refused
    ]
    unread = reply.not_read[:MAX_QUOTED_LINES]
    reply.left_out["not_read"] = len(reply.not_read) - len(unread)
    reply.not_read = [_explained(item) for item in unread]
    reply.left_out = {name: count for name, count in reply.left_out.items() if count}


#: What each list of a reply holds, for the line saying how much of it was left out.
_LEFT_OUT = {
    "ignored": ("line not read as orders or commands", "lines not read as orders or commands"),
    "rejected": ("refused line", "refused lines"),
    "not_read": ("part not read", "parts not read"),
}


def _left_out_note(name: str, count: int) -> str:
    """The line saying that ``count`` entries of list ``name`` were left out."""
    one, many = _LEFT_OUT[name]
    verb = "is" if count == 1 else "are"
    return f"({count:,} more {one if count == 1 else many} {verb} left out of this reply.)"


def _left_out_notes(reply: _Reply) -> list[str]:
    """The lines saying what was left out of the reply's lists, in their order."""
    return [_left_out_note(name, n) for name in _LEFT_OUT if (n := reply.left_out.get(name))]


def _more(left_out: dict[str, int], name: str) -> str:
    """A new line saying how much of list ``name`` was left out ("" for nothing)."""
    return f"\n{_left_out_note(name, left_out[name])}" if left_out.get(name) else ""


def _not_read(
    mail: IncomingMail, body: BodyText, conversation: _Conversation, *, read: bool
) -> list[str]:
    """What the reply tells the sender was not read: parts of the message and forwarded
    or encrypted text always; when nothing was read at all, also the quotes, the
    signature and a subject that looks like commands (only the body is read)."""
    items = [*mail.unread_parts, *body.not_read]
    if read:
        return items
    items += body.quoted
    subject = strip_prefixes(mail.subject)
    if subject:
        commands, _after = parse_commands([subject])
        if commands and (
            commands[0].name != "ORDERS"
            or any(
                piece.order is not None or conversation.looks_like_order(piece)
                for piece in parse_orders(subject, conversation.map)
            )
        ):
            items.append(
                f"the subject {subject!r}: commands and orders are read from the body of "
                "the message only"
            )
    return items


def _not_read_paragraph(items: Sequence[str]) -> str:
    """The "Not read" list of a reply, wrapped at 76 columns."""
    lines = ["Not read from your message:"]
    for item in items:
        lines.append(
            textwrap.fill(
                item, 76, initial_indent="  - ", subsequent_indent="    ",
                break_long_words=False, break_on_hyphens=False,
            )
        )  # fmt: skip
    return "\n".join(lines)


class _Conversation:
    def __init__(
        self,
        session: Session,
        judge: Judge,
        mail: IncomingMail,
        now: datetime,
        cache: _BatchCache,
        inbound_id: int | None = None,
    ) -> None:
        self.session = session
        self.judge = judge
        self.mail = mail
        self.now = now
        self.map: Map = standard_map()
        self.signed: _Signed | None = None
        self.reply = _Reply()
        self.cache = cache
        self.inbound_id = inbound_id
        #: A sign-on of this message failed: no other is checked (one message must not
        #: try many passwords, nor show by its reply which one was right).
        self.signon_failed = False
        # A sign-on that named a real seat of a real game (its password checked, or refused
        # by a lockout): a person's mistake, answered under the ordinary ration, not a
        # robot's line answered under the loop ration (see _reply_kind).
        self.seat_named = False
        #: Every sign-on of the message that succeeded, in order: each power signed on
        #: from elsewhere gets a copy of its part (issue 11 item 8).
        self.signons: list[_Signed] = []

    def _position(self, game: Game) -> Position:
        """The game's current position, read once per transaction and phase."""
        key = (game.id, game.seq)
        position = self.cache.positions.get(key)
        if position is None:
            position = self.cache.positions[key] = current_position(self.session, game)
        return position

    def _game(self, name: str) -> Game | None:
        key = name.strip().lower()
        if key not in self.cache.games:
            self.cache.games[key] = find_game(self.session, key)
        return self.cache.games[key]

    def _rules(self, game: Game) -> Rules:
        rules = self.cache.rules.get(game.id)
        if rules is None:
            rules = self.cache.rules[game.id] = rules_from_dict(game.rules or {})
        return rules

    # -- dispatch -----------------------------------------------------------------

    def run(self, command: Command) -> None:
        name = command.name
        handler = getattr(self, "cmd_" + name.lower().replace(" ", "_"), None)
        if command.error is not None or handler is None:
            self.reject(
                command.line, command.error or f"{command.line.split()[0]} is not a command"
            )
            return
        try:
            handler(command)
        except ServiceError as err:
            self.reject(command.line, str(err))

    def reject(self, line: str, reason: str) -> None:
        # A line quoted back never shows a password (a near miss would give most of the
        # right one away, and the reply is kept in the outbox).
        self.reply.rejected.append({"line": mask_passwords(line), "reason": reason})
        self.reply.errors += 1

    # -- sign-on ------------------------------------------------------------------

    def cmd_signon(self, command: Command) -> None:
        who, game_name, password = command.args
        if self.signed is not None:
            self.signed.end = self._marks()
        if self.signon_failed:
            raise ServiceError(
                "not checked: a sign-on earlier in this message failed; send one SIGNON "
                "with the right password"
            )
        try:
            self._sign_on(who, game_name, password)
        except ServiceError:
            # Nothing after a failed sign-on is read as the orders of an earlier one.
            self.signed = None
            raise
        assert self.signed is not None
        self.signed.start = self._marks()
        self.signons.append(self.signed)

    def _marks(self) -> _Marks:
        reply = self.reply
        return _Marks(
            len(reply.actions), len(reply.paragraphs), len(reply.rejected), len(reply.ignored),
            reply.errors,
        )  # fmt: skip

    def _sign_on(self, who: str, game_name: str, password: str) -> None:
        game = self._game(game_name)
        if game is None:
            raise ServiceError(
                f"there is no game called {game_name!r} on this judge; send LIST for the games"
            )
        if who.upper() == "M":
            self._check_password(game, None, game.master_password_hash, password)
            self.signed = _Signed(game, None)
            self.reply.actions.append(f"Signed on as game master of {game.name}.")
            return
        power = self._power(who)
        if power is None:
            raise ServiceError(
                f"{who!r} is not a power; use the power's initial (A E F G I R T) or name"
            )
        player = self._find_player(game, power)
        if player is None:
            raise ServiceError(f"nobody plays {power} in {game.name}")
        if player.status == "resigned":
            raise ServiceError(f"{power} resigned from {game.name}")
        self._check_password(game, player, player.password_hash, password)
        copy_to = player.address if player.address != self.mail.sender else None
        self.signed = _Signed(game, player, copy_to)

    def _check_password(
        self, game: Game, player: Player | None, stored_hash: str | None, password: str
    ) -> None:
        """Raise ServiceError unless ``password`` is the seat's (``player`` None: the game
        master's).  A seat locked by too many wrong passwords is refused without checking
        (see :data:`SIGNON_MAX_FAILURES`); a wrong password counts towards its lockout."""
        seat = player.power if player is not None else "M"
        self.seat_named = True
        registered_address = player.address if player is not None else game.master_address
        registered = registered_address is not None and registered_address == self.mail.sender
        guard = self._guard(game, seat, registered)
        who = player.power if player is not None else f"the game master of {game.name}"
        as_who = player.power if player is not None else "game master"
        whose = f"{player.power}'s" if player is not None else "the game master's"
        if guard is not None and guard.locked_until is not None and guard.locked_until > self.now:
            self.signon_failed = True
            until = format_deadline(guard.locked_until, game_zone(game))
            where = "" if player is None else f" in {game.name}"
            if registered:
                raise ServiceError(
                    f"not checked: after {SIGNON_MAX_FAILURES} wrong passwords for {who}{where} "
                    f"within an hour from its registered address, sign-ons as {as_who} from "
                    f"that address are refused until {until}; send it again after then"
                )
            raise ServiceError(
                f"not checked: after {SIGNON_MAX_FAILURES} wrong passwords for {who}{where} "
                f"within an hour, sign-ons as {as_who} from any address but its registered "
                f"one are refused until {until}; send it again after then, or from {whose} "
                "registered address"
            )
        if verify_password(stored_hash, password):
            return
        self.signon_failed = True
        self._count_failure(game, player, seat, registered, guard)
        if player is None:
            raise ServiceError(
                f"wrong game master password for {game.name}: it is the [master] password "
                "of the game's file"
            )
        power = player.power
        # Say where the right one is, never what it is.  A password written in the
        # game's file is the game master's to give; one the judge made was mailed.
        seat_file = ((game.file_applied or {}).get("players") or {}).get(power) or {}
        if seat_file.get("password"):
            source = "the one your game master gave you (it is written in the game's file)"
        else:
            source = f'the one in the judge\'s "game starts" mail to {power}'
        raise ServiceError(
            f"wrong password for {power} in {game.name}: the password is {source}, unless "
            f"it was changed since with SET PASSWORD; the judge's mail for {power} goes "
            f"to {player.address}"
        )

    def _guard(self, game: Game, seat: str, registered: bool) -> SignonGuard | None:
        """The seat's guard for this kind of sender (a game's guards are read at once)."""
        if game.id not in self.cache.guard_games:
            self.cache.guard_games.add(game.id)
            with self.session.no_autoflush:
                for row in queries.signon_guards(self.session, game.id):
                    self.cache.guards[(game.id, row.seat, row.registered)] = row
        return self.cache.guards.get((game.id, seat, registered))

    def _count_failure(
        self,
        game: Game,
        player: Player | None,
        seat: str,
        registered: bool,
        guard: SignonGuard | None,
    ) -> None:
        """Count a wrong password; the last one allowed locks the seat's sign-ons of this
        kind for :data:`SIGNON_LOCKOUT`, and the game master and the player are told."""
        if guard is None:
            guard = SignonGuard(game_id=game.id, seat=seat, registered=registered, failures=0)
            self.session.add(guard)
            self.cache.guards[(game.id, seat, registered)] = guard
        if guard.window_start is None or self.now - guard.window_start >= SIGNON_FAILURE_WINDOW:
            guard.window_start, guard.failures = self.now, 0
        guard.failures += 1
        if guard.failures < SIGNON_MAX_FAILURES:
            return
        # Locked: the count starts again when the lockout ends.  Told once per lockout.
        guard.locked_until = self.now + SIGNON_LOCKOUT
        guard.window_start, guard.failures = None, 0
        notify_signon_locked(
            self.session, self.judge, game, player, self.now,
            failures=SIGNON_MAX_FAILURES, sender=self.mail.sender, registered=registered,
            until=guard.locked_until,
        )  # fmt: skip

    def _find_player(self, game: Game, power: str) -> Player | None:
        """The player of ``power`` in ``game`` (the game's players are read at once)."""
        if game.id not in self.cache.player_games:
            self.cache.player_games.add(game.id)
            for player in queries.players_of(self.session, game.id):
                self.cache.players[(game.id, player.power)] = player
        return self.cache.players.get((game.id, power))

    def _power(self, text: str) -> str | None:
        if len(text) == 1:
            for power, letter in self.map.power_letter.items():
                if letter == text.upper():
                    return power
            return None
        return self.map.find_power(text)

    def _player(self, command: Command) -> tuple[Game, Player]:
        if self.signed is None:
            raise ServiceError(
                "sign on first: SIGNON <power initial><game> <password>, "
                "e.g. SIGNON Fwinter01 secret"
            )
        if self.signed.player is None:
            raise ServiceError("this command is for players; you are signed on as game master")
        return self.signed.game, self.signed.player

    def _master(self) -> Game:
        if self.signed is None or self.signed.player is not None:
            raise ServiceError("only the game master can do this: SIGNON M<game> <password> first")
        return self.signed.game

    # -- orders -------------------------------------------------------------------

    def cmd_orders(self, command: Command) -> None:
        line = command.args[0] if command.args else command.line
        if self.signed is None:
            pieces = parse_orders(line, self.map)
            if any(p.order is not None or self.looks_like_order(p) for p in pieces):
                self.reject(
                    line, "sign on before sending orders: SIGNON <power initial><game> <password>"
                )
            else:
                self.reply.ignored.append(line)
            return
        game, player = self._player(command)
        if game.status == "forming":
            raise ServiceError(f"game {game.name} has not started yet")
        if game.status == "finished":
            raise ServiceError(f"game {game.name} is over")
        position = self._position(game)
        kind = position.phase.kind
        pieces = parse_orders(line, self.map, kind)
        if not any(p.order is not None or self.looks_like_order(p) for p in pieces):
            # Nothing in it is an order or meant as one ("Ankara, Turkey" under a name):
            # the line is listed as written, not cut at its commas.
            self.reply.ignored.append(line)
            return
        for piece in pieces:
            if piece.order is None:
                assert piece.error is not None
                if self.looks_like_order(piece):
                    self.reject(piece.text, piece.error.message)
                else:
                    self.reply.ignored.append(piece.text)
                continue
            if piece.power is not None and piece.power != player.power:
                self.reject(piece.text, f"you play {player.power}, not {piece.power}")
                continue
            self._take_order(game, player, position, piece.text, piece.order)

    def looks_like_order(self, piece: ParsedOrder) -> bool:
        """Whether a piece that is not an order was meant as one (it is refused, with the
        reason) rather than being other text (it is listed among the lines not read).

        A unit or a place alone is not an order (the signature line "Brest, France"); a
        first word run into digits ("b2b", "B4") is not an order word; and ``B`` or
        ``Build`` count only before a unit type or a province ("b fleet, please" is not
        a build).
        """
        if piece.error is not None and piece.error.code == UNIT_ONLY:
            return False
        text = piece.text.lstrip()
        if text.startswith("("):
            return True
        words = _WORD_RE.findall(text)
        if not words or not words[0][0].isalpha() or not words[0].isalpha():
            return False
        first = words[0].lower()
        if first in _BUILD_WORDS:
            rest = words[1:]
            return bool(rest) and (rest[0].lower() in _UNIT_WORDS or self._names_a_place(rest))
        return first in _ORDER_WORDS or self.map.find_province(first) is not None

    def _names_a_place(self, words: list[str]) -> bool:
        """Whether ``words`` start with a province name (of up to four words)."""
        return any(
            self.map.find_province(" ".join(words[:count])) is not None
            for count in range(1, min(4, len(words)) + 1)
        )

    def _take_order(
        self, game: Game, player: Player, position: Position, text: str, order: Order
    ) -> None:
        rules = self._rules(game)
        kind = position.phase.kind
        try:
            if kind is PhaseKind.MOVEMENT:
                checked = check_movement(
                    position,
                    player.power,
                    order,
                    rules,
                    proxied=self._orderable(position, player, rules),
                )
                key = checked.province
            elif kind is PhaseKind.RETREAT:
                checked = check_retreat(position, player.power, order)
                key = checked.province
            else:
                checked = check_adjustment(position, player.power, order, rules)
                key = self._adjustment_key(game, player, checked, position)
        except OrderError as err:
            self.reject(text, err.message)
            self._store(game, player, None, text, None, err)
            return
        canonical = format_order(checked, self.map, short=True)
        for earlier in self._active(game, player):
            # The last order for a unit counts; one of this very message that gives way
            # is named, so that a line corrected further down is not dropped unseen.
            row = earlier.row
            if earlier.unit == key and row is not None and row["inbound_id"] == self.inbound_id:
                self.reply.actions.append(
                    f"'{row['raw']}' was replaced by a later line of this message, '{text}'."
                )
        self._deactivate(game, player, key)
        self._store(game, player, key, text, canonical, None)

    @staticmethod
    def _orderable(position: Position, player: Player, rules: Rules) -> dict[str, str] | None:
        """The units of other powers ``player`` may order now, as ``proxied`` for
        :func:`check_movement`: with proxies allowed, every unit (seed 002: a power may
        order any unit; the order counts only if the owner hands the unit over by the
        deadline, which the adjudicator decides); else none."""
        if not rules.proxies:
            return None
        return {prov: player.power for prov in position.units}

    def _adjustment_key(self, game: Game, player: Player, order: Order, position: Position) -> str:
        if isinstance(order, Waive):
            active = self._active(game, player)
            waives = sum(1 for o in active if (o.unit or "").startswith("waive"))
            key = f"waive:{waives + 1}"
        else:
            key = f"{'build' if isinstance(order, Build) else 'remove'}:{order.province}"
        # A player owes at most |adjustment| orders: refuse one too many, by count.
        owed = abs(position.adjustment(player.power))
        current = [o for o in self._active(game, player) if o.unit != key]
        if len(current) >= owed:
            what = "removals" if isinstance(order, Remove) else "builds"
            raise OrderError(
                f"{format_order(order, self.map, short=True)}: you have already ordered all "
                f"{owed} of your {what}; send CLEAR to start again",
                code="NMR" if isinstance(order, Remove) else "NMB",
            )
        return key

    def _active(self, game: Game, player: Player) -> list[_ActiveOrder]:
        """The player's active orders for the current phase, oldest first (the list
        itself: callers change it only through :meth:`_deactivate` and :meth:`_store`)."""
        key = (game.id, game.seq, player.id)
        rows = self.cache.orders.get(key)
        if rows is None:
            phase = (game.id, game.seq)
            if phase not in self.cache.order_phases:
                # Every player's at once: the next message is likely another player's.
                self.cache.order_phases.add(phase)
                for player_id, unit, canonical in queries.active_order_rows(
                    self.session, game.id, game.seq
                ):
                    self.cache.orders.setdefault((*phase, player_id), []).append(
                        _ActiveOrder(unit, canonical)
                    )
            rows = self.cache.orders.setdefault(key, [])
        return rows

    def _deactivate(self, game: Game, player: Player, key: str | None) -> None:
        """Retire the active order for unit ``key`` (all of them when ``key`` is None)."""
        rows = self._active(game, player)
        retired = [row for row in rows if key is None or row.unit == key]
        if not retired:
            return
        rows[:] = [row for row in rows if not (key is None or row.unit == key)]
        for order in retired:
            if order.row is not None:  # not written yet: it will be written retired
                order.row["active"] = False
        owner = (game.id, game.seq, player.id)
        if key is None:
            self.cache.writes.clear.append(owner)
        else:
            self.cache.writes.retire.append((*owner, key))

    def _store(
        self,
        game: Game,
        player: Player,
        key: str | None,
        text: str,
        canonical: str | None,
        error: OrderError | None,
    ) -> None:
        row: dict[str, object] = {
            "game_id": game.id,
            "seq": game.seq,
            "player_id": player.id,
            "unit": key,
            "raw": text,
            "canonical": canonical,
            "error_code": error.code if error else None,
            "error": error.message if error else None,
            "active": canonical is not None,
            "inbound_id": self.inbound_id,
            "created_at": self.now,
        }
        self.cache.writes.new.append(row)
        if canonical is not None:
            self._active(game, player).append(_ActiveOrder(key, canonical, row))

    def cmd_signoff(self, command: Command) -> None:
        """Nothing to do: the command parser stops reading at SIGNOFF."""

    def cmd_clear(self, command: Command) -> None:
        game, player = self._player(command)
        self._deactivate(game, player, None)
        self.reply.actions.append("Your orders for this phase were cleared.")

    # -- player settings ----------------------------------------------------------

    def cmd_set_password(self, command: Command) -> None:
        _game, player = self._player(command)
        new = command.args[0] if command.args else ""
        if len(new) < MIN_PASSWORD_LENGTH:
            raise ServiceError(
                f"a password needs at least {MIN_PASSWORD_LENGTH} characters (this one has "
                f"{len(new)}): choose a longer one, e.g. four words joined by dashes"
            )
        if len(new) > MAX_PASSWORD_LENGTH:
            raise ServiceError(
                f"a password has at most {MAX_PASSWORD_LENGTH} characters (this one has {len(new)})"
            )
        player.password_hash = hash_password(new)
        self.reply.actions.append("Password changed.")

    def cmd_set_address(self, command: Command) -> None:
        _game, player = self._player(command)
        address = (command.args[0] if command.args else self.mail.sender).strip().lower()
        if len(address) > MAX_ADDRESS_LENGTH:
            raise ServiceError(
                f"an email address has at most {MAX_ADDRESS_LENGTH} characters (this one has "
                f"{len(address)})"
            )
        if not re.fullmatch(r"[^@\s<>,;]+@[^@\s<>,;]+", address):
            raise ServiceError(f"{address!r} is not an email address")
        if address == self.judge.settings.address.strip().lower():
            # Mail to the player would come back to the judge: a loop, and a lost seat.
            raise ServiceError(f"{address} is this judge's own address: give your own")
        player.address = address
        self.reply.actions.append(f"Your address is now {address}.")

    def cmd_set_wait(self, command: Command) -> None:
        _game, player = self._player(command)
        player.wait = True
        self.reply.actions.append("WAIT set: the phase will not be processed before the deadline.")

    def cmd_set_nowait(self, command: Command) -> None:
        _game, player = self._player(command)
        player.wait = False
        self.reply.actions.append("WAIT cleared: the phase may be processed early.")

    def cmd_set_timezone(self, command: Command) -> None:
        _game, player = self._player(command)
        zone = command.args[0]
        try:
            ZoneInfo(zone)
        except (ZoneInfoNotFoundError, ValueError):
            raise ServiceError(
                f"{zone!r} is not a time zone; use a name such as Europe/London, "
                "America/New_York or Asia/Tokyo"
            ) from None
        player.timezone = zone
        self.reply.actions.append(f"Your time zone is now {zone}.")

    def cmd_set_absence(self, command: Command) -> None:
        game, player = self._player(command)
        zone = player.timezone or game_zone(game)
        try:
            start = parse_deadline(_with_time(command.args[0], "00:00"), zone)
            end = parse_deadline(_with_time(command.args[1], "23:59"), zone)
        except ValueError as err:
            raise ServiceError(str(err)) from None
        if end <= start or end <= self.now:
            raise ServiceError("the absence must end after it starts, and in the future")
        if end - start > timedelta(days=MAX_ABSENCE_DAYS):
            raise ServiceError(f"an absence may last at most {MAX_ABSENCE_DAYS} days")
        if player.absences_used >= MAX_ABSENCES:
            raise ServiceError(f"you have used all {MAX_ABSENCES} absences allowed in a game")
        player.absence_from, player.absence_to = start, end
        player.absences_used += 1
        moved = respect_absences(self.session, game)
        self.reply.actions.append(
            f"Absence noted from {format_deadline(start, zone)} to {format_deadline(end, zone)}."
            + (
                f" The deadline moves to {format_deadline(game.deadline, game_zone(game))}."
                if moved and game.deadline
                else ""
            )
        )

    def cmd_set_noabsence(self, command: Command) -> None:
        _game, player = self._player(command)
        player.absence_from = player.absence_to = None
        self.reply.actions.append("Absence cancelled.")

    def cmd_resign(self, command: Command) -> None:
        game, player = self._player(command)
        player.status = "resigned"
        self.reply.actions.append(f"You have resigned from {game.name}. The game master is told.")
        notify_master(
            self.session, self.judge, game, self.now,
            subject=f"{player.power} resigned from {game.name}",
            text=f"{player.power} ({player.address}) resigned from {game.name}.",
        )  # fmt: skip

    # -- information --------------------------------------------------------------

    def _named_or_signed(self, command: Command) -> Game:
        if command.args:
            game = self._game(command.args[0])
            if game is None:
                raise ServiceError(f"there is no game called {command.args[0]!r}")
            return game
        if self.signed is not None:
            return self.signed.game
        raise ServiceError("name the game, e.g. SUMMARY winter01, or sign on first")

    def cmd_list(self, command: Command) -> None:
        if command.args or self.signed is not None:
            game = self._named_or_signed(command)
            facts = game_summary(self.session, game)
            lines = [f"Game {facts['name']}: {facts['status']}"]
            if facts["phase"]:
                lines.append(f"Phase {facts['phase']}, deadline {facts['deadline']}")
            lines += [f"  {power}: {status}" for power, status in facts["players"].items()]
            self.reply.paragraphs.append("\n".join(lines))
            return
        games = queries.games_by_name(self.session)
        if not games:
            self.reply.paragraphs.append("There are no games on this judge yet.")
            return
        self.reply.paragraphs.append(
            "Games on this judge:\n"
            + "\n".join(
                f"  {g.name}: {g.status}" + (f", {g.phase}" if g.phase else "") for g in games
            )
        )

    def cmd_help(self, command: Command) -> None:
        self.reply.paragraphs.append(HELP_TEXT)

    def cmd_summary(self, command: Command) -> None:
        game = self._named_or_signed(command)
        if game.phase is None:
            raise ServiceError(f"game {game.name} has not started")
        position = self._position(game)
        self.reply.paragraphs.append(
            f"Summary of {game.name}, {position.phase.describe()}:\n\n{position_report(position)}"
        )

    def cmd_history(self, command: Command) -> None:
        game = self._named_or_signed(command)
        records = queries.processed_phases(self.session, game.id)
        if not records:
            self.reply.paragraphs.append(f"No phase of {game.name} has been processed yet.")
            return
        for record in records:
            self.reply.paragraphs.append(str((record.results or {}).get("report", "")).rstrip())

    # -- game master --------------------------------------------------------------

    def cmd_process(self, command: Command) -> None:
        game = self._master()
        # Adjudication reads the orders from the database: the batch's go there first.
        _write_orders(self.session, self.cache)
        outcome = process_game(self.session, self.judge, game.name, self.now)
        if outcome is None:
            raise ServiceError(f"game {game.name} has no phase to process")
        self.reply.actions.append(f"Processed {outcome.before.phase.code}; now {game.phase}.")

    def cmd_pause(self, command: Command) -> None:
        game = self._master()
        if game.status != "active":
            raise ServiceError(f"game {game.name} is {game.status}, not active")
        game.status = "paused"
        self.reply.actions.append(f"Game {game.name} paused.")

    def cmd_resume(self, command: Command) -> None:
        game = self._master()
        if game.status != "paused":
            raise ServiceError(f"game {game.name} is not paused")
        game.status = "active"
        if game.deadline is not None and game.deadline <= self.now:
            # The deadline passed while paused: the players get a full phase again.
            position = self._position(game)
            fresh = next_deadline(self.now, position.phase.kind, game.settings or {})
            set_deadline(self.session, game, fresh)
        when = format_deadline(game.deadline, game_zone(game)) if game.deadline else "none"
        self.reply.actions.append(f"Game {game.name} resumed; the deadline is {when}.")

    def cmd_set_deadline(self, command: Command) -> None:
        game = self._master()
        text = " ".join(command.args)
        try:
            when = parse_deadline(text, game_zone(game))
        except ValueError as err:
            raise ServiceError(str(err)) from None
        if when <= self.now:
            raise ServiceError("the new deadline is in the past")
        set_deadline(self.session, game, when)
        self.reply.actions.append(f"Deadline set to {format_deadline(when, game_zone(game))}.")

    # -- the reply ----------------------------------------------------------------

    def finish(self, row: InboundMessage) -> None:
        """Queue the reply to the sender, and the copies (:meth:`queue_copies`)."""
        signed = self.signed
        if signed is not None and signed.player is not None and signed.confirms:
            mail = self._confirmation(signed.game, signed.player, copy_note=None)
            queue_mail(
                self.session, self.judge, to=self.mail.sender, mail=mail, kind="confirm",
                now=self.now, game_id=signed.game.id, inbound_id=row.id,
                in_reply_to=self.mail.message_id, references=self.mail.references,
                into=self.cache.writes.outbox,
            )  # fmt: skip
        else:
            if signed is not None and signed.player is None:
                self.reply.paragraphs = [*self.reply.actions, *self.reply.paragraphs]
            elif signed is not None:
                self.reply.paragraphs.insert(0, f"Game {signed.game.name} has not started yet.")
            _reply(self.session, self.judge, row, self.mail, self.now, self.reply, self.cache)
        self.queue_copies(row)

    def queue_copies(self, row: InboundMessage) -> None:
        """A copy for every power this message signed on as from an address other than
        its registered one, to that address: its own part of the message (never another
        power's) and its orders as they now stand.  Copies have their own ration
        (:data:`MAX_COPIES_PER_HOUR`), apart from the sender's reply ration, so that they
        go even when the sender's reply is held back, and never use up the player's own.
        """
        parts: dict[tuple[int, int], list[_Signed]] = {}
        for signed in self.signons:
            if signed.player is not None and signed.confirms and signed.copy_to:
                parts.setdefault((signed.game.id, signed.player.id), []).append(signed)
        for signeds in parts.values():
            first = signeds[0]
            assert first.player is not None and first.copy_to is not None
            game, player, address = first.game, first.player, first.copy_to
            log_ = self._copy_log(address)
            if len(log_.times) >= MAX_COPIES_PER_HOUR:
                if not log_.held_notice:
                    log_.held_notice = True
                    self._queue_held_notice(row, game, player, address, min(log_.times))
                continue
            log_.times.append(self.now)
            note = (
                f"This is a copy: someone signed on as {player.power} from "
                f"{self.mail.sender}, not from your registered address."
            )
            part = _Reply(not_read=self.reply.not_read)
            for signed in signeds:
                begin = signed.start or _Marks(0, 0, 0, 0, 0)
                end = signed.end or self._marks()
                reply = self.reply
                part.actions += reply.actions[begin.actions : end.actions]
                part.paragraphs += reply.paragraphs[begin.paragraphs : end.paragraphs]
                part.rejected += reply.rejected[begin.rejected : end.rejected]
                part.ignored += reply.ignored[begin.ignored : end.ignored]
                part.errors += end.errors - begin.errors
            copy = self._confirmation(game, player, copy_note=note, part=part)
            queue_mail(
                self.session, self.judge, to=address, mail=copy, kind="copy", now=self.now,
                game_id=game.id, inbound_id=row.id, into=self.cache.writes.outbox,
            )  # fmt: skip

    def _copy_log(self, address: str) -> _CopyLog:
        """The copies to ``address`` in the last hour (read once per transaction)."""
        log_ = self.cache.copies.get(address)
        if log_ is None:
            since = self.now - timedelta(hours=1)
            with self.session.no_autoflush:
                rows = queries.mail_since(self.session, address, since, ("copy", "copy-held"))
            log_ = self.cache.copies[address] = _CopyLog(
                times=[when for kind, when in rows if kind == "copy"],
                held_notice=any(kind == "copy-held" for kind, _when in rows),
            )
        return log_

    def _queue_held_notice(
        self, row: InboundMessage, game: Game, player: Player, address: str, oldest: datetime
    ) -> None:
        """Tell ``address`` once that its copies are held back, and until when."""
        zone = player.timezone or game_zone(game)
        until = format_deadline(oldest + timedelta(hours=1), zone)
        letter = self.map.power_letter[player.power]
        mail = self.judge.renderer.render(
            "player/notice.txt.j2",
            judge_name=self.judge.settings.name,
            game_name=game.name,
            power=player.power,
            subject="copies held back",
            paragraphs=[
                _wrapped(
                    f"{MAX_COPIES_PER_HOUR} copies of mail signed on as {player.power} from "
                    f"other addresses were sent to you in the last hour; the judge holds back "
                    f"further copies until {until}. The latest came from {self.mail.sender}."
                ),
                _wrapped(
                    f"Whoever sent them knows your password. If it was not you, change it now "
                    f"with SET PASSWORD from this address and tell your game master. To see "
                    f"your orders as they stand, send: SIGNON {letter}{game.name} <password>"
                ),
            ],
        )
        queue_mail(
            self.session, self.judge, to=address, mail=mail, kind="copy-held", now=self.now,
            game_id=game.id, inbound_id=row.id, into=self.cache.writes.outbox,
        )  # fmt: skip

    def _confirmation(
        self, game: Game, player: Player, copy_note: str | None, part: _Reply | None = None
    ) -> RenderedMail:
        part = part if part is not None else self.reply
        position = self._position(game)
        # Oldest first: rows written by this message have no id until the flush.
        active = [o for o in self._active(game, player) if o.canonical is not None]
        kind = position.phase.kind
        orders = [parse_order(o.canonical or "", self.map, kind) for o in active]
        orders.sort(key=lambda o: self.map.province_name.get(o.province, o.location))
        due = owed(position, game, player.power, orders, self._rules(game))
        # Orders for other powers' units (proxies allowed) say what they depend on.
        owners = {
            o.province: unit.power
            for o in orders
            if kind is PhaseKind.MOVEMENT
            and (unit := position.units.get(o.province)) is not None
            and unit.power != player.power
        }
        echoed = echo_lines(player.power, orders, due.implied, self.map, owners)
        if kind is PhaseKind.ADJUSTMENT:
            adjustment = position.adjustment(player.power)
            status = adjustment_status(player.power, adjustment, len(orders), due.places)
            missing = [status] if status else []
        else:
            missing = missing_lines(player.power, list(due.units), self.map, kind)
        complete = due.complete
        zone = game_zone(game)
        deadline = format_deadline(game.deadline, zone) if game.deadline else "none set"
        player_zone = player.timezone or zone
        word = kind.word
        return self.judge.renderer.render(
            "player/confirm.txt.j2",
            judge_name=self.judge.settings.name,
            game_name=game.name,
            variant="Standard",
            phase_code=position.phase.code,
            heading=phase_heading(word, position.phase, game.name, game.seq),
            deadline_game=deadline,
            deadline_player=(
                format_deadline(game.deadline, player_zone)
                if game.deadline and player_zone != zone
                else None
            ),
            actions=part.actions + part.paragraphs,
            order_lines=echoed,
            missing_lines=missing,
            rejected=part.rejected,
            ignored=part.ignored,
            not_read=part.not_read,
            complete=complete,
            error_count=part.errors,
            copy_note=copy_note,
            subject_in=self.mail.subject or "(no subject)",
        )


def _reply(
    session: Session, judge: Judge, row: InboundMessage, mail: IncomingMail, now: datetime,
    reply: _Reply, cache: _BatchCache,
) -> None:  # fmt: skip
    paragraphs = list(reply.paragraphs)
    left_out = reply.left_out
    for item in reply.rejected:
        reason = item["reason"]
        paragraphs.append(f"> {item['line']}\n{reason[:1].upper()}{reason[1:]}.")
    if "rejected" in left_out:
        paragraphs.append(_more(left_out, "rejected").lstrip("\n"))
    if reply.ignored:
        paragraphs.append(
            "These lines were not read as orders or commands:\n"
            + "\n".join(f"> {line}" for line in reply.ignored)
            + _more(left_out, "ignored")
        )
    if reply.nothing_read:
        paragraphs.insert(0, "This judge found no commands or orders in your message.")
    if reply.not_read:
        paragraphs.append(_not_read_paragraph(reply.not_read) + _more(left_out, "not_read"))
    if reply.nothing_read or not paragraphs:
        paragraphs.append(
            "Write your commands and orders in the body of the message itself, as plain\n"
            "text, one per line. Send HELP for how to use this judge."
        )
    rendered = judge.renderer.render(
        "player/reply.txt.j2",
        judge_name=judge.settings.name,
        subject_in=mail.subject or "(no subject)",
        paragraphs=paragraphs,
        error_count=reply.errors,
    )
    queue_mail(
        session,
        judge,
        to=mail.sender,
        mail=rendered,
        kind=reply.kind,
        now=now,
        inbound_id=row.id,
        in_reply_to=mail.message_id,
        references=mail.references,
        into=cache.writes.outbox,
    )
