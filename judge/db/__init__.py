"""The judge's storage: SQLAlchemy models, sessions and the migrations that build the schema.

All SQL lives in this package. Start with :func:`upgrade` (creates or updates the database),
then :func:`make_engine` and :func:`make_sessionmaker`.
"""

from judge.db.models import (
    Base,
    Game,
    GameStatus,
    InboundMessage,
    InboundState,
    OrderRecord,
    OutboundMessage,
    OutboundState,
    PhaseRecord,
    Player,
    PlayerStatus,
)
from judge.db.session import (
    current_revision,
    default_url,
    downgrade,
    make_engine,
    make_sessionmaker,
    upgrade,
)
from judge.db.types import JSONDocument, UTCDateTime

__all__ = [
    "Base",
    "Game",
    "GameStatus",
    "InboundMessage",
    "InboundState",
    "JSONDocument",
    "OrderRecord",
    "OutboundMessage",
    "OutboundState",
    "PhaseRecord",
    "Player",
    "PlayerStatus",
    "UTCDateTime",
    "current_revision",
    "default_url",
    "downgrade",
    "make_engine",
    "make_sessionmaker",
    "upgrade",
]
