"""Every DATC case, from the project's own transcription (no file outside the repository).

``datc_2023.txt`` is the DATC 3.0 set under the 2023 rules; ``datc_2000.txt`` holds the
DATC 2.4 cases that differ, under the 2000 rules.  Orders marked ``=> CODE`` must be
rejected with that code, and no other order may be rejected.
"""

from __future__ import annotations

import pytest
from support import TESTS

from judge.datc import Case, parse_cases, run_case
from judge.engine import Edition, Rules

HERE = TESTS / "datc"
FILES = {"datc_2023.txt": Edition.R2023, "datc_2000.txt": Edition.R2000}


def _cases() -> list[tuple[str, Case]]:
    out = []
    for name in FILES:
        for case in parse_cases((HERE / name).read_text(encoding="utf-8")):
            out.append((name, case))
    return out


CASES = _cases()


def test_case_counts() -> None:
    counts = {name: sum(1 for n, _c in CASES if n == name) for name in FILES}
    assert counts == {"datc_2023.txt": 174, "datc_2000.txt": 21}


@pytest.mark.parametrize(("filename", "case"), CASES, ids=[f"{n[:9]}:{c.name}" for n, c in CASES])
def test_datc_case(filename: str, case: Case) -> None:
    outcome = run_case(case, Rules(FILES[filename]))
    assert outcome.passed, "; ".join(outcome.problems)


def test_illegal_orders_carry_codes() -> None:
    # The transcription records a rejection code wherever the DATC calls an order illegal.
    codes = [code for _n, c in CASES for _p, _t, code in c.orders if code]
    assert len(codes) >= 60
    assert {"FAR", "NYU", "NSA", "CST", "NRS", "NRN", "MBE", "YSC", "HSC", "ESC", "NMB"} <= set(
        codes
    )


def test_fleet_retreat_option_naming_a_split_province() -> None:
    # "dislodged France F mao spa": the fleet may go to either coast it reaches.
    (case,) = parse_cases(
        "case X.1\n"
        "phase S1901R\n"
        "unit Italy F mao\n"
        "dislodged France F mao spa\n"
        "order France F mao-spa/sc\n"
        "after Italy F mao\n"
        "after France F spa/sc\n"
    )
    outcome = run_case(case)
    assert outcome.passed, outcome.problems
