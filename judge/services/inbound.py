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
import re
import textwrap
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import cast
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.orm import Session, sessionmaker

from judge.commands import NJUDGE_COMMANDS, NJUDGE_SETTINGS, Command, parse_commands
from judge.config import rules_from_dict
from judge.db import queries
from judge.db.models import Game, InboundMessage, Player
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
from judge.mail.decode import BodyText, IncomingMail, decode, read_body
from judge.mail.rules import refuse_reason
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
from judge.services.games import (
    ServiceError,
    current_position,
    find_game,
    game_summary,
    game_zone,
    notify_master,
    owed,
    process_game,
    respect_absences,
    set_deadline,
)
from judge.services.outbox import insert_outbox, queue_mail
from judge.services.passwords import hash_password, verify_password

log = logging.getLogger(__name__)


# -- storing --------------------------------------------------------------------------


def receive(session: Session, raw: bytes, now: datetime) -> tuple[InboundMessage, bool]:
    """Store a raw message unless one with its Message-ID is already stored.

    Returns the stored row and whether it is new.  The caller commits.
    """
    fields = _stored_fields(raw, now)
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


def receive_many(session: Session, raws: Sequence[bytes], now: datetime) -> list[Stored]:
    """Store raw messages like :func:`receive`, with one query for the Message-IDs already
    stored and one statement for the new rows.  The caller commits."""
    rows = [_stored_fields(raw, now) for raw in raws]
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


def _stored_fields(raw: bytes, now: datetime) -> dict[str, object]:
    """The inbound row's columns for a raw message."""
    # Storing needs only the header: the body is decoded once, when the message is read.
    mail = decode(_header_block(raw))
    message_id = mail.message_id
    if not message_id or message_id.endswith("@judge.invalid>"):
        # No Message-ID: name the message by all of its bytes, not just its header.
        message_id = f"<{hashlib.sha256(raw).hexdigest()}@judge.invalid>"
    return {
        "message_id": message_id,
        "sender": mail.sender or None,
        "subject": mail.subject[:500] or None,
        "raw": raw,
        "received_at": now,
        "state": "new",
        "attempts": 0,
    }


def _header_block(raw: bytes) -> bytes:
    """The header of a raw message (up to the first empty line), or at most 256 KiB."""
    limit = 262144
    end = raw.find(b"\r\n\r\n", 0, limit)
    if end < 0:
        end = raw.find(b"\n\n", 0, limit)
    return (raw[:end] if end >= 0 else raw[:limit]) + b"\r\n\r\n"


#: Stored messages processed in one transaction: one commit (and one flush of all their
#: rows) for the lot.
BATCH_SIZE = 50
#: A message that failed this many times is left alone (parked as failed).
MAX_ATTEMPTS = 5
#: The pause between two batches of a backlog.
BATCH_GAP_SECONDS = 0.003


def process_pending(
    sessions: sessionmaker[Session],
    judge: Judge,
    now: Callable[[], datetime],
    batch_size: int = BATCH_SIZE,
    should_stop: Callable[[], bool] | None = None,
    after_batch: Callable[[], None] | None = None,
) -> int:
    """Process every stored message not yet done; return how many were handled.

    ``should_stop()`` is asked before each batch (the rest waits for the next call), and
    ``after_batch()`` called after each one's commit (to wake the sender at once).
    """
    with sessions() as session:
        read_only(session)
        ids = queries.pending_inbound_ids(session, MAX_ATTEMPTS)
    done = 0
    for start in range(0, len(ids), batch_size):
        if should_stop is not None and should_stop():
            break
        batch = ids[start : start + batch_size]
        process_batch(sessions, judge, batch, now())
        done += len(batch)
        if after_batch is not None:
            after_batch()
        if start + batch_size < len(ids):
            # Let the other writers in (SQLite has one writer at a time): without a gap
            # between batches they would wait until the whole backlog is processed.
            time.sleep(BATCH_GAP_SECONDS)
    return done


def process_batch(
    sessions: sessionmaker[Session], judge: Judge, inbound_ids: Sequence[int], now: datetime
) -> dict[int, str]:
    """Process stored messages in order in one transaction; return each one's new state.

    When anything fails, the whole transaction is undone and every message of the batch
    is processed again in a transaction of its own (:func:`process_one`), so the failing
    one is parked alone and the others go through.  Failures are rare (a bug, the
    database going away), so the common case pays for no savepoints.
    """
    if len(inbound_ids) == 1:
        return {inbound_ids[0]: process_one(sessions, judge, inbound_ids[0], now)}
    states: dict[int, str] = {}
    try:
        with sessions() as session, session.begin():
            rows = queries.inbound_rows(session, inbound_ids)
            cache = _BatchCache()
            senders = {row.sender for row in rows.values() if row.sender}
            _count_replies(session, judge, senders, now, cache)
            for inbound_id in inbound_ids:
                states[inbound_id] = _process_in(session, judge, rows.get(inbound_id), now, cache)
            _write_orders(session, cache)
    except Exception:
        log.warning(
            "processing %d messages together failed; processing them one by one",
            len(inbound_ids),
            exc_info=True,
        )
        return {i: process_one(sessions, judge, i, now) for i in inbound_ids}
    return states


