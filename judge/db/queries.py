"""The judge's queries: the statements the services run, each named for what it asks.

The services decide what to do; this module knows how the tables answer.  Functions take
the caller's session and never commit: the service holds the transaction.  Writes that
run for every message (stored mail, order rows, queued replies, "sent" marks) are Core
statements, one for many rows: SQLite cannot insert many rows at once and tell the ORM
each one's id, so through the ORM they went one row at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import (
    DateTime,
    Interval,
    Select,
    Table,
    and_,
    bindparam,
    case,
    delete,
    event,
    func,
    insert,
    inspect,
    literal,
    literal_column,
    or_,
    select,
    text,
    tuple_,
    update,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.orm import Session
from sqlalchemy.sql.elements import ColumnElement

from judge.db import absent, readahead
from judge.db.models import (
    LOOK_NOW,
    FutureOrder,
    Game,
    GameStatus,
    InboundMessage,
    InboundState,
    JudgeProcess,
    NoticeKind,
    NoticeRecord,
    Observer,
    OrderRecord,
    OutboundMessage,
    OutboundState,
    PhaseRecord,
    Picture,
    Player,
    PlayerStatus,
    PressRecord,
    PressState,
    Proposal,
    ProposalBallot,
    ProposalState,
    Rollback,
    SignonGuard,
    VoteKind,
    VoteRecord,
    utcnow,
)
from judge.db.types import UTCDateTime

_ORDERS = cast("Table", OrderRecord.__table__)
_INBOUND = cast("Table", InboundMessage.__table__)
_OUTBOX = cast("Table", OutboundMessage.__table__)

#: An IN list longer than this is split (SQLite's limit on parameters is far higher; this
#: keeps each statement small).
_IN_CHUNK = 500

# -- games ------------------------------------------------------------------------------


def game_by_name(
    session: Session, name: str, *, lock: bool = False, past_looks: bool = False
) -> Game | None:
    """The game called ``name`` (case-insensitive), if any; with ``lock``, its row locked
    until the transaction ends (PostgreSQL) and read afresh, as :func:`locked_game`; with
    ``past_looks``, read afresh once no look holds it, as :func:`game_past_looks`."""
    query = select(Game).where(Game.name == name.strip().lower())
    if lock:
        query = _locked(query)
    elif past_looks:
        query = _past_looks(query)
    return session.scalar(query)


def _locked(query: Select[Game]) -> Select[Game]:
    """``query`` of games, their rows locked for update and read afresh."""
    return query.with_for_update().execution_options(populate_existing=True)


def _past_looks(query: Select[Game]) -> Select[Game]:
    """``query`` of games, read afresh under ``FOR KEY SHARE`` (:func:`game_past_looks`)."""
    return query.with_for_update(read=True, key_share=True).execution_options(
        populate_existing=True
    )


def _is_postgres(session: Session) -> bool:
    """Whether the session's database is PostgreSQL (else SQLite)."""
    return session.get_bind().dialect.name == "postgresql"


def game_past_looks(session: Session, game_id: int) -> Game | None:
    """The game, read afresh once no look at it is under way, and kept from one until the
    transaction ends: on PostgreSQL a ``FOR KEY SHARE`` lock, which waits for the ``FOR
    UPDATE`` of a look (:func:`locked_game`) or of a phase being processed, and makes them
    wait in turn.  It does not conflict with another such lock, nor with a plain UPDATE
    of the row (a mark, :func:`mark_games`), so inbox transactions of several judges that
    read the same games in different orders never deadlock on them, nor wait for each
    other.  (SQLite's transactions take turns anyway: no lock is written there.)"""
    return session.scalars(_GAME_PAST_LOOKS, {"game_id": game_id}).one_or_none()


def game_names(session: Session) -> list[str]:
    """Every game's name, in order."""
    return list(session.scalars(select(Game.name).order_by(Game.name)))


def games_by_name(session: Session) -> list[Game]:
    """Every game, in the order of their names."""
    return list(session.scalars(select(Game).order_by(Game.name)))


def games_with_status(session: Session, status: GameStatus) -> list[Game]:
    """The games whose status is ``status``."""
    return list(session.scalars(select(Game).where(Game.status == status)))


def games_to_wake(
    session: Session, now: datetime, after: tuple[datetime, int] | None = None, limit: int = 500
) -> list[Game]:
    """The games the deadline loop must look at by ``now`` (``wake_at`` reached), the
    earliest first, at most ``limit``, after (``wake_at``, id) ``after`` (the last of the
    previous page); one statement, on the ``wake_at`` index."""
    query = select(Game).where(Game.wake_at <= now)
    if after is not None:
        query = query.where(
            or_(Game.wake_at > after[0], and_(Game.wake_at == after[0], Game.id > after[1]))
        )
    return list(session.scalars(query.order_by(Game.wake_at, Game.id).limit(limit)))


def claim_games(
    session: Session,
    claimant: str,
    now: datetime,
    after: tuple[datetime, int] | None = None,
    limit: int = 16,
) -> list[tuple[int, str, datetime]]:
    """Claim for ``claimant`` (a judge process) the next games to look at by ``now``, as
    :func:`games_to_wake` orders them, after ``after``, at most ``limit``: those no other
    judge holds (``games.claimed_by``).  On PostgreSQL the rows another judge is claiming
    at the same moment are skipped (``FOR UPDATE SKIP LOCKED``), so two judges never wait
    for each other nor take the same game.  Returns (id, name, wake_at), earliest first."""
    query = select(Game.id).where(
        Game.wake_at <= now, or_(Game.claimed_by.is_(None), Game.claimed_by == claimant)
    )
    if after is not None:
        query = query.where(
            or_(Game.wake_at > after[0], and_(Game.wake_at == after[0], Game.id > after[1]))
        )
    chosen = (
        query.order_by(Game.wake_at, Game.id)
        .limit(limit)
        .with_for_update(skip_locked=True)
        .scalar_subquery()
    )
    rows = session.execute(
        update(Game)
        .where(Game.id.in_(chosen))
        .values(claimed_by=claimant)
        .returning(Game.id, Game.name, Game.wake_at)
        .execution_options(synchronize_session=False)
    )
    # wake_at is never NULL here: the rows were chosen by it.
    claimed = [(game_id, name, wake_at) for game_id, name, wake_at in rows if wake_at is not None]
    return sorted(claimed, key=lambda row: (row[2], row[0]))


def release_games(session: Session, claimant: str, game_ids: Iterable[int] | None = None) -> None:
    """Give back the games ``claimant`` holds (those of ``game_ids``; None: all)."""
    query = update(Game).where(Game.claimed_by == claimant)
    if game_ids is not None:
        ids = sorted(set(game_ids))
        if not ids:
            return
        query = query.where(Game.id.in_(ids))
    session.execute(query.values(claimed_by=None).execution_options(synchronize_session=False))


def game_claimants(session: Session) -> list[str]:
    """The judge processes holding games (on the ``claimed_by`` index)."""
    return list(
        session.scalars(select(Game.claimed_by).where(Game.claimed_by.is_not(None)).distinct())
    )


