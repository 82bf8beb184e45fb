"""Turn a template and plain values into the subject and body of one email.

Templates live in ``templates/``, named by audience and purpose
(``player/confirm.txt.j2``, ``all/results.txt.j2``).  Each one starts with a line
``Subject: ...``, then one blank line, then the body.  The subject line and the body are
compiled as separate templates, so a value that contains a line break (a player's own
subject, say) cannot spill the subject into the body or forge a header: the rendered
subject is collapsed onto one line afterwards.

Rendering is strict (``StrictUndefined``): a context key a template uses but the caller
did not pass raises instead of printing nothing.  Autoescaping is off because the mail is
plain text.
"""

from __future__ import annotations

import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

import jinja2

from judge.mail.subjects import strip_reply

__all__ = ["TEMPLATE_DIR", "RenderedMail", "Renderer", "fill", "list_item", "reply_subject"]

_PACKAGE = Path(__file__).resolve().parent
#: The judge's templates: inside the package when it is installed from a wheel (the build
#: maps the checkout's templates/ to judge/templates), else templates/ beside the package
#: (a source checkout, installed editable).
TEMPLATE_DIR = (
    _PACKAGE / "templates" if (_PACKAGE / "templates").is_dir() else _PACKAGE.parent / "templates"
)

_SUBJECT_PREFIX = "Subject:"
_LINE_BREAKS = re.compile(r"[\r\n]")


@dataclass(frozen=True)
class RenderedMail:
    """A rendered email: a one-line subject and a body ending in exactly one newline."""

    subject: str
    body: str


def reply_subject(subject: str) -> str:
    """``Re: <subject>``, without stacking a second ``Re:`` on a reply to a reply.

    >>> reply_subject("orders"), reply_subject("RE: orders"), reply_subject("")
    ('Re: orders', 'Re: orders', 'Re:')
    >>> reply_subject("AW: Re[2]: orders"), reply_subject("Odp: orders")
    ('Re: orders', 'Re: orders')
    """
    text = strip_reply(_one_line(subject)).strip()
    return f"Re: {text}" if text else "Re:"


def _one_line(text: str) -> str:
    """``text`` on one line: each line break, with the blanks around it, becomes one space.

    Split at the breaks rather than matched as ``\\s*[\\r\\n]+\\s*``, which rescans a
    run of blanks from each of its positions (quadratic in the run's length).
    """
    parts = (part.strip() for part in _LINE_BREAKS.split(str(text)))
    return " ".join(part for part in parts if part)


def fill(text: str, width: int = 76) -> str:
    """``text`` as one paragraph: its lines joined by single spaces, then broken at spaces
    into lines of at most ``width`` characters.  A longer word is never broken, nor one
    with a hyphen (an address, a file name): it stands alone on a longer line.

    A template writes a paragraph over as many lines as reads well, inside
    ``{% filter fill %}``.  This is :func:`textwrap.fill`, which Jinja's own ``wordwrap``
    matches except on tabs and other blanks in the values (it keeps them as they are).

    >>> fill("a paragraph\\n  over two lines", 12)
    'a paragraph\\nover two\\nlines'
    >>> fill("see judge@very-long-host.example.org", 10)
    'see\\njudge@very-long-host.example.org'
    """
    return textwrap.fill(_one_line(text), width, break_long_words=False, break_on_hyphens=False)


def list_item(text: str, width: int = 76) -> str:
    """``text`` as an item of a list: ``"  - "`` before its first line, the next lines
    indented to match, broken at spaces into lines of at most ``width`` characters (a
    longer word, or one with a hyphen, is never broken).

    >>> print(list_item("the attachment 'map.png' (image/png): only text is read", 30))
      - the attachment 'map.png'
        (image/png): only text is
        read
    """
    return textwrap.fill(
        text, width, initial_indent="  - ", subsequent_indent="    ",
        break_long_words=False, break_on_hyphens=False,
    )  # fmt: skip


def hanging(text: str, width: int = 78, indent: int = 2) -> str:
    """``text``, a line of a listing, broken at spaces into lines of at most ``width``
    characters, the lines after the first indented by ``indent`` spaces (a longer word,
    or one with a hyphen, is never broken).

    >>> print(hanging("Endings: draw votes (SET DRAW) and concessions", 30))
    Endings: draw votes (SET DRAW)
      and concessions
    """
    return textwrap.fill(
        text, width, subsequent_indent=" " * indent,
        break_long_words=False, break_on_hyphens=False,
    )  # fmt: skip


def _clean_body(text: str) -> str:
    """Trailing spaces off every line (mailers mangle them) and exactly one final newline."""
    lines = [line.rstrip(" \t") for line in text.splitlines()]
    return "\n".join(lines).strip("\n") + "\n"


@dataclass(frozen=True)
class _Pair:
    subject: jinja2.Template
    body: jinja2.Template


class Renderer:
    """Renders the mail templates of one directory.

    >>> mail = Renderer().render("player/reply.txt.j2", judge_name="TEST",
    ...                          subject_in="help", paragraphs=["Hello."])
    >>> mail.subject
    'Re: help'
    """

    def __init__(self, directory: Path | None = None) -> None:
        """Use ``directory`` for the templates (default: :data:`TEMPLATE_DIR`)."""
        self.directory = directory if directory is not None else TEMPLATE_DIR
        self.env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(self.directory),
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
            keep_trailing_newline=True,
            autoescape=False,  # plain-text mail: HTML escaping would garble "->" and quotes
        )
        self.env.filters["reply_subject"] = reply_subject
        self.env.filters["one_line"] = _one_line
        self.env.filters["list_item"] = list_item
        self.env.filters["fill"] = fill
        self.env.filters["hanging"] = hanging
        self._compiled: dict[str, _Pair] = {}

    def _load(self, name: str) -> _Pair:
        pair = self._compiled.get(name)
        if pair is not None:
            return pair
        loader = self.env.loader
        assert loader is not None  # set in __init__
        source, filename, _uptodate = loader.get_source(self.env, name)
        first, sep, rest = source.partition("\n")
        if not first.startswith(_SUBJECT_PREFIX):
            raise ValueError(
                f"template {name}: the first line must be 'Subject: ...', found {first[:60]!r}"
            )
        if not sep or rest.partition("\n")[0].strip():
            raise ValueError(f"template {name}: line 2 must be blank (it ends the headers)")
        # The body keeps two empty lines in place of the headers so that Jinja's error
        # messages give the line numbers of the file.
        pair = _Pair(
            subject=self._compile(first[len(_SUBJECT_PREFIX) :], name, filename),
            body=self._compile("\n\n" + rest.partition("\n")[2], name, filename),
        )
        self._compiled[name] = pair
        return pair

    def _compile(self, source: str, name: str, filename: str | None) -> jinja2.Template:
        code = self.env.compile(source, name, filename)
        return self.env.template_class.from_code(self.env, code, self.env.make_globals(None))

    def render(self, name: str, **context: object) -> RenderedMail:
        """Render template ``name`` (e.g. ``player/confirm.txt.j2``) with ``context``.

        Raises ``jinja2.UndefinedError`` when the template uses a key not in ``context``
        and ``jinja2.TemplateNotFound`` for an unknown name.
        """
        pair = self._load(name)
        subject = _one_line(pair.subject.render(**context))
        body = _clean_body(pair.body.render(**context))
        return RenderedMail(subject, body)
