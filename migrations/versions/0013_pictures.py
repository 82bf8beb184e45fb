"""The map picture: drawn phases (``pictures``, stored once per game, phase and kind) and
the pictures a mail carries (``outbox.attachments``).

Revision ID: 0013
Revises: 0012
Create Date: 2026-11-25 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0013"
down_revision: str | Sequence[str] | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "pictures",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("png", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('board', 'results')", name=op.f("ck_pictures_kind")),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_pictures_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pictures")),
        sa.UniqueConstraint(
            "game_id", "phase", "kind", name=op.f("uq_pictures_game_id_phase_kind")
        ),
        sqlite_autoincrement=True,
    )
    with op.batch_alter_table("outbox", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("attachments", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("outbox", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("attachments")
    op.drop_table("pictures")
