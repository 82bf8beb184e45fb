"""Several judges on one database: the running judge processes (``judges``, each with its
heartbeat) and the claims they hold (``inbound.claimed_by``, not indexed, and
``games.claimed_by``, indexed).

APScheduler's job store (``apscheduler_jobs``, a table APScheduler made for itself) is
dropped: several schedulers cannot share one, so each judge now keeps its one timer in
memory; ``games.wake_at`` is the durable truth the timer is worked out from.

Revision ID: 0016
Revises: 0015
Create Date: 2026-11-28 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0016"
down_revision: str | Sequence[str] | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    op.create_table(
        "judges",
        sa.Column("token", sa.String(), nullable=False),
        sa.Column("host", sa.String(), nullable=False),
        sa.Column("pid", sa.Integer(), nullable=False),
        sa.Column("role", sa.String(), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seen_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token", name=op.f("pk_judges")),
    )
    with op.batch_alter_table("judges", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_judges_seen_at"), ["seen_at"], unique=False)
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(), nullable=True))
        batch_op.create_index(batch_op.f("ix_games_claimed_by"), ["claimed_by"], unique=False)
    with op.batch_alter_table("inbound", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(), nullable=True))
    op.execute("DROP TABLE IF EXISTS apscheduler_jobs")


def downgrade() -> None:
    """Downgrade the schema (APScheduler makes its table again if it is used)."""
    with op.batch_alter_table("inbound", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("claimed_by")
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.drop_index(batch_op.f("ix_games_claimed_by"))
        batch_op.drop_column("claimed_by")
    with op.batch_alter_table("judges", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_judges_seen_at"))
    op.drop_table("judges")
