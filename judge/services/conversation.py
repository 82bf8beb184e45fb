"""One message's conversation: its commands run in order against the games, and the reply
(or confirmation) it gets, with copies to the registered address of a power signed on
from elsewhere."""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from sqlalchemy.orm import Session

from judge.commands import NJUDGE_COMMANDS, NJUDGE_SETTINGS, UNREAD, Command, parse_commands
from judge.config import rules_from_dict
from judge.db import queries
from judge.db.models import Game, InboundMessage, Player, SignonGuard
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
    BodyText,
    IncomingMail,
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
from judge.services.intake import read_stored
from judge.services.outbox import queue_mail
from judge.services.passwords import (
    MAX_PASSWORD_LENGTH,
    MIN_PASSWORD_LENGTH,
    hash_password,
    verify_password,
)
from judge.services.replies import (
    MAX_SUBJECT_ECHO,
    Reply,
    answers_own_mail,
    bound_reply,
    cut,
    keep_together,
    left_out_notes,
    note_reply,
    queue_reply,
    rate_limited,
    refuse,
    wrapped,
)
from judge.services.standing_orders import ActiveOrder
from judge.services.unit_of_work import CopyLog, UnitOfWork, write_changes


@dataclass(frozen=True)
class Marks:
    """How far each list of a :class:`Reply` had grown at one point of a message."""

    actions: int
    paragraphs: int
    rejected: int
    ignored: int
    errors: int


@dataclass
class SignOn:
    game: Game
    player: Player | None  # None: the game master
    copy_to: str | None = None
    #: Where this sign-on's part of the reply begins and (once another sign-on follows)
    #: ends: a copy to the registered address shows that part only.
    start: Marks | None = None
    end: Marks | None = None

    @property
    def confirms(self) -> bool:
        """Whether the answer is an order confirmation: a player signed on to a started
        game (the game master, or a player of a game not started, gets a reply)."""
        return self.player is not None and self.game.phase is not None


