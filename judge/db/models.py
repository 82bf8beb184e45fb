"""The judge's tables as SQLAlchemy 2.0 typed declarative models.

Every schema change here needs an Alembic migration in ``migrations/versions/`` (``alembic
revision --autogenerate -m "..."``, then review it); ``tests/integration/test_db.py`` fails
while the models and the migrations disagree.

Times are aware UTC datetimes (:class:`~judge.db.types.UTCDateTime`); documents and option
dicts are JSON (:class:`~judge.db.types.JSONDocument`).
"""

from __future__ import annotations

import enum
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import (
    CheckConstraint,
    ForeignKey,
    Index,
    LargeBinary,
    MetaData,
    String,
    Text,
    UniqueConstraint,
    event,
    text,
)
from sqlalchemy.orm import (
    DeclarativeBase,
    Mapped,
    Session,
    mapped_column,
    relationship,
    validates,
)
from sqlalchemy.orm.attributes import get_history

from judge.db.types import JSONDocument, UTCDateTime

__all__ = [
    "LOOK_NOW",
    "NAMING_CONVENTION",
    "Ballot",
    "Base",
    "Game",
    "GameStatus",
    "InboundMessage",
    "InboundState",
    "NoticeKind",
    "NoticeRecord",
    "Observer",
    "OrderRecord",
    "OutboundMessage",
    "OutboundState",
    "PhaseRecord",
    "Picture",
    "PictureKind",
    "Player",
    "PlayerStatus",
    "PressRecord",
    "PressState",
    "Proposal",
    "ProposalBallot",
    "ProposalState",
    "Rollback",
    "SignonGuard",
    "VoteKind",
    "VoteRecord",
]

