"""Open seats: a seat's takeover password, and when its player was ejected.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 14:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0009"
down_revision: str | Sequence[str] | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    with op.batch_alter_table("players", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("takeover_hash", sa.String(), nullable=True))
        batch_op.add_column(sa.Column("ejected_at", sa.DateTime(timezone=True), nullable=True))


def downgrade() -> None:
    """Downgrade the schema."""
    with op.batch_alter_table("players", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("ejected_at")
        batch_op.drop_column("takeover_hash")
