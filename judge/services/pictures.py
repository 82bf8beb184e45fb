"""The map picture in the judge's mail: which phase a picture shows, drawing it once,
storing it once, and naming it in every mail that carries it.

A picture is drawn by :func:`judge.picture.draw` from engine values; the values of a past
phase are read back from its record (``PhaseRecord.position``, the position it began
with, and ``PhaseRecord.results``, its adjudication document), so that a results mail and
a later ``MAP`` of the same phase show the same picture.  It is stored as a PNG in the
``pictures`` table, once per game, phase and kind, and every mail that carries it names
its id (``outbox.attachments``).

Drawing costs several times what adjudicating a phase does, so the transaction that
queues a mail (an adjudication, a game's start) never draws: it only asks for the picture
(:func:`attach`: a row whose ``png`` is NULL, named by every copy of the mail).  The
sender draws what its mail asks for (:func:`draw_pictures`, from the phase record, with
no transaction open), then stores it in a short transaction of its own; a ``MAP`` draws
at once what it needs (:func:`map_attachment`).  A picture is stored once whoever draws
it: the first to store it wins, and the others send the bytes stored.

A picture that cannot be drawn never stops nor delays what the mail is about (an
adjudication, a game's start): the mail goes without it, and the log says why.  In a
two-season game (house rule 3.1) a season's results carry one picture for each phase the
season played: its moves, then its retreats and (in Autumn) the year's adjustments when
there were any, each named by its own phase code.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime
from zoneinfo import ZoneInfo

from sqlalchemy.orm import Session, sessionmaker

from judge.db import queries
from judge.db.models import Game, PhaseRecord, PictureKind
from judge.db.models import Picture as StoredPicture
from judge.db.session import read_only
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
    "draw_pictures",
    "drawn",
    "file_name",
    "map_attachment",
    "map_view",
    "maps_on",
    "record_phases",
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
    return _drawn(game.name, view, zone)


def _drawn(name: str, view: PhaseView, zone: str) -> Picture:
    """:func:`drawn` for the game called ``name``."""
    return draw(
        view.before, view.results, view.after, title=f"Game {name}",
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


def record_phases(record: PhaseRecord) -> list[Phase]:
    """The phases :func:`record_views` pictures for ``record`` (the same, in order),
    read from the phase codes of its documents only, without building their positions
    and results.  Raises ``ValueError`` (or ``KeyError``, ``TypeError``) for a record
    that does not hold them."""
    doc = record.results
    if doc is None or record.processed_at is None:
        return []
    steps = doc.get("steps") or [doc]
    # Each view shows the position before its step: the record's, then each step's after.
    codes = [record.position["phase"], *(step["phase"] for step in steps[:-1])]
    return [Phase.parse(str(code)) for code in codes]


class _Undrawn(Exception):
    """A picture that could not be drawn; ``cause`` is what the drawing raised."""

    def __init__(self, cause: Exception) -> None:
        super().__init__(str(cause))
        self.cause = cause


def _ref(picture: int, game: Game, phase: Phase) -> PictureRef:
    """The picture ``picture`` as a mail names it."""
    return {"picture": picture, "filename": file_name(game, phase)}


def _stored_or_drawn(
    session: Session, judge: Judge, game: Game, view: PhaseView, now: datetime
) -> PictureRef:
    """The picture of ``view`` as a mail names it, drawn: the one stored for the phase
    and kind (never drawn again, nor over: a mail sent again carries the same bytes, and
    a phase's record is written once, a ROLLBACK forgetting the pictures of what it
    undoes), else drawn now and stored (into the row a mail asked for, if one did: a
    board is then captioned with the day it was asked for, as the sender would draw it).
    :class:`_Undrawn` when the drawing fails (a database error is not caught: it ends
    the transaction, as anywhere else)."""
    row = queries.picture_row(session, game.id, view.phase.code, view.kind)
    if row is not None and row.png is not None:
        return _ref(row.id, game, view.phase)
    if row is not None and view.kind is PictureKind.BOARD:
        view = replace(view, when=row.created_at)
    try:
        png = drawn(game, view, game_zone(game, judge)).png()
    except Exception as err:  # the drawing's failure, told from the database's
        raise _Undrawn(err) from err
    stored = queries.save_picture(session, game.id, view.phase.code, view.kind, png, now)
    return _ref(stored, game, view.phase)


def _asked(
    session: Session, game: Game, wanted: Iterable[tuple[Phase, PictureKind]], now: datetime
) -> list[PictureRef]:
    """The pictures ``wanted`` (phase and kind) as a mail names them, each asked for
    (stored already, or a row for the sender to draw: :func:`queries.ask_picture`)."""
    return [
        _ref(queries.ask_picture(session, game.id, phase.code, kind, now), game, phase)
        for phase, kind in wanted
    ]


def attach(
    session: Session, judge: Judge, game: Game, views: Sequence[PhaseView], now: datetime
) -> list[PictureRef]:
    """The pictures of ``views`` as a mail names them (each stored once, whoever gets
    it), asked for and not drawn: the sender draws them (:func:`draw_pictures`), so
    that the transaction that queues the mail never waits for a drawing.  None when the
    game turned maps off.  A board is captioned with ``now``, the day it was asked for.
    (``judge`` is the caller's: drawing, the sender's, needs no more than the game.)"""
    del judge
    if not maps_on(game):
        return []
    return _asked(session, game, [(view.phase, view.kind) for view in views], now)


def results_pictures(
    session: Session, judge: Judge, game: Game, record: PhaseRecord, now: datetime
) -> list[PictureRef]:
    """The results pictures of ``record``, just processed, for its results mail, asked
    for and not drawn (see :func:`attach`): one for each phase it played
    (:func:`record_phases`).  None, logged, when the record does not say which phases,
    which must not stop the adjudication either."""
    del judge
    if not maps_on(game):
        return []
    try:
        phases = record_phases(record)
    except Exception:  # a record this judge wrote itself: only a changed judge gets here
        log.exception(
            "game %s: the results of %s could not be read for their picture; the mail "
            "goes without it", game.name, record.phase,
        )  # fmt: skip
        return []
    return _asked(session, game, [(phase, PictureKind.RESULTS) for phase in phases], now)


# -- the sender: drawing what the mail asked for -----------------------------------------


@dataclass(frozen=True)
class _Drawing:
    """A picture to draw, with all it needs, read from the database beforehand: the
    drawing itself holds no session open."""

    picture: int
    game: str
    view: PhaseView
    zone: str


class _NotHeld(Exception):
    """No phase record holds the phase a picture shows (never once its row exists: a
    ROLLBACK forgets both together)."""


def _holder(session: Session, game_id: int, phase: Phase) -> PhaseRecord | None:
    """The one record that can hold ``phase``: the last that began at or before it (a
    two-season game's record holds its season: its retreats and adjustments too); only
    it is read, so that a picture costs the same however long the game has run."""
    seq = None
    for number, code in queries.phase_codes(session, game_id):
        if Phase.parse(code) > phase:
            break
        seq = number
    return queries.phase_record(session, game_id, seq) if seq is not None else None


def _stored_view(session: Session, row: StoredPicture) -> PhaseView:
    """What the stored picture ``row`` shows, from the record of its phase: a board, the
    position the phase began with, captioned with the day it was asked for; results, the
    phase as it was played (:func:`record_views`).  :class:`_NotHeld` when no record
    holds it; what reading the record raises."""
    phase = Phase.parse(row.phase)
    record = _holder(session, row.game_id, phase)
    if record is None:
        raise _NotHeld(f"no phase record holds {row.phase}")
    if row.kind == PictureKind.BOARD and record.phase == row.phase:
        return board_view(position_from_document(record.position, standard_map()), row.created_at)
    for view in record_views(record):
        if view.phase == phase:
            if row.kind == PictureKind.BOARD:
                return board_view(view.before, row.created_at)
            return view
    raise _NotHeld(f"the record of {record.phase} does not hold {row.phase}")


def _to_draw(session: Session, judge: Judge, ids: Iterable[int]) -> list[_Drawing]:
    """What drawing the pictures ``ids`` still to draw needs; one whose phase cannot be
    read back is left out, and logged (its mails go without it)."""
    drawings: list[_Drawing] = []
    for row in queries.pictures_to_draw(session, ids):
        game = session.get(Game, row.game_id)
        if game is None:  # deleted: its pictures with it
            continue
        try:
            view = _stored_view(session, row)
        except Exception:  # a record this judge wrote itself: only a changed judge gets here
            log.exception(
                "game %s: the %s of %s could not be read for their picture; the mail "
                "goes without it", game.name, row.kind, row.phase,
            )  # fmt: skip
            continue
        drawings.append(_Drawing(row.id, game.name, view, game_zone(game, judge)))
    return drawings


def draw_pictures(
    sessions: sessionmaker[Session], judge: Judge, ids: Iterable[int]
) -> dict[int, bytes]:
    """Draw the pictures ``ids`` that mail asked for and nobody has drawn yet, store
    them, and return the bytes stored, by id: what is needed is read first, the drawing
    is done with no session open, and storing is one short transaction.  Another process
    drawing the same picture at the same time may store it first: its bytes are kept and
    returned (every copy of the mail carries the same).  A picture that cannot be drawn
    is left out, and logged: its mails go without it, and the next mail asking for it
    tries again."""
    wanted = sorted(set(ids))
    if not wanted:
        return {}
    with sessions() as session:
        read_only(session)
        drawings = _to_draw(session, judge, wanted)
    pngs: dict[int, bytes] = {}
    for drawing in drawings:
        try:
            pngs[drawing.picture] = _drawn(drawing.game, drawing.view, drawing.zone).png()
        except Exception:  # any failure of the drawing: the mail must go all the same
            log.exception(
                "game %s: the picture of %s could not be drawn; the mail goes without it",
                drawing.game, drawing.view.phase.code,
            )  # fmt: skip
    if not pngs:
        return {}
    with sessions() as session, session.begin():
        for picture, png in pngs.items():
            queries.fill_picture(session, picture, png)
        stored = queries.picture_pngs(session, pngs)
    return {picture: png for picture, png in stored.items() if png is not None}


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
