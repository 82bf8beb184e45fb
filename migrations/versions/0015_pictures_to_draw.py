"""A picture asked for and not drawn yet: ``pictures.png`` may be NULL ("to draw").

The transaction that queues a mail (an adjudication, a game's start) records only which
picture the mail carries; the sender draws it outside any write transaction and fills the
row in (:mod:`judge.services.pictures`).

SQLite cannot drop a NOT NULL in place: the table is copied (batch mode) from its full
definition, keeping ``AUTOINCREMENT`` and the highest id ever given (ids are never used
again: a mail queued before a ROLLBACK must not carry the picture of the phase played
again).  Down again, the pictures not drawn yet are forgotten (their mails go without
them, as with a picture that is gone).

Revision ID: 0015
Revises: 0014
Create Date: 2026-11-27 10:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0015"
down_revision: str | Sequence[str] | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _pictures(png_nullable: bool) -> sa.Table:
    """The ``pictures`` table as 0013 made it, ``png`` NULL or not: SQLite's copy is made
    from this, not from what reflection finds (which leaves out CHECK and AUTOINCREMENT)."""
    return sa.Table(
        "pictures",
        sa.MetaData(),
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("png", sa.LargeBinary(), nullable=png_nullable),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('board', 'results')", name="ck_pictures_kind"),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name="fk_pictures_game_id_games", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_pictures"),
        sa.UniqueConstraint("game_id", "phase", "kind", name="uq_pictures_game_id_phase_kind"),
        sqlite_autoincrement=True,
    )


def _set_png_nullable(nullable: bool) -> None:
    """``pictures.png`` NULL or NOT NULL; on SQLite by a copy of the table that keeps the
    sequence of ids where it was."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        op.alter_column("pictures", "png", existing_type=sa.LargeBinary(), nullable=nullable)
        return
    # Plain SQL, so that the offline script (``alembic upgrade --sql``) keeps it too.
    op.execute(
        "CREATE TEMP TABLE pictures_sequence AS "
        "SELECT seq FROM sqlite_sequence WHERE name = 'pictures'"
    )
    with op.batch_alter_table(
        "pictures", copy_from=_pictures(not nullable), recreate="always"
    ) as batch_op:
        batch_op.alter_column("png", existing_type=sa.LargeBinary(), nullable=nullable)
    # The copy's sequence is its highest id; the highest ever given may be above it.
    op.execute("DELETE FROM sqlite_sequence WHERE name = 'pictures'")
    op.execute(
        "INSERT INTO sqlite_sequence (name, seq) SELECT 'pictures', seq FROM pictures_sequence"
    )
    op.execute("DROP TABLE pictures_sequence")


def upgrade() -> None:
    """Upgrade the schema."""
    _set_png_nullable(True)


def downgrade() -> None:
    """Downgrade the schema."""
    op.execute("DELETE FROM pictures WHERE png IS NULL")
    _set_png_nullable(False)
