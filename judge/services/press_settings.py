"""The game master changes a game's press by mail (``SET PRESS <kind>`` and the njudge's
``SET WHITE``, ``SET GREY``, ``SET NOPRESS``, ``SET PARTIAL``, ``SET NOPARTIAL``): the
game's settings change and everyone still following the game is told the press from now
on.  A later edit of the game file's key sets it again (the file's keys apply as edited)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from judge.config import Press
from judge.db.models import Game
from judge.services import mailings
from judge.services.context import Judge
from judge.services.game_settings import game_settings, press_text

__all__ = ["change_press"]


def change_press(
    session: Session,
    judge: Judge,
    game: Game,
    now: datetime,
    *,
    kind: Press | None = None,
    partial: bool | None = None,
) -> tuple[str, str] | None:
    """Set ``game``'s kind of press (``kind``) and/or partial press (``partial``); tell
    everyone following the game when that changed anything.  Returns the press before and
    after, as LIST says it, or None when nothing changed."""
    settings = game_settings(game)
    before = press_text(settings)
    stored = dict(game.settings or {})
    if kind is not None:
        stored["press"] = kind.value
    if partial is not None:
        if partial:
            # Stored only while it differs from the default (config.STORED_WHEN_SET).
            stored.pop("partial_press", None)
        else:
            stored["partial_press"] = False
    game.settings = stored
    after = press_text(game_settings(game))
    if after == before:
        return None
    kind_now = game_settings(game).press.value
    mailings.send_press_settings(
        session, judge, game, now, kind=kind_now, before=before, after=after
    )
    return before, after
