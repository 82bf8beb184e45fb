"""Intake guards: a 'parked' state and the original size of inbound mail; the sender
process that holds an outbox message.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0006"
down_revision: str | Sequence[str] | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OLD_STATES = "state IN ('new', 'done', 'ignored', 'failed')"
_NEW_STATES = "state IN ('new', 'done', 'ignored', 'failed', 'parked')"


def _inbound(states: str, *, size: bool) -> sa.Table:
    """The inbound table as it is before the change (SQLite changes a CHECK constraint by
    copying the table; batch mode does not reflect CHECK constraints, so it is given)."""
    columns = [
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("message_id", sa.String(), nullable=False),
        sa.Column("sender", sa.String(), nullable=True),
        sa.Column("subject", sa.String(), nullable=True),
        sa.Column("raw", sa.LargeBinary(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=True),
        sa.Column("processed_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("attempts", sa.Integer(), nullable=False),
    ]
    if size:
        columns.append(sa.Column("size", sa.Integer(), nullable=True))
    return sa.Table(
        "inbound",
        sa.MetaData(),
        *columns,
        sa.CheckConstraint(states, name=op.f("ck_inbound_state")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_inbound")),
        sa.UniqueConstraint("message_id", name=op.f("uq_inbound_message_id")),
        sa.Index("ix_inbound_state", "state"),
    )


def upgrade() -> None:
    """Upgrade the schema."""
    # Nullable: a message stored before has its size in len(raw) (stored whole).
    with op.batch_alter_table(
        "inbound", schema=None, copy_from=_inbound(_OLD_STATES, size=False)
    ) as batch_op:
        batch_op.add_column(sa.Column("size", sa.Integer(), nullable=True))
        batch_op.drop_constraint(batch_op.f("ck_inbound_state"), type_="check")
        batch_op.create_check_constraint("state", sa.text(_NEW_STATES))
    with op.batch_alter_table("outbox", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("claimed_by", sa.String(), nullable=True))


def downgrade() -> None:
    """Downgrade the schema."""
    # A parked message becomes one that failed its last attempt: still kept, not retried
    # (its attempts are at the limit).
    op.execute("UPDATE inbound SET state = 'failed' WHERE state = 'parked'")
    with op.batch_alter_table("outbox", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("claimed_by")
    with op.batch_alter_table(
        "inbound", schema=None, copy_from=_inbound(_NEW_STATES, size=True)
    ) as batch_op:
        batch_op.drop_constraint(batch_op.f("ck_inbound_state"), type_="check")
        batch_op.create_check_constraint("state", sa.text(_OLD_STATES))
        batch_op.drop_column("size")
