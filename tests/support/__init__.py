"""What the tests share: the servers they start (Dovecot, PostgreSQL, an SMTP sink), small
builders for engine and service tests, and where the test data lives.

Benchmarks may import from here; nothing here imports a benchmark or a test module.
"""

from pathlib import Path

#: The ``tests`` directory.
TESTS = Path(__file__).resolve().parent.parent
#: The project's root (where ``pyproject.toml`` is).
ROOT = TESTS.parent
#: Test data: sample mail (``mail/``), DATC files (``datc/``), golden emails (``golden/``).
DATA = TESTS / "data"
