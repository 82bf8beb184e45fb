"""The command line: ``judge datc`` and ``judge adjudicate`` as a user runs them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import ROOT


def judge(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "judge.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )


CASES = """\
case T.1
phase S1901M
unit England F nth
order England F nth-pic  => FAR
after same

case T.2
phase S1901M
unit France A par
order France A par-bur
after France A par
"""


def test_datc_prints_one_line_per_case_and_a_total(tmp_path: Path) -> None:
    path = tmp_path / "cases.txt"
    path.write_text(CASES)
    result = judge("datc", str(path))
    lines = result.stdout.splitlines()
    assert lines[0] == "PASS T.1"
    assert lines[1].startswith("FAIL T.2: units: expected {France A par} but got {France A bur}")
    assert lines[-1] == "1 passed, 1 failed"
    assert result.returncode == 1


def test_datc_reads_the_jdip_format(tmp_path: Path) -> None:
    path = tmp_path / "jdip.txt"
    path.write_text(
        "CASE 6.A.1\nPRESTATE_SETPHASE Spring 1901, Movement\nPRESTATE\n\tEngland: F nth\n"
        "ORDERS\n\tEngland: F nth-pic\nPOSTSTATE_SAME\nEND\n"
    )
    result = judge("datc", "--rules", "2000", str(path))
    assert result.stdout.splitlines() == ["PASS 6.A.1", "1 passed, 0 failed"]
    assert result.returncode == 0


def test_datc_missing_file_and_bad_file(tmp_path: Path) -> None:
    result = judge("datc", str(tmp_path / "nope.txt"))
    assert result.returncode == 2 and "cannot read" in result.stderr
    bad = tmp_path / "bad.txt"
    bad.write_text("case X\nphase S1901M\nunit England Q nth\n")
    result = judge("datc", str(bad))
    assert result.returncode == 2
    assert "line 3" in result.stderr and "<A|F>" in result.stderr


def test_adjudicate_example_document() -> None:
    doc = (ROOT / "docs" / "examples" / "spring1901.json").read_text()
    result = judge("adjudicate", stdin=doc)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["phase"] == "F1901M"
    assert out["skipped"] == ["S1901R"]
    assert out["units"]["France"] == ["A BUR", "F MAO", "A MAR"]
    assert out["units"]["Germany"] == ["F DEN", "A KIE", "A MUN"]
    assert out["rejected"] == [
        {
            "power": "Italy",
            "order": "A Mun-Tyr",
            "code": "NYU",
            "message": "A mun-tyr: the army in Munich is German, not yours",
        }
    ]
    mun = next(r for r in out["results"] if r["order"] == "A MUN-BUR")
    assert mun == {
        "power": "Germany",
        "order": "A MUN-BUR",
        "text": "Army Munich -> Burgundy",
        "result": "failure",
        "notes": [{"note": "bounce", "culprit": "PAR"}],
        "default": False,
    }
    par = next(r for r in out["results"] if r["order"] == "A PAR-BUR")
    assert (par["result"], par["notes"]) == ("success", [])


def test_adjudicate_retreat_phase_and_jsonl() -> None:
    retreat = {
        "phase": "F1901R",
        "units": {"Italy": ["A TRI", "A TYR"], "Austria": ["A SER"]},
        "dislodged": {"austria": {"F Trieste": ["ALB", "adriatic sea"]}},
        "centers": {"Austria": ["TRI", "VIE", "BUD"], "Italy": ["ROM"]},
        "orders": {"AUSTRIA": ["F Tri-Alb"]},
    }
    lines = json.dumps(retreat) + "\n" + "{not json\n" + json.dumps({"phase": "X"}) + "\n"
    result = judge("adjudicate", "--jsonl", stdin=lines)
    outs = [json.loads(line) for line in result.stdout.splitlines()]
    assert result.returncode == 1
    assert outs[0]["units"]["Austria"] == ["F ALB", "A SER"]
    # Fall ends: Italy takes Trieste, Austria has 2 centres and 2 units.
    assert outs[0]["phase"] == "W1901A"
    assert outs[0]["centers"]["Italy"] == ["ROM", "TRI"]
    assert outs[1]["error"].startswith("line 2:")
    assert outs[2]["error"].startswith("line 3: 'phase': bad phase code 'X'")


def test_adjudicate_reads_a_unit_alone_as_the_mail_judge_does() -> None:
    # Not a hold: a unit or a place alone is refused (UNIT_ONLY) and does not replace the
    # unit's real order; the unit without an order holds by default.
    doc = {
        "phase": "S1901M",
        "units": {"France": ["A PAR", "F BRE"]},
        "orders": {"France": ["F Bre-MAO", "Brest", "A Par"]},
    }
    result = judge("adjudicate", stdin=json.dumps(doc))
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    assert out["units"]["France"] == ["F MAO", "A PAR"]
    assert [(r["order"], r["default"]) for r in out["results"]] == [
        ("F BRE-MAO", False),
        ("A PAR H", True),
    ]
    assert [(r["order"], r["code"]) for r in out["rejected"]] == [
        ("Brest", "UNIT_ONLY"),
        ("A Par", "UNIT_ONLY"),
    ]


def _json_blocks(markdown: str) -> list[object]:
    """The ```json blocks of a page that are whole JSON documents, parsed."""
    found: list[object] = []
    for block in markdown.split("```json\n")[1:]:
        try:
            found.append(json.loads(block.split("```", 1)[0]))
        except json.JSONDecodeError:
            continue  # an abridged example ("...") is not a whole document
    return found


def test_adjudicate_two_season_example_gives_what_the_docs_show() -> None:
    page = (ROOT / "docs" / "adjudicate.md").read_text()
    example = ROOT / "docs" / "examples" / "autumn1901-season.json"
    doc = json.loads(example.read_text())
    blocks = _json_blocks(page)
    assert doc in blocks  # the page shows the example file as it is
    shown = next(b for b in blocks if isinstance(b, dict) and "steps" in b)
    result = judge("adjudicate", stdin=example.read_text())
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == shown
    # --jsonl reads a season too.
    lines = judge("adjudicate", "--jsonl", stdin=json.dumps(doc) + "\n")
    assert lines.returncode == 0
    assert json.loads(lines.stdout) == shown


def test_adjudicate_bad_season_document_names_the_key() -> None:
    doc = {"phase": "F1901M", "units": {}, "retreats": {"Germany": ["ENDIF"]}}
    result = judge("adjudicate", stdin=json.dumps(doc))
    assert result.returncode == 2
    assert result.stderr == "judge adjudicate: retreats.Germany: line 1: 'ENDIF' without IF\n"


def test_adjudicate_bad_document_names_the_key() -> None:
    result = judge("adjudicate", stdin=json.dumps({"phase": "S1901M", "units": {"Narnia": []}}))
    assert result.returncode == 2
    assert "units.Narnia" in result.stderr and "not a power" in result.stderr


def test_a_time_that_is_not_iso_is_refused_by_name(tmp_path: Path) -> None:
    done = judge("--config", str(tmp_path / "none.toml"), "--now", "tuesday", "outbox")
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1] == (
        "judge: error: argument --now: cannot read 'tuesday' as a time: write it as ISO 8601, "
        "e.g. 2026-11-23T18:00 (UTC) or 2026-11-23T18:00+01:00"
    )
