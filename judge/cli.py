"""Command-line entry points (thin: they parse arguments and call the library)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from judge.runtime.bootstrap import App


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
    """``judge adjudicate``: a JSON position and orders in, the next position out (or,
    for a two-season season's document, every phase of the season; docs/adjudicate.md)."""
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


def _iso_time(text: str) -> datetime:
    """``--now``'s value, read when the command line is (UTC unless it names a zone)."""
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"cannot read {text!r} as a time: write it as ISO 8601, e.g. 2026-11-23T18:00 "
            "(UTC) or 2026-11-23T18:00+01:00"
        ) from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.astimezone(UTC)


def _now(args: argparse.Namespace) -> datetime:
    """The time to act at: ``--now`` (for replays and tests) or the clock."""
    now: datetime | None = args.now
    return now or datetime.now(UTC)


def _app(args: argparse.Namespace) -> App:
    """The judge as the settings file configures it; a :class:`ConfigError` when the
    file is wrong or the database it names cannot be opened."""
    from sqlalchemy.engine import make_url
    from sqlalchemy.exc import DBAPIError

    from judge.config import ConfigError, load_settings
    from judge.runtime.bootstrap import open_app

    config = Path(args.config) if args.config else Path("config/judge.toml")
    settings = load_settings(config)
    try:
        return open_app(settings)
    except DBAPIError as err:
        url = make_url(settings.url).render_as_string(hide_password=True)
        reason = str(err.orig).strip().splitlines()[0] if err.orig else str(err)
        raise ConfigError(
            f"cannot open the database {url} ({config}: [judge] database_url): {reason}"
        ) from None


def cmd_game_load(args: argparse.Namespace) -> int:
    """``judge game load FILE``: create a game from its file, or apply the file's edits."""
    from judge.config import ConfigError
    from judge.services.errors import ServiceError
    from judge.services.game_files import load_game

    app = _app(args)
    try:
        with app.sessions() as session, session.begin():
            report = load_game(session, app.judge, Path(args.file), _now(args))
    except (ConfigError, ServiceError) as err:
        print(f"judge game load: {err}", file=sys.stderr)
        return 2
    verb = "created" if report.created else "updated"
    print(f"{verb} game {report.game}")
    for change in report.changes:
        print(f"  {change}")
    _deliver(app)
    return 0


def cmd_game_new(args: argparse.Namespace) -> int:
    """``judge game new NAME [--from TEMPLATE]``: a new game file in the games folder."""
    from judge.config import ConfigError, load_settings
    from judge.services.game_templates import new_game_file

    config = Path(args.config) if args.config else Path("config/judge.toml")
    settings = load_settings(config)  # a ConfigError is main()'s to report
    if settings.games_dir is None:
        print(
            f"judge game new: there is no settings file {config} to say where the games "
            "folder is; run it from the judge's directory, or name the file with --config",
            file=sys.stderr,
        )
        return 2
    try:
        made = new_game_file(args.name, settings.games_dir, args.template)
    except ConfigError as err:
        print(f"judge game new: {err}", file=sys.stderr)
        return 2
    print(f"wrote {_shown(made.path)} from {_shown(made.source)}")
    if made.manual_start:
        print(
            f'  it starts by hand (start = "manual"): edit its players, master and passwords, '
            f"then `judge game start {args.name}`"
        )
    print(
        "  `judge serve` loads it, and each edit saved to it, by itself "
        f"(or: `judge game load {_shown(made.path)}`)"
    )
    return 0


