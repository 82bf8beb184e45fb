"""When the deadline loop must next look at a game (``games.wake_at``).

The running judge does not scan every game at every tick: it looks only at the games
whose ``wake_at`` has come (one indexed statement), and sleeps until the earliest one
(one MIN).  Looking at a game sends its reminders and late notices, processes its phase
if it is due, and then works out its next moment here: a reminder, the deadline, each day
of grace, the end of grace, or the end of the early delay once every order is in.

Whatever may move that moment marks the game instead (``wake_at = LOOK_NOW``, in the same
transaction, :func:`judge.db.models._mark_changed_games` and
:func:`judge.db.queries.mark_games`): a new deadline by any path, a processed phase, an
order, a WAIT, a vote.  The loop looks at a marked game at once and works its moment out
again, so the database is the only truth and any judge process can do it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from sqlalchemy.orm import Session

from judge.db.models import Game, GameStatus
from judge.services.game_settings import phase_deadline
from judge.services.games import early_moment

#: How soon a game whose deadline and grace have passed without its phase being
#: processed (it waits for missing orders, a vote or its master) is looked at again:
#: what ends the wait marks it anyway; this is the safety net.
RECHECK = timedelta(seconds=60)


def next_wake(session: Session, game: Game, now: datetime) -> datetime | None:
    """The next moment after ``now`` the loop must look at ``game``; None when nothing
    is due by time (a game that is not active, or has neither a deadline nor every
    order in)."""
    if game.status != GameStatus.ACTIVE or game.phase is None:
        return None
    moments: list[datetime] = []
    if game.deadline is not None:
        spec = phase_deadline(game)
        if spec.remind:
            moments.append(game.deadline - timedelta(hours=spec.remind))
        # The deadline, each day of grace (a late notice each), and the end of grace.
        moments += [game.deadline + timedelta(hours=h) for h in range(0, int(spec.grace) + 1, 24)]
        moments.append(game.deadline + timedelta(hours=spec.grace))
    early = early_moment(session, game)
    if early is not None:
        moments.append(early)
    later = [m for m in moments if m > now]
    if later:
        return min(later)
    if moments:
        # Every moment has passed and the phase is still here: it waits (see RECHECK).
        return now + RECHECK
    return None


def settle(session: Session, game: Game, now: datetime) -> datetime | None:
    """Work out and store the game's next moment after looking at it at ``now``; the
    moment (None: nothing by time).  ``game``: its row locked by the caller since before
    the look (:func:`judge.db.queries.locked_game`), so that a mark another process makes
    meanwhile waits, and lands after the moment worked out here instead of being
    overwritten by it."""
    # What the look changed is written (and the game marked by it) first: the moment
    # worked out below then stands, as the last change to the row.
    session.flush()
    return settle_flushed(session, game, now)


def settle_flushed(session: Session, game: Game, now: datetime) -> datetime | None:
    """:func:`settle`, the look's changes already flushed (a page of games looked at in
    one transaction flushes them all at once, then settles each)."""
    game.wake_at = next_wake(session, game, now)
    game.wake_deadline = game.deadline
    return game.wake_at
