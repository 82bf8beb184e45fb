"""What a game file last applied, so that a reload applies only what the game master changed.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-25 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0005"
down_revision: str | Sequence[str] | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    # Existing games get NULL: the judge then takes each game's file, as it is when it
    # next looks at it, as already applied (judge.services.games.legacy_applied), so that
    # upgrading re-applies nothing.  That needs the config parser and password hashing,
    # which a migration should not import, hence not done here.
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("file_applied", sa.JSON(), nullable=True))


def downgrade() -> None:
    """Downgrade the schema."""
    # Never copy the games table (every other table refers to it): SQLite 3.35+ drops a
    # plain column with ALTER TABLE DROP COLUMN, as PostgreSQL does.
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("file_applied")
