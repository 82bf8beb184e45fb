"""Outbox sender index: the per-sender reply ration counts a sender's recent mail.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23 12:28:11.254738
"""

from collections.abc import Sequence

from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0004"
down_revision: str | Sequence[str] | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    # A plain index: no table copy is needed, even on SQLite.
    op.create_index("ix_outbox_to_addr_created_at", "outbox", ["to_addr", "created_at"])


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_index("ix_outbox_to_addr_created_at", table_name="outbox")
