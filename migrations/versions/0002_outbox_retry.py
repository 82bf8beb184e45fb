"""Outbox retries: outbox.next_attempt_at, when a queued message may be tried again.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23 11:29:01.099644
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0002"
down_revision: str | Sequence[str] | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    # Nullable with no default: every message already queued is due at once, as before.
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.add_column(sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=True))
        batch_op.create_index(
            batch_op.f("ix_outbox_next_attempt_at"), ["next_attempt_at"], unique=False
        )


def downgrade() -> None:
    """Downgrade the schema."""
    # On SQLite, batch mode drops a column by copying the table (nothing refers to the
    # outbox, so no foreign key breaks), which needs the live table to reflect. Offline
    # (--sql) there is none: the script then uses ALTER TABLE DROP COLUMN (SQLite 3.35+).
    offline = op.get_context().as_sql
    with op.batch_alter_table(
        "outbox", schema=None, recreate="never" if offline else "auto"
    ) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_next_attempt_at"))
        batch_op.drop_column("next_attempt_at")