def process_one(
    sessions: sessionmaker[Session], judge: Judge, inbound_id: int, now: datetime
) -> str:
    """Process one stored message in one transaction; on error park it as failed."""
    try:
        with sessions() as session, session.begin():
            row = session.get(InboundMessage, inbound_id)
            cache = _BatchCache()
            if row is not None and row.sender:
                _count_replies(session, judge, {row.sender}, now, cache)
            state = _process_in(session, judge, row, now, cache)
            _write_orders(session, cache)
            return state
    except Exception as err:
        log.warning("message %d failed", inbound_id, exc_info=True)
        with sessions() as session, session.begin():
            row = session.get(InboundMessage, inbound_id)
            if row is not None:
                row.state = "failed"
                row.attempts += 1
                row.reason = f"{type(err).__name__}: {err}"[:1000]
        return "failed"


def _process_in(
    session: Session, judge: Judge, row: InboundMessage | None, now: datetime, cache: _BatchCache
) -> str:
    """Process one message inside the caller's transaction (which fails if it raises)."""
    if row is None or row.state in ("done", "ignored"):
        return row.state if row is not None else "missing"
    row.attempts += 1
    handle(session, judge, row, now, cache)
    return row.state


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
    #: Replies to an address in the last hour (the reply ration), once counted.
    replies: dict[str, int] = field(default_factory=dict)


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
class _Signed:
    game: Game
    player: Player | None  # None: the game master
    copy_to: str | None = None


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


#: The longest address SMTP carries (RFC 5321: a 256-octet path less its brackets).
MAX_ADDRESS_LENGTH = 254

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
    raw = row.raw
    if len(raw) > judge.settings.max_message_bytes:
        # Only the header is needed to refuse politely; decoding megabytes is not.
        raw = _header_block(raw)
    mail = decode(raw)
    reason = refuse_reason(
        mail,
        len(row.raw),
        own_addresses={judge.settings.address},
        loop_tag=judge.settings.address,
        max_size=judge.settings.max_message_bytes,
    )
    row.processed_at = now
    if reason is not None:
        row.state = "ignored"
        row.reason = reason
        if reason.startswith("too large") and mail.sender:
            _note_reply(cache, mail.sender)
            _reply(session, judge, row, mail, now, _Reply(paragraphs=[
                f"Your message of {len(row.raw):,} bytes is larger than this judge reads "
                f"({judge.settings.max_message_bytes:,} bytes). Please send your commands "
                "as plain text, without attachments."
            ]), cache)  # fmt: skip
        return
    if not mail.sender:
        row.state = "ignored"
        row.reason = "no sender address to answer"
        return
    body = read_body(mail.text, mail.subject)
    commands, _after = parse_commands(list(body.lines))
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
    conversation.reply.not_read = _not_read(mail, body, conversation, read=understood)
    conversation.reply.nothing_read = not understood
    if _rate_limited(session, judge, mail.sender, now, cache):
        # The commands were carried out; only the answer is held back, as a last defence
        # against a mail loop with a robot the header rules did not recognise.
        row.reason = f"rate limit: more than {judge.settings.replies_per_hour} replies an hour"
    else:
        conversation.finish(row)
        _note_reply(cache, mail.sender)
        if conversation.signed is not None and conversation.signed.copy_to:
            _note_reply(cache, conversation.signed.copy_to)
    row.state = "done"


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


def _rate_limited(
    session: Session, judge: Judge, address: str, now: datetime, cache: _BatchCache
) -> bool:
    """Whether ``address`` already had its ration of replies in the last hour."""
    if address not in cache.replies:
        _count_replies(session, judge, {address}, now, cache)
    return cache.replies[address] >= judge.settings.replies_per_hour


def _count_replies(
    session: Session, judge: Judge, addresses: set[str], now: datetime, cache: _BatchCache
) -> None:
    """Count the replies of the last hour to each of ``addresses`` (one query for all)."""
    addresses = {a for a in addresses if a not in cache.replies}
    if not addresses:
        return
    since = now - timedelta(hours=1)
    # The replies this transaction queued are counted by _note_reply, not by the query:
    # no flush is needed first.
    with session.no_autoflush:
        counts = queries.reply_counts(session, addresses, since)
    for address in addresses:
        cache.replies[address] = counts.get(address, 0)


