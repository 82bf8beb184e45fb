"""Command-line entry points (thin: they parse arguments and call the library)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path


def _rules(edition: str) -> object:
    from judge.engine.rules import Rules

    return Rules.parse_edition(edition)


def cmd_datc(args: argparse.Namespace) -> int:
    """``judge datc FILE``: run a DATC case file and print one line per case."""
    from judge.datc import CaseFormatError, run_file
    from judge.engine.rules import Rules

    path = Path(args.file)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        print(f"judge datc: cannot read {path}: {err.strerror}", file=sys.stderr)
        return 2
    rules = Rules.parse_edition(args.rules)
    if args.transcribe:
        from judge.datc import format_cases, parse_jdip, transcribe

        cases = transcribe(parse_jdip(text), rules)
        header = (
            f"# DATC cases transcribed from {path.name} for the {args.rules} rules by\n"
            f"# `judge datc --rules {args.rules} --transcribe OUT {path.name}`, then reviewed.\n"
            "# Format: see judge/datc.py (parse_cases)."
        )
        Path(args.transcribe).write_text(format_cases(cases, header), encoding="utf-8")
        print(f"wrote {len(cases)} cases to {args.transcribe}")
        return 0
    passed = failed = 0
    try:
        for outcome in run_file(text, rules):
            if outcome.passed:
                passed += 1
                print(f"PASS {outcome.case.name}")
            else:
                failed += 1
                print(f"FAIL {outcome.case.name}: " + "; ".join(outcome.problems))
    except CaseFormatError as err:
        print(f"judge datc: {path}: {err}", file=sys.stderr)
        return 2
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


def cmd_adjudicate(args: argparse.Namespace) -> int:
    """``judge adjudicate``: a JSON position and orders in, the next position out."""
    from judge.engine.document import DocumentError, adjudicate_document
    from judge.engine.rules import Rules

    rules = Rules.parse_edition(args.rules)
    if args.jsonl:
        status = 0
        for number, line in enumerate(sys.stdin, 1):
            if not line.strip():
                continue
            try:
                doc = json.loads(line)
                out = adjudicate_document(doc, rules)
            except (json.JSONDecodeError, DocumentError) as err:
                out = {"error": f"line {number}: {err}"}
                status = 1
            sys.stdout.write(json.dumps(out, separators=(",", ":")) + "\n")
        return status
    try:
        doc = json.load(sys.stdin)
        out = adjudicate_document(doc, rules)
    except json.JSONDecodeError as err:
        print(f"judge adjudicate: the input is not JSON: {err}", file=sys.stderr)
        return 2
    except DocumentError as err:
        print(f"judge adjudicate: {err}", file=sys.stderr)
        return 2
    json.dump(out, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``judge`` command."""
    parser = argparse.ArgumentParser(prog="judge", description="A play-by-email Diplomacy judge.")
    sub = parser.add_subparsers(dest="command", required=True)

    datc = sub.add_parser("datc", help="run a DATC case file (jDip format or the project's own)")
    datc.add_argument("file")
    datc.add_argument("--rules", choices=["2023", "2000"], default="2023")
    datc.add_argument(
        "--transcribe", metavar="OUT", help="write the cases in the project's own format to OUT"
    )
    datc.set_defaults(func=cmd_datc)

    adj = sub.add_parser("adjudicate", help="adjudicate a JSON document read from stdin")
    adj.add_argument("--rules", choices=["2023", "2000"], default="2023")
    adj.add_argument("--jsonl", action="store_true", help="one document per line in and out")
    adj.set_defaults(func=cmd_adjudicate)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``judge`` command."""
    args = build_parser().parse_args(argv)
    result: int = args.func(args)
    return result


if __name__ == "__main__":
    sys.exit(main())
