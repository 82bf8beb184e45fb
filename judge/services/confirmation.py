"""The order confirmation a signed-on player gets, and the copies of it sent to the
registered address of a power signed on from elsewhere (with their own ration, and one
notice when that ration holds copies back)."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from judge.db import queries
from judge.db.models import Game, InboundMessage, Player
from judge.engine.notation import parse_order
from judge.engine.obligations import owed
from judge.engine.position import Position
from judge.presenters import format_deadline, order_standing, phase_heading
from judge.render import RenderedMail
from judge.services.game_settings import game_zone, player_zone
from judge.services.orders_ahead import ahead_paragraphs
from judge.services.outbox import queue_mail
from judge.services.replies import Reply
from judge.services.signons import Marks, SignOn
from judge.services.unit_of_work import CopyLog

if TYPE_CHECKING:  # the conversation calls these; they read its state
    from judge.services.conversation import Conversation

__all__ = ["MAX_COPIES_PER_HOUR", "confirmation_mail", "queue_confirmation", "queue_copies"]

#: Copies to a registered address of mail signed on from elsewhere, per hour; beyond it
#: one notice says that further copies are held back, and until when.
MAX_COPIES_PER_HOUR = 5


def queue_confirmation(conversation: Conversation, signed: SignOn, row: InboundMessage) -> None:
    """Queue the order confirmation for the player ``signed`` on as, to the sender."""
    assert signed.player is not None
    mail = confirmation_mail(
        conversation, signed.game, signed.player, copy_note=None, for_master=signed.by_master
    )
    queue_mail(
        conversation.session, conversation.judge, to=conversation.mail.sender, mail=mail,
        kind="confirm", now=conversation.now, game_id=signed.game.id, inbound_id=row.id,
        in_reply_to=conversation.mail.message_id, references=conversation.mail.references,
        into=conversation.work.outbox, attachments=conversation.reply.attachments,
    )  # fmt: skip


def queue_copies(conversation: Conversation, row: InboundMessage) -> None:
    """A copy for every power this message signed on as from an address other than
    its registered one, to that address: its own part of the message (never another
    power's) and its orders as they now stand.  Copies have their own ration
    (:data:`MAX_COPIES_PER_HOUR`), apart from the sender's reply ration, so that they
    go even when the sender's reply is held back, and never use up the player's own.
    """
    # The game master acting for a power (BECOME) and someone signed on as it get a
    # copy each: their notes say different things.
    parts: dict[tuple[int, int, bool], list[SignOn]] = {}
    for signed in conversation.signons:
        if signed.player is not None and signed.confirms and signed.copy_to:
            key = (signed.game.id, signed.player.id, signed.by_master)
            parts.setdefault(key, []).append(signed)
    for signeds in parts.values():
        first = signeds[0]
        assert first.player is not None and first.copy_to is not None
        game, player, address = first.game, first.player, first.copy_to
        log_ = _copy_log(conversation, address)
        if len(log_.times) >= MAX_COPIES_PER_HOUR:
            if not log_.held_notice:
                log_.held_notice = True
                _queue_held_notice(conversation, row, game, player, address, min(log_.times))
            continue
        log_.times.append(conversation.now)
        if first.by_master:
            note = (
                f"This is a copy: the game master of {game.name} entered these orders for "
                f"{player.power} on your behalf (BECOME {player.power}), from "
                f"{conversation.mail.sender}. They count as your orders."
            )
        else:
            note = (
                f"This is a copy: someone signed on as {player.power} from "
                f"{conversation.mail.sender}, not from your registered address."
            )
        reply = conversation.reply
        part = Reply(not_read=reply.not_read)
        for signed in signeds:
            begin = signed.start or Marks(0, 0, 0, 0, 0)
            end = signed.end or conversation.marks()
            part.actions += reply.actions[begin.actions : end.actions]
            part.paragraphs += reply.paragraphs[begin.paragraphs : end.paragraphs]
            part.rejected += reply.rejected[begin.rejected : end.rejected]
            part.ignored += reply.ignored[begin.ignored : end.ignored]
            part.errors += end.errors - begin.errors
            # The maps its MAP lines answered: the copy's text says they are attached.
            part.attachments += reply.attachments[begin.attachments : end.attachments]
        copy = confirmation_mail(conversation, game, player, copy_note=note, part=part)
        queue_mail(
            conversation.session, conversation.judge, to=address, mail=copy, kind="copy",
            now=conversation.now, game_id=game.id, inbound_id=row.id,
            into=conversation.work.outbox, attachments=part.attachments,
        )  # fmt: skip


def _copy_log(conversation: Conversation, address: str) -> CopyLog:
    """The copies to ``address`` in the last hour (read once per transaction)."""
    work = conversation.work
    log_ = work.copies.get(address)
    if log_ is None:
        since = conversation.now - timedelta(hours=1)
        session = conversation.session
        with session.no_autoflush:
            rows = queries.mail_since(session, address, since, ("copy", "copy-held"))
        log_ = work.copies[address] = CopyLog(
            times=[when for kind, when in rows if kind == "copy"],
            held_notice=any(kind == "copy-held" for kind, _when in rows),
        )
    return log_


def _queue_held_notice(
    conversation: Conversation,
    row: InboundMessage,
    game: Game,
    player: Player,
    address: str,
    oldest: datetime,
) -> None:
    """Tell ``address`` once that its copies are held back, and until when."""
    zone = player_zone(game, player, conversation.judge)
    until = format_deadline(oldest + timedelta(hours=1), zone)
    letter = conversation.map.power_letter[player.power]
    judge = conversation.judge
    mail = judge.renderer.render(
        "player/copies_held.txt.j2",
        judge_name=judge.settings.name,
        game_name=game.name,
        power=player.power,
        copies=MAX_COPIES_PER_HOUR,
        until=until,
        sender=conversation.mail.sender,
        signon_line=f"SIGNON {letter}{game.name} <password>",
    )
    queue_mail(
        conversation.session, judge, to=address, mail=mail, kind="copy-held",
        now=conversation.now, game_id=game.id, inbound_id=row.id,
        into=conversation.work.outbox,
    )  # fmt: skip


def _order_lines(
    conversation: Conversation, game: Game, player: Player
) -> tuple[Position, list[str], list[str], bool]:
    """``player``'s orders as they now stand: the position, the order lines (canonical,
    as the confirmation echoes them), what is still missing, and whether complete."""
    board = conversation.map
    position = conversation.position(game)
    # Oldest first: rows written by this message have no id until the flush.
    active = [
        o
        for o in conversation.work.orders.of(conversation.session, game, player)
        if o.canonical is not None
    ]
    kind = position.phase.kind
    orders = [parse_order(o.canonical or "", board, kind) for o in active]
    orders.sort(key=lambda o: board.province_name.get(o.province, o.location))
    due = owed(position, player.power, orders, conversation.rules(game))
    standing = order_standing(position, due, orders)
    return position, list(standing.order_lines), list(standing.missing_lines), standing.complete


def entered_orders(conversation: Conversation, game: Game, player: Player) -> str:
    """A paragraph for the game master's reply: the orders it entered for ``player``
    (``BECOME``), as the judge now holds them."""
    position, echoed, missing, complete = _order_lines(conversation, game, player)
    state = "complete" if complete else "not complete"
    lines = [f"Orders you entered for {player.power} ({position.phase.code}, {state}):"]
    lines += [f"  {line}" for line in echoed + [m for m in missing if m not in echoed]]
    return "\n".join(lines)


def confirmation_mail(
    conversation: Conversation,
    game: Game,
    player: Player,
    copy_note: str | None,
    part: Reply | None = None,
    *,
    for_master: bool = False,
) -> RenderedMail:
    """The confirmation of ``player``'s orders as they now stand, with ``part`` of the
    reply (the whole reply by default) and, for a copy, ``copy_note``; ``for_master``:
    to the game master acting for the player (the deadline in the game's zone only, not
    the player's own)."""
    part = part if part is not None else conversation.reply
    position, echoed, missing, complete = _order_lines(conversation, game, player)
    zone = game_zone(game, conversation.judge)
    deadline = format_deadline(game.deadline, zone) if game.deadline else "none set"
    own_zone = zone if for_master else player_zone(game, player, conversation.judge)
    word = position.phase.kind.word
    judge = conversation.judge
    return judge.renderer.render(
        "player/confirm.txt.j2",
        judge_name=judge.settings.name,
        game_name=game.name,
        variant="Standard",
        phase_code=position.phase.code,
        heading=phase_heading(word, position.phase, game.name, game.seq),
        deadline_game=deadline,
        deadline_player=(
            format_deadline(game.deadline, own_zone) if game.deadline and own_zone != zone else None
        ),
        actions=part.actions + part.paragraphs,
        order_lines=echoed,
        missing_lines=missing,
        ahead=ahead_paragraphs(
            conversation.session,
            game,
            player,
            position.phase,
            conversation.map,
            conversation.work.ahead,
        ),
        rejected=part.rejected,
        ignored=part.ignored,
        not_read=part.not_read,
        complete=complete,
        wait=player.wait,
        error_count=part.errors,
        copy_note=copy_note,
        subject_in=conversation.mail.subject or "(no subject)",
    )