def release_game_claims_of(session: Session, claimants: Iterable[str]) -> int:
    """Give back every game the (gone) processes ``claimants`` held; return how many."""
    wanted = sorted(set(claimants))
    if not wanted:
        return 0
    result = session.execute(
        update(Game)
        .where(Game.claimed_by.in_(wanted))
        .values(claimed_by=None)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


# The statements of a deadline look (one per game of a burst, thousands at once) are built
# once, with their values bound at each call: building one costs more than running it.
_LOCKED_GAME = _locked(select(Game).where(Game.id == bindparam("game_id")))
_GAME_PAST_LOOKS = _past_looks(select(Game).where(Game.id == bindparam("game_id")))


def locked_game(session: Session, game_id: int) -> Game | None:
    """The game, its row locked until the transaction ends (PostgreSQL; SQLite's
    transactions take turns anyway) and read afresh (what another process wrote)."""
    return session.scalars(_LOCKED_GAME, {"game_id": game_id}).one_or_none()


_FREE_GAMES = (
    select(Game)
    .where(Game.id.in_(bindparam("game_ids", expanding=True)))
    .order_by(Game.id)
    .with_for_update(skip_locked=True)
    .execution_options(populate_existing=True)
)


def free_games(session: Session, game_ids: Sequence[int]) -> list[Game]:
    """Those of the games that no other transaction holds, locked and read afresh as by
    :func:`locked_game` (PostgreSQL: ``FOR UPDATE SKIP LOCKED``; SQLite's transactions
    take turns anyway, and every game still there is returned).  A game held elsewhere (an
    inbox reading it, a game master's PROCESS) is left out, not waited for: a transaction
    that waited for one game while holding others could close a circle with one that
    holds that game and waits for one of these."""
    return list(session.scalars(_FREE_GAMES, {"game_ids": list(game_ids)}))


def read_ahead(session: Session, games: Sequence[Game]) -> None:
    """Read, for a page of ``games`` whose rows the caller locked, what looking at each
    asks of it, one statement a kind for the whole page: the current phase's record
    (:func:`phase_record`), the players (:func:`players_of`), the phase's standing orders
    (:func:`standing_orders`) and what each game holds none of (:func:`absent.learn_many`).
    Each look's queries then find them (:mod:`judge.db.readahead`)."""
    keys = [(game.id, game.seq) for game in games if game.seq]
    if not keys:
        return
    ids = [game_id for game_id, _seq in keys]
    memo = _phase_records(session)
    for record in session.scalars(
        select(PhaseRecord).where(tuple_(PhaseRecord.game_id, PhaseRecord.seq).in_(keys))
    ):
        memo[(record.game_id, record.seq)] = record
    seats: dict[int, list[Player]] = {game_id: [] for game_id in ids}
    for player in session.scalars(
        select(Player).where(Player.game_id.in_(ids)).order_by(Player.id)
    ):
        seats[player.game_id].append(player)
    standing: dict[tuple[int, int], list[readahead.Standing]] = {key: [] for key in keys}
    for game_id, seq, power, unit, canonical in session.execute(
        select(OrderRecord.game_id, OrderRecord.seq, Player.power, OrderRecord.unit,
               OrderRecord.canonical)
        .join(Player, OrderRecord.player_id == Player.id)
        .where(
            tuple_(OrderRecord.game_id, OrderRecord.seq).in_(keys),
            OrderRecord.active.is_(True),
            OrderRecord.canonical.is_not(None),
        )
        .order_by(OrderRecord.id)
    ):  # fmt: skip
        if canonical is not None:
            standing[(game_id, seq)].append((power, unit, canonical))
    readahead.keep(session, seats, standing)
    absent.learn_many(session, ids)


def next_wake_at(session: Session) -> datetime | None:
    """The next moment the deadline loop must look at a game (one MIN on an index)."""
    return session.scalar(select(func.min(Game.wake_at)))


def games_out_of_step(session: Session) -> list[int]:
    """The active games whose deadline is no longer the one their ``wake_at`` was worked
    out for (the deadline loop's safety net, for a change that did not mark them)."""
    return list(
        session.scalars(
            select(Game.id).where(
                Game.status == GameStatus.ACTIVE,
                Game.deadline.is_distinct_from(Game.wake_deadline),
            )
        )
    )


def mark_games(session: Session, game_ids: Iterable[int]) -> None:
    """Mark games for the deadline loop to look at at once (``wake_at = LOOK_NOW``): what
    was written (an order, say) may make a phase due (one statement).  The ORM's changes
    mark their games themselves (:func:`judge.db.models._mark_changed_games`)."""
    ids = sorted(set(game_ids))
    if ids:
        session.execute(
            update(Game)
            .where(Game.id.in_(ids), or_(Game.wake_at.is_(None), Game.wake_at != LOOK_NOW))
            .values(wake_at=LOOK_NOW)
            .execution_options(synchronize_session=False)
        )


def game_file_states(session: Session) -> list[tuple[int, str, str | None, bool]]:
    """For each game loaded from a file: its id, the file, the digest last loaded, and
    whether it was loaded by a judge older than ``file_applied`` (plain columns: watching
    the files loads no game row for an unchanged file)."""
    rows = session.execute(
        select(Game.id, Game.config_path, Game.config_digest, Game.file_applied.is_(None))
        .where(Game.config_path.is_not(None))
        .order_by(Game.id)
    )
    return [(i, path, digest, bool(legacy)) for i, path, digest, legacy in rows if path]


def games_with_deadlines(session: Session) -> list[Game]:
    """Active games that have a phase and a deadline, in the order of their names."""
    return list(
        session.scalars(
            select(Game)
            .where(
                Game.status == GameStatus.ACTIVE,
                Game.deadline.is_not(None),
                Game.phase.is_not(None),
            )
            .order_by(Game.name)
        )
    )


def game_file_paths(session: Session) -> list[str]:
    """The game files games were loaded from."""
    return [path for path in session.scalars(select(Game.config_path)) if path]


# -- phases -----------------------------------------------------------------------------


_PHASE_RECORD = select(PhaseRecord).where(
    PhaseRecord.game_id == bindparam("game_id"), PhaseRecord.seq == bindparam("seq")
)


def phase_record(session: Session, game_id: int, seq: int) -> PhaseRecord | None:
    """The record of phase number ``seq`` of a game.

    Remembered for the rest of the session's transaction: processing a phase asks for
    the current record four times (the notices, the votes, the adjudication), and a
    query would only hand back the same object from the identity map, after a round
    trip and a flush.  A record deleted meanwhile is asked for again."""
    memo = _phase_records(session)
    found = memo.get((game_id, seq))
    if found is not None and inspect(found).persistent and found not in session.deleted:
        return found
    found = session.scalar(_PHASE_RECORD, {"game_id": game_id, "seq": seq})
    if found is not None:
        memo[(game_id, seq)] = found
    return found


def _phase_records(session: Session) -> dict[tuple[int, int], PhaseRecord]:
    """The records :func:`phase_record` found in the session's current transaction."""
    transaction = session.get_transaction()
    kept = session.info.get("phase_records")
    if kept is None or kept[0] is not transaction:
        kept = (transaction, {})
        session.info["phase_records"] = kept
    return cast(dict[tuple[int, int], PhaseRecord], kept[1])


def processed_phases(session: Session, game_id: int) -> list[PhaseRecord]:
    """A game's processed phases, first to last."""
    return list(
        session.scalars(
            select(PhaseRecord)
            .where(PhaseRecord.game_id == game_id, PhaseRecord.processed_at.is_not(None))
            .order_by(PhaseRecord.seq)
        )
    )


def phases_of(session: Session, game_id: int) -> list[PhaseRecord]:
    """Every phase record of a game, processed or not, first to last."""
    return list(
        session.scalars(
            select(PhaseRecord).where(PhaseRecord.game_id == game_id).order_by(PhaseRecord.seq)
        )
    )


def rollbacks_of(session: Session, game_id: int) -> list[Rollback]:
    """A game's rollbacks, first to last."""
    return list(
        session.scalars(select(Rollback).where(Rollback.game_id == game_id).order_by(Rollback.id))
    )


# -- players ----------------------------------------------------------------------------


_PLAYERS_OF = select(Player).where(Player.game_id == bindparam("game_id")).order_by(Player.id)


def players_of(
    session: Session, game_id: int, *, status: str | None = None, not_status: str | None = None
) -> list[Player]:
    """A game's players: all, or those with ``status``, or those without ``not_status``
    (:class:`~judge.db.models.PlayerStatus` values), in the order of their ids."""
    kept = readahead.players(session, game_id)
    if kept is not None:
        return [
            p
            for p in kept
            if (status is None or p.status == status)
            and (not_status is None or p.status != not_status)
        ]
    if status is None and not_status is None:
        return list(session.scalars(_PLAYERS_OF, {"game_id": game_id}))
    statement = select(Player).where(Player.game_id == game_id).order_by(Player.id)
    if status is not None:
        statement = statement.where(Player.status == status)
    if not_status is not None:
        statement = statement.where(Player.status != not_status)
    return list(session.scalars(statement))


def press_count_since(
    session: Session, game_id: int, since: datetime, *, power: str | None, address: str
) -> int:
    """How many press messages and releases were sent in the game since ``since`` by the
    power ``power`` (from whichever address it signed on), or, with ``power`` None, from
    ``address`` (an observer)."""
    who = (
        PressRecord.sender_power == power
        if power is not None
        else PressRecord.sender_address == address
    )
    return int(
        session.scalar(
            select(func.count(PressRecord.id)).where(
                PressRecord.game_id == game_id, who, PressRecord.created_at >= since
            )
        )
        or 0
    )


def press_of(session: Session, game_id: int, phase: str | None = None) -> list[PressRecord]:
    """A game's press and press releases in the order received (only those of the phase
    ``phase``, a code such as ``S1901M``, when given)."""
    statement = select(PressRecord).where(PressRecord.game_id == game_id)
    if phase is not None:
        statement = statement.where(PressRecord.phase == phase)
    return list(session.scalars(statement.order_by(PressRecord.id)))


_HELD_RELEASES = (
    select(PressRecord)
    .where(
        PressRecord.game_id == bindparam("game_id"),
        PressRecord.release.is_(True),
        PressRecord.state == PressState.HELD,
    )
    .order_by(PressRecord.created_at, PressRecord.id)
)


def held_releases(session: Session, game_id: int) -> list[PressRecord]:
    """The game's press releases still held for the next results, in the order received."""
    if absent.known_none(session, "held_releases", game_id):
        return []
    return list(session.scalars(_HELD_RELEASES, {"game_id": game_id}))


_OBSERVERS_OF = (
    select(Observer).where(Observer.game_id == bindparam("game_id")).order_by(Observer.id)
)


def observers_of(session: Session, game_id: int) -> list[Observer]:
    """A game's observers, in the order they came."""
    if absent.known_none(session, "observers", game_id):
        return []
    return list(session.scalars(_OBSERVERS_OF, {"game_id": game_id}))


_SOMEONE_WAITS = select(Player.id).where(
    Player.game_id == bindparam("game_id"),
    Player.wait.is_(True),
    Player.status == PlayerStatus.ACTIVE,
)


def someone_waits(session: Session, game_id: int) -> bool:
    """Whether an active player of the game has SET WAIT."""
    return session.scalar(_SOMEONE_WAITS, {"game_id": game_id}) is not None


# -- orders -----------------------------------------------------------------------------


_STANDING_ORDERS = (
    select(Player.power, OrderRecord.unit, OrderRecord.canonical)
    .join(Player, OrderRecord.player_id == Player.id)
    .where(
        OrderRecord.game_id == bindparam("game_id"),
        OrderRecord.seq == bindparam("seq"),
        OrderRecord.active.is_(True),
        OrderRecord.canonical.is_not(None),
    )
    .order_by(OrderRecord.id)
)


def standing_orders(session: Session, game_id: int, seq: int) -> list[tuple[str, str | None, str]]:
    """The valid active orders of a phase, oldest first: (power, what it is for, the
    canonical order)."""
    kept = readahead.orders(session, game_id, seq)
    if kept is not None:
        return kept
    rows = session.execute(_STANDING_ORDERS, {"game_id": game_id, "seq": seq})
    return [(power, unit, canonical) for power, unit, canonical in rows if canonical is not None]


def active_order_rows(
    session: Session, game_id: int, seq: int
) -> list[tuple[int, str | None, str | None]]:
    """The active orders of a phase, oldest first: (player id, what it is for, the
    canonical order)."""
    rows = session.execute(
        select(OrderRecord.player_id, OrderRecord.unit, OrderRecord.canonical)
        .where(
            OrderRecord.game_id == game_id,
            OrderRecord.seq == seq,
            OrderRecord.active.is_(True),
        )
        .order_by(OrderRecord.id)
    )
    return [(player_id, unit, canonical) for player_id, unit, canonical in rows]


_LAST_ORDER_AT = select(func.max(OrderRecord.created_at)).where(
    OrderRecord.game_id == bindparam("game_id"), OrderRecord.seq == bindparam("seq")
)


def last_order_at(session: Session, game_id: int, seq: int) -> datetime | None:
    """When the last order line of a phase came in (any, valid or not)."""
    if absent.no_orders_after(session, game_id, seq):
        return None
    return session.scalar(_LAST_ORDER_AT, {"game_id": game_id, "seq": seq})


_CLEAR_ORDERS = (
    update(_ORDERS)
    .where(
        _ORDERS.c.game_id == bindparam("g"),
        _ORDERS.c.seq == bindparam("s"),
        _ORDERS.c.player_id == bindparam("p"),
        _ORDERS.c.active.is_(True),
    )
    .values(active=False)
)
#: The same, for one thing a player ordered ("par", "build:par", "waive:1").
_RETIRE_ORDERS = _CLEAR_ORDERS.where(_ORDERS.c.unit == bindparam("u"))


def clear_orders(session: Session, owners: Sequence[tuple[int, int, int]]) -> None:
    """Retire every active order of each (game, seq, player) (one statement for all)."""
    if owners:
        session.execute(_CLEAR_ORDERS, [{"g": g, "s": s, "p": p} for g, s, p in owners])
        mark_games(session, {g for g, _s, _p in owners})


def retire_orders(session: Session, keys: Sequence[tuple[int, int, int, str]]) -> None:
    """Retire the active order of each (game, seq, player, what it is for)."""
    if keys:
        session.execute(_RETIRE_ORDERS, [{"g": g, "s": s, "p": p, "u": u} for g, s, p, u in keys])
        mark_games(session, {g for g, _s, _p, _u in keys})


def insert_orders(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Write order rows (column values) in one statement."""
    if rows:
        session.execute(insert(_ORDERS), list(rows))
        mark_games(session, {row["game_id"] for row in rows})


def order_rows_after(session: Session, game_id: int, seq: int) -> list[tuple[OrderRecord, str]]:
    """Every order row of a game's phases after phase ``seq``, oldest first, with the
    power of the player who gave it."""
    rows = session.execute(
        select(OrderRecord, Player.power)
        .join(Player, OrderRecord.player_id == Player.id)
        .where(OrderRecord.game_id == game_id, OrderRecord.seq > seq)
        .order_by(OrderRecord.id)
    )
    return [(row, power) for row, power in rows]


def delete_orders_after(session: Session, game_id: int, seq: int) -> None:
    """Delete every order row of a game's phases after phase ``seq``."""
    session.execute(
        delete(OrderRecord).where(OrderRecord.game_id == game_id, OrderRecord.seq > seq)
    )
    mark_games(session, {game_id})


# -- notices ----------------------------------------------------------------------------


def notices_from(session: Session, game_id: int, seq: int) -> list[NoticeRecord]:
    """The notices recorded for a game's phases from phase ``seq`` on, oldest first."""
    return list(
        session.scalars(
            select(NoticeRecord)
            .where(NoticeRecord.game_id == game_id, NoticeRecord.seq >= seq)
            .order_by(NoticeRecord.id)
        )
    )


def delete_notices_from(session: Session, game_id: int, seq: int) -> None:
    """Delete the notices recorded for a game's phases from phase ``seq`` on."""
    session.execute(
        delete(NoticeRecord).where(NoticeRecord.game_id == game_id, NoticeRecord.seq >= seq)
    )


def notice_sent(
    session: Session, game_id: int, seq: int, kind: NoticeKind, player_id: int | None, day: int
) -> bool:
    """Whether this notice was recorded as sent already (``player_id`` None: the game
    master's)."""
    found = session.scalar(
        select(NoticeRecord.id).where(
            NoticeRecord.game_id == game_id,
            NoticeRecord.seq == seq,
            NoticeRecord.kind == kind,
            NoticeRecord.player_id.is_(None)
            if player_id is None
            else NoticeRecord.player_id == player_id,
            NoticeRecord.day == day,
        )
    )
    return found is not None


# -- inbound mail -----------------------------------------------------------------------


def inbound_by_message_id(session: Session, message_id: str) -> InboundMessage | None:
    """The stored message with this Message-ID, if any."""
    return session.scalar(select(InboundMessage).where(InboundMessage.message_id == message_id))


def stored_message_ids(session: Session, message_ids: Iterable[str]) -> set[str]:
    """Which of ``message_ids`` are stored already."""
    wanted = sorted(set(message_ids))
    known: set[str] = set()
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start : start + _IN_CHUNK]
        known.update(
            session.scalars(
                select(InboundMessage.message_id).where(InboundMessage.message_id.in_(chunk))
            )
        )
    return known


def insert_inbound(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Write stored messages (column values) in one statement."""
    if rows:
        session.execute(insert(_INBOUND), list(rows))


#: The states of stored mail still to process (a parked message is not tried again).
_TO_PROCESS = (InboundState.NEW, InboundState.FAILED)


def pending_inbound(session: Session) -> list[tuple[int, int]]:
    """The stored messages still to process (new, or failed and not parked), oldest
    first: (id, attempts so far)."""
    rows = session.execute(
        select(InboundMessage.id, InboundMessage.attempts)
        .where(InboundMessage.state.in_(_TO_PROCESS))
        .order_by(InboundMessage.id)
    )
    return [(inbound_id, attempts) for inbound_id, attempts in rows]


#: The key of the PostgreSQL advisory lock that makes the judges take stored messages one
#: at a time (:func:`claim_inbound`): any number, fixed, unlikely to meet another's.
INBOUND_CLAIM_LOCK = 0x4A554447  # "JUDG"


def serialize(session: Session, key: int) -> None:
    """Let one transaction at a time past this point among all the judges on the
    database, until it ends: a PostgreSQL advisory lock; SQLite's one writer (the
    transaction began with ``BEGIN IMMEDIATE``) already is one."""
    if _is_postgres(session):
        session.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": key})


def claim_inbound(session: Session, claimant: str, limit: int) -> list[tuple[int, int]]:
    """Claim for ``claimant`` (a judge process) at most ``limit`` more stored messages
    still to process, oldest first, and return every one it holds, those it held already
    included (so possibly more than ``limit``): (id, attempts so far), in id order.

    A message is left to another judge while that judge holds an earlier message of the
    same sender (it holds them in order), so that a sender's messages are done in the
    order they came whichever judge does them.  Two judges claiming at once would each
    see the other's claims only after it commits: the claims are taken one transaction at
    a time (:func:`serialize`)."""
    serialize(session, INBOUND_CLAIM_LOCK)
    other = InboundMessage.__table__.alias("held")
    held_senders = select(other.c.sender).where(
        other.c.state.in_(_TO_PROCESS),
        other.c.claimed_by.is_not(None),
        other.c.claimed_by != claimant,
        other.c.sender.is_not(None),
    )
    chosen = (
        select(_INBOUND.c.id)
        .where(
            _INBOUND.c.state.in_(_TO_PROCESS),
            _INBOUND.c.claimed_by.is_(None),
            or_(_INBOUND.c.sender.is_(None), _INBOUND.c.sender.not_in(held_senders)),
        )
        .order_by(_INBOUND.c.id)
        .limit(limit)
        .scalar_subquery()
    )
    session.execute(update(_INBOUND).where(_INBOUND.c.id.in_(chosen)).values(claimed_by=claimant))
    rows = session.execute(
        select(_INBOUND.c.id, _INBOUND.c.attempts)
        .where(_INBOUND.c.state.in_(_TO_PROCESS), _INBOUND.c.claimed_by == claimant)
        .order_by(_INBOUND.c.id)
    )
    return [(inbound_id, attempts) for inbound_id, attempts in rows]


def inbound_claimants(session: Session) -> list[str]:
    """The judge processes holding stored messages still to process."""
    return list(
        session.scalars(
            select(InboundMessage.claimed_by)
            .where(InboundMessage.state.in_(_TO_PROCESS), InboundMessage.claimed_by.is_not(None))
            .distinct()
        )
    )


def release_inbound_claims_of(session: Session, claimants: Iterable[str]) -> int:
    """Give back the messages still to process that the (gone) processes ``claimants``
    held; return how many."""
    wanted = sorted(set(claimants))
    if not wanted:
        return 0
    result = session.execute(
        update(_INBOUND)
        .where(_INBOUND.c.claimed_by.in_(wanted), _INBOUND.c.state.in_(_TO_PROCESS))
        .values(claimed_by=None)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def any_pending_inbound(session: Session) -> bool:
    """Whether any stored message is still to process (one row read at most)."""
    found = session.scalar(
        select(InboundMessage.id).where(InboundMessage.state.in_(_TO_PROCESS)).limit(1)
    )
    return found is not None


def count_inbound_attempts(
    session: Session, ids: Sequence[int], step: int, claimant: str | None = None
) -> None:
    """Add ``step`` to the attempts of the messages ``ids`` still to process (with
    ``claimant``: only those it holds, or nobody does: a judge wrongly taken for gone
    must not count attempts at messages another judge took over, and park them early)."""
    for start in range(0, len(ids), _IN_CHUNK):
        query = update(_INBOUND).where(
            _INBOUND.c.id.in_(ids[start : start + _IN_CHUNK]),
            _INBOUND.c.state.in_(_TO_PROCESS),
        )
        if claimant is not None:
            query = query.where(
                or_(_INBOUND.c.claimed_by.is_(None), _INBOUND.c.claimed_by == claimant)
            )
        session.execute(query.values(attempts=_INBOUND.c.attempts + step))


def inbound_raws(session: Session, ids: Sequence[int]) -> dict[int, tuple[bytes, int]]:
    """The stored bytes of the messages ``ids`` still to process, with each one's size
    as received, by id."""
    rows = session.execute(
        select(_INBOUND.c.id, _INBOUND.c.raw, _INBOUND.c.size).where(
            _INBOUND.c.id.in_(ids), _INBOUND.c.state.in_(_TO_PROCESS)
        )
    )
    return {i: (raw, size if size is not None else len(raw)) for i, raw, size in rows}


def inbound_rows(
    session: Session, ids: Sequence[int], claimant: str | None = None
) -> dict[int, InboundMessage]:
    """The stored messages ``ids``, by id; with ``claimant``, only those no other judge
    holds, locked until the transaction ends (PostgreSQL): a judge wrongly thought gone
    whose messages were taken over skips them, and the one that took them over waits
    for this transaction, after which they are done."""
    query = select(InboundMessage).where(InboundMessage.id.in_(ids))
    if claimant is not None:
        query = query.where(
            or_(InboundMessage.claimed_by.is_(None), InboundMessage.claimed_by == claimant)
        ).with_for_update()
    return {row.id: row for row in session.scalars(query)}


# -- outbox -----------------------------------------------------------------------------


def reply_counts(
    session: Session, addresses: Iterable[str], since: datetime, kinds: Iterable[str]
) -> dict[str, dict[str, int]]:
    """How many mails of each of ``kinds`` were queued to each address since ``since``:
    ``{address: {kind: count}}`` (absent: none)."""
    _held_first(session)
    wanted = sorted(set(addresses))
    kinds = sorted(set(kinds))
    counts: dict[str, dict[str, int]] = {}
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start : start + _IN_CHUNK]
        rows = session.execute(
            select(OutboundMessage.to_addr, OutboundMessage.kind, func.count(OutboundMessage.id))
            .where(
                OutboundMessage.to_addr.in_(chunk),
                OutboundMessage.kind.in_(kinds),
                OutboundMessage.created_at >= since,
            )
            .group_by(OutboundMessage.to_addr, OutboundMessage.kind)
        )
        for address, kind, count in rows:
            counts.setdefault(address, {})[kind] = count
    return counts


def insert_outbox(session: Session, rows: Sequence[dict[str, Any]]) -> None:
    """Write outbox rows (column values) in one statement; while the transaction gathers
    them (:func:`gather_outbox`), hold them instead (not inside a savepoint)."""
    if not rows:
        return
    gathered = _gathered(session)
    if gathered is not None and not session.in_nested_transaction():
        gathered.extend(rows)
        return
    session.execute(insert(_OUTBOX), list(rows))


#: Where the outbox rows gathered are held: ``session.info[_GATHERED]`` is (the
#: transaction, its rows).
_GATHERED = "judge.outbox.gathered"


def gather_outbox(session: Session) -> None:
    """Hold the outbox rows the session's transaction writes from now on
    (:func:`insert_outbox`), to write them all in one statement at the commit (a look at
    a page of games, :func:`judge.runtime.looks.look_page`, queues mail for each).

    The rows written inside a savepoint are written at once, so that they go if it is
    rolled back; those held meanwhile wait (written inside it, they would go with it).
    Every query of the outbox writes the rows held first (outside a savepoint), and a
    rollback drops them with the rest."""
    session.info[_GATHERED] = (session.get_transaction(), [])


def _gathered(session: Session) -> list[dict[str, Any]] | None:
    """The outbox rows held for the session's transaction, if it gathers them."""
    held = session.info.get(_GATHERED)
    if held is None:
        return None
    if held[0] is not session.get_transaction():
        del session.info[_GATHERED]  # a transaction that ended
        return None
    return cast(list[dict[str, Any]], held[1])


def _held_first(session: Session) -> None:
    """Write the outbox rows held (:func:`gather_outbox`) before a query of the outbox
    (not inside a savepoint: they would go if it were rolled back)."""
    if _GATHERED not in session.info or session.in_nested_transaction():
        return
    rows = _gathered(session)
    if rows:
        session.execute(insert(_OUTBOX), list(rows))
        rows.clear()


@event.listens_for(Session, "before_commit")
def _gathered_at_commit(session: Session) -> None:
    # A savepoint's release commits too: the rows wait for the transaction's own commit.
    if _GATHERED in session.info and not session.in_nested_transaction():
        _held_first(session)
        session.info.pop(_GATHERED, None)


#: "Queued", in the words of the outbox's partial index (:data:`judge.db.models.QUEUED_MAIL`):
#: every query of queued mail says it so, and reads that index, not the whole outbox.
_QUEUED = _OUTBOX.c.state == literal_column("'queued'")


def _due(at: datetime) -> Any:
    """The SQL condition "an outbox message that may be tried at ``at``"."""
    return or_(OutboundMessage.next_attempt_at.is_(None), OutboundMessage.next_attempt_at <= at)


def due_outbox_ids(session: Session, at: datetime, limit: int) -> list[int]:
    """Up to ``limit`` queued messages that may be tried at ``at``, oldest first."""
    _held_first(session)
    return list(
        session.scalars(
            select(OutboundMessage.id)
            .where(_QUEUED, _due(at))
            .order_by(OutboundMessage.id)
            .limit(limit)
        )
    )


def claim_outbox(
    session: Session, ids: Sequence[int], at: datetime, until: datetime, owner: str | None = None
) -> list[tuple[OutboundMessage, datetime | None]]:
    """Take the messages ``ids`` that are still queued and due at ``at``: count an attempt
    and hold them until ``until`` for ``owner`` (the sender process).  Returns them oldest
    first, each with the ``next_attempt_at`` it had before.

    The UPDATE's WHERE is the test, so two senders cannot both win a message: on
    PostgreSQL the second waits for the first's row locks and then finds the rows
    changed, on SQLite writers take turns.
    """
    _held_first(session)
    before: dict[int, datetime | None] = {
        row.id: row.next_attempt_at
        for row in session.execute(
            select(OutboundMessage.id, OutboundMessage.next_attempt_at).where(
                OutboundMessage.id.in_(ids)
            )
        )
    }
    result = session.execute(
        update(OutboundMessage)
        .where(
            OutboundMessage.id.in_(ids),
            _QUEUED,
            _due(at),
        )
        .values(attempts=OutboundMessage.attempts + 1, next_attempt_at=until, claimed_by=owner)
        .returning(OutboundMessage.id)
        .execution_options(synchronize_session=False)
    )
    taken = list(result.scalars())
    if not taken:
        return []
    # Loaded after the UPDATE; readable once the session is gone (expire_on_commit=False).
    messages = session.scalars(
        select(OutboundMessage).where(OutboundMessage.id.in_(taken)).order_by(OutboundMessage.id)
    )
    return [(message, before.get(message.id)) for message in messages]


def hold_outbox(session: Session, ids: Sequence[int], owner: str, until: datetime) -> list[int]:
    """Of the messages ``ids``, those ``owner`` still holds (queued and claimed in its
    name), their claims renewed until ``until``: one statement, which also waits on
    PostgreSQL for another judge freeing them (its row locks) and then sees them freed."""
    _held_first(session)
    if not ids:
        return []
    if _is_postgres(session):
        # One statement text whatever the number of ids (an array, not an IN list of
        # as many parameters, built and compiled again at each of a burst's windows).
        return list(
            session.connection()
            .execute(
                _HOLD_OUTBOX_PG,
                {
                    "ids": list(ids),
                    "owner": owner,
                    # As the column binds it (a naive time refused).
                    "until": _utc(session, until),
                },
            )
            .scalars()
        )
    result = session.execute(
        update(_OUTBOX)
        .where(
            _OUTBOX.c.id.in_(list(ids)),
            _OUTBOX.c.claimed_by == owner,
            _QUEUED,
        )
        .values(next_attempt_at=until)
        .returning(_OUTBOX.c.id)
    )
    return list(result.scalars())


#: :func:`hold_outbox` on PostgreSQL ("queued" said as :data:`_QUEUED` says it, for the
#: partial index).
_HOLD_OUTBOX_PG = text(
    "UPDATE outbox SET next_attempt_at = :until "
    "WHERE outbox.id = ANY(CAST(:ids AS INTEGER[])) AND outbox.claimed_by = :owner "
    "AND outbox.state = 'queued' RETURNING outbox.id"
)


def release_outbox(
    session: Session, claimed: Sequence[tuple[OutboundMessage, datetime | None]], owner: str
) -> None:
    """Give messages claimed but not tried their attempt and their place back (each only
    if ``owner`` still holds it: another judge may have taken it over meanwhile)."""
    _held_first(session)
    for message, was_due in claimed:
        session.execute(
            update(OutboundMessage)
            .where(
                OutboundMessage.id == message.id,
                _QUEUED,
                OutboundMessage.claimed_by == owner,
            )
            .values(attempts=OutboundMessage.attempts - 1, next_attempt_at=was_due, claimed_by=None)
            .execution_options(synchronize_session=False)
        )


def outbox_claimants(session: Session, at: datetime) -> list[str]:
    """The sender processes holding queued messages at ``at``."""
    _held_first(session)
    return list(
        session.scalars(
            select(OutboundMessage.claimed_by)
            .where(
                _QUEUED,
                OutboundMessage.claimed_by.is_not(None),
                OutboundMessage.next_attempt_at > at,
            )
            .distinct()
        )
    )


def release_claims_of(session: Session, owner: str) -> int:
    """Make the queued messages that ``owner`` holds due at once (it is gone); return how
    many.  The attempt it counted stays counted."""
    _held_first(session)
    result = session.execute(
        update(_OUTBOX)
        .where(_OUTBOX.c.claimed_by == owner, _QUEUED)
        .values(next_attempt_at=None, claimed_by=None)
    )
    return int(getattr(result, "rowcount", 0) or 0)


def mark_sent(session: Session, entries: Sequence[tuple[int, datetime]]) -> None:
    """Mark messages sent at the given times, in one plain SQL statement (per
    :data:`_IN_CHUNK` of them), each its own time: this runs for every window of mail
    sent, and an executemany was a statement a mail (the ORM's bookkeeping would cost
    more still).

    Whoever holds them: a mail the server accepted was sent, and saying so is never
    wrong.  A journal read at a restart names mail claimed by the process before, and a
    mail another judge freed (taking this one for gone) is spared its second copy if it
    is marked before that judge claims it."""
    _held_first(session)
    when = {message_id: at for message_id, at in entries}
    ids = sorted(when)
    if ids and _is_postgres(session):
        # Two arrays, one statement text whatever their length: the CASE below is built
        # and compiled afresh for each window of a burst's mail (most of its cost).
        # The times bound as the column's type binds them (a naive one refused), which a
        # plain array parameter would not do.
        times = [_utc(session, when[message_id]) for message_id in ids]
        session.connection().execute(_MARK_SENT_PG, {"ids": ids, "times": times})
        return
    for start in range(0, len(ids), _IN_CHUNK):
        chunk = ids[start : start + _IN_CHUNK]
        sent_at = case(
            {message_id: literal(when[message_id], _SENT_AT_TYPE) for message_id in chunk},
            value=_OUTBOX.c.id,
        )
        session.connection().execute(
            update(_OUTBOX)
            .where(_OUTBOX.c.id.in_(chunk), _OUTBOX.c.state != OutboundState.SENT)
            .values(
                state=OutboundState.SENT, sent_at=sent_at, next_attempt_at=None, claimed_by=None
            )
        )


#: The type of ``outbox.sent_at`` (UTC, timezone-aware), for the times bound in
#: :func:`mark_sent`.
_SENT_AT_TYPE = _OUTBOX.c.sent_at.type

#: The outbox's times as their columns bind them, for the arrays of the PostgreSQL
#: statements below, whose parameters no column types.
_UTC_TIME = UTCDateTime()


def _utc(session: Session, when: datetime) -> datetime | None:
    """``when`` as a UTC time column binds it for the session's database (a naive one
    refused)."""
    return _UTC_TIME.process_bind_param(when, session.get_bind().dialect)


#: :func:`mark_sent` on PostgreSQL: each id with its time, from two arrays.
_MARK_SENT_PG = text(
    "UPDATE outbox SET state = 'sent', sent_at = sent.at, next_attempt_at = NULL, "
    "claimed_by = NULL "
    "FROM unnest(CAST(:ids AS INTEGER[]), CAST(:times AS TIMESTAMPTZ[])) AS sent(id, at) "
    "WHERE outbox.id = sent.id AND outbox.state != 'sent'"
)


def outbox_messages(session: Session) -> list[OutboundMessage]:
    """Every outbox message, oldest first."""
    _held_first(session)
    return list(session.scalars(select(OutboundMessage).order_by(OutboundMessage.id)))


def signon_guards(session: Session, game_id: int) -> list[SignonGuard]:
    """The sign-on guards of a game (its seats' counts of wrong passwords and lockouts)."""
    return list(session.scalars(select(SignonGuard).where(SignonGuard.game_id == game_id)))


def mail_since(
    session: Session, address: str, since: datetime, kinds: Iterable[str]
) -> list[tuple[str, datetime]]:
    """The kind and queueing time of each mail of ``kinds`` queued to ``address`` since
    ``since``."""
    _held_first(session)
    rows = session.execute(
        select(OutboundMessage.kind, OutboundMessage.created_at).where(
            OutboundMessage.to_addr == address,
            OutboundMessage.created_at >= since,
            OutboundMessage.kind.in_(sorted(set(kinds))),
        )
    )
    return [(kind, when) for kind, when in rows]


def _secrets_done() -> tuple[Any, ...]:
    """Mail that held a password and is now sent or given up (see :func:`purge_secrets`)."""
    done = (OutboundState.SENT, OutboundState.FAILED)
    return (OutboundMessage.secret.is_(True), OutboundMessage.state.in_(done))


def any_secret_done(session: Session) -> bool:
    """Whether some mail that held a password is sent or given up (an index read)."""
    _held_first(session)
    return session.scalar(select(OutboundMessage.id).where(*_secrets_done()).limit(1)) is not None


def purge_secrets(session: Session, body: str) -> int:
    """Replace the body of each mail that held a password and is sent or given up with
    ``body``, clear its flag, and return how many."""
    _held_first(session)
    result = session.execute(
        update(OutboundMessage)
        .where(*_secrets_done())
        .values(body=body, secret=False)
        .execution_options(synchronize_session=False)
    )
    return int(getattr(result, "rowcount", 0) or 0)


# -- proposals (house rules, section 8) -------------------------------------------------


def proposals_of(session: Session, game_id: int) -> list[Proposal]:
    """Every proposal of a game, by number."""
    return list(
        session.scalars(
            select(Proposal).where(Proposal.game_id == game_id).order_by(Proposal.number)
        )
    )


def proposal_by_number(session: Session, game_id: int, number: int) -> Proposal | None:
    """Proposal ``number`` of a game, if any."""
    return session.scalar(
        select(Proposal).where(Proposal.game_id == game_id, Proposal.number == number)
    )


def proposal_ballot(session: Session, proposal_id: int, power: str) -> ProposalBallot | None:
    """``power``'s answer to a proposal, if it gave one."""
    return session.scalar(
        select(ProposalBallot).where(
            ProposalBallot.proposal_id == proposal_id, ProposalBallot.power == power
        )
    )


def proposal_numbers(session: Session, game_id: int, limit: int) -> list[int]:
    """The numbers of a game's first ``limit`` proposals, in order."""
    return list(
        session.scalars(
            select(Proposal.number)
            .where(Proposal.game_id == game_id)
            .order_by(Proposal.number)
            .limit(limit)
        )
    )


def awaiting_proposal(session: Session, game_id: int) -> Proposal | None:
    """The lowest-numbered proposal of a game that awaits its master's decision, if any."""
    return session.scalars(
        select(Proposal)
        .where(Proposal.game_id == game_id, Proposal.state == ProposalState.AWAITING)
        .order_by(Proposal.number)
        .limit(1)
    ).first()


def unsettled_proposals(session: Session, game_id: int) -> list[Proposal]:
    """A game's proposals still open to a vote or awaiting its master's decision."""
    return list(
        session.scalars(
            select(Proposal).where(
                Proposal.game_id == game_id,
                Proposal.state.in_((ProposalState.OPEN, ProposalState.AWAITING)),
            )
        )
    )


def open_proposals_through(session: Session, game_id: int, seq: int) -> list[Proposal]:
    """A game's proposals open to a vote put in phase ``seq`` or before, by number."""
    return list(
        session.scalars(
            select(Proposal)
            .where(
                Proposal.game_id == game_id,
                Proposal.state == ProposalState.OPEN,
                Proposal.seq <= seq,
            )
            .order_by(Proposal.number)
        )
    )


def proposal_ballots(session: Session, proposal_id: int) -> list[ProposalBallot]:
    """Every answer given to a proposal."""
    return list(
        session.scalars(select(ProposalBallot).where(ProposalBallot.proposal_id == proposal_id))
    )


def ballot_powers(session: Session, proposal_ids: Sequence[int]) -> dict[int, set[str]]:
    """The powers that answered each of ``proposal_ids`` (one query for them all)."""
    found: dict[int, set[str]] = {pid: set() for pid in proposal_ids}
    if not proposal_ids:
        return found
    rows = session.execute(
        select(ProposalBallot.proposal_id, ProposalBallot.power).where(
            ProposalBallot.proposal_id.in_(proposal_ids)
        )
    )
    for proposal_id, power in rows:
        found[proposal_id].add(power)
    return found


def void_unsettled_proposals(session: Session, game_id: int, now: datetime) -> None:
    """Void a game's proposals still open or awaiting its master (the game ended, or its
    phase was taken back): closed now, with no decision time left to run."""
    session.execute(
        update(Proposal)
        .where(
            Proposal.game_id == game_id,
            Proposal.state.in_((ProposalState.OPEN, ProposalState.AWAITING)),
        )
        .values(state=ProposalState.VOID, decide_by=None, closed_at=now)
    )


def delete_open_ballots(session: Session, game_id: int, power: str) -> None:
    """Delete ``power``'s answers to a game's proposals still open to a vote."""
    still_open = select(Proposal.id).where(
        Proposal.game_id == game_id, Proposal.state == ProposalState.OPEN
    )
    session.execute(
        delete(ProposalBallot).where(
            ProposalBallot.power == power, ProposalBallot.proposal_id.in_(still_open)
        )
    )


# -- the njudge's standing votes ----------------------------------------------------------


def vote_record(session: Session, game_id: int, power: str, kind: VoteKind) -> VoteRecord | None:
    """``power``'s standing vote of ``kind`` in a game, if any."""
    return session.scalars(
        select(VoteRecord).where(
            VoteRecord.game_id == game_id, VoteRecord.power == power, VoteRecord.kind == kind
        )
    ).one_or_none()


_VOTES_OF = (
    select(VoteRecord)
    .where(VoteRecord.game_id == bindparam("game_id"))
    # "draw" > "concede": descending puts the draw first.
    .order_by(VoteRecord.power, VoteRecord.kind.desc())
)


def votes_of(session: Session, game_id: int) -> list[VoteRecord]:
    """A game's standing votes, by power; a power's draw vote before its concession."""
    if absent.known_none(session, "votes", game_id):
        return []
    return list(session.scalars(_VOTES_OF, {"game_id": game_id}))


def delete_votes(session: Session, game_id: int, power: str | None = None) -> None:
    """Delete a game's standing votes: ``power``'s only, when given."""
    statement = delete(VoteRecord).where(VoteRecord.game_id == game_id)
    if power is not None:
        statement = statement.where(VoteRecord.power == power)
    session.execute(statement)


# -- orders sent ahead ----------------------------------------------------------------


_PENDING_IN_GAME = (
    select(FutureOrder)
    .where(FutureOrder.game_id == bindparam("game_id"), FutureOrder.active.is_(True))
    .order_by(FutureOrder.id)
)


def active_future_orders(
    session: Session, game_id: int, *, player_id: int | None = None, phase: str | None = None
) -> list[FutureOrder]:
    """A game's pending orders sent ahead (``player_id``'s, of ``phase``, when given),
    oldest first: the order they were sent in, the last order for a unit counting."""
    if absent.known_none(session, "ahead", game_id):
        return []
    if player_id is None and phase is None:
        return list(session.scalars(_PENDING_IN_GAME, {"game_id": game_id}))
    statement = select(FutureOrder).where(
        FutureOrder.game_id == game_id, FutureOrder.active.is_(True)
    )
    if player_id is not None:
        statement = statement.where(FutureOrder.player_id == player_id)
    if phase is not None:
        statement = statement.where(FutureOrder.phase == phase)
    return list(session.scalars(statement.order_by(FutureOrder.id)))


def future_order_keepers(session: Session, game_id: int) -> set[int]:
    """The players (ids) who keep pending orders sent ahead in a game."""
    if absent.known_none(session, "ahead", game_id):
        return set()
    return set(
        session.scalars(
            select(FutureOrder.player_id)
            .where(FutureOrder.game_id == game_id, FutureOrder.active.is_(True))
            .distinct()
        )
    )


def retire_future_orders(session: Session, game_id: int, phases: Sequence[str]) -> None:
    """Retire every pending order sent ahead for ``phases`` of a game."""
    session.execute(
        update(FutureOrder)
        .where(FutureOrder.game_id == game_id, FutureOrder.phase.in_(list(phases)))
        .values(active=False)
    )


def future_orders_of(session: Session, game_id: int) -> list[FutureOrder]:
    """Every order sent ahead in a game, pending or retired (what a ROLLBACK sets)."""
    return list(session.scalars(select(FutureOrder).where(FutureOrder.game_id == game_id)))


# -- pictures -----------------------------------------------------------------------------


def picture_id(session: Session, game_id: int, phase: str, kind: str) -> int | None:
    """The id of the picture of ``game_id``'s ``phase`` of ``kind``, drawn or asked for."""
    return session.scalar(
        select(Picture.id).where(
            Picture.game_id == game_id, Picture.phase == phase, Picture.kind == kind
        )
    )


def picture_row(session: Session, game_id: int, phase: str, kind: str) -> Picture | None:
    """The picture of ``game_id``'s ``phase`` of ``kind``, drawn or asked for, if any."""
    return session.scalar(
        select(Picture).where(
            Picture.game_id == game_id, Picture.phase == phase, Picture.kind == kind
        )
    )


def ask_picture(session: Session, game_id: int, phase: str, kind: str, now: datetime) -> int:
    """The id of the picture of ``game_id``'s ``phase`` of ``kind``: the row there, drawn
    or not, else a new row to draw (``png`` NULL, asked for ``now``).  Insert, or take the
    one already there: two transactions asking at once (on PostgreSQL, another judge's)
    end with one row, the unique constraint deciding.  Nothing else pending in the session
    is flushed for it."""
    with session.no_autoflush:
        found = picture_id(session, game_id, phase, kind)
        if found is not None:
            return found
        values = {"game_id": game_id, "phase": phase, "kind": kind, "png": None, "created_at": now}
        # INSERT ... ON CONFLICT DO NOTHING: the same words on both, each dialect's class.
        upsert: Any = postgresql.insert if _is_postgres(session) else sqlite.insert
        new = session.scalar(
            upsert(Picture)
            .values(values)
            .on_conflict_do_nothing(index_elements=["game_id", "phase", "kind"])
            .returning(Picture.id)
        )
        if new is None:  # another transaction's, committed in between
            new = picture_id(session, game_id, phase, kind)
    assert new is not None
    return int(new)


def save_picture(
    session: Session, game_id: int, phase: str, kind: str, png: bytes, now: datetime
) -> int:
    """Store a picture drawn now as the one of ``game_id``'s ``phase`` of ``kind``: into
    the row asked for (its id, which mail names, stays; a row drawn already is kept as it
    is), else a new row (:func:`ask_picture`: another transaction's row, asked for at the
    same time, is taken, not an error); return its id.  Nothing else pending in the
    session is flushed."""
    picture = ask_picture(session, game_id, phase, kind, now)
    fill_picture(session, picture, png)
    return picture


def fill_picture(session: Session, picture: int, png: bytes) -> bool:
    """Store ``png`` in the picture ``picture`` if it is still to draw; whether it was
    (not when it is gone, or another process drew it first: its bytes stay)."""
    with session.no_autoflush:
        done = session.execute(
            update(Picture).where(Picture.id == picture, Picture.png.is_(None)).values(png=png)
        )
    return bool(getattr(done, "rowcount", 0))


def picture_pngs(session: Session, ids: Iterable[int]) -> dict[int, bytes | None]:
    """The PNG bytes of the pictures ``ids`` that still exist, by id; None for one not
    drawn yet."""
    wanted = sorted(set(ids))
    found: dict[int, bytes | None] = {}
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start : start + _IN_CHUNK]
        for picture, png in session.execute(
            select(Picture.id, Picture.png).where(Picture.id.in_(chunk))
        ):
            found[picture] = png
    return found


