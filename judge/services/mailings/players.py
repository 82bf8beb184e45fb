"""The mail a game sends its players: the start, the results, deadlines, reminders and
late notices, and the news of a seat (a sign-on lock, a new password, a replacement)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy.orm import Session

from judge.db.models import Game, Player
from judge.engine.adjudicator import Adjudication
from judge.engine.phases import Phase
from judge.engine.position import Position
from judge.presenters import (
    and_list,
    format_deadline,
    next_phase_text,
    phase_heading,
    position_report,
)
from judge.render import RenderedMail
from judge.services.audience import Audience, Recipient, recipient_of, recipients
from judge.services.context import Judge
from judge.services.game_settings import (
    endgame_text,
    game_rules,
    game_settings,
    game_zone,
    press_text,
    year_text,
)
from judge.services.mailings.common import own_zone, queue, render, signon_line, to_master
from judge.services.mailings.gamestart import Seat
from judge.services.outbox import insert_outbox
from judge.services.releases import Releases

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
    roster: Sequence[Seat] | None = None,
    pictures: Sequence[Mapping[str, object]] = (),
) -> None:
    """The "game starting" mail (``player/gamestart.txt.j2``) to ``player``: power,
    password (``None``: the game master gave it), deadline, how to order, ``position``;
    ``roster``: every player's power and address (a game that is not anonymous, house
    rule 12.1).  ``replacement``: the player takes over a seat in a running game;
    ``pictures``: the map pictures it carries (the first phase's board)."""
    reader = recipient_of(game, player, judge)
    mail = render(
        judge, "player/gamestart.txt.j2", game,
        judge_address=judge.settings.address,
        variant="Standard",
        rules_text=f"{game_rules(game).edition.value} rulebook",
        press=press_text(game_settings(game)),
        endings=endgame_text(game_settings(game)),
        year=year_text(game_settings(game)),
        power=player.power,
        password=password,
        signon_line=signon_line(game, player.power),
        deadline_game=(
            format_deadline(game.deadline, game_zone(game, judge)) if game.deadline else "none set"
        ),
        deadline_player=own_zone(judge, game, reader, game.deadline),
        phase_text=position.phase.describe(),
        position_text=position_report(position),
        master_address=game.master_address,
        replacement=replacement,
        roster=None if roster is None else list(roster),
    )  # fmt: skip
    kind = "replacement" if replacement else "gamestart"
    queue(
        session, judge, game, reader, mail, kind, now, secret=password is not None,
        pictures=pictures,
    )  # fmt: skip


def send_results(
    session: Session,
    judge: Judge,
    game: Game,
    phase: Phase,
    report: str,
    outcome: Adjudication,
    now: datetime,
    releases: Releases | None = None,
    private: Mapping[int, Sequence[str]] | None = None,
    pictures: Sequence[Mapping[str, object]] = (),
    players: Sequence[Player] | None = None,
) -> None:
    """The results of ``phase`` (``all/results.txt.j2``) to everyone in the game: the
    ``report``, the press ``releases`` published with it, then the next phase and its
    deadline (the game's, as it now stands), or the end of the game.  The sender of a
    release withheld is told in their own copy; so is each player given lines in
    ``private`` (by ``Player.id``: what became of the orders they sent ahead), written as
    given; everyone else's copy is one rendering.  ``pictures``: the map pictures of the
    phase played, stored once and carried by every copy.  ``players``: the game's
    players as the caller has them loaded (processing the phase), not asked for again.
    Every copy is written in one statement."""
    releases = releases or Releases()
    private = private or {}
    nxt = outcome.position.phase

    def rendered(notices: list[str], yours: Sequence[str] = ()) -> RenderedMail:
        return render(
            judge, "all/results.txt.j2", game,
            variant="Standard",
            phase_code=phase.code,
            report=report,
            releases=list(releases.published),
            notices=notices,
            yours=list(yours),
            next_phase_text=None if outcome.winner else next_phase_text(nxt),
            deadline_game=(
                format_deadline(game.deadline, game_zone(game, judge)) if game.deadline else None
            ),
            winner=outcome.winner,
        )  # fmt: skip

    mail = rendered([])
    rows: list[dict[str, object]] = []
    for reader in recipients(session, game, Audience.EVERYONE, judge, players=players):
        notices = releases.notices_for(reader)
        yours = private.get(reader.player_id, ()) if reader.player_id is not None else ()
        own = rendered(notices, yours) if notices or yours else mail
        queue(session, judge, game, reader, own, "results", now, pictures=pictures, into=rows)
    insert_outbox(session, rows)


# -- deadlines ------------------------------------------------------------------------


def send_new_deadline(
    session: Session,
    judge: Judge,
    game: Game,
    now: datetime,
    *,
    by_master: bool = False,
    reason: str | None = None,
) -> None:
    """The game's new deadline (``all/new_deadline.txt.j2``) to everyone still following
    the game (:attr:`Audience.NEWS`: the players still in, the master, the observers),
    each with the time in their own zone too; ``by_master``: the game master moved it (by
    mail or in the game file); ``reason``: a sentence saying why, when given."""
    assert game.deadline is not None and game.phase is not None
    for reader in recipients(session, game, Audience.NEWS, judge):
        mail = render(
            judge, "all/new_deadline.txt.j2", game,
            power=reader.power,
            observer=reader.observer,
            by_master=by_master,
            phase_code=game.phase,
            deadline_game=format_deadline(game.deadline, game_zone(game, judge)),
            deadline_player=own_zone(judge, game, reader, game.deadline),
            reason=reason,
        )  # fmt: skip
        queue(session, judge, game, reader, mail, "deadline", now)


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
    mail = render(
        judge, "player/reminder.txt.j2", game,
        **_deadline_context(judge, game, due),
        heading=_heading(game, due.position),
        order_lines=list(due.order_lines),
        missing_lines=list(due.missing_lines),
        signon_line=signon_line(game, due.reader.power),
    )  # fmt: skip
    queue(session, judge, game, due.reader, mail, "reminder", now)


def send_late(
    session: Session,
    judge: Judge,
    game: Game,
    due: OrdersDue,
    process_at: datetime | None,
    now: datetime,
) -> None:
    """To a late player (``player/late.txt.j2``): the deadline has passed, and the phase
    is processed without the missing orders at ``process_at`` (``None``: the game waits
    for them or the game master, ``nmr = "wait"``)."""
    mail = render(
        judge, "player/late.txt.j2", game,
        **_deadline_context(judge, game, due),
        **_process_context(judge, game, due.reader, process_at),
        heading=_heading(game, due.position),
        order_lines=list(due.order_lines),
        missing_lines=list(due.missing_lines),
    )  # fmt: skip
    queue(session, judge, game, due.reader, mail, "late", now)


def send_late_others(
    session: Session,
    judge: Judge,
    game: Game,
    due: OrdersDue,
    late_powers: Sequence[str],
    process_at: datetime | None,
    now: datetime,
    *,
    anonymous: bool,
) -> None:
    """To a player who is not late (``all/late.txt.j2``): the phase waits for
    ``late_powers`` (named, or only counted when ``anonymous``) until ``process_at``
    (``None``: until they come or the game master decides, ``nmr = "wait"``)."""
    mail = render(
        judge, "all/late.txt.j2", game,
        **_deadline_context(judge, game, due),
        **_process_context(judge, game, due.reader, process_at),
        nothing_needed=not due.order_lines and not due.missing_lines,
        late_count=len(late_powers),
        late_powers=None if anonymous else and_list(late_powers),
    )  # fmt: skip
    queue(session, judge, game, due.reader, mail, "late", now)


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
        "deadline_game": format_deadline(game.deadline, game_zone(game, judge)),
        "deadline_player": own_zone(judge, game, reader, game.deadline),
    }


