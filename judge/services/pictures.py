"""The map picture in the judge's mail: which phase a picture shows, drawing it once,
storing it once, and naming it in every mail that carries it.

A picture is drawn by :func:`judge.picture.draw` from engine values; the values of a past
phase are read back from its record (``PhaseRecord.position``, the position it began
with, and ``PhaseRecord.results``, its adjudication document), so that a results mail and
a later ``MAP`` of the same phase show the same picture.  It is stored as a PNG in the
``pictures`` table, once per game, phase and kind, and every mail that carries it names
its id (``outbox.attachments``); the sender reads the bytes when it sends.

A picture that cannot be drawn never stops nor delays what the mail is about (an
adjudication, a game's start): the mail goes without it, and the log says why.  In a
two-season game (house rule 3.1) a season's results carry one picture for each phase the
season played: its moves, then its retreats and (in Autumn) the year's adjustments when
there were any, each named by its own phase code.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session

from judge.db import queries
from judge.db.models import Game, PhaseRecord, PictureKind
from judge.engine.board import standard_map
from judge.engine.document import position_from_document, results_from_document
from judge.engine.phases import Phase
from judge.engine.position import Position
from judge.engine.results import OrderResult
from judge.picture import GeometryError, Picture, draw
from judge.services.context import Judge
from judge.services.errors import ServiceError
from judge.services.game_settings import game_settings, game_zone
from judge.services.phase_sections import phase_words

__all__ = [
    "PhaseView",
    "PictureRef",
    "attach",
    "board_view",
    "drawn",
    "file_name",
    "map_attachment",
    "map_view",
    "maps_on",
    "record_views",
    "results_pictures",
]

log = logging.getLogger(__name__)

#: A picture as a mail's outbox row names it (the mail layer's ``Attachment`` is the
#: bytes the sender reads for it): ``{"picture": <id>, "filename": ...}``.
PictureRef = dict[str, object]


@dataclass(frozen=True)
class PhaseView:
    """What one picture shows: a phase's board as it stood (``BOARD``), or the phase as
    it was played (``RESULTS``: the ``results`` of its orders and the position ``after``
    it, whose dislodged units' retreats and centre owners are drawn); ``when``: the time
    its caption gives (when it was processed, or when the board was drawn)."""

    kind: PictureKind
    before: Position
    when: datetime
    results: tuple[OrderResult, ...] = ()
    after: Position | None = None

    @property
    def phase(self) -> Phase:
        """The phase pictured."""
        return self.before.phase


def maps_on(game: Game) -> bool:
    """Whether ``game`` sends map pictures (its file's ``maps``, true by default)."""
    return game_settings(game).maps


def file_name(game: Game, phase: Phase) -> str:
    """The picture's file name as the reader sees it: ``ewinter01-S1901M.png``."""
    return f"{game.name}-{phase.code}.png"


def _caption(view: PhaseView, zone: str) -> str:
    """``Spring 1901 Movement, results of 23 Nov 2026`` (or ``as it stands on ...``)."""
    words = phase_words(view.phase)
    day = view.when.astimezone(ZoneInfo(zone)).strftime("%d %b %Y").lstrip("0")
    if view.kind is PictureKind.RESULTS:
        return f"{words}, results of {day}"
    return f"{words}, as it stands on {day}"


def drawn(game: Game, view: PhaseView, zone: str) -> Picture:
    """The picture of ``view``, titled with the game (never a player: the drawing knows
    powers only) and captioned with the phase and the date in ``zone``.  Raises what the
    drawing raises (:class:`GeometryError` for a map without geometry)."""
    return draw(
        view.before, view.results, view.after, title=f"Game {game.name}",
        caption=_caption(view, zone),
    )  # fmt: skip


def board_view(position: Position, now: datetime) -> PhaseView:
    """The board of ``position``'s phase as it stands at ``now``."""
    return PhaseView(PictureKind.BOARD, position, now)


def record_views(record: PhaseRecord) -> list[PhaseView]:
    """The results pictures of a processed phase record (none when it is not processed):
    the phase; in a two-season game each phase its season played, in order."""
    doc = record.results
    if doc is None or record.processed_at is None:
        return []
    game_map = standard_map()
    before = position_from_document(record.position, game_map)
    views: list[PhaseView] = []
    for step in doc.get("steps") or [doc]:
        after = position_from_document(step, game_map)
        results = results_from_document(step.get("results", []), before.phase.kind, game_map)
        views.append(PhaseView(PictureKind.RESULTS, before, record.processed_at, results, after))
        before = after
    return views


class _Undrawn(Exception):
    """A picture that could not be drawn; ``cause`` is what the drawing raised."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _stored_or_drawn(
    session: Session, judge: Judge, game: Game, view: PhaseView, now: datetime
) -> PictureRef:
    """The picture of ``view`` as a mail names it: the one stored for the phase and kind
    (never drawn again, nor over: a mail sent again carries the same bytes, and a phase's
    record is written once, a ROLLBACK forgetting the pictures of what it undoes), else
    drawn now and stored.  :class:`_Undrawn` when the drawing fails (a database error
    is not caught: it ends the transaction, as anywhere else)."""
    stored = queries.picture_id(session, game.id, view.phase.code, view.kind)
    if stored is None:
        try:
            png = drawn(game, view, game_zone(game, judge)).png()
        except Exception as err:  # the drawing's failure, told from the database's
            raise _Undrawn(err) from err
        stored = queries.save_picture(session, game.id, view.phase.code, view.kind, png, now)
    return {"picture": stored, "filename": file_name(game, view.phase)}


def attach(
    session: Session, judge: Judge, game: Game, views: Sequence[PhaseView], now: datetime
) -> list[PictureRef]:
    """The pictures of ``views`` (each stored once, whoever gets it: see
    :func:`_stored_or_drawn`) as a mail names them; none when the game turned maps off.
    A picture that cannot be drawn is left out and logged: the mail goes without it."""
    if not maps_on(game):
        return []
    attachments: list[PictureRef] = []
    for view in views:
        try:
            attachments.append(_stored_or_drawn(session, judge, game, view, now))
        except _Undrawn:  # any failure of the drawing: the mail must go all the same
            log.exception(
                "game %s: the picture of %s could not be drawn; the mail goes without it",
                game.name, view.phase.code,
            )  # fmt: skip
    return attachments


def results_pictures(
    session: Session, judge: Judge, game: Game, record: PhaseRecord, now: datetime
) -> list[PictureRef]:
    """The results pictures of ``record``, just processed, for its results mail (see
    :func:`attach`); none, logged, when the record cannot be read back into a picture's
    values, which must not stop the adjudication either."""
    if not maps_on(game):
        return []
    try:
        views = record_views(record)
    except Exception:  # a record this judge wrote itself: only a changed judge gets here
        log.exception(
            "game %s: the results of %s could not be read for their picture; the mail "
            "goes without it", game.name, record.phase,
        )  # fmt: skip
        return []
    return attach(session, judge, game, views, now)


# -- MAP: a phase asked for --------------------------------------------------------------


def map_view(session: Session, game: Game, phase: Phase | None, now: datetime) -> PhaseView:
    """The picture ``MAP`` and ``judge map`` give for ``game``'s ``phase``: none named,
    the board as it stands (a finished game's last position); a processed phase, its
    results; the phase being played, its board.  A :class:`ServiceError` names a game
    not started, a phase not played yet, or one the game never had, and says what would
    be right."""
    records = queries.phases_of(session, game.id)
    if game.phase is None or not records:
        raise ServiceError(f"game {game.name} has not started: there is no map to draw yet")
    last = records[-1]
    current = position_from_document(last.position, standard_map())
    if phase is None or (phase == current.phase and last.processed_at is None):
        return board_view(current, now)
    # The one record that can hold the phase: the last that began at or before it (a
    # two-season game's record holds its season: its retreats and adjustments too).  Only
    # it is read back, so that a MAP costs the same however long the game has run.
    holder = None
    for record in records:
        if Phase.parse(record.phase) > phase:
            break
        holder = record
    if holder is not None and holder.results is not None:
        for view in record_views(holder):
            if view.phase == phase:
                return view
    if current.phase < phase:
        raise ServiceError(
            f"{phase.code} has not been played yet in game {game.name}: it is at "
            f"{current.phase.code} now (MAP {game.name} {current.phase.code} draws the board "
            "as it stands)"
        )
    first = records[0].phase
    raise ServiceError(
        f"game {game.name} had no phase {phase.code} (a phase with nothing to do is "
        f"skipped): its phases run from {first} to {current.phase.code}, and HISTORY "
        f"{game.name} lists them"
    )


def map_attachment(
    session: Session, judge: Judge, game: Game, view: PhaseView, now: datetime
) -> PictureRef:
    """The picture of ``view`` for a ``MAP`` reply, stored or drawn now
    (:func:`_stored_or_drawn`).  A :class:`ServiceError` when the game turned maps off
    or the picture cannot be drawn."""
    if not maps_on(game):
        raise ServiceError(
            f"game {game.name} sends no map pictures (its game file says maps = false); "
            f"SUMMARY {game.name} gives the position in words"
        )
    try:
        return _stored_or_drawn(session, judge, game, view, now)
    except _Undrawn as undrawn:
        if isinstance(undrawn.cause, GeometryError):
            raise ServiceError(
                f"the map of game {game.name} cannot be drawn: {undrawn.cause}; SUMMARY "
                f"{game.name} gives the position in words"
            ) from None
        # Any other failure of the drawing is the judge's, not the sender's.
        log.exception("game %s: the picture of %s could not be drawn", game.name, view.phase)
        raise ServiceError(
            f"the map of game {game.name} could not be drawn (the judge's keeper has been "
            f"told); SUMMARY {game.name} gives the position in words"
        ) from None
