"""The reply to one message: what it says, how much of the message it may quote, and the
rations that bound how many replies an address gets in an hour."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import InboundMessage
from judge.mail.decode import (
    IncomingMail,
)
from judge.render import RenderedMail
from judge.services.context import Judge
from judge.services.outbox import queue_mail
from judge.services.unit_of_work import UnitOfWork


@dataclass
class Reply:
    """What the reply will say."""

    paragraphs: list[str] = field(default_factory=list)
    actions: list[str] = field(default_factory=list)
    rejected: list[dict[str, str]] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    errors: int = 0
    #: What the message held that was not read, each with the reason (see not_read).
    not_read: list[str] = field(default_factory=list)
    #: The message held no line to read at all.
    nothing_read: bool = False
    #: The outbox kind of the reply (see :data:`REPLY_KINDS`), which says its ration.
    kind: str = "reply"
    #: How many entries of each quoted list were left out of the reply, by list name
    #: ("ignored", "rejected", "not_read"; see :func:`bound_reply`).
    left_out: dict[str, int] = field(default_factory=dict)
    #: The map pictures sent with the reply (``MAP``), as the outbox names them, and how
    #: many MAP commands were answered (a message gets at most a few).
    attachments: list[dict[str, object]] = field(default_factory=list)
    maps: int = 0


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


#: The outbox kinds of the reply to one message, each counted in its rations
#: (:func:`rate_limited`): replies to signed-on mail ...
SIGNED_KINDS = ("confirm", "reply-signed")


#: ... replies to mail that may be a robot's: it carried out no command (nothing in it
#: was read, or every line was refused), or it answers the judge's own mail without
#: signing on ("reply-loop"); too large ("refusal") ...
LOOP_KINDS = ("reply-loop", "refusal")


#: ... and every reply to mail that did not sign on.
UNSIGNED_KINDS = ("reply", *LOOP_KINDS)


REPLY_KINDS = (*SIGNED_KINDS, *UNSIGNED_KINDS)


def answers_own_mail(mail: IncomingMail, judge: Judge) -> bool:
    """Whether ``mail`` names one of the judge's own Message-IDs in In-Reply-To or
    References (a relay may strip the headers that mark automatic mail; these stay)."""
    domain = judge.settings.address.rpartition("@")[2].strip().lower()
    if not domain:
        return False
    ours = f"@{domain}>"
    ids = [mail.in_reply_to or "", *mail.references]
    return any(i.strip().lower().endswith(ours) for i in ids)


def rate_limited(
    session: Session, judge: Judge, address: str, now: datetime, work: UnitOfWork, kind: str
) -> str | None:
    """Why a reply of ``kind`` to ``address`` must be held back: the reason, when one of
    its rations for the last hour is spent; else ``None``.

    Replies to signed-on mail count only against each other: a stranger forging a
    player's From cannot spend them.  Every other reply counts in ``replies_per_hour``,
    and those that may be a robot's also in the much smaller ``loop_replies_per_hour``.
    """
    if address not in work.replies:
        count_replies(session, judge, {address}, now, work)
    counts = work.replies[address]
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


def count_replies(
    session: Session, judge: Judge, addresses: set[str], now: datetime, work: UnitOfWork
) -> None:
    """Count the replies of the last hour to each of ``addresses``, by kind (one query
    for all)."""
    addresses = {a for a in addresses if a not in work.replies}
    if not addresses:
        return
    since = now - timedelta(hours=1)
    # The replies this transaction queued are counted by note_reply, not by the query:
    # no flush is needed first.
    with session.no_autoflush:
        counts = queries.reply_counts(session, addresses, since, REPLY_KINDS)
    for address in addresses:
        work.replies[address] = counts.get(address, {})


def note_reply(work: UnitOfWork, address: str, kind: str) -> None:
    """Count a reply of ``kind`` queued to ``address`` in the transaction's rations, once
    counted."""
    counts = work.replies.get(address)
    if counts is not None:
        counts[kind] = counts.get(kind, 0) + 1


def refuse(
    session: Session, judge: Judge, row: InboundMessage, mail: IncomingMail, now: datetime,
    work: UnitOfWork, template: str, **context: object,
) -> str | None:  # fmt: skip
    """Answer ``mail`` with a refusal (``template``: too large, parked; rendered with
    ``context``) under the tight loop ration; return why it was not answered (the ration
    is spent), else None."""
    spent = rate_limited(session, judge, mail.sender, now, work, "refusal")
    if spent is None:
        rendered = judge.renderer.render(
            template,
            judge_name=judge.settings.name,
            subject_in=mail.subject or "(no subject)",
            **context,
        )
        _queue(session, judge, row, mail, now, work, rendered, "refusal")
        note_reply(work, mail.sender, "refusal")
    return spent


def cut(text: str, limit: int, *, note: bool = True) -> str:
    """``text``, or its first ``limit`` characters and ``...`` (with ``note``, also how
    many characters were left out)."""
    if len(text) <= limit:
        return text
    if not note:
        return text[:limit] + "..."
    return f"{text[:limit]}... ({len(text) - limit:,} more characters)"


# A word: each run of non-blanks is matched once, from where the last one ended (a
# pattern for "more than MAX_QUOTED_CHARS of them" rescanned every shorter run from each
# of its characters).
_WORD = re.compile(r"\S+")


def _explained(text: str) -> str:
    """A reason or an action for the reply: each word of it longer than
    :data:`MAX_QUOTED_CHARS` (a word of the message it quotes) cut, and the whole at most
    :data:`MAX_REASON_CHARS` characters."""
    text = _WORD.sub(lambda m: cut(m.group(), MAX_QUOTED_CHARS), text)
    return cut(text, MAX_REASON_CHARS)


def bound_reply(reply: Reply) -> None:
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
    reply.ignored = [cut(line, MAX_QUOTED_CHARS) for line in kept]
    refused = reply.rejected[:MAX_QUOTED_LINES]
    reply.left_out["rejected"] = len(reply.rejected) - len(refused)
    reply.rejected = [
        {"line": cut(r["line"], MAX_QUOTED_CHARS), "reason": _explained(r["reason"])}
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


def left_out_notes(reply: Reply) -> list[str]:
    """The lines saying what was left out of the reply's lists, in their order."""
    return [_left_out_note(name, n) for name in _LEFT_OUT if (n := reply.left_out.get(name))]


