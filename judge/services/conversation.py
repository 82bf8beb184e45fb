"""One message's conversation: its commands run in order against the games, and the reply
(or confirmation) it gets, with copies to the registered address of a power signed on
from elsewhere.

The commands themselves are in :mod:`judge.commands`, one module each; the
conversation keeps what they share (who signed on, the reply being built, the lookups
of the transaction) and runs each through the registry.  The registry is the one import
of :mod:`judge.commands` in the services (the arrow from the commands to the services is
the other way): the commands see the conversation only as a type, so importing both
never goes round in a circle.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session

from judge.commands import REGISTRY, UNREAD, Command, Registry, parse_commands
from judge.db import queries
from judge.db.models import Game, GameStatus, InboundMessage, InboundState, Player, PlayerStatus
from judge.engine.board import Map, standard_map
from judge.engine.notation import parse_orders
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
from judge.services.activity import Activity
from judge.services.blocks import give_back
from judge.services.confirmation import entered_orders, queue_confirmation
from judge.services.confirmation import queue_copies as queue_signed_copies
from judge.services.context import Judge
from judge.services.errors import ServiceError
from judge.services.game_settings import game_rules
from judge.services.games import current_position
from judge.services.intake import read_stored
from judge.services.order_intake import looks_like_order
from judge.services.phase_sections import Section
from judge.services.replies import (
    MAX_SUBJECT_ECHO,
    Reply,
    answers_own_mail,
    bound_reply,
    cut,
    left_out_notes,
    note_reply,
    queue_reply,
    rate_limited,
    refuse,
)
from judge.services.signons import Marks, SignOn
from judge.services.unit_of_work import UnitOfWork

__all__ = ["Conversation", "handle", "reply_kind", "unread_items"]


def handle(
    session: Session,
    judge: Judge,
    row: InboundMessage,
    now: datetime,
    work: UnitOfWork,
) -> str:
    """Read one stored message and queue its reply (the caller holds the transaction);
    return what it did in a line for the log (:mod:`judge.services.activity`).

    ``work`` is shared by the messages of one transaction (see
    :func:`judge.services.inbound.process_batch`), which writes the order rows it holds
    (:func:`judge.services.unit_of_work.write_changes`) before committing.
    """
    size = row.original_size
    # Decoded before the transaction began (inbound.process_batch), else now; of a
    # message too large to read, the header alone: enough to refuse it politely.
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
        row.state = InboundState.IGNORED
        row.reason = reason
        if deserves_reply(reason) and mail.sender:
            # Too large: answered, but under the tight ration (a person needs to be told
            # once or twice; sixty oversized mails an hour are not a person).
            spent = refuse(
                session, judge, row, mail, now, work, "player/message_too_large.txt.j2",
                size=size, limit=judge.settings.max_message_bytes,
            )  # fmt: skip
            if spent is not None:
                row.reason = f"{reason}; not answered: {spent}"
        return f"ignored mail from {mail.sender or '?'}: {row.reason}"
    if not mail.sender:
        row.state = InboundState.IGNORED
        row.reason = "no sender address to answer"
        return f"ignored mail: {row.reason}"
    body = read_body(mail.text, mail.subject)
    commands, _after = parse_commands(list(body.lines), REGISTRY)
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
    row.state = InboundState.DONE
    done = conversation.activity.summary(mail.sender, conversation.signed, reply.errors)
    return done if spent is None else f"{done} (not answered: {spent})"


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
                piece.order is not None or looks_like_order(piece, conversation.map)
                for piece in parse_orders(subject, conversation.map)
            )
        ):
            items.append(
                f"the subject {subject!r}: commands and orders are read from the body of "
                "the message only"
            )
    return items


class Conversation:
    """One message's commands, run in order: who it signed on as, the reply being built,
    and the transaction's lookups the commands share."""

    def __init__(
        self,
        session: Session,
        judge: Judge,
        mail: IncomingMail,
        now: datetime,
        work: UnitOfWork,
        inbound_id: int | None = None,
        commands: Registry = REGISTRY,
    ) -> None:
        self.session = session
        self.judge = judge
        self.mail = mail
        self.now = now
        self.map: Map = standard_map()
        self.reply = Reply()
        self.work = work
        self.inbound_id = inbound_id
        #: The commands this conversation runs (HELP reads its text from them).
        self.commands = commands
        #: The sign-on the lines being read belong to (None: none, or it failed).
        self.signed: SignOn | None = None
        #: A sign-on of this message failed: no other is checked (one message must not
        #: try many passwords, nor show by its reply which one was right).
        self.signon_failed = False
        #: A sign-on that named a real seat of a real game (its password checked, or
        #: refused by a lockout): a person's mistake, answered under the ordinary ration,
        #: not a robot's line answered under the loop ration (see reply_kind).
        self.seat_named = False
        #: Every sign-on of the message that succeeded, in order: each power signed on
        #: from elsewhere gets a copy of its part (issue 11 item 8).
        self.signons: list[SignOn] = []
        #: What the message did, for the log line :func:`handle` returns.
        self.activity = Activity()
        #: The section the lines being read belong to (``PHASE F1902M``, a two-season
        #: game's ``RETREATS``): None for the current phase.  It ends at ENDPHASE, the
        #: next PHASE or heading, a sign-on, or the end of the message.
        self.section: Section | None = None

    # -- lookups ------------------------------------------------------------------

    def game(self, name: str) -> Game | None:
        """The game called ``name``, read once per transaction, afresh once no look at it
        is under way, and kept from one until the transaction ends
        (:func:`judge.db.queries.game_past_looks`).

        On PostgreSQL a deadline look processing the game holds its row
        (:func:`judge.runtime.looks.look`), and an order read against the phase it is
        processing would be stored for a phase already adjudicated and confirmed to a
        player for nothing.  The inbox waits for the look instead, then reads the phase
        the look left; a look that comes second waits for the inbox's commit.  The lock
        is a shared one: another judge's inbox reading the same games, in any order,
        neither waits nor deadlocks.
        """
        key = name.strip().lower()
        if key not in self.work.games:
            self.work.games[key] = queries.game_by_name(self.session, key, past_looks=True)
        return self.work.games[key]

    def position(self, game: Game) -> Position:
        """The game's current position, read once per transaction and phase."""
        key = (game.id, game.seq)
        position = self.work.positions.get(key)
        if position is None:
            position = self.work.positions[key] = current_position(self.session, game)
        return position

    def rules(self, game: Game) -> Rules:
        """The game's rules (read once per transaction)."""
        rules = self.work.rules.get(game.id)
        if rules is None:
            rules = self.work.rules[game.id] = game_rules(game)
        return rules

    def seat(self, game: Game, power: str) -> Player | None:
        """The player of ``power`` in ``game`` (the game's players are read at once)."""
        if game.id not in self.work.player_games:
            self.work.player_games.add(game.id)
            for player in queries.players_of(self.session, game.id):
                self.work.players[(game.id, player.power)] = player
        return self.work.players.get((game.id, power))

    def player(self) -> tuple[Game, Player]:
        """The game and player signed on as; raises ServiceError when no player is."""
        if self.signed is None:
            raise ServiceError(
                "sign on first: SIGNON <power initial><game> <password>, "
                "e.g. SIGNON Fwinter01 secret"
            )
        if self.signed.observer is not None:
            raise ServiceError("this command is for players; you are signed on as an observer")
        if self.signed.player is None:
            raise ServiceError("this command is for players; you are signed on as game master")
        if self.signed.player.status == PlayerStatus.RESIGNED:
            raise ServiceError(
                f"not done: you resigned from {self.signed.game.name} above in this message"
            )
        return self.signed.game, self.signed.player

    def master(self) -> Game:
        """The game signed on to as its master (acting for a power or not); raises
        ServiceError otherwise."""
        if self.signed is None or not self.signed.is_master:
            raise ServiceError("only the game master can do this: SIGNON M<game> <password> first")
        return self.signed.game

    # -- the sign-on state --------------------------------------------------------

    def marks(self) -> Marks:
        """How far the reply's lists have grown."""
        reply = self.reply
        return Marks(
            len(reply.actions), len(reply.paragraphs), len(reply.rejected), len(reply.ignored),
            reply.errors, len(reply.attachments),
        )  # fmt: skip

    def end_signon(self) -> None:
        """The lines of the sign-on so far end here (another SIGNON follows)."""
        if self.signed is not None:
            self.signed.end = self.marks()

    def signed_on(self, signed: SignOn) -> None:
        """The lines that follow belong to ``signed``."""
        signed.start = self.marks()
        self.signed = signed
        self.section = None
        self.signons.append(signed)

    def signon_refused(self) -> None:
        """A sign-on failed: nothing after it is read as the orders of an earlier one."""
        self.signed = None
        self.section = None

    # -- dispatch -----------------------------------------------------------------

    def run(self, command: Command) -> None:
        """Carry out ``command`` by its registry entry, or refuse it with the reason."""
        self.activity.began(command.name, self.signed, self.reply.errors)
        entry = self.commands.get(command.name)
        if command.error is not None and entry is not None and entry.available and command.body:
            # A block command refused as read (a word too long): its lines are given back.
            heading = f"Nothing of this {command.name} block was taken; its lines"
            give_back(self, command.line, command.error, command.body, heading=heading)
            return
        if command.error is not None or entry is None or not entry.available:
            self.reject(
                command.line, command.error or f"{command.line.split()[0]} is not a command"
            )
            return
        try:
            entry.process(self, command)
        except ServiceError as err:
            self.reject(command.line, str(err))

    def reject(self, line: str, reason: str) -> None:
        """Refuse ``line`` with ``reason`` in the reply."""
        # A line quoted back never shows a password (a near miss would give most of the
        # right one away, and the reply is kept in the outbox).
        self.reply.rejected.append({"line": mask_passwords(line), "reason": reason})
        self.reply.errors += 1

    # -- the reply ----------------------------------------------------------------

    def finish(self, row: InboundMessage) -> None:
        """Queue the reply to the sender, and the copies (:meth:`queue_copies`)."""
        signed = self.signed
        if signed is not None and signed.is_master:
            self._orders_entered(signed)
        if signed is not None and signed.player is not None and signed.confirms:
            queue_confirmation(self, signed, row)
        else:
            if signed is not None and (
                signed.player is None or signed.player.status == PlayerStatus.RESIGNED
            ):
                # The game master's reply, or a resignation's (no order block).
                self.reply.paragraphs = [*self.reply.actions, *self.reply.paragraphs]
            elif signed is not None:
                # A player of a game not started or over: what the message did is said
                # after that (the reply shows no list of actions of its own).
                over = signed.game.status == GameStatus.FINISHED
                state = "is over" if over else "has not started yet"
                self.reply.paragraphs = [
                    f"Game {signed.game.name} {state}.", *self.reply.actions,
                    *self.reply.paragraphs,
                ]  # fmt: skip
            queue_reply(self.session, self.judge, row, self.mail, self.now, self.reply, self.work)
        self.queue_copies(row)

    def _orders_entered(self, last: SignOn) -> None:
        """The game master's answer shows the orders it entered (``BECOME``) for each
        power other than the one it answers as (whose confirmation it is), so that no
        power's orders go unconfirmed to the master who entered them."""
        # What follows belongs to no power's part: no power's copy shows it.
        self.end_signon()
        shown = {last.player.id} if last.player is not None else set()
        for signed in self.signons:
            player = signed.player
            if signed.by_master and player is not None and player.id not in shown:
                shown.add(player.id)
                self.reply.paragraphs.append(entered_orders(self, signed.game, player))

    def queue_copies(self, row: InboundMessage) -> None:
        """The copies to the registered addresses of the powers signed on as from
        elsewhere (see :func:`judge.services.confirmation.queue_copies`)."""
        queue_signed_copies(self, row)
