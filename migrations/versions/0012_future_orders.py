"""Orders sent ahead (``PHASE`` blocks, and a two-season game's retreats and
adjustments): ``future_orders``.

Revision ID: 0012
Revises: 0011
Create Date: 2026-11-24 21:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0012"
down_revision: str | Sequence[str] | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "future_orders",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("player_id", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(), nullable=False),
        sa.Column("lines", sa.JSON(), nullable=False),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_future_orders_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound.id"],
            name=op.f("fk_future_orders_inbound_id_inbound"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["player_id"],
            ["players.id"],
            name=op.f("fk_future_orders_player_id_players"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_future_orders")),
    )
    with op.batch_alter_table("future_orders", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_future_orders_game_id_phase_active"),
            ["game_id", "phase", "active"],
            unique=False,
        )


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_table("future_orders")
