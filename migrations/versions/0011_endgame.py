"""Ending a game by agreement: the njudge's standing votes (``votes``), the house rules'
proposals and their ballots (``proposals``, ``proposal_ballots``), and how a finished game
placed the powers (``games.result``).

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-24 17:30:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

# revision identifiers, used by Alembic.
revision: str = "0011"
down_revision: str | Sequence[str] | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    """Upgrade the schema."""
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.add_column(sa.Column("result", sa.JSON(), nullable=True))
    op.create_table(
        "votes",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(), nullable=False),
        sa.Column("kind", sa.String(), nullable=False),
        sa.Column("powers", sa.JSON(), nullable=True),
        sa.Column("cast_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint("kind IN ('draw', 'concede')", name=op.f("ck_votes_kind")),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_votes_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_votes")),
        sa.UniqueConstraint("game_id", "power", "kind", name=op.f("uq_votes_game_id_power_kind")),
    )
    op.create_table(
        "proposals",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(), nullable=False),
        sa.Column("terms", sa.JSON(), nullable=False),
        sa.Column("note", sa.Text(), nullable=False),
        sa.Column("proposer_role", sa.String(), nullable=False),
        sa.Column("proposer_power", sa.String(), nullable=True),
        sa.Column("abstain_assent", sa.Boolean(), nullable=False),
        sa.Column("repeat", sa.Boolean(), nullable=False),
        sa.Column("state", sa.String(), nullable=False),
        sa.Column("tally", sa.JSON(), nullable=True),
        sa.Column("decide_by", sa.DateTime(timezone=True), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("closed_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "state IN ('open', 'passed', 'defeated', 'awaiting', 'declined', 'void')",
            name=op.f("ck_proposals_state"),
        ),
        sa.ForeignKeyConstraint(
            ["game_id"], ["games.id"], name=op.f("fk_proposals_game_id_games"), ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposals")),
        sa.UniqueConstraint("game_id", "number", name=op.f("uq_proposals_game_id_number")),
    )
    op.create_table(
        "proposal_ballots",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("proposal_id", sa.Integer(), nullable=False),
        sa.Column("power", sa.String(), nullable=False),
        sa.Column("ballot", sa.String(), nullable=False),
        sa.Column("cast_at", sa.DateTime(timezone=True), nullable=False),
        sa.CheckConstraint(
            "ballot IN ('yes', 'no', 'abstain')", name=op.f("ck_proposal_ballots_ballot")
        ),
        sa.ForeignKeyConstraint(
            ["proposal_id"],
            ["proposals.id"],
            name=op.f("fk_proposal_ballots_proposal_id_proposals"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_proposal_ballots")),
        sa.UniqueConstraint(
            "proposal_id", "power", name=op.f("uq_proposal_ballots_proposal_id_power")
        ),
    )


def downgrade() -> None:
    """Downgrade the schema."""
    op.drop_table("proposal_ballots")
    op.drop_table("proposals")
    op.drop_table("votes")
    with op.batch_alter_table("games", schema=None, recreate="never") as batch_op:
        batch_op.drop_column("result")
