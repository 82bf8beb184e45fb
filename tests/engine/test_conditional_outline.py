"""Conditional orders: the other spellings of ELSE IF and ENDIF, which branch a position
takes (``taken``), and the structure written out again (``outline``)."""

from __future__ import annotations

import pytest
from support.enginekit import MAP, pos

from judge.engine.conditional import (
    NONE_TAKEN,
    TAKEN,
    IfBlock,
    choose,
    outline,
    parse_blocks,
    taken,
)

#: Germany: A Mun, F Kie; France owns Bel, nobody owns Hol.
POS = pos(
    "S1902M",
    [("Germany", "A", "mun"), ("Germany", "F", "kie")],
    {"bel": "France", "mun": "Germany", "kie": "Germany"},
)


def block(*lines: str) -> IfBlock:
    (item,) = parse_blocks(lines, MAP)
    assert isinstance(item, IfBlock)
    return item


@pytest.mark.parametrize("else_if", ["ELSE IF", "ELSEIF", "ElsIf", "elsif", "else  if"])
@pytest.mark.parametrize("end", ["ENDIF", "END IF", "end if", "End\tIf"])
def test_else_if_and_endif_spellings_read_alike(else_if: str, end: str) -> None:
    read = block(
        "IF Hol OWNED", "A Mun-Ruh", f"{else_if} F Kie", "F Kie-Hol", "ELSE", "A Mun H", end
    )
    assert read == block(
        "IF Hol OWNED", "A Mun-Ruh", "ELSE IF F Kie", "F Kie-Hol", "ELSE", "A Mun H", "ENDIF"
    )
    assert [b.text for b in read.branches] == ["Hol OWNED", "F Kie"]
    assert choose([read], POS) == ["F Kie-Hol"]


@pytest.mark.parametrize(
    ("lines", "message"),
    [
        (["ELSEIF A Mun", "ENDIF"], "line 1: 'ELSEIF A Mun' without IF"),
        (["END IF"], "line 1: 'END IF' without IF"),
        (["IF A Mun", "ELSIF", "ENDIF"], "line 2: 'ELSIF' has no condition; write e.g. 'IF A Mun'"),
        (["IF A Mun", "END IF now"], "line 2: 'END IF now': expected 'ENDIF' alone"),
        (
            ["IF A Mun", "ELSE", "ELSEIF F Kie", "ENDIF"],
            "line 3: 'ELSEIF F Kie' after the ELSE of the IF on line 1",
        ),
    ],
)
def test_the_other_spellings_name_the_line_in_errors(lines: list[str], message: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_blocks(lines, MAP)
    assert str(caught.value) == message


def test_taken_gives_the_first_branch_that_holds_the_else_or_none() -> None:
    read = block(
        "IF Hol OWNED", "A", "ELSE IF A Mun", "B", "ELSE IF F Kie", "C", "ELSE", "D", "ENDIF"
    )
    assert taken(read, POS) == 1  # A Mun holds first; F Kie too, but later
    assert taken(block("IF Hol OWNED", "A", "ELSE", "D", "ENDIF"), POS) == 1  # the ELSE
    assert taken(block("IF Hol OWNED", "A", "ELSE IF A Ber", "B", "ENDIF"), POS) is None
    assert taken(block("IF Bel OWNED BY France", "A", "ENDIF"), POS) == 0


NESTED = [
    "A Mun H",
    "if Bel owned by France then",
    "IF NOT F Kie",
    "F Kie-Den",
    "ENDIF",
    "ELSEIF Hol OWNED",
    "A Mun-Ruh",
    "ELSE",
    "IF A Mun",
    "A Mun-Tyr",
    "END IF",
    "ENDIF",
    "IF A Ber",
    "A Ber-Sil",
    "ENDIF",
]


def test_outline_without_a_position_writes_the_structure_indented() -> None:
    assert outline(parse_blocks(NESTED, MAP)) == [
        "A Mun H",
        "IF Bel owned by France",
        "  IF NOT F Kie",
        "    F Kie-Den",
        "  ENDIF",
        "ELSE IF Hol OWNED",
        "  A Mun-Ruh",
        "ELSE",
        "  IF A Mun",
        "    A Mun-Tyr",
        "  ENDIF",
        "ENDIF",
        "IF A Ber",
        "  A Ber-Sil",
        "ENDIF",
    ]


def test_outline_with_a_position_marks_the_branches_taken() -> None:
    # Bel is French: the first branch is taken, and the block inside it takes no branch;
    # the ELSE is not taken, so the block inside it is not decided (no mark at all).
    assert outline(parse_blocks(NESTED, MAP), POS, indent="  ") == [
        "  A Mun H",
        f"  IF Bel owned by France{TAKEN}",
        "    IF NOT F Kie",
        "      F Kie-Den",
        f"    ENDIF{NONE_TAKEN}",
        "  ELSE IF Hol OWNED",
        "    A Mun-Ruh",
        "  ELSE",
        "    IF A Mun",
        "      A Mun-Tyr",
        "    ENDIF",
        "  ENDIF",
        "  IF A Ber",
        "    A Ber-Sil",
        f"  ENDIF{NONE_TAKEN}",
    ]
    assert TAKEN == "  <- taken" and NONE_TAKEN == "  <- no branch taken"
    assert choose(parse_blocks(NESTED, MAP), POS) == ["A Mun H"]


def test_outline_marks_an_else_taken_and_decides_the_blocks_inside_it() -> None:
    lines = ["IF Hol OWNED", "A Mun-Ruh", "ELSE", "IF A Mun", "A Mun-Tyr", "ENDIF", "ENDIF"]
    assert outline(parse_blocks(lines, MAP), POS) == [
        "IF Hol OWNED",
        "  A Mun-Ruh",
        f"ELSE{TAKEN}",
        f"  IF A Mun{TAKEN}",
        "    A Mun-Tyr",
        "  ENDIF",
        "ENDIF",
    ]
