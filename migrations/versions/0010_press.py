"""Press: the ``press`` table (press messages, broadcasts and press releases).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-24 15:10:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0010"
down_revision: str | Sequence[str] | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "press",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(), nullable=True),
        sa.Column("sender_role", sa.String(), nullable=False),
        sa.Column("sender_power", sa.String(), nullable=True),
        sa.Column("sender_address", sa.String(), nullable=False),
        sa.Column("signed", sa.String(), nullable=False),
        sa.Column("shown_from", sa.String(), nullable=True),
        sa.Column("shown_to", sa.String(), nullable=False),
        sa.Column("recipients", sa.JSON(), nullable=False),
        sa.Column("body", sa.Text(), nullable=False),
        sa.Column("release", sa.Boolean(), nullable=False),
        sa.Column("dateline", sa.String(), nullable=True),
        sa.Column("conditions", sa.JSON(), nullable=True),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("published_seq", sa.Integer(), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=True),
        sa.Column("inbound_id", sa.Integer(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "state IN ('sent', 'held', 'published', 'withheld')", name=op.f("ck_press_state")
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_press_game_id_games"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["inbound_id"],
            ["inbound.id"],
            name=op.f("fk_press_inbound_id_inbound"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_press")),
    )
    op.create_index("ix_press_game_id_created_at", "press", ["game_id", "created_at"])
    op.create_index("ix_press_sender_address_created_at", "press", ["sender_address", "created_at"])


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_index("ix_press_sender_address_created_at", table_name="press")
    op.drop_index("ix_press_game_id_created_at", table_name="press")
    op.drop_table("press")
