"""Deadline notices (reminders, late notices) sent once each; players' declared absences.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-24 09:12:40.518306
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0003"
down_revision: str | Sequence[str] | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "notices",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=True),
        sa.Column("day", sa.Integer(), nullable=False),
        sa.Column("sent_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "kind IN ('reminder', 'late', 'late-others')", name=op.f("ck_notices_kind")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_notices_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_notices_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_notices")),
        sa.UniqueConstraint(
            "game_id",
            "seq",
            "kind",
            "player_id",
            "day",
            name=op.f("uq_notices_game_id_seq_kind_player_id_day"),
        ),
    )
    # The server default fills the rows already there (every existing player has used no
    # absence); the two dates stay NULL, "not away".
    with op.batch_alter_table("players", schema=None) as batch_op:
        batch_op.add_column(sa.Column("absence_from", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(sa.Column("absence_to", sa.DateTime(timezone=True), nullable=True))
        batch_op.add_column(
            sa.Column("absences_used", sa.Integer(), server_default="0", nullable=False)
        )


def downgrade() -> None:
    """Downgrade the schema."""
    # Never copy the players table: orders and notices refer to it, and the copy would have
    # to carry its CHECK and UNIQUE constraints across. SQLite 3.35+ drops a plain column
    # with ALTER TABLE DROP COLUMN, as PostgreSQL does.
    with op.batch_alter_table("players", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("absences_used")
        batch_op.drop_column("absence_to")
        batch_op.drop_column("absence_from")
    op.drop_table("notices")