def pictures_to_draw(session: Session, ids: Iterable[int]) -> list[Picture]:
    """The rows of the pictures ``ids`` still to draw (``png`` NULL), by id."""
    wanted = sorted(set(ids))
    rows: list[Picture] = []
    for start in range(0, len(wanted), _IN_CHUNK):
        chunk = wanted[start : start + _IN_CHUNK]
        rows.extend(
            session.scalars(
                select(Picture)
                .where(Picture.id.in_(chunk), Picture.png.is_(None))
                .order_by(Picture.id)
            )
        )
    return rows


def phase_codes(session: Session, game_id: int) -> list[tuple[int, str]]:
    """The ``seq`` and phase code of every phase record of a game, first to last (which
    record holds a phase, without reading the records' documents)."""
    return [
        (seq, phase)
        for seq, phase in session.execute(
            select(PhaseRecord.seq, PhaseRecord.phase)
            .where(PhaseRecord.game_id == game_id)
            .order_by(PhaseRecord.seq)
        )
    ]


def delete_pictures(session: Session, game_id: int, phases: Sequence[str]) -> None:
    """Forget the pictures of ``game_id``'s ``phases`` (phases a ROLLBACK undid)."""
    if phases:
        session.execute(
            delete(Picture).where(Picture.game_id == game_id, Picture.phase.in_(list(phases)))
        )