def _process_context(
    judge: Judge, game: Game, reader: Recipient, process_at: datetime | None
) -> dict[str, object]:
    """When the phase goes ahead without the missing orders (None: the game waits)."""
    return {
        "process_game": format_deadline(process_at, game_zone(game, judge)) if process_at else None,
        "process_player": own_zone(judge, game, reader, process_at),
    }


def _heading(game: Game, position: Position) -> str:
    return phase_heading(position.phase.kind.word, position.phase, game.name, game.seq)


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
        "until": format_deadline(until, game_zone(game, judge)),
    }
    to_master(session, judge, game, render(judge, "gm/signon_locked.txt.j2", game, **facts), now)
    if player is not None:
        mail = render(judge, "player/signon_locked.txt.j2", game, **facts)
        queue(session, judge, game, recipient_of(game, player, judge), mail, "notice", now)


def send_new_password(
    session: Session, judge: Judge, game: Game, player: Player, password: str, now: datetime
) -> None:
    """The password the game master reset ``player``'s seat to
    (``player/new_password.txt.j2``); purged from the outbox once sent."""
    mail = render(
        judge, "player/new_password.txt.j2", game,
        power=player.power,
        password=password,
        signon_line=signon_line(game, player.power, password),
    )  # fmt: skip
    queue(session, judge, game, recipient_of(game, player, judge), mail, "notice", now, secret=True)


def send_replaced(
    session: Session,
    judge: Judge,
    game: Game,
    player: Player,
    old_address: str,
    now: datetime,
    *,
    taken_over: bool = False,
) -> None:
    """To the player at ``old_address`` who loses ``player``'s seat to a replacement
    (``player/replaced.txt.j2``): no more mail about the game.  ``taken_over``: the new
    player took the open seat over by mail, rather than the game master's file."""
    mail = render(
        judge, "player/replaced.txt.j2", game,
        power=player.power,
        master_address=game.master_address,
        taken_over=taken_over,
    )  # fmt: skip
    reader = recipient_of(game, player, judge, old_address)
    queue(session, judge, game, reader, mail, "notice", now)