# Named constraints are what let Alembic's batch mode (SQLite) drop or alter them later, and
# keep the names identical on every backend.
NAMING_CONVENTION: dict[str, str] = {
    "ix": "ix_%(table_name)s_%(column_0_N_name)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    """The current time as an aware UTC datetime.

    Only a fallback for columns nobody set: services pass their own clock's time so that
    tests can fix it.
    """
    return datetime.now(UTC)


class Base(DeclarativeBase):
    """The declarative base of every judge table."""

    metadata = MetaData(naming_convention=NAMING_CONVENTION)
    type_annotation_map = {
        datetime: UTCDateTime,
        dict[str, Any]: JSONDocument,
    }


class GameStatus(enum.StrEnum):
    """The values of ``games.status``."""

    FORMING = "forming"
    ACTIVE = "active"
    PAUSED = "paused"
    FINISHED = "finished"


class PlayerStatus(enum.StrEnum):
    """The values of ``players.status``."""

    ACTIVE = "active"
    RESIGNED = "resigned"
    CIVIL_DISORDER = "civil_disorder"


class NoticeKind(enum.StrEnum):
    """The values of ``notices.kind``."""

    REMINDER = "reminder"
    LATE = "late"
    LATE_OTHERS = "late-others"


class PressState(enum.StrEnum):
    """The values of ``press.state``."""

    #: Sent to its recipients when it was received.
    SENT = "sent"
    #: A press release (``PRESS PUBLISH``) waiting for the next results.
    HELD = "held"
    #: A press release published with the results of phase ``published_seq``.
    PUBLISHED = "published"
    #: A press release whose condition failed: not published, its sender told.
    WITHHELD = "withheld"


class VoteKind(enum.StrEnum):
    """The values of ``votes.kind``: the njudge's standing votes."""

    #: ``SET DRAW [powers]``.
    DRAW = "draw"
    #: ``SET CONCEDE <power>``.
    CONCEDE = "concede"


class ProposalState(enum.StrEnum):
    """The values of ``proposals.state`` (house rules, section 8)."""

    #: Put, and its vote open until the deadline of the phase it was put in.
    OPEN = "open"
    #: Passed: the game ended on its terms.
    PASSED = "passed"
    #: Defeated at its deadline.
    DEFEATED = "defeated"
    #: Passed, but more than half of the players who sent orders made no mention of it
    #: (8.4): the game master decides by ``decide_by``.
    AWAITING = "awaiting"
    #: Passed, and the game master declined to end the game on it (8.4).
    DECLINED = "declined"
    #: Closed without a count: the game ended another way, or its phase was rolled back.
    VOID = "void"


class Ballot(enum.StrEnum):
    """The values of ``proposal_ballots.ballot``."""

    YES = "yes"
    NO = "no"
    ABSTAIN = "abstain"


class InboundState(enum.StrEnum):
    """The values of ``inbound.state``."""

    NEW = "new"
    DONE = "done"
    IGNORED = "ignored"
    FAILED = "failed"
    #: Set aside after attempts that never finished (the worker died or stalled on it):
    #: kept for the keeper of the judge to look at, not tried again.
    PARKED = "parked"


class OutboundState(enum.StrEnum):
    """The values of ``outbox.state``."""

    QUEUED = "queued"
    SENT = "sent"
    FAILED = "failed"


#: The condition of ``outbox``'s partial index of queued mail, as its queries say it (a
#: literal, not a bound parameter: a planner can only match a partial index's condition
#: to the same words, and PostgreSQL's generic plans know no parameter's value).
QUEUED_MAIL = text("state = 'queued'")
#: The condition of the partial index of mail holding a password, as SQLAlchemy writes
#: ``OutboundMessage.secret.is_(True)`` in each dialect (the queries' words).
SECRET_MAIL = {"sqlite": "secret IS 1", "postgresql": "secret IS true"}


def _one_of(column: str, values: type[enum.StrEnum]) -> CheckConstraint:
    """A CHECK that ``column`` holds one of the enum's values, named after the column."""
    listed = ", ".join(f"'{member.value}'" for member in values)
    return CheckConstraint(f"{column} IN ({listed})", name=column)


class Game(Base):
    """One game: its rules, settings, status and where it stands (phase, deadline)."""

    __tablename__ = "games"
    __table_args__ = (_one_of("status", GameStatus),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: The game's name in lower case, e.g. "winter01".
    name: Mapped[str] = mapped_column(String, unique=True)
    variant: Mapped[str] = mapped_column(String, default="standard")
    #: Rule options: edition, build_anywhere, civil_disorder, retreat_priority, ...
    rules: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: Everything else from the config file: press, timezone, deadlines, ... (written and
    #: read as :class:`judge.config.GameSettings`, see judge/services/game_settings.py).
    settings: Mapped[dict[str, Any]] = mapped_column(default=dict)
    status: Mapped[str] = mapped_column(String, default=GameStatus.FORMING, index=True)
    #: The current phase code, e.g. "S1901M"; None before the game starts.
    phase: Mapped[str | None] = mapped_column(String)
    #: The number of the current phase in the game's history (1 for the first phase).
    seq: Mapped[int] = mapped_column(default=0)
    deadline: Mapped[datetime | None] = mapped_column(index=True)
    master_address: Mapped[str | None] = mapped_column(String)
    master_password_hash: Mapped[str | None] = mapped_column(String)
    config_path: Mapped[str | None] = mapped_column(String)
    #: sha256 of the config file as last loaded, to notice when it changed.
    config_digest: Mapped[str | None] = mapped_column(String)
    #: What the game file last applied, key by key (``judge.services.games``): a reload
    #: applies only the keys whose value in the file differs from this, so what players
    #: and the game master set by mail survives edits of other keys.  Passwords are kept
    #: as argon2 hashes.  None for a game loaded by a judge older than this column: the
    #: file as it is then counts as applied.
    file_applied: Mapped[dict[str, Any] | None]
    winner: Mapped[str | None] = mapped_column(String)
    #: How a finished game without a winner ended: "terminated" (the game master's
    #: TERMINATE); the draw and concession votes add their own.  None while it runs.
    ending: Mapped[str | None] = mapped_column(String)
    #: How a finished game placed the powers, best first: ``[[1, ["France"]]]`` for a
    #: solo or a concession, one place shared by a draw's powers, an agreed result's
    #: places in order (see :class:`judge.presenters.Ending`).  None while it runs and
    #: for a game its master ended.
    result: Mapped[list[Any] | None] = mapped_column(JSONDocument)
    #: The argon2 hash of the observers' password (the game file's
    #: ``observer_password``), asked when the game's ``observers`` setting (kept in
    #: ``settings``: "open", "password" or "none") is "password".
    observer_password_hash: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    updated_at: Mapped[datetime] = mapped_column(default=utcnow, onupdate=utcnow)
    #: When the deadline loop must next look at the game (a reminder, the deadline, a day
    #: of grace, the end of the early delay), worked out by the loop each time it looks
    #: (:mod:`judge.services.wakes`); :data:`LOOK_NOW` once anything that may move it
    #: changed (see :func:`_mark_changed_games`); None: nothing to look at by time.
    wake_at: Mapped[datetime | None] = mapped_column(index=True)
    #: The deadline ``wake_at`` was worked out for: the loop's safety net looks again at
    #: a game whose deadline is no longer this one, however it was changed.
    wake_deadline: Mapped[datetime | None]
    #: The judge process looking at the game's moment now (:mod:`judge.services.presence`
    #: token), so that several judges on one database do not look at it together; None
    #: when none is.  Indexed: the claims of a judge that is gone are found at once.
    claimed_by: Mapped[str | None] = mapped_column(String, index=True)

    players: Mapped[list[Player]] = relationship(
        back_populates="game",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="Player.power",
    )
    phases: Mapped[list[PhaseRecord]] = relationship(
        back_populates="game",
        cascade="all, delete-orphan",
        passive_deletes=True,
        order_by="PhaseRecord.seq",
    )

    @validates("name")
    def _lower_name(self, key: str, value: str) -> str:
        # Names are looked up from mail subjects and commands typed in any case.
        return value.strip().lower()

    def __repr__(self) -> str:
        return f"Game(id={self.id!r}, name={self.name!r}, status={self.status!r})"


class Player(Base):
    """A power in a game and the address that plays it."""

    __tablename__ = "players"
    __table_args__ = (
        UniqueConstraint("game_id", "power"),
        _one_of("status", PlayerStatus),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The power's canonical name, e.g. "England".
    power: Mapped[str] = mapped_column(String)
    #: The player's email address, in lower case.
    address: Mapped[str] = mapped_column(String, index=True)
    password_hash: Mapped[str] = mapped_column(String)
    timezone: Mapped[str | None] = mapped_column(String)
    wait: Mapped[bool] = mapped_column(default=False)
    status: Mapped[str] = mapped_column(String, default=PlayerStatus.ACTIVE)
    #: Consecutive phases missed.
    missed: Mapped[int] = mapped_column(default=0)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    #: A declared absence (SET ABSENCE): from when to when the player is away.
    absence_from: Mapped[datetime | None]
    absence_to: Mapped[datetime | None]
    #: How many absences the player has declared in this game, for a house limit.
    absences_used: Mapped[int] = mapped_column(default=0, server_default="0")
    #: The argon2 hash of the seat's takeover password (the game file's ``takeover``, or
    #: the game master's ``SET PASSWORD <power> <pw>`` on an open seat): it signs a new
    #: player on in the seat while the seat is open (``judge.services.seats``), then
    #: becomes that player's password and is cleared.  None: no takeover password.
    takeover_hash: Mapped[str | None] = mapped_column(String)
    #: When the game master ejected the player (``EJECT``): the seat is open, the power in
    #: civil disorder (``status``) and the player's password emptied, until a new player
    #: takes it over.  None: not ejected.  A seat is open when its player resigned, was
    #: ejected or is in civil disorder (house rules 4.6).
    ejected_at: Mapped[datetime | None]

    game: Mapped[Game] = relationship(back_populates="players")

    @validates("address")
    def _lower_address(self, key: str, value: str) -> str:
        # Senders are matched by address, and mail clients vary the case.
        return value.strip().lower()

    def __repr__(self) -> str:
        return f"Player(id={self.id!r}, power={self.power!r}, address={self.address!r})"


class PhaseRecord(Base):
    """One phase of a game's history: the position at its start and, once done, its results."""

    __tablename__ = "phases"
    __table_args__ = (UniqueConstraint("game_id", "seq"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    seq: Mapped[int]
    #: The phase code, e.g. "S1901M".
    phase: Mapped[str] = mapped_column(String)
    #: ``judge.engine.document.position_to_document`` at the start of the phase.
    position: Mapped[dict[str, Any]]
    #: The adjudication document, once the phase has been processed.
    results: Mapped[dict[str, Any] | None]
    processed_at: Mapped[datetime | None]
    deadline: Mapped[datetime | None]

    game: Mapped[Game] = relationship(back_populates="phases")

    def __repr__(self) -> str:
        return f"PhaseRecord(game_id={self.game_id!r}, seq={self.seq!r}, phase={self.phase!r})"


class OrderRecord(Base):
    """One order line a player sent for a phase, as written and as understood."""

    __tablename__ = "orders"
    __table_args__ = (Index(None, "game_id", "seq", "player_id", "active"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The ``PhaseRecord.seq`` of the phase the order is for.
    seq: Mapped[int]
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    #: What the order is for, so a later order can replace it: "par", "waive:1", "build:par".
    unit: Mapped[str | None] = mapped_column(String)
    #: The line as the player wrote it.
    raw: Mapped[str] = mapped_column(Text)
    #: The order in canonical short form, or None when it was rejected.
    canonical: Mapped[str | None] = mapped_column(String)
    error_code: Mapped[str | None] = mapped_column(String)
    error: Mapped[str | None] = mapped_column(Text)
    #: False once replaced by a later order for the same unit, or cleared.
    active: Mapped[bool] = mapped_column(default=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    player: Mapped[Player] = relationship()

    def __repr__(self) -> str:
        return f"OrderRecord(id={self.id!r}, seq={self.seq!r}, raw={self.raw!r})"


class NoticeRecord(Base):
    """A deadline notice sent to a player: the row that makes sure it is sent only once.

    Written in the same transaction as the queued mail; the unique key is what a second
    run (a double fire, a second judge process) runs into instead of mailing again.
    """

    __tablename__ = "notices"
    __table_args__ = (
        UniqueConstraint("game_id", "seq", "kind", "player_id", "day"),
        _one_of("kind", NoticeKind),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The ``PhaseRecord.seq`` of the phase the notice is about.
    seq: Mapped[int]
    #: "reminder" before the deadline; "late" to a late player, "late-others" to the rest.
    kind: Mapped[str] = mapped_column(String)
    #: The player it went to.
    player_id: Mapped[int | None] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    #: 0 for the deadline itself (and for reminders), 1, 2, ... for each day of grace.
    day: Mapped[int] = mapped_column(default=0)
    sent_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return (
            f"NoticeRecord(game_id={self.game_id!r}, seq={self.seq!r}, kind={self.kind!r}, "
            f"player_id={self.player_id!r}, day={self.day!r})"
        )


class InboundMessage(Base):
    """A received email, stored raw before anything else happens to it."""

    __tablename__ = "inbound"
    __table_args__ = (_one_of("state", InboundState),)

    id: Mapped[int] = mapped_column(primary_key=True)
    #: The Message-ID header, or "<sha256-of-raw@judge.local>" when it has none; unique so
    #: that a message fetched twice is stored once.
    message_id: Mapped[str] = mapped_column(String, unique=True)
    sender: Mapped[str | None] = mapped_column(String)
    subject: Mapped[str | None] = mapped_column(String)
    #: The message as received; of one larger than ``max_message_bytes``, only its header
    #: and the first ``STORED_PREFIX_BYTES`` of its body (``judge.services.intake``).
    raw: Mapped[bytes] = mapped_column(LargeBinary)
    #: The size of the message as received, in bytes (``raw`` may hold less of it); None
    #: for a message stored before this column (then ``len(raw)``).
    size: Mapped[int | None]
    received_at: Mapped[datetime] = mapped_column(default=utcnow)
    state: Mapped[str] = mapped_column(String, default=InboundState.NEW, index=True)
    #: Why it was ignored, failed or parked.
    reason: Mapped[str | None] = mapped_column(Text)
    processed_at: Mapped[datetime | None]
    #: Attempts to process it, each counted (and committed) before the attempt starts, so
    #: that one that kills its worker still counts.
    attempts: Mapped[int] = mapped_column(default=0)
    #: The judge process that took the message to process (:mod:`judge.services.presence`
    #: token): no other judge on the database processes it, nor a later message of the
    #: same sender, while that process runs.  None: not taken yet.
    claimed_by: Mapped[str | None] = mapped_column(String)

    @property
    def original_size(self) -> int:
        """The size of the message as received (``size``, else the stored bytes)."""
        return self.size if self.size is not None else len(self.raw)

    def __repr__(self) -> str:
        return f"InboundMessage(id={self.id!r}, message_id={self.message_id!r})"


class OutboundMessage(Base):
    """An email waiting to be sent, or sent: written in the same transaction as its cause."""

    __tablename__ = "outbox"
    __table_args__ = (
        _one_of("state", OutboundState),
        # The per-sender reply ration counts a sender's recent mail on every message.
        Index(None, "to_addr", "created_at"),
        # The sender's looks (what is due, who holds what) read only queued mail, a few
        # rows among every mail ever sent: partial indexes hold just those, and the
        # queries name the same condition word for word (``judge.db.queries``), which is
        # how SQLite and PostgreSQL know they may use them.  Not an index on ``state``:
        # it held an entry for every version of every row, dead ones too (each claim and
        # each "sent" writes a new version), which PostgreSQL read through at every look
        # until a vacuum came; and a claim, which changes no indexed column, can now be
        # written in place.
        Index("ix_outbox_queued", "id", sqlite_where=QUEUED_MAIL, postgresql_where=QUEUED_MAIL),
        Index(
            "ix_outbox_secret_flagged",
            "id",
            sqlite_where=text(SECRET_MAIL["sqlite"]),
            postgresql_where=text(SECRET_MAIL["postgresql"]),
        ),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    message_id: Mapped[str] = mapped_column(String, unique=True)
    to_addr: Mapped[str] = mapped_column(String)
    subject: Mapped[str] = mapped_column(String)
    body: Mapped[str] = mapped_column(Text)
    #: Extra headers: In-Reply-To, References, Auto-Submitted, ...
    headers: Mapped[dict[str, Any]] = mapped_column(default=dict)
    #: What the mail is: "confirm", "results", "gamestart", "reply", ...
    kind: Mapped[str] = mapped_column(String)
    game_id: Mapped[int | None] = mapped_column(ForeignKey("games.id", ondelete="SET NULL"))
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id", ondelete="SET NULL"))
    state: Mapped[str] = mapped_column(String, default=OutboundState.QUEUED)
    attempts: Mapped[int] = mapped_column(default=0)
    last_error: Mapped[str | None] = mapped_column(Text)
    #: When the sender may try again: None for "now"; set after a temporary failure (the
    #: growing delay between retries) and while a sender holds the message.
    next_attempt_at: Mapped[datetime | None]
    #: The sender process holding the message while ``next_attempt_at`` is in the future
    #: (``judge.runtime.sender.sender_token``): a later run gives the message back at once
    #: when that process is gone, instead of waiting for the claim to run out.
    claimed_by: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    sent_at: Mapped[datetime | None]
    #: The body holds a password (a game start, a replacement's welcome, a reset): it is
    #: replaced by a note once the mail is sent or given up, and the flag cleared
    #: (``judge.services.outbox``).  Indexed where set (``ix_outbox_secret_flagged``): the few
    #: flagged rows are found without reading the whole outbox.
    secret: Mapped[bool] = mapped_column(default=False, server_default="0")
    #: The pictures sent with the mail, in order: ``[{"picture": <Picture.id>,
    #: "filename": "ewinter01-S1901M.png"}]``; None (most mail) for none.  A picture is
    #: stored once (:class:`Picture`) and named here by every mail that carries it.
    attachments: Mapped[list[Any] | None] = mapped_column(JSONDocument)

    def __repr__(self) -> str:
        return f"OutboundMessage(id={self.id!r}, kind={self.kind!r}, to_addr={self.to_addr!r})"


class Observer(Base):
    """An address watching a game: it gets the game's public mail (the start, the results,
    the news of deadlines and seats, broadcasts), never a player's private mail."""

    __tablename__ = "observers"
    __table_args__ = (UniqueConstraint("game_id", "address"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The observer's email address, in lower case.
    address: Mapped[str] = mapped_column(String)
    #: The observer's own IANA time zone, if set; None: the game's.
    timezone: Mapped[str | None] = mapped_column(String)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    @validates("address")
    def _lower_address(self, key: str, value: str) -> str:
        return value.strip().lower()

    def __repr__(self) -> str:
        return f"Observer(id={self.id!r}, game_id={self.game_id!r}, address={self.address!r})"


class Rollback(Base):
    """A ROLLBACK by the game master: the game went back from phase ``from_seq`` to the
    start of ``to_seq``; what was undone (the phases after ``to_seq`` and their orders) is
    kept here, so the history still shows it."""

    __tablename__ = "rollbacks"

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"), index=True)
    #: The phase being played when the game master rolled back (seq and code).
    from_seq: Mapped[int]
    from_phase: Mapped[str] = mapped_column(String)
    #: The phase the game went back to the start of.
    to_seq: Mapped[int]
    to_phase: Mapped[str] = mapped_column(String)
    #: Why, in the game master's words (may be empty).
    reason: Mapped[str] = mapped_column(Text, default="")
    #: What was undone: the phase records and order rows after ``to_seq`` (and the results
    #: of ``to_seq`` itself), as JSON documents.
    undone: Mapped[dict[str, Any]]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return (
            f"Rollback(game_id={self.game_id!r}, from_phase={self.from_phase!r}, "
            f"to_phase={self.to_phase!r})"
        )


class SignonGuard(Base):
    """Wrong passwords for one seat of a game (a power, or "M" for the game master), counted
    apart for sign-ons from the seat's registered address and from anywhere else, and the
    lockout they led to (``judge.services.signons``).  One row per seat and kind of sender,
    kept for the game's life: counts and times only, never a password or an address."""

    __tablename__ = "signon_guards"
    __table_args__ = (UniqueConstraint("game_id", "seat", "registered"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The power's canonical name, or "M" for the game master.
    seat: Mapped[str] = mapped_column(String)
    #: True: sign-ons from the seat's registered address; False: from any other address.
    registered: Mapped[bool]
    #: Wrong passwords since ``window_start``.
    failures: Mapped[int] = mapped_column(default=0)
    #: When the current count began: failures older than the window start it again.
    window_start: Mapped[datetime | None]
    #: Sign-ons of this kind are refused, unchecked, until then.
    locked_until: Mapped[datetime | None]

    def __repr__(self) -> str:
        return (
            f"SignonGuard(game_id={self.game_id!r}, seat={self.seat!r}, "
            f"registered={self.registered!r}, locked_until={self.locked_until!r})"
        )


class PressRecord(Base):
    """One press message of a game (``PRESS``, ``BROADCAST``) or press release (``PRESS
    PUBLISH``): who really sent it, what its readers are shown, to whom it went and its
    text, kept for ``HISTORY <game> PRESS`` and the releases published with the results.

    The true sender is kept even for grey and faked press (the game master may read it;
    the rate limit counts it); what any other reader is shown is ``shown_from`` and
    ``shown_to`` only.
    """

    __tablename__ = "press"
    __table_args__ = (
        _one_of("state", PressState),
        Index("ix_press_game_id_created_at", "game_id", "created_at"),
        Index("ix_press_sender_address_created_at", "sender_address", "created_at"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The phase being played when it was received (``games.seq`` and the code; no code
    #: before the game starts).
    seq: Mapped[int]
    phase: Mapped[str | None] = mapped_column(String)
    #: Who sent it: "power", "master" or "observer".
    sender_role: Mapped[str] = mapped_column(String)
    #: The sending power's canonical name ("power" only).
    sender_power: Mapped[str | None] = mapped_column(String)
    #: The address it came from, in lower case (the rate limit counts an observer's by it).
    sender_address: Mapped[str] = mapped_column(String)
    #: How it was signed: "white", "grey" or "fake".
    signed: Mapped[str] = mapped_column(String)
    #: The sender its readers are shown: a power, "Master", "Observer", or None (grey).
    shown_from: Mapped[str | None] = mapped_column(String)
    #: The recipients its readers are shown, as the njudge writes them ("England,
    #: Germany", "all", "all but Germany").
    shown_to: Mapped[str] = mapped_column(String)
    #: To whom it really went: {"powers": [canonical names], "master": bool,
    #: "observers": bool, "broadcast": bool}.
    recipients: Mapped[dict[str, Any]]
    #: The text, as written (without the PRESS and ENDPRESS lines).
    body: Mapped[str] = mapped_column(Text)
    #: A press release: published with the next results (``PRESS PUBLISH``).
    release: Mapped[bool] = mapped_column(default=False)
    #: A release's dateline (``DATELINE Vienna``), as written, or None.
    dateline: Mapped[str | None] = mapped_column(String)
    #: A release's conditions: {"all": [{"order": "A Par-Bur", "succeeds": true}, ...]}.
    conditions: Mapped[dict[str, Any] | None]
    state: Mapped[str] = mapped_column(String, default=PressState.SENT)
    #: The phase (seq) whose results published or withheld the release.
    published_seq: Mapped[int | None]
    #: Why a release was withheld, in words for its sender.
    outcome: Mapped[str | None] = mapped_column(Text)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return (
            f"PressRecord(id={self.id!r}, game_id={self.game_id!r}, signed={self.signed!r}, "
            f"state={self.state!r})"
        )


class VoteRecord(Base):
    """A power's standing njudge vote (``SET DRAW``, ``SET CONCEDE``): it stands until
    withdrawn (``SET NODRAW``, ``SET NOCONCEDE``), one of each kind per power.  Secret:
    only the game master is shown who voted how."""

    __tablename__ = "votes"
    __table_args__ = (UniqueConstraint("game_id", "power", "kind"), _one_of("kind", VoteKind))

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The voting power's canonical name.
    power: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String)
    #: A draw: the powers it names (canonical names; None for ``SET DRAW`` alone); a
    #: concession: the one power conceded to.
    powers: Mapped[list[str] | None] = mapped_column(JSONDocument)
    cast_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"VoteRecord(game_id={self.game_id!r}, power={self.power!r}, kind={self.kind!r})"


class Proposal(Base):
    """A proposal to end the game (house rules 8.1-8.6: ``PROPOSE`` ... ``ENDPROPOSE``),
    numbered in its game.  Who put it is kept for the record and shown to nobody (8.5)."""

    __tablename__ = "proposals"
    __table_args__ = (UniqueConstraint("game_id", "number"), _one_of("state", ProposalState))

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: Its number in the game (1, 2, ...), as ``VOTE <n>`` names it.
    number: Mapped[int]
    #: The phase it was put in (``games.seq`` and code): its vote closes at that phase's
    #: deadline.
    seq: Mapped[int]
    phase: Mapped[str] = mapped_column(String)
    #: The terms: {"kind": "draw" | "concede" | "result", "ranks": [[power, place], ...]}
    #: (see :class:`judge.engine.votes.Terms`).
    terms: Mapped[dict[str, Any]]
    #: The proposer's words under the terms, shown with the announcement (may be empty).
    note: Mapped[str] = mapped_column(Text, default="")
    #: "power" or "master"; never shown (8.5).
    proposer_role: Mapped[str] = mapped_column(String)
    #: The proposing power's canonical name (None for the master); never shown (8.5).
    proposer_power: Mapped[str | None] = mapped_column(String)
    #: The master's ABSTAIN = ASSENT (8.3).
    abstain_assent: Mapped[bool] = mapped_column(default=False)
    #: The same terms, defeated in the season before (8.2): not voting is assent.
    repeat: Mapped[bool] = mapped_column(default=False)
    state: Mapped[str] = mapped_column(String, default=ProposalState.OPEN)
    #: The counts at its close (:class:`judge.engine.votes.Tally` as a dict), or None.
    tally: Mapped[dict[str, Any] | None]
    #: 8.4: the game master's ACCEPT or DECLINE is awaited until then.
    decide_by: Mapped[datetime | None]
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    closed_at: Mapped[datetime | None]

    def __repr__(self) -> str:
        return f"Proposal(game_id={self.game_id!r}, number={self.number!r}, state={self.state!r})"


class ProposalBallot(Base):
    """A player's answer to a proposal (``VOTE <n> YES|NO|ABSTAIN``); a later vote
    replaces it.  Secret (8.5): never shown to anyone but the voter."""

    __tablename__ = "proposal_ballots"
    __table_args__ = (UniqueConstraint("proposal_id", "power"), _one_of("ballot", Ballot))

    id: Mapped[int] = mapped_column(primary_key=True)
    proposal_id: Mapped[int] = mapped_column(ForeignKey("proposals.id", ondelete="CASCADE"))
    power: Mapped[str] = mapped_column(String)
    ballot: Mapped[str] = mapped_column(String)
    cast_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return (
            f"ProposalBallot(proposal_id={self.proposal_id!r}, power={self.power!r}, "
            f"ballot={self.ballot!r})"
        )


class FutureOrder(Base):
    """Orders a player sent ahead for a later phase (``PHASE F1902M`` ... ), or, in a
    two-season game, the retreats and adjustments of the season being played: one order
    line, or one conditional block (``IF`` ... ``ENDIF``) as its lines.  Checked for
    syntax when received; resolved against the position and checked for legality when
    their phase begins, then retired (``active`` False), as ``CLEAR`` in a PHASE block
    retires them too."""

    __tablename__ = "future_orders"
    __table_args__ = (Index(None, "game_id", "phase", "active"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    player_id: Mapped[int] = mapped_column(ForeignKey("players.id", ondelete="CASCADE"))
    #: The phase code the orders are for ("F1902M", "S1901R", "W1901A").
    phase: Mapped[str] = mapped_column(String)
    #: The line as written, or the lines of one IF block from its IF to its ENDIF.
    lines: Mapped[list[str]] = mapped_column(JSONDocument)
    active: Mapped[bool] = mapped_column(default=True)
    inbound_id: Mapped[int | None] = mapped_column(ForeignKey("inbound.id", ondelete="SET NULL"))
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"FutureOrder(game_id={self.game_id!r}, phase={self.phase!r}, lines={self.lines!r})"


class PictureKind(enum.StrEnum):
    """The values of ``pictures.kind``."""

    #: A phase's board as it stands (its units, centres, a retreat phase's dislodged units).
    BOARD = "board"
    #: A processed phase with the orders given in it and how they fared.
    RESULTS = "results"


class Picture(Base):
    """A drawn map of a game's phase (PNG), stored once and sent with every mail that
    names it (``OutboundMessage.attachments``): one row per game, phase and kind, never
    drawn over (a mail sent again carries the same bytes); a ROLLBACK deletes the rows of
    the phases it undoes, so that a phase played again gets a new one.  ``png`` is NULL
    until the picture is drawn: the transaction that queues a mail only asks for it, and
    the sender draws it outside any write transaction (:mod:`judge.services.pictures`)."""

    __tablename__ = "pictures"
    __table_args__ = (
        UniqueConstraint("game_id", "phase", "kind"),
        _one_of("kind", PictureKind),
        # Ids are never used again (SQLite would reuse the highest after a delete): a mail
        # queued before a ROLLBACK must not carry the picture of the phase played again.
        {"sqlite_autoincrement": True},
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    game_id: Mapped[int] = mapped_column(ForeignKey("games.id", ondelete="CASCADE"))
    #: The phase code, e.g. "S1901M".
    phase: Mapped[str] = mapped_column(String)
    kind: Mapped[str] = mapped_column(String)
    #: The PNG; None while the picture is still to draw.
    png: Mapped[bytes | None] = mapped_column(LargeBinary)
    #: When it was asked for (a board's caption gives this day).
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

    def __repr__(self) -> str:
        return f"Picture(game_id={self.game_id!r}, phase={self.phase!r}, kind={self.kind!r})"


class JudgeProcess(Base):
    """A judge process at work on the database (``judge serve``, each of its worker
    processes, a one-shot command that takes work), so that the other judges sharing the
    database know it runs: it writes ``seen_at`` every few seconds, and one whose row is
    older than :data:`judge.services.presence.GONE_SECONDS` is gone, its claims free."""

    __tablename__ = "judges"

    #: ``host:pid:start`` (:func:`judge.services.presence.process_token`).
    token: Mapped[str] = mapped_column(String, primary_key=True)
    host: Mapped[str] = mapped_column(String)
    pid: Mapped[int]
    #: "serve", "inbox", "outbox" or the one-shot command's name.
    role: Mapped[str] = mapped_column(String)
    started_at: Mapped[datetime]
    #: The last heartbeat, by the database server's clock on PostgreSQL (the hosts'
    #: clocks may disagree), by the one machine's on SQLite.
    seen_at: Mapped[datetime] = mapped_column(index=True)

    def __repr__(self) -> str:
        return f"JudgeProcess(token={self.token!r}, role={self.role!r})"


# -- the deadline loop's marks ------------------------------------------------------------

#: ``games.wake_at`` of a game the deadline loop must look at as soon as it can.
LOOK_NOW = datetime(1970, 1, 1, tzinfo=UTC)

#: The game columns whose change may move what is due when (the deadline, the phase, the
#: status, the per-phase settings: grace, early, remind, NMR policy).
_WAKE_COLUMNS = ("status", "phase", "seq", "deadline", "settings", "rules")

#: Rows with a ``game_id`` whose change cannot make anything due sooner: what the
#: deadline loop itself writes when it looks at a game (notices, mail, pictures), and the
#: press.  Every other row of a game (orders, seats, WAIT, votes, proposals, rollbacks...)
#: marks it, so that a new kind of row is on the safe side by default.
_UNMARKING = frozenset({"notices", "outbox", "pictures", "press", "signon_guards", "observers"})


@event.listens_for(Session, "before_flush")
def _mark_changed_games(session: Session, _context: object, _instances: object) -> None:
    """Mark for the deadline loop (``wake_at = LOOK_NOW``) every game whose schedule may
    have moved in this flush, in the same transaction: one place for every path that sets
    a deadline, processes a phase, pauses, resumes, rolls back or takes an order, so that
    none can forget it.  Orders written by Core statements are marked by their queries
    (:func:`judge.db.queries.mark_games`)."""
    game_ids: set[int] = set()
    for obj in (*session.new, *session.dirty, *session.deleted):
        if isinstance(obj, Game):
            if obj in session.new or any(
                get_history(obj, name).has_changes() for name in _WAKE_COLUMNS
            ):
                obj.wake_at = LOOK_NOW
            continue
        table = getattr(obj, "__tablename__", None)
        game_id = getattr(obj, "game_id", None)
        if isinstance(obj, ProposalBallot):
            # A ballot names its proposal; the votes still out may hold the phase.
            proposal = session.get(Proposal, obj.proposal_id)
            game_id = proposal.game_id if proposal is not None else None
        if table is not None and table not in _UNMARKING and isinstance(game_id, int):
            game_ids.add(game_id)
    for game_id in game_ids:
        game = session.get(Game, game_id)
        if game is not None and game.wake_at != LOOK_NOW:
            game.wake_at = LOOK_NOW