def password_hash_count(session: Session) -> int:
    """How many password hashes the database holds: the players' own and takeover
    passwords, the game masters' and the observers' (one statement)."""
    counts = [
        select(func.count()).select_from(table).where(column.is_not(None)).scalar_subquery()
        for table, column in (
            (Player, Player.password_hash),
            (Player, Player.takeover_hash),
            (Game, Game.master_password_hash),
            (Game, Game.observer_password_hash),
        )
    ]
    return sum(int(count or 0) for count in session.execute(select(*counts)).one())


def signon_seats(
    session: Session, names: Iterable[str]
) -> tuple[list[Game], list[Player], list[SignonGuard]]:
    """The games called ``names`` (lower case), their players and their sign-on guards:
    what checking their sign-ons needs, in three statements (a chunk of names each)."""
    wanted = sorted(set(names))
    games: list[Game] = []
    for start in range(0, len(wanted), _IN_CHUNK):
        games += session.scalars(
            select(Game).where(Game.name.in_(wanted[start : start + _IN_CHUNK]))
        )
    ids = [game.id for game in games]
    players: list[Player] = []
    guards: list[SignonGuard] = []
    for start in range(0, len(ids), _IN_CHUNK):
        chunk = ids[start : start + _IN_CHUNK]
        players += session.scalars(select(Player).where(Player.game_id.in_(chunk)))
        guards += session.scalars(select(SignonGuard).where(SignonGuard.game_id.in_(chunk)))
    return games, players, guards


