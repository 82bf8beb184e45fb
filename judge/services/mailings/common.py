"""What every kind of a game's mail does: render its template with the judge's and the
game's names, queue it to each reader, show a time in the reader's own zone."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game
from judge.engine.board import standard_map
from judge.presenters import format_deadline
from judge.render import RenderedMail
from judge.services.audience import Audience, Recipient, recipients
from judge.services.context import Judge
from judge.services.game_settings import game_zone
from judge.services.outbox import queue_mail

__all__ = ["own_zone", "queue", "render", "signon_line", "to_master"]


def render(judge: Judge, template: str, game: Game, **context: object) -> RenderedMail:
    """``template`` with ``context`` and what every kind shows: the judge and the game."""
    return judge.renderer.render(
        template, judge_name=judge.settings.name, game_name=game.name, **context
    )


def queue(
    session: Session,
    judge: Judge,
    game: Game,
    reader: Recipient,
    mail: RenderedMail,
    kind: str,
    now: datetime,
    *,
    secret: bool = False,
    pictures: Sequence[Mapping[str, object]] = (),
    into: list[dict[str, object]] | None = None,
) -> None:
    """Queue ``mail`` of ``kind`` about ``game`` to ``reader`` (``secret``: it holds a
    password, purged from the outbox once sent; ``pictures``: the map pictures it
    carries, :func:`judge.services.pictures.attach`; ``into``: collect the row there for
    the caller to write with the others in one statement,
    :func:`judge.services.outbox.insert_outbox`)."""
    queue_mail(
        session, judge, to=reader.address, mail=mail, kind=kind, now=now, game_id=game.id,
        secret=secret, attachments=pictures, into=into,
    )  # fmt: skip


def to_master(
    session: Session, judge: Judge, game: Game, mail: RenderedMail, now: datetime
) -> None:
    """Queue ``mail`` to the game's master, if it has one."""
    for reader in recipients(session, game, Audience.MASTER, judge):
        queue(session, judge, game, reader, mail, "notice", now)


def own_zone(judge: Judge, game: Game, reader: Recipient, when: datetime | None) -> str | None:
    """``when`` in ``reader``'s own zone, or None when that is the game's zone anyway."""
    if when is None or reader.zone == game_zone(game, judge):
        return None
    return format_deadline(when, reader.zone)


def signon_line(game: Game, power: str, password: str = "<password>") -> str:
    """The sign-on line for ``power`` in ``game``: ``SIGNON Ewinter01 <password>``."""
    return f"SIGNON {standard_map().power_letter[power]}{game.name} {password}"
