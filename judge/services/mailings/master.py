"""The notices a game sends its master: civil disorder, a resignation, an edit of the
game file applied or refused, a mail the judge gave up on."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import ClassVar

from sqlalchemy.orm import Session

from judge.db.models import Game, Player
from judge.presenters import format_deadline
from judge.services.context import Judge
from judge.services.game_settings import game_zone
from judge.services.mailings.common import render, to_master

# -- the game master's notices ----------------------------------------------------------


def send_civil_disorder(
    session: Session, judge: Judge, game: Game, player: Player, now: datetime
) -> None:
    """To the game master (``gm/civil_disorder.txt.j2``): ``player`` missed two phases
    in a row and its power is in civil disorder."""
    mail = render(
        judge, "gm/civil_disorder.txt.j2", game, power=player.power, address=player.address
    )
    to_master(session, judge, game, mail, now)


def send_player_resigned(
    session: Session, judge: Judge, game: Game, player: Player, now: datetime
) -> None:
    """To the game master (``gm/player_resigned.txt.j2``): ``player`` resigned."""
    mail = render(
        judge, "gm/player_resigned.txt.j2", game, power=player.power, address=player.address
    )
    to_master(session, judge, game, mail, now)


def send_edit_refused(
    session: Session, judge: Judge, game: Game, path: Path, error: Exception, now: datetime
) -> None:
    """To the game master (``gm/edit_refused.txt.j2``): the game file at ``path`` was
    changed and could not be used, for ``error``; nothing was changed."""
    mail = render(
        judge, "gm/edit_refused.txt.j2", game, file_name=path.name, path=path, error=error
    )
    to_master(session, judge, game, mail, now)


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
    zone = game_zone(game, judge)
    mail = render(
        judge, "gm/edit_applied.txt.j2", game,
        file_name=path.name,
        changes=list(changes),
        news=[_news_context(item, zone) for item in news],
    )  # fmt: skip
    to_master(session, judge, game, mail, now)


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
    mail = render(
        judge, "gm/mail_undeliverable.txt.j2", game,
        to=to, subject=subject, message_id=message_id, written=written,
        attempts=attempts, reason=reason, refused=refused,
    )  # fmt: skip
    to_master(session, judge, game, mail, now)