def _note_reply(cache: _BatchCache, address: str) -> None:
    """Count a reply queued to ``address`` in the transaction's ration, once counted."""
    if address in cache.replies:
        cache.replies[address] += 1


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
        self.reply.rejected.append({"line": line, "reason": reason})
        self.reply.errors += 1

    # -- sign-on ------------------------------------------------------------------

    def cmd_signon(self, command: Command) -> None:
        who, game_name, password = command.args
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

    def _sign_on(self, who: str, game_name: str, password: str) -> None:
        game = self._game(game_name)
        if game is None:
            raise ServiceError(
                f"there is no game called {game_name!r} on this judge; send LIST for the games"
            )
        if who.upper() == "M":
            if not game.master_password_hash or not verify_password(
                game.master_password_hash, password
            ):
                self.signon_failed = True
                raise ServiceError(
                    f"wrong game master password for {game.name}: it is the [master] password "
                    "of the game's file"
                )
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
        if not verify_password(player.password_hash, password):
            self.signon_failed = True
            # Say where the right one is, never what it is.  A password written in the
            # game's file is the game master's to give; one the judge made was mailed.
            seat = ((game.file_applied or {}).get("players") or {}).get(power) or {}
            if seat.get("password"):
                source = "the one your game master gave you (it is written in the game's file)"
            else:
                source = f'the one in the judge\'s "game starts" mail to {power}'
            raise ServiceError(
                f"wrong password for {power} in {game.name}: the password is {source}, unless "
                f"it was changed since with SET PASSWORD; the judge's mail for {power} goes "
                f"to {player.address}"
            )
        copy_to = player.address if player.address != self.mail.sender else None
        self.signed = _Signed(game, player, copy_to)

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
        if len(new) < 4:
            raise ServiceError("the new password must have at least 4 characters")
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
        signed = self.signed
        if signed is None or signed.player is None or signed.game.phase is None:
            if signed is not None and signed.player is None:
                self.reply.paragraphs = [*self.reply.actions, *self.reply.paragraphs]
            elif signed is not None:
                self.reply.paragraphs.insert(0, f"Game {signed.game.name} has not started yet.")
            _reply(self.session, self.judge, row, self.mail, self.now, self.reply, self.cache)
            return
        mail = self._confirmation(signed.game, signed.player, copy_note=None)
        queue_mail(
            self.session, self.judge, to=self.mail.sender, mail=mail, kind="confirm",
            now=self.now, game_id=signed.game.id, inbound_id=row.id,
            in_reply_to=self.mail.message_id, references=self.mail.references,
            into=self.cache.writes.outbox,
        )  # fmt: skip
        if signed.copy_to:
            note = (
                f"This is a copy: someone signed on as {signed.player.power} from "
                f"{self.mail.sender}, not from your registered address."
            )
            copy = self._confirmation(signed.game, signed.player, copy_note=note)
            queue_mail(
                self.session,
                self.judge,
                to=signed.copy_to,
                mail=copy,
                kind="confirm",
                now=self.now,
                game_id=signed.game.id,
                inbound_id=row.id,
                into=self.cache.writes.outbox,
            )

    def _confirmation(self, game: Game, player: Player, copy_note: str | None) -> RenderedMail:
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
            actions=self.reply.actions + self.reply.paragraphs,
            order_lines=echoed,
            missing_lines=missing,
            rejected=self.reply.rejected,
            ignored=self.reply.ignored,
            not_read=self.reply.not_read,
            complete=complete,
            error_count=self.reply.errors,
            copy_note=copy_note,
            subject_in=self.mail.subject or "(no subject)",
        )


def _reply(
    session: Session, judge: Judge, row: InboundMessage, mail: IncomingMail, now: datetime,
    reply: _Reply, cache: _BatchCache,
) -> None:  # fmt: skip
    paragraphs = list(reply.paragraphs)
    for item in reply.rejected:
        reason = item["reason"]
        paragraphs.append(f"> {item['line']}\n{reason[:1].upper()}{reason[1:]}.")
    if reply.ignored:
        paragraphs.append(
            "These lines were not read as orders or commands:\n"
            + "\n".join(f"> {line}" for line in reply.ignored)
        )
    if reply.nothing_read:
        paragraphs.insert(0, "This judge found no commands or orders in your message.")
    if reply.not_read:
        paragraphs.append(_not_read_paragraph(reply.not_read))
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
        kind="reply",
        now=now,
        inbound_id=row.id,
        in_reply_to=mail.message_id,
        references=mail.references,
        into=cache.writes.outbox,
    )