def _shown(path: Path) -> Path:
    """``path`` relative to the current directory when it is below it."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def cmd_game_start(args: argparse.Namespace) -> int:
    """``judge game start NAME``: start a game and mail every player."""
    from judge.services.errors import ServiceError
    from judge.services.games import start_game

    app = _app(args)
    try:
        with app.sessions() as session, session.begin():
            game = start_game(session, app.judge, args.name, _now(args))
            print(f"started {game.name}: {game.phase}, deadline {game.deadline:%Y-%m-%d %H:%M} UTC")
    except ServiceError as err:
        print(f"judge game start: {err}", file=sys.stderr)
        return 2
    _deliver(app)
    return 0


def cmd_process(args: argparse.Namespace) -> int:
    """``judge process GAME [--phase CODE]``: adjudicate the current phase now."""
    from judge.services.endgame import not_processed_why
    from judge.services.errors import ServiceError
    from judge.services.games import find_game, process_game

    app = _app(args)
    try:
        with app.sessions() as session, session.begin():
            outcome = process_game(session, app.judge, args.game, _now(args), phase=args.phase)
            game = find_game(session, args.game)
            why = not_processed_why(session, game) if outcome is None and game else None
            if why is not None:
                print(f"{args.game}: {why}")
            elif outcome is None:
                print(f"{args.game}: nothing to process")
            else:
                print(
                    f"{args.game}: processed {outcome.before.phase}, now {outcome.position.phase}"
                )
    except (ServiceError, ValueError) as err:
        print(f"judge process: {err}", file=sys.stderr)
        return 2
    _deliver(app)
    return 0


def cmd_map(args: argparse.Namespace) -> int:
    """``judge map GAME [--phase CODE] [--out FILE.png|.svg]``: draw a game's board as it
    stands, or a processed phase with its orders, into a PNG or SVG file."""
    from judge.picture import GeometryError
    from judge.services.errors import ServiceError
    from judge.services.game_settings import game_zone
    from judge.services.games import get_game
    from judge.services.phase_sections import read_phase
    from judge.services.pictures import drawn, map_view

    phase = None
    if args.phase is not None:
        try:
            phase = read_phase(args.phase.split(), advice=False)
        except ValueError as err:
            print(
                f"judge map: --phase: {err}; write a code such as F1901M, or words such as "
                "'Fall 1901 Movement'",
                file=sys.stderr,
            )
            return 2
    if args.out is not None and Path(args.out).suffix.lower() not in (".png", ".svg"):
        print(
            f"judge map: --out {args.out}: the file must end in .png or .svg (the picture's "
            "format)",
            file=sys.stderr,
        )
        return 2
    app = _app(args)
    try:
        with app.sessions() as session:
            game = get_game(session, args.game)
            view = map_view(session, game, phase, _now(args))
            picture = drawn(game, view, game_zone(game, app.judge))
            name = game.name
    except ServiceError as err:
        print(f"judge map: {err}", file=sys.stderr)
        return 2
    except GeometryError as err:
        print(f"judge map: the map of {args.game} cannot be drawn: {err}", file=sys.stderr)
        return 2
    out = Path(args.out) if args.out is not None else Path(f"{name}-{view.phase.code}.png")
    try:
        if out.suffix.lower() == ".svg":
            out.write_text(picture.svg(), encoding="utf-8")
        else:
            out.write_bytes(picture.png())
    except OSError as err:
        print(f"judge map: cannot write {out}: {err.strerror}", file=sys.stderr)
        return 2
    print(out)
    return 0


def cmd_inject(args: argparse.Namespace) -> int:
    """``judge inject FILE.eml``: push one raw email through the whole path."""
    from judge.db.models import InboundState
    from judge.services.inbound import process_one
    from judge.services.intake import receive

    app = _app(args)
    try:
        raw = Path(args.file).read_bytes()
    except OSError as err:
        print(f"judge inject: cannot read {args.file}: {err.strerror}", file=sys.stderr)
        return 2
    now = _now(args)
    with app.store_sessions() as session, session.begin():
        row, new = receive(session, raw, now, max_bytes=app.judge.settings.max_message_bytes)
        inbound_id = row.id
        if not new:
            print(f"already received {row.message_id} (state {row.state})")
    state = process_one(app.sessions, app.judge, inbound_id, now)
    print(f"message {inbound_id}: {state}")
    _deliver(app)
    return 0 if state != InboundState.FAILED else 1


def cmd_outbox(args: argparse.Namespace) -> int:
    """``judge outbox``: what is queued and what was sent."""
    from judge.db import queries
    from judge.db.models import OutboundState

    app = _app(args)
    if args.deliver:
        _deliver(app)
    with app.sessions() as session:
        rows = queries.outbox_messages(session)
        for row in rows[-args.limit :]:
            when = row.sent_at or row.created_at
            print(
                f"{row.id:5d} {row.state:6s} {when:%Y-%m-%d %H:%M} {row.to_addr:30s} {row.subject}"
            )
        queued = sum(1 for r in rows if r.state == OutboundState.QUEUED)
        print(f"{len(rows)} messages, {queued} queued")
    return 0


def cmd_serve(args: argparse.Namespace) -> int:
    """``judge serve``: receive, process and send mail until SIGTERM or Ctrl-C."""
    import signal

    from judge.runtime.serve import Server, configure_logging

    configure_logging()
    app = _app(args)  # a ConfigError is main()'s to report
    server = Server(
        app, tick=app.judge.settings.tick_seconds, processes=app.judge.settings.worker_processes
    )
    try:
        server.start()
    except OSError as err:
        print(f"judge serve: cannot start: {err}", file=sys.stderr)
        return 2
    settings = app.judge.settings
    if settings.imap is None:
        print(
            f"judge serve: receiving mail for {settings.address} by SMTP on "
            f"{settings.inbound.host}:{settings.inbound.port}; replies go to "
            + (f"{settings.smtp.host}" if settings.smtp else f"{settings.var_dir / 'mail'}"),
            flush=True,
        )

    def stop(signum: int, _frame: object) -> None:
        server.stopping.set()

    def reload(signum: int, _frame: object) -> None:
        server.reload()  # the deadline loop re-reads changed game files at once

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGHUP, reload)
    server.wait()
    server.stop()
    return 0


def cmd_reload(args: argparse.Namespace) -> int:
    """``judge reload``: apply every game file edited since it was loaded."""
    from judge.services.game_file_watch import reload_configs

    app = _app(args)
    with app.sessions() as session, session.begin():
        lines = reload_configs(session, app.judge, _now(args))
    for line in lines:
        print(line)
    if not lines:
        print("no game file has changed")
    _deliver(app)
    return 1 if any("edit refused" in line for line in lines) else 0


def _deliver(app: App) -> None:
    """Send what the command queued, registered meanwhile as a running judge process (so
    that judges on other hosts sharing the database leave the mail it claims to it)."""
    from judge.runtime.sender import deliver_pending
    from judge.services.presence import Presence, process_token

    token = process_token()
    beating = Presence(app.sessions, lambda: {token: "send"})
    beating.start()
    try:
        deliver_pending(app.sessions, app.judge, app.transport, lambda: datetime.now(UTC))
    finally:
        beating.stop()


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

    adj = sub.add_parser(
        "adjudicate", help="adjudicate a JSON document read from stdin (a phase, or a season)"
    )
    adj.add_argument("--rules", choices=["2023", "2000"], default="2023")
    adj.add_argument("--jsonl", action="store_true", help="one document per line in and out")
    adj.set_defaults(func=cmd_adjudicate)

    for sp in (parser,):
        sp.add_argument("--config", help="the judge's settings file (default config/judge.toml)")
        sp.add_argument(
            "--now", type=_iso_time, help="act as if it were this ISO time (replays, tests)"
        )

    game = sub.add_parser("game", help="set up games from game master config files")
    game_sub = game.add_subparsers(dest="game_command", required=True)
    load = game_sub.add_parser("load", help="create a game from its TOML file or apply edits")
    load.add_argument("file")
    load.set_defaults(func=cmd_game_load)
    new = game_sub.add_parser(
        "new", help="write a game file into the games folder from a template (demo)"
    )
    new.add_argument("name", help="the new game's name (also its file's: NAME.toml)")
    new.add_argument(
        "--from",
        dest="template",
        default="demo",
        metavar="TEMPLATE",
        help="a template's name (default demo) or a game file's path",
    )
    new.set_defaults(func=cmd_game_new)
    start = game_sub.add_parser("start", help="start a game and mail the players")
    start.add_argument("name")
    start.set_defaults(func=cmd_game_start)

    process = sub.add_parser("process", help="adjudicate a game's current phase now")
    process.add_argument("game")
    process.add_argument("--phase", help="only if this is still the current phase (S1901M ...)")
    process.set_defaults(func=cmd_process)

    picture = sub.add_parser(
        "map", help="draw a game's map (as it stands, or a phase played) to a PNG or SVG file"
    )
    picture.add_argument("game")
    picture.add_argument(
        "--phase",
        help="a phase played (F1901M or 'Fall 1901 Movement'); default: the board as it stands",
    )
    picture.add_argument(
        "--out", metavar="FILE", help="FILE.png or FILE.svg (default: GAME-PHASE.png here)"
    )
    picture.set_defaults(func=cmd_map)

    inject = sub.add_parser("inject", help="push one raw email file through the judge")
    inject.add_argument("file")
    inject.set_defaults(func=cmd_inject)

    reload = sub.add_parser("reload", help="apply game files edited since they were loaded")
    reload.set_defaults(func=cmd_reload)

    serve = sub.add_parser("serve", help="run the judge: mail in, deadlines, mail out")
    serve.set_defaults(func=cmd_serve)

    outbox = sub.add_parser("outbox", help="show queued and sent mail")
    outbox.add_argument("--deliver", action="store_true", help="deliver queued mail first")
    outbox.add_argument("--limit", type=int, default=50)
    outbox.set_defaults(func=cmd_outbox)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``judge`` command."""
    args = build_parser().parse_args(argv)
    if args.func is cmd_adjudicate:
        # The engine's filter reads no settings: it starts without loading them.
        result: int = cmd_adjudicate(args)
        return result
    from judge.config import ConfigError

    try:
        result = args.func(args)
    except ConfigError as err:
        # A wrong settings file, or a database it names that cannot be opened.
        print(f"judge {args.command}: {err}", file=sys.stderr)
        return 2
    return result


if __name__ == "__main__":
    sys.exit(main())
