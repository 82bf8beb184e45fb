"""When the deadline loop must next look at a game (``games.wake_at``, indexed), and the
deadline that moment was worked out for (``games.wake_deadline``).  Every active game is
marked to be looked at once (the judge works out its moment at its first pass).

Revision ID: 0014
Revises: 0013
Create Date: 2026-11-25 12:00:00.000000
"""

from collections.abc import Sequence
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0014"
down_revision: str | Sequence[str] | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("wake_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("wake_deadline", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_wake_at"), ["wake_at"], unique=False)
    games = sa.table(
        "games", sa.column("status", sa.String()), sa.column("wake_at", sa.DateTime(timezone=True))
    )
    # judge.db.models.LOOK_NOW, written out: a migration does not follow the models.
    op.execute(
        games.update()
        .where(games.c.status == "active")
        .values(wake_at=datetime(1970, 1, 1, tzinfo=UTC))
    )


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_wake_at"))
        batch_op.drop_column("wake_deadline")
        batch_op.drop_column("wake_at")
