"""Wrong sign-on passwords counted per seat (lockouts); outbox mail that holds a password.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0007"
down_revision: str | Sequence[str] | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "signon_guards",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("seat", sa.String(), nullable=False),
        sa.Column("registered", sa.Boolean(), nullable=False),
        sa.Column("failures", sa.Integer(), nullable=False),
        sa.Column("window_start", sa.DateTime(timezone=True), nullable=True),
        sa.Column("locked_until", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["game_id"],
            ["games.id"],
            name=op.f("fk_signon_guards_game_id_games"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_signon_guards")),
        sa.UniqueConstraint(
            "game_id", "seat", "registered", name=op.f("uq_signon_guards_game_id_seat_registered")
        ),
    )
    # Mail already queued or sent is not flagged: the judge cannot tell now which bodies
    # hold a password (the server default marks them all "no").  A plain column and an
    # index: no table copy is needed, even on SQLite.
    with op.batch_alter_table("outbox", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("secret", sa.Boolean(), server_default="0", nullable=False))
    op.create_index(op.f("ix_outbox_secret"), "outbox", ["secret"])


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_index(op.f("ix_outbox_secret"), table_name="outbox")
    with op.batch_alter_table("outbox", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("secret")
    op.drop_table("signon_guards")
