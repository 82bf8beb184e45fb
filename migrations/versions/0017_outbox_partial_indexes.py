"""The outbox's queued mail and mail holding a password in partial indexes.

``ix_outbox_state`` and ``ix_outbox_next_attempt_at`` held an entry for every version of
every mail ever sent, the dead ones too until a vacuum (each claim and each "sent" wrote
a new version): after a burst PostgreSQL read tens of thousands of them at every look of
the sender for the few queued mails.  ``ix_outbox_queued`` holds only the queued mail,
``ix_outbox_secret_flagged`` only the mail still holding a password; the queries say the
same conditions word for word (``judge.db.models.QUEUED_MAIL``, ``SECRET_MAIL``).

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-06 11:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0017"
down_revision: str | Sequence[str] | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

QUEUED = sa.text("state = 'queued'")
SECRET = {"sqlite": sa.text("secret IS 1"), "postgresql": sa.text("secret IS true")}


def upgrade() -> None:
    """Upgrade the schema."""
    op.drop_index("ix_outbox_state", table_name="outbox")
    op.drop_index("ix_outbox_next_attempt_at", table_name="outbox")
    op.drop_index("ix_outbox_secret", table_name="outbox")
    op.create_index(
        "ix_outbox_queued", "outbox", ["id"], sqlite_where=QUEUED, postgresql_where=QUEUED
    )
    op.create_index(
        "ix_outbox_secret_flagged",
        "outbox",
        ["id"],
        sqlite_where=SECRET["sqlite"],
        postgresql_where=SECRET["postgresql"],
    )


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_index("ix_outbox_secret_flagged", table_name="outbox")
    op.drop_index("ix_outbox_queued", table_name="outbox")
    op.create_index("ix_outbox_secret", "outbox", ["secret"])
    op.create_index("ix_outbox_next_attempt_at", "outbox", ["next_attempt_at"])
    op.create_index("ix_outbox_state", "outbox", ["state"])