# -- the judge processes at work on the database (judge.services.presence) --------------


def limit_waits(session: Session, seconds: float) -> None:
    """Let each statement of the transaction in ``session`` run, and wait for a lock, at
    most ``seconds`` (PostgreSQL's ``SET LOCAL statement_timeout, lock_timeout``: for
    the heartbeat, which must fail rather than hang).  SQLite has no such setting; its
    judges share one machine and tell a live process by its id, not its heartbeat."""
    if _is_postgres(session):
        milliseconds = str(max(1, round(seconds * 1000)))
        # set_config(..., true) is SET LOCAL with parameters: it ends with the transaction.
        session.execute(
            select(
                func.set_config("statement_timeout", milliseconds, True),
                func.set_config("lock_timeout", milliseconds, True),
            )
        )


def heartbeat_clock(
    session: Session, local: Callable[[], datetime], ago: float = 0.0
) -> ColumnElement[datetime]:
    """The heartbeats' clock, ``ago`` seconds back: on PostgreSQL the database server's
    (``statement_timestamp()``), because the judges sharing it may run on machines whose
    own clocks disagree, and a heartbeat written by one host's clock and read by
    another's would make a host running late look gone and one running ahead look
    alive; on SQLite (one machine: its judges share the one clock) ``local()``, so that
    the stored text keeps the form of every other time the judge stores."""
    if _is_postgres(session):
        # The statement's start, not now()'s transaction start: a beat or a check late in
        # a transaction is not dated back to its beginning.
        server: ColumnElement[datetime] = func.statement_timestamp(type_=DateTime(timezone=True))
        return server - literal(timedelta(seconds=ago), Interval()) if ago else server
    return literal(local() - timedelta(seconds=ago), UTCDateTime())