def queue_reply(
    session: Session, judge: Judge, row: InboundMessage, mail: IncomingMail, now: datetime,
    reply: Reply, work: UnitOfWork,
) -> None:  # fmt: skip
    """Queue the reply ``reply`` to ``mail`` (``player/reply.txt.j2``)."""
    rendered = judge.renderer.render(
        "player/reply.txt.j2",
        judge_name=judge.settings.name,
        subject_in=mail.subject or "(no subject)",
        paragraphs=reply.paragraphs,
        rejected=reply.rejected,
        ignored=reply.ignored,
        not_read=reply.not_read,
        nothing_read=reply.nothing_read,
        left_out={name: _left_out_note(name, n) for name, n in reply.left_out.items() if n},
        error_count=reply.errors,
    )
    _queue(session, judge, row, mail, now, work, rendered, reply.kind, reply.attachments)


def _queue(
    session: Session, judge: Judge, row: InboundMessage, mail: IncomingMail, now: datetime,
    work: UnitOfWork, rendered: RenderedMail, kind: str,
    attachments: Sequence[Mapping[str, object]] = (),
) -> None:  # fmt: skip
    """Queue ``rendered`` as the answer to ``mail`` (threaded under it), with the unit of
    work's other rows (and the map pictures ``attachments``)."""
    queue_mail(
        session, judge, to=mail.sender, mail=rendered, kind=kind, now=now,
        inbound_id=row.id, in_reply_to=mail.message_id, references=mail.references,
        into=work.outbox, attachments=attachments,
    )  # fmt: skip
