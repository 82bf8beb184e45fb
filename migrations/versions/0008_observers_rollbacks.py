"""Observers, the archive of rolled-back phases, how a game ended.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 12:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0008"
down_revision: str | Sequence[str] | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "observers",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("address", sa.String(), nullable=False),
        sa.Column("timezone", sa.String(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_observers_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_observers")),
        sa.UniqueConstraint("game_id", "address", name=op.f("uq_observers_game_id_address")),
    )
    op.create_table(
        "rollbacks",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("from_seq", sa.Integer(), nullable=False),
        sa.Column("from_phase", sa.String(), nullable=False),
        sa.Column("to_seq", sa.Integer(), nullable=False),
        sa.Column("to_phase", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("undone", sa.JSON(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_rollbacks_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_rollbacks")),
    )
    op.create_index(op.f("ix_rollbacks_game_id"), "rollbacks", ["game_id"])
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("ending", sa.String(), nullable=True))
        batch_op.add_column(sa.Column("observer_password_hash", sa.String(), nullable=True))


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("observer_password_hash")
        batch_op.drop_column("ending")
    op.drop_index(op.f("ix_rollbacks_game_id"), table_name="rollbacks")
    op.drop_table("rollbacks")
    op.drop_table("observers")
