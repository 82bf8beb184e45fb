"""Conditional orders: conditions read from text, judged against a position, and IF / ELSE
IF / ELSE / ENDIF blocks resolved to the order lines of the branches taken."""

from __future__ import annotations

import pytest
from support.enginekit import MAP, pos

from judge.engine import Position
from judge.engine.conditional import (
    MAX_DEPTH,
    MAX_TOKENS,
    All,
    Any,
    Branch,
    CentreOwned,
    IfBlock,
    Item,
    Not,
    UnitPresent,
    choose,
    holds,
    parse_blocks,
    parse_condition,
)
from judge.engine.units import UnitType

ARMY, FLEET = UnitType.ARMY, UnitType.FLEET

#: Germany: A Mun, F Kie; Russia: F Stp/sc; France owns Bel, nobody owns Hol.
POS = pos(
    "S1902M",
    [("Germany", "A", "mun"), ("Germany", "F", "kie"), ("Russia", "F", "stp/sc")],
    {"bel": "France", "mun": "Germany", "kie": "Germany"},
)


@pytest.mark.parametrize(
    ("text", "condition"),
    [
        ("A Mun", UnitPresent(None, ARMY, "mun")),
        ("F Kie", UnitPresent(None, FLEET, "kie")),
        ("Army Munich", UnitPresent(None, ARMY, "mun")),
        ("fleet kiel", UnitPresent(None, FLEET, "kie")),
        ("Mun", UnitPresent(None, None, "mun")),
        ("GERMAN F Kie", UnitPresent("Germany", FLEET, "kie")),
        ("German A Mun", UnitPresent("Germany", ARMY, "mun")),
        ("Germany Mun", UnitPresent("Germany", None, "mun")),
        ("F Stp/nc", UnitPresent(None, FLEET, "stp/nc")),
        ("F stp nc", UnitPresent(None, FLEET, "stp/nc")),
        ("F Stp", UnitPresent(None, FLEET, "stp")),
        ("A North Africa", UnitPresent(None, ARMY, "naf")),
        ("Bel OWNED", CentreOwned("bel", None)),
        ("bel owned by france", CentreOwned("bel", "France")),
        ("Belgium Owned By French", CentreOwned("bel", "France")),
        ("NOT A Bur", Not(UnitPresent(None, ARMY, "bur"))),
        ("not not Mun", Not(Not(UnitPresent(None, None, "mun")))),
    ],
)
def test_each_form_is_read(text: str, condition: object) -> None:
    assert parse_condition(text, MAP) == condition


def test_not_binds_tighter_than_and_and_and_tighter_than_or() -> None:
    mun, kie, bur = (
        UnitPresent(None, t, p) for t, p in ((ARMY, "mun"), (FLEET, "kie"), (ARMY, "bur"))
    )
    assert parse_condition("A Mun OR F Kie AND NOT A Bur", MAP) == Any((mun, All((kie, Not(bur)))))
    assert parse_condition("NOT A Mun AND F Kie OR A Bur", MAP) == Any((All((Not(mun), kie)), bur))
    assert parse_condition("A Mun AND F Kie AND A Bur", MAP) == All((mun, kie, bur))
    assert parse_condition("A Mun OR F Kie OR A Bur", MAP) == Any((mun, kie, bur))


def test_parentheses_override_precedence() -> None:
    mun, kie, bur = (
        UnitPresent(None, t, p) for t, p in ((ARMY, "mun"), (FLEET, "kie"), (ARMY, "bur"))
    )
    assert parse_condition("(A Mun OR F Kie) AND A Bur", MAP) == All((Any((mun, kie)), bur))
    assert parse_condition("NOT (A Mun AND F Kie)", MAP) == Not(All((mun, kie)))
    assert parse_condition("((A Mun))", MAP) == mun
    assert parse_condition("not(A Mun)or(F Kie)", MAP) == Any((Not(mun), kie))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A Mun", True),
        ("F Mun", False),
        ("Mun", True),
        ("German A Mun", True),
        ("French A Mun", False),
        ("F Kie", True),
        ("A Kie", False),
        ("A Bur", False),
        ("NOT A Bur", True),
        ("F Stp", True),
        ("F Stp/sc", True),
        ("F Stp/nc", False),
        ("Russian Stp", True),
        ("Bel OWNED", True),
        ("Bel OWNED BY France", True),
        ("Bel OWNED BY Germany", False),
        ("Hol OWNED", False),
        ("Hol OWNED BY France", False),
        ("NOT Hol OWNED", True),
        # NOT > AND > OR, and parentheses.
        ("A Bur OR A Mun AND F Kie", True),
        ("(A Bur OR A Mun) AND F Ber", False),
        ("A Bur OR A Mun AND F Ber", False),
        ("NOT A Mun OR F Kie", True),
        ("NOT (A Mun OR A Bur)", False),
        ("NOT A Mun AND F Kie", False),
        ("Bel OWNED BY France AND NOT (Hol OWNED OR A Bur)", True),
    ],
)
def test_holds(text: str, expected: bool) -> None:
    assert holds(parse_condition(text, MAP), POS) is expected