#: The longest address SMTP carries (RFC 5321: a 256-octet path less its brackets).
MAX_ADDRESS_LENGTH = 254


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
    wrapped(
        "Commands of the njudge that this judge does not have yet are answered so, and the "
        "lines of a PRESS, BROADCAST, POSTALPRESS or DIARY (up to ENDPRESS), of a REGISTER "
        "(up to END) or of a PHASE (up to ENDPHASE) are not read: "
        + ", ".join(keep_together(w) for w in NJUDGE_COMMANDS)
        + "; and "
        + ", ".join(keep_together(f"SET {w}") for w in NJUDGE_SETTINGS)
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
    work: UnitOfWork,
) -> None:
    """Read one stored message and queue its reply (the caller holds the transaction).

    ``work`` is shared by the messages of one transaction (see :func:`process_batch`),
    which writes the order rows it holds (:func:`write_changes`) before committing.
    """
    size = row.original_size
    # Decoded before the transaction began (process_batch), else now; of a message too
    # large to read, the header alone: enough to refuse it politely.
    mail = work.decoded.pop(row.id, None) or read_stored(
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
    mail = replace(mail, subject=cut(mail.subject, MAX_SUBJECT_ECHO, note=False))
    if reason is not None:
        row.state = "ignored"
        row.reason = reason
        if deserves_reply(reason) and mail.sender:
            # Too large: answered, but under the tight ration (a person needs to be told
            # once or twice; sixty oversized mails an hour are not a person).
            spent = refuse(session, judge, row, mail, now, work, [
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
    conversation = Conversation(session, judge, mail, now, work, row.id)
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
    reply.not_read = [*unread_items(mail, body, conversation, read=understood), *unread]
    reply.nothing_read = not understood
    reply.kind = reply_kind(conversation, judge, understood)
    bound_reply(reply)
    if reply.kind == "confirm":
        # The confirmation lists its quotes under its own headings; what was left out of
        # them is said among the actions at its top.
        reply.actions += left_out_notes(reply)
        reply.left_out = {}
    spent = rate_limited(session, judge, mail.sender, now, work, reply.kind)
    if spent is not None:
        # The commands were carried out; only the answer is held back, as a last defence
        # against a mail loop with a robot the rules did not recognise.
        row.reason = spent
        # Copies to registered addresses are security notices with a ration of their own.
        conversation.queue_copies(row)
    else:
        conversation.finish(row)
        note_reply(work, mail.sender, reply.kind)
    row.state = "done"


def reply_kind(conversation: Conversation, judge: Judge, understood: bool) -> str:
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
    if did_nothing or answers_own_mail(conversation.mail, judge):
        return "reply-loop"
    return "reply"


def unread_items(
    mail: IncomingMail, body: BodyText, conversation: Conversation, *, read: bool
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


class Conversation:
    def __init__(
        self,
        session: Session,
        judge: Judge,
        mail: IncomingMail,
        now: datetime,
        work: UnitOfWork,
        inbound_id: int | None = None,
    ) -> None:
        self.session = session
        self.judge = judge
        self.mail = mail
        self.now = now
        self.map: Map = standard_map()
        self.signed: SignOn | None = None
        self.reply = Reply()
        self.work = work
        self.inbound_id = inbound_id
        #: A sign-on of this message failed: no other is checked (one message must not
        #: try many passwords, nor show by its reply which one was right).
        self.signon_failed = False
        # A sign-on that named a real seat of a real game (its password checked, or refused
        # by a lockout): a person's mistake, answered under the ordinary ration, not a
        # robot's line answered under the loop ration (see reply_kind).
        self.seat_named = False
        #: Every sign-on of the message that succeeded, in order: each power signed on
        #: from elsewhere gets a copy of its part (issue 11 item 8).
        self.signons: list[SignOn] = []

    def _position(self, game: Game) -> Position:
        """The game's current position, read once per transaction and phase."""
        key = (game.id, game.seq)
        position = self.work.positions.get(key)
        if position is None:
            position = self.work.positions[key] = current_position(self.session, game)
        return position

    def _game(self, name: str) -> Game | None:
        key = name.strip().lower()
        if key not in self.work.games:
            self.work.games[key] = find_game(self.session, key)
        return self.work.games[key]

    def _rules(self, game: Game) -> Rules:
        rules = self.work.rules.get(game.id)
        if rules is None:
            rules = self.work.rules[game.id] = rules_from_dict(game.rules or {})
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

    def _marks(self) -> Marks:
        reply = self.reply
        return Marks(
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
            self.signed = SignOn(game, None)
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
        self.signed = SignOn(game, player, copy_to)

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
        if game.id not in self.work.guard_games:
            self.work.guard_games.add(game.id)
            with self.session.no_autoflush:
                for row in queries.signon_guards(self.session, game.id):
                    self.work.guards[(game.id, row.seat, row.registered)] = row
        return self.work.guards.get((game.id, seat, registered))

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
            self.work.guards[(game.id, seat, registered)] = guard
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
        if game.id not in self.work.player_games:
            self.work.player_games.add(game.id)
            for player in queries.players_of(self.session, game.id):
                self.work.players[(game.id, player.power)] = player
        return self.work.players.get((game.id, power))

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
            new = earlier.new
            if earlier.unit == key and new is not None and new.inbound_id == self.inbound_id:
                self.reply.actions.append(
                    f"'{new.raw}' was replaced by a later line of this message, '{text}'."
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

    def _active(self, game: Game, player: Player) -> list[ActiveOrder]:
        """The player's active orders for the current phase, oldest first."""
        return self.work.orders.of(self.session, game, player)

    def _deactivate(self, game: Game, player: Player, key: str | None) -> None:
        """Retire the active order for unit ``key`` (all of them when ``key`` is None)."""
        self.work.orders.retire(self.session, game, player, key)

    def _store(
        self,
        game: Game,
        player: Player,
        key: str | None,
        text: str,
        canonical: str | None,
        error: OrderError | None,
    ) -> None:
        self.work.orders.add(
            self.session, game, player, key, text, canonical, error,
            inbound_id=self.inbound_id, now=self.now,
        )  # fmt: skip

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
        write_changes(self.session, self.work)
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
                into=self.work.outbox,
            )  # fmt: skip
        else:
            if signed is not None and signed.player is None:
                self.reply.paragraphs = [*self.reply.actions, *self.reply.paragraphs]
            elif signed is not None:
                self.reply.paragraphs.insert(0, f"Game {signed.game.name} has not started yet.")
            queue_reply(self.session, self.judge, row, self.mail, self.now, self.reply, self.work)
        self.queue_copies(row)

    def queue_copies(self, row: InboundMessage) -> None:
        """A copy for every power this message signed on as from an address other than
        its registered one, to that address: its own part of the message (never another
        power's) and its orders as they now stand.  Copies have their own ration
        (:data:`MAX_COPIES_PER_HOUR`), apart from the sender's reply ration, so that they
        go even when the sender's reply is held back, and never use up the player's own.
        """
        parts: dict[tuple[int, int], list[SignOn]] = {}
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
            part = Reply(not_read=self.reply.not_read)
            for signed in signeds:
                begin = signed.start or Marks(0, 0, 0, 0, 0)
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
                game_id=game.id, inbound_id=row.id, into=self.work.outbox,
            )  # fmt: skip

    def _copy_log(self, address: str) -> CopyLog:
        """The copies to ``address`` in the last hour (read once per transaction)."""
        log_ = self.work.copies.get(address)
        if log_ is None:
            since = self.now - timedelta(hours=1)
            with self.session.no_autoflush:
                rows = queries.mail_since(self.session, address, since, ("copy", "copy-held"))
            log_ = self.work.copies[address] = CopyLog(
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
                wrapped(
                    f"{MAX_COPIES_PER_HOUR} copies of mail signed on as {player.power} from "
                    f"other addresses were sent to you in the last hour; the judge holds back "
                    f"further copies until {until}. The latest came from {self.mail.sender}."
                ),
                wrapped(
                    f"Whoever sent them knows your password. If it was not you, change it now "
                    f"with SET PASSWORD from this address and tell your game master. To see "
                    f"your orders as they stand, send: SIGNON {letter}{game.name} <password>"
                ),
            ],
        )
        queue_mail(
            self.session, self.judge, to=address, mail=mail, kind="copy-held", now=self.now,
            game_id=game.id, inbound_id=row.id, into=self.work.outbox,
        )  # fmt: skip

    def _confirmation(
        self, game: Game, player: Player, copy_note: str | None, part: Reply | None = None
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