def fresh_judges(
    session: Session, tokens: Sequence[str], within: float, local: Callable[[], datetime]
) -> set[str]:
    """Which of the processes ``tokens`` beat in the last ``within`` seconds by the
    heartbeats' clock (:func:`heartbeat_clock`)."""
    since = heartbeat_clock(session, local, within)
    return set(
        session.scalars(
            select(JudgeProcess.token).where(
                JudgeProcess.token.in_(tokens), JudgeProcess.seen_at >= since
            )
        )
    )


def judges_on_host(session: Session, host: str) -> list[str]:
    """The registered processes of ``host``."""
    return list(session.scalars(select(JudgeProcess.token).where(JudgeProcess.host == host)))


def beat_judges(
    session: Session, roles: dict[str, tuple[str, str, int]], local: Callable[[], datetime]
) -> None:
    """The heartbeat, now by the heartbeats' clock (:func:`heartbeat_clock`), of the
    processes ``roles`` (token -> role, host, pid), each registered if it is not yet."""
    tokens = sorted(roles)
    now = heartbeat_clock(session, local)
    session.execute(
        update(JudgeProcess)
        .where(JudgeProcess.token.in_(tokens))
        .values(seen_at=now)
        .execution_options(synchronize_session=False)
    )
    known = set(session.scalars(select(JudgeProcess.token).where(JudgeProcess.token.in_(tokens))))
    new = [
        {"token": token, "role": roles[token][0], "host": roles[token][1], "pid": roles[token][2]}
        for token in tokens
        if token not in known
    ]
    if new:
        session.execute(insert(JudgeProcess).values(started_at=now, seen_at=now), new)


def remove_judges(
    session: Session,
    tokens: Iterable[str],
    *,
    silent_for: float | None = None,
    local: Callable[[], datetime] = utcnow,
) -> None:
    """Remove the processes ``tokens``, and with ``silent_for`` every process that has
    not beaten for that many seconds by the heartbeats' clock (:func:`heartbeat_clock`,
    ``local`` on SQLite)."""
    wanted = sorted(set(tokens))
    condition: ColumnElement[bool] = JudgeProcess.token.in_(wanted)
    if silent_for is not None:
        since = heartbeat_clock(session, local, silent_for)
        condition = or_(condition, JudgeProcess.seen_at < since)
    elif not wanted:
        return
    session.execute(
        delete(JudgeProcess).where(condition).execution_options(synchronize_session=False)
    )