def test_a_dislodged_unit_is_not_present() -> None:
    from judge.engine.position import Dislodged
    from judge.engine.units import Unit

    position = pos("F1902R", [], dislodged=[Dislodged(Unit("Germany", ARMY, "mun"), "bur", ())])
    assert holds(parse_condition("A Mun", MAP), position) is False


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "the condition is empty; write e.g. 'A Mun' or 'Bel OWNED'"),
        ("   ", "the condition is empty; write e.g. 'A Mun' or 'Bel OWNED'"),
        (
            "A Xyz",
            "'Xyz' is not a place on the map; expected a unit such as 'A Mun' or"
            " 'German F Kie', or a centre such as 'Bel OWNED'",
        ),
        (
            "A Mun F Kie",
            "'Mun F Kie' is not a place on the map; expected a unit such as 'A Mun' or"
            " 'German F Kie', or a centre such as 'Bel OWNED'; join two conditions with AND"
            " or OR",
        ),
        ("Xyz OWNED", "'Xyz' is not a place on the map; expected a supply centre"),
        ("Bur OWNED", "'Bur' is not a supply centre; only a centre can be OWNED"),
        ("A Mun OWNED", "'A Mun' is not a place on the map; expected a supply centre"),
        (
            "Bel OWNED BY",
            "expected a power after 'OWNED BY' (one of Austria, England, France, Germany,"
            " Italy, Russia, Turkey)",
        ),
        (
            "Bel OWNED BY Zork",
            "'Zork' is not a power; expected one of Austria, England, France, Germany,"
            " Italy, Russia, Turkey",
        ),
        (
            "A Mun AND",
            "expected a unit (e.g. 'A Mun') or a centre (e.g. 'Bel OWNED') after 'AND',"
            " found the end",
        ),
        (
            "NOT",
            "expected a unit (e.g. 'A Mun') or a centre (e.g. 'Bel OWNED') after 'NOT',"
            " found the end",
        ),
        (
            "AND A Mun",
            "expected a unit (e.g. 'A Mun') or a centre (e.g. 'Bel OWNED') at the start,"
            " found 'AND'",
        ),
        (
            "A Mun OR or F Kie",
            "expected a unit (e.g. 'A Mun') or a centre (e.g. 'Bel OWNED') after 'OR', found 'or'",
        ),
        (
            "()",
            "expected a unit (e.g. 'A Mun') or a centre (e.g. 'Bel OWNED') after '(', found ')'",
        ),
        ("A Mun)", "')' after 'Mun' closes no '('"),
        ("(A Mun", "expected ')' to close '(' but found the end"),
        ("(A Mun Bel OWNED", "'A Mun Bel' is not a place on the map; expected a supply centre"),
        ("Bel OWNED F Kie", "expected AND, OR or the end after 'OWNED', found 'F'"),
        ("(A Mun) F Kie", "expected AND, OR or the end after ')', found 'F'"),
        ("Bel OWNED BY France OWNED", "expected AND, OR or the end after 'France', found 'OWNED'"),
    ],
)
def test_errors_name_the_word_and_what_is_expected(text: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        parse_condition(text, MAP)
    assert str(error.value) == message


def test_nesting_is_bounded() -> None:
    deep = "(" * MAX_DEPTH + "A Mun" + ")" * MAX_DEPTH
    assert parse_condition(deep, MAP) == UnitPresent(None, ARMY, "mun")
    assert parse_condition("NOT " * MAX_DEPTH + "A Mun", MAP) is not None
    message = "the condition nests NOT and parentheses more than 20 deep; write it more simply"
    for text in ("(" * 21 + "A Mun" + ")" * 21, "NOT " * 21 + "A Mun", "NOT (" * 11 + "A Mun"):
        with pytest.raises(ValueError) as error:
            parse_condition(text, MAP)
        assert str(error.value) == message


def test_token_count_is_bounded() -> None:
    words = ["Mun", "OR"] * (MAX_TOKENS // 2)
    just = " ".join(words[:-1])  # MAX_TOKENS - 1 words, ending on 'Mun'
    assert isinstance(parse_condition(just, MAP), Any)
    assert isinstance(parse_condition("NOT " + just, MAP), Any)  # exactly MAX_TOKENS
    with pytest.raises(ValueError) as error:
        parse_condition(just + " OR Mun", MAP)
    assert str(error.value) == "the condition has more than 200 words; shorten it"


def test_a_10000_token_condition_is_refused_by_its_bounds() -> None:
    # The bounds are checked before any parsing, so the cost stays linear and small (the
    # project measures speed by benchmarks, not timed tests).
    for text in ("A Mun OR " * 3333 + "A Mun", "(" * 10_000, "M" * 100_000):
        with pytest.raises(ValueError) as error:
            parse_condition(text, MAP)
        assert str(error.value) == "the condition is longer than 2000 characters; shorten it"
    # Short tokens: 10,000 parentheses fit nowhere, but 201 short ones are refused by count.
    with pytest.raises(ValueError) as error:
        parse_condition("(" * 1000, MAP)
    assert str(error.value) == "the condition has more than 200 words; shorten it"


# -- blocks -----------------------------------------------------------------------------


def _blocks(text: str) -> list[Item]:
    return list(parse_blocks(text.splitlines(), MAP))


def test_plain_lines_are_kept_stripped_and_blank_lines_dropped() -> None:
    assert _blocks("  A Mun-Bur \n\nF Kie H") == ["A Mun-Bur", "F Kie H"]


def test_block_structure() -> None:
    items = _blocks(
        "A Ber H\n"
        "if A Mun then\n"
        "A Mun-Bur\n"
        "Else If Bel OWNED BY France THEN\n"
        "F Kie-Hol\n"
        "ELSE\n"
        "F Kie H\n"
        "EndIf\n"
        "A Sil H"
    )
    assert items == [
        "A Ber H",
        IfBlock(
            (
                Branch("A Mun", UnitPresent(None, ARMY, "mun"), ("A Mun-Bur",)),
                Branch("Bel OWNED BY France", CentreOwned("bel", "France"), ("F Kie-Hol",)),
            ),
            ("F Kie H",),
        ),
        "A Sil H",
    ]


IF_ELSE = """
A Ber-Sil
IF A Mun AND NOT A Bur
  A Mun-Bur
  IF Hol OWNED
    F Kie-Den
  ELSE IF Bel OWNED BY France
    F Kie-Hol
  ELSE
    F Kie H
  ENDIF
ELSE IF F Kie
  F Kie-Den
ELSE
  A Mun H
ENDIF
"""


def test_choose_takes_the_first_branch_that_holds_nested() -> None:
    items = _blocks(IF_ELSE)
    assert choose(items, POS) == ["A Ber-Sil", "A Mun-Bur", "F Kie-Hol"]
    lost_bel = pos("S1902M", [("Germany", "A", "mun"), ("Germany", "F", "kie")], {"hol": "Germany"})
    assert choose(items, lost_bel) == ["A Ber-Sil", "A Mun-Bur", "F Kie-Den"]
    neither = pos("S1902M", [("Germany", "A", "mun"), ("Germany", "F", "kie")], {})
    assert choose(items, neither) == ["A Ber-Sil", "A Mun-Bur", "F Kie H"]
    in_bur = pos(
        "S1902M", [("Germany", "A", "mun"), ("Germany", "F", "kie"), ("France", "A", "bur")]
    )
    assert choose(items, in_bur) == ["A Ber-Sil", "F Kie-Den"]
    empty = pos("S1902M", [])
    assert choose(items, empty) == ["A Ber-Sil", "A Mun H"]


def test_keywords_may_be_followed_by_a_tab() -> None:
    items = _blocks("IF\tA Bur\nA Bur H\nELSE\tIF\tF Kie\nF Kie H\nENDIF")
    assert choose(items, POS) == ["F Kie H"]


def test_no_branch_holds_and_no_else_gives_nothing() -> None:
    items = _blocks("IF A Bur\nA Bur-Par\nELSE IF F Ber\nF Ber-Kie\nENDIF\nA Mun H")
    assert choose(items, POS) == ["A Mun H"]
    assert choose(_blocks("IF A Mun\nENDIF"), POS) == []


def test_choose_on_the_starting_position() -> None:
    items = _blocks("IF Russian F Stp/sc AND Sev OWNED BY Russia\nF Stp/sc-Bot\nENDIF")
    assert choose(items, Position.initial(MAP)) == ["F Stp/sc-Bot"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("A Mun H\nELSE\nENDIF", "line 2: 'ELSE' without IF"),
        ("ELSE IF A Mun", "line 1: 'ELSE IF A Mun' without IF"),
        ("A Mun H\n\nENDIF", "line 3: 'ENDIF' without IF"),
        ("IF A Mun\nA Mun H", "line 1: IF without ENDIF"),
        ("IF A Mun\nIF F Kie\nENDIF", "line 1: IF without ENDIF"),
        ("IF A Mun\nENDIF\nIF F Kie\nIF A Ber\nENDIF", "line 3: IF without ENDIF"),
        ("IF A Mun\nELSE\nELSE\nENDIF", "line 3: 'ELSE' after the ELSE of the IF on line 1"),
        (
            "IF A Mun\nELSE\nELSE IF F Kie\nENDIF",
            "line 3: 'ELSE IF F Kie' after the ELSE of the IF on line 1",
        ),
        ("IF\nENDIF", "line 1: 'IF' has no condition; write e.g. 'IF A Mun'"),
        ("IF THEN\nENDIF", "line 1: 'IF THEN' has no condition; write e.g. 'IF A Mun'"),
        (
            "IF A Mun\nELSE IF\nENDIF",
            "line 2: 'ELSE IF' has no condition; write e.g. 'IF A Mun'",
        ),
        (
            "IF A Mun\nELSE A Mun H\nENDIF",
            "line 2: 'ELSE A Mun H': expected 'ELSE' alone or 'ELSE IF <condition>'",
        ),
        ("IF A Mun\nENDIF now", "line 2: 'ENDIF now': expected 'ENDIF' alone"),
        (
            "A Mun H\nIF A Xyz THEN",
            "line 2: 'IF A Xyz THEN': 'Xyz' is not a place on the map; expected a unit such as"
            " 'A Mun' or 'German F Kie', or a centre such as 'Bel OWNED'",
        ),
        (
            "IF A Mun\nELSE IF Bel OWNED BY\nENDIF",
            "line 2: 'ELSE IF Bel OWNED BY': expected a power after 'OWNED BY' (one of Austria,"
            " England, France, Germany, Italy, Russia, Turkey)",
        ),
    ],
)
def test_block_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(ValueError) as error:
        parse_blocks(text.splitlines(), MAP)
    assert str(error.value) == message


def test_block_lines_may_be_numbered_from_a_later_line() -> None:
    # A block read out of a message is numbered as in the message, without the lines
    # before it being fed in (a message of many blocks stays linear).
    with pytest.raises(ValueError) as error:
        parse_blocks(["IF A Mun", "ELSE", "ELSE", "ENDIF"], MAP, first=40)
    assert str(error.value) == "line 42: 'ELSE' after the ELSE of the IF on line 40"
    with pytest.raises(ValueError) as error:
        parse_blocks(["IF A Mun", "A Mun H"], MAP, first=7)
    assert str(error.value) == "line 7: IF without ENDIF"


def test_if_nesting_is_bounded() -> None:
    ok = "IF A Mun\n" * MAX_DEPTH + "A Mun H\n" + "ENDIF\n" * MAX_DEPTH
    assert choose(_blocks(ok), POS) == ["A Mun H"]
    with pytest.raises(ValueError) as error:
        parse_blocks(("IF A Mun\n" * (MAX_DEPTH + 1)).splitlines(), MAP)
    assert str(error.value) == "line 21: IF blocks nest more than 20 deep"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("A(Tri)", UnitPresent(None, UnitType.ARMY, "tri")),
        ("F (StP/nc)", UnitPresent(None, UnitType.FLEET, "stp/nc")),
        ("Fr A Par", UnitPresent("France", UnitType.ARMY, "par")),
        ("English F Lon", UnitPresent("England", UnitType.FLEET, "lon")),
        ("E F Lon", UnitPresent("England", UnitType.FLEET, "lon")),
    ],
)
def test_zine_units_and_power_names_are_read(text: str, expected: object) -> None:
    assert parse_condition(text, MAP) == expected


@pytest.mark.parametrize(
    ("text", "error"),
    [
        # A typo of a power's name is no power here: the map's fuzzy reading would turn
        # PRUSSIAN into Russian and decide the orders on another power's unit.
        ("PRUSSIAN A Mun", "'PRUSSIAN' is not a power; expected one of Austria, England,"),
        ("Bel OWNED BY Frnace", "'Frnace' is not a power; expected one of Austria,"),
    ],
)
def test_a_mistyped_power_is_refused_not_guessed(text: str, error: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_condition(text, MAP)
    assert str(caught.value).startswith(error)
