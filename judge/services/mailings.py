"""The mail a game sends: one function per kind, each with its own template.

A function here takes values (the game, a player, a time), never sentences: the words are
in the kind's template under ``templates/`` (``player/new_deadline.txt.j2``,
``gm/edit_refused.txt.j2`` ...), which the golden files in ``tests/data/golden/render``
pin down.  Who reads each kind comes from :mod:`judge.services.audience`.  Each function
queues its mail in the caller's transaction (:func:`~judge.services.outbox.queue_mail`).

The replies to a player's own message (confirmations, refusals) are the conversation's
(:mod:`judge.services.inbound`), not a game's mail.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from sqlalchemy.orm import Session

from judge.db.models import Game, Player
from judge.engine.adjudicator import Adjudication
from judge.engine.board import standard_map
from judge.engine.phases import Phase
from judge.engine.position import Position
from judge.presenters import format_deadline, phase_heading, position_report
from judge.render import RenderedMail
from judge.services.audience import Audience, Recipient, game_zone, recipient_of, recipients
from judge.services.context import Judge
from judge.services.outbox import queue_mail

__all__ = [
    "EditNews",
    "OrdersDue",
    "PasswordReset",
    "Replacement",
    "StaleDeadline",
    "send_civil_disorder",
    "send_edit_applied",
    "send_edit_refused",
    "send_late",
    "send_late_others",
    "send_mail_undeliverable",
    "send_new_deadline",
    "send_new_password",
    "send_player_resigned",
    "send_reminder",
    "send_replaced",
    "send_results",
    "send_signon_locked",
    "send_welcome",
]


# -- the game's start and its results ------------------------------------------------


def send_welcome(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player,
    password: str | None,
    now: datetime,
    *,
    position: Position,
    replacement: bool = False,
) -> None:
    """The "game starting" mail (``player/gamestart.txt.j2``) to ``player``: power,
    password (``None``: the game master gave it), deadline, how to order, ``position``.
    ``replacement``: the player takes over a seat in a running game."""
    reader = recipient_of(game, player)
    mail = _render(
        judge, "player/gamestart.txt.j2", game,
        judge_address=judge.settings.address,
        variant="Standard",
        rules_text=f"{(game.rules or {}).get('edition', '2023')} rulebook",
        press=str((game.settings or {}).get("press", "white")),
        power=player.power,
        password=password,
        signon_line=_signon_line(game, player.power),
        deadline_game=(
            format_deadline(game.deadline, game_zone(game)) if game.deadline else "none set"
        ),
        deadline_player=_own_zone(game, reader, game.deadline),
        phase_text=position.phase.describe(),
        position_text=position_report(position),
        master_address=game.master_address,
        replacement=replacement,
    )  # fmt: skip
    kind = "replacement" if replacement else "gamestart"
    _queue(session, judge, game, reader, mail, kind, now, secret=password is not None)


def send_results(
    session: Session,
    judge: Judge,
    game: Game,
    phase: Phase,
    report: str,
    outcome: Adjudication,
    now: datetime,
) -> None:
    """The results of ``phase`` (``all/results.txt.j2``) to everyone in the game: the
    ``report``, then the next phase and its deadline (the game's, as it now stands), or
    the end of the game."""
    nxt = outcome.position.phase
    mail = _render(
        judge, "all/results.txt.j2", game,
        variant="Standard",
        phase_code=phase.code,
        report=report,
        next_phase_text=None if outcome.winner else _next_text(nxt),
        deadline_game=format_deadline(game.deadline, game_zone(game)) if game.deadline else None,
        winner=outcome.winner,
    )  # fmt: skip
    for reader in recipients(session, game, Audience.EVERYONE):
        _queue(session, judge, game, reader, mail, "results", now)


def _next_text(phase: Phase) -> str:
    kind = {"M": "Movement", "R": "Retreats", "A": "Adjustments"}[phase.kind.value]
    return f"{kind} for {phase.season.word} of {phase.year}"


# -- deadlines ------------------------------------------------------------------------


def send_new_deadline(session: Session, judge: Judge, game: Game, now: datetime) -> None:
    """The game's new deadline (``player/new_deadline.txt.j2``) to its players."""
    assert game.deadline is not None and game.phase is not None
    for reader in recipients(session, game, Audience.PLAYERS):
        mail = _render(
            judge, "player/new_deadline.txt.j2", game,
            power=reader.power,
            phase_code=game.phase,
            deadline_game=format_deadline(game.deadline, game_zone(game)),
            deadline_player=_own_zone(game, reader, game.deadline),
        )  # fmt: skip
        _queue(session, judge, game, reader, mail, "deadline", now)


@dataclass(frozen=True)
class OrdersDue:
    """What a reminder or a late notice shows its reader: the phase being played, the
    orders the judge holds for the reader's power (a line each) and what is missing."""

    position: Position
    reader: Recipient
    order_lines: Sequence[str]
    missing_lines: Sequence[str]


def send_reminder(
    session: Session, judge: Judge, game: Game, due: OrdersDue, now: datetime
) -> None:
    """A reminder that the reader's orders are due (``player/reminder.txt.j2``)."""
    assert due.reader.power is not None
    mail = _render(
        judge, "player/reminder.txt.j2", game,
        **_deadline_context(judge, game, due),
        heading=_heading(game, due.position),
        order_lines=list(due.order_lines),
        missing_lines=list(due.missing_lines),
        signon_line=_signon_line(game, due.reader.power),
    )  # fmt: skip
    _queue(session, judge, game, due.reader, mail, "reminder", now)


def send_late(
    session: Session, judge: Judge, game: Game, due: OrdersDue, process_at: datetime, now: datetime
) -> None:
    """To a late player (``player/late.txt.j2``): the deadline has passed, and the phase
    is processed without the missing orders at ``process_at``."""
    mail = _render(
        judge, "player/late.txt.j2", game,
        **_deadline_context(judge, game, due),
        **_process_context(game, due.reader, process_at),
        heading=_heading(game, due.position),
        order_lines=list(due.order_lines),
        missing_lines=list(due.missing_lines),
    )  # fmt: skip
    _queue(session, judge, game, due.reader, mail, "late", now)


def send_late_others(
    session: Session,
    judge: Judge,
    game: Game,
    due: OrdersDue,
    late_powers: Sequence[str],
    process_at: datetime,
    now: datetime,
    *,
    anonymous: bool,
) -> None:
    """To a player who is not late (``all/late.txt.j2``): the phase waits for
    ``late_powers`` (named, or only counted when ``anonymous``) until ``process_at``."""
    mail = _render(
        judge, "all/late.txt.j2", game,
        **_deadline_context(judge, game, due),
        **_process_context(game, due.reader, process_at),
        nothing_needed=not due.order_lines and not due.missing_lines,
        late_count=len(late_powers),
        late_powers=None if anonymous else _and_list(late_powers),
    )  # fmt: skip
    _queue(session, judge, game, due.reader, mail, "late", now)


def _deadline_context(judge: Judge, game: Game, due: OrdersDue) -> dict[str, object]:
    """What the reminder and the late notices say about the phase and its deadline."""
    assert game.deadline is not None
    position, reader = due.position, due.reader
    return {
        "judge_address": judge.settings.address,
        "variant": "Standard",
        "phase_code": position.phase.code,
        "phase_text": position.phase.describe(),
        "phase_kind": position.phase.kind.value,
        "power": reader.power,
        "deadline_game": format_deadline(game.deadline, game_zone(game)),
        "deadline_player": _own_zone(game, reader, game.deadline),
    }


def _process_context(game: Game, reader: Recipient, process_at: datetime) -> dict[str, object]:
    return {
        "process_game": format_deadline(process_at, game_zone(game)),
        "process_player": _own_zone(game, reader, process_at),
    }


def _heading(game: Game, position: Position) -> str:
    return phase_heading(position.phase.kind.word, position.phase, game.name, game.seq)


def _and_list(names: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``.

    >>> _and_list(["France"]), _and_list(["France", "Italy", "Turkey"])
    ('France', 'France, Italy and Turkey')
    """
    if len(names) <= 1:
        return "".join(names)
    return f"{', '.join(names[:-1])} and {names[-1]}"


# -- seats: sign-on locks, passwords, replacements ---------------------------------------


def send_signon_locked(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player | None,
    now: datetime,
    *,
    failures: int,
    sender: str,
    registered: bool,
    until: datetime,
) -> None:
    """Tell the game master (``gm/signon_locked.txt.j2``), and the player at the
    registered address (``player/signon_locked.txt.j2``; ``player`` None: the game
    master's own sign-on), that ``failures`` wrong passwords, the last from ``sender``,
    locked a seat's sign-ons (from its ``registered`` address, or from any other) until
    ``until``.  Once per lockout: the caller locks once."""
    facts: dict[str, object] = {
        "power": player.power if player is not None else None,
        "address": player.address if player is not None else game.master_address,
        "failures": failures,
        "sender": sender,
        "registered": registered,
        "until": format_deadline(until, game_zone(game)),
    }
    mail = _render(judge, "gm/signon_locked.txt.j2", game, **facts)
    for reader in recipients(session, game, Audience.MASTER):
        _queue(session, judge, game, reader, mail, "notice", now)
    if player is not None:
        mail = _render(judge, "player/signon_locked.txt.j2", game, **facts)
        _queue(session, judge, game, recipient_of(game, player), mail, "notice", now)


def send_new_password(
    session: Session, judge: Judge, game: Game, player: Player, password: str, now: datetime
) -> None:
    """The password the game master reset ``player``'s seat to
    (``player/new_password.txt.j2``); purged from the outbox once sent."""
    mail = _render(
        judge, "player/new_password.txt.j2", game,
        power=player.power,
        password=password,
        signon_line=_signon_line(game, player.power, password),
    )  # fmt: skip
    _queue(session, judge, game, recipient_of(game, player), mail, "notice", now, secret=True)


def send_replaced(
    session: Session, judge: Judge, game: Game, player: Player, old_address: str, now: datetime
) -> None:
    """To the player at ``old_address`` who loses ``player``'s seat to a replacement
    (``player/replaced.txt.j2``): no more mail about the game."""
    mail = _render(
        judge, "player/replaced.txt.j2", game,
        power=player.power,
        master_address=game.master_address,
    )  # fmt: skip
    reader = recipient_of(game, player, old_address)
    _queue(session, judge, game, reader, mail, "notice", now)


# -- the game master's notices ----------------------------------------------------------


def send_civil_disorder(
    session: Session, judge: Judge, game: Game, player: Player, now: datetime
) -> None:
    """To the game master (``gm/civil_disorder.txt.j2``): ``player`` missed two phases
    in a row and its power is in civil disorder."""
    mail = _render(
        judge, "gm/civil_disorder.txt.j2", game, power=player.power, address=player.address
    )
    _to_master(session, judge, game, mail, now)


def send_player_resigned(
    session: Session, judge: Judge, game: Game, player: Player, now: datetime
) -> None:
    """To the game master (``gm/player_resigned.txt.j2``): ``player`` resigned."""
    mail = _render(
        judge, "gm/player_resigned.txt.j2", game, power=player.power, address=player.address
    )
    _to_master(session, judge, game, mail, now)


def send_edit_refused(
    session: Session, judge: Judge, game: Game, path: Path, error: Exception, now: datetime
) -> None:
    """To the game master (``gm/edit_refused.txt.j2``): the game file at ``path`` was
    changed and could not be used, for ``error``; nothing was changed."""
    mail = _render(
        judge, "gm/edit_refused.txt.j2", game, file_name=path.name, path=path, error=error
    )
    _to_master(session, judge, game, mail, now)


@dataclass(frozen=True)
class PasswordReset:
    """News of an edit: ``power``'s password was reset; the player, at ``address``,
    was told."""

    kind: ClassVar[str] = "password_reset"
    power: str
    address: str


@dataclass(frozen=True)
class Replacement:
    """News of an edit: ``address`` now plays ``power`` instead of ``old_address``."""

    kind: ClassVar[str] = "replacement"
    power: str
    address: str
    old_address: str


@dataclass(frozen=True)
class StaleDeadline:
    """News of an edit: the file's ``deadline`` was for an earlier phase (``phase``, or
    None when that phase is not known) and was not applied to ``current_phase``, whose
    deadline stays ``current_deadline``."""

    kind: ClassVar[str] = "stale_deadline"
    deadline: datetime
    phase: str | None
    current_phase: str | None
    current_deadline: datetime | None


#: What the game master is told about an applied edit, beyond the list of changes.
EditNews = PasswordReset | Replacement | StaleDeadline


def send_edit_applied(
    session: Session,
    judge: Judge,
    game: Game,
    path: Path,
    changes: Sequence[str],
    news: Sequence[EditNews],
    now: datetime,
) -> None:
    """To the game master (``gm/edit_applied.txt.j2``): the edit of the game file at
    ``path`` was applied (``changes``, the lines of the load report), and a paragraph for
    each of ``news``."""
    zone = game_zone(game)
    mail = _render(
        judge, "gm/edit_applied.txt.j2", game,
        file_name=path.name,
        changes=list(changes),
        news=[_news_context(item, zone) for item in news],
    )  # fmt: skip
    _to_master(session, judge, game, mail, now)


def _news_context(item: EditNews, zone: str) -> dict[str, object]:
    if isinstance(item, StaleDeadline):
        return {
            "kind": item.kind,
            "deadline": format_deadline(item.deadline, zone),
            "phase": item.phase,
            "current_phase": item.current_phase,
            "current_deadline": (
                format_deadline(item.current_deadline, zone) if item.current_deadline else None
            ),
        }
    return {"kind": item.kind, **vars(item)}


def send_mail_undeliverable(
    session: Session,
    judge: Judge,
    game: Game,
    now: datetime,
    *,
    to: str,
    subject: str,
    message_id: str,
    written: datetime,
    attempts: int,
    reason: str,
    refused: bool,
) -> None:
    """To the game master (``gm/mail_undeliverable.txt.j2``): the mail ``subject`` to
    ``to`` was given up, refused by the server (``refused``) or after ``attempts``."""
    mail = _render(
        judge, "gm/mail_undeliverable.txt.j2", game,
        to=to, subject=subject, message_id=message_id, written=written,
        attempts=attempts, reason=reason, refused=refused,
    )  # fmt: skip
    _to_master(session, judge, game, mail, now)


# -- helpers ----------------------------------------------------------------------------


def _render(judge: Judge, template: str, game: Game, **context: object) -> RenderedMail:
    """``template`` with ``context`` and what every kind shows: the judge and the game."""
    return judge.renderer.render(
        template, judge_name=judge.settings.name, game_name=game.name, **context
    )


def _queue(
    session: Session,
    judge: Judge,
    game: Game,
    reader: Recipient,
    mail: RenderedMail,
    kind: str,
    now: datetime,
    *,
    secret: bool = False,
) -> None:
    queue_mail(
        session, judge, to=reader.address, mail=mail, kind=kind, now=now, game_id=game.id,
        secret=secret,
    )  # fmt: skip


def _to_master(
    session: Session, judge: Judge, game: Game, mail: RenderedMail, now: datetime
) -> None:
    """Queue ``mail`` to the game's master, if it has one."""
    for reader in recipients(session, game, Audience.MASTER):
        _queue(session, judge, game, reader, mail, "notice", now)


def _own_zone(game: Game, reader: Recipient, when: datetime | None) -> str | None:
    """``when`` in ``reader``'s own zone, or None when that is the game's zone anyway."""
    if when is None or reader.zone == game_zone(game):
        return None
    return format_deadline(when, reader.zone)


def _signon_line(game: Game, power: str, password: str = "<password>") -> str:
    return f"SIGNON {standard_map().power_letter[power]}{game.name} {password}"
