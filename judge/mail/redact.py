"""Passwords out of what the judge keeps and quotes: ``SIGNON``, ``SET PASSWORD`` and
``OBSERVE`` (``WATCH``) lines.

:func:`mask_passwords` masks the password of every such line of a text (each of its
characters becomes ``*``, so the text keeps its shape); :func:`redact_passwords` does it to
every text part of a raw message, re-encoded in the part's own transfer encoding, and
leaves every other byte of the message as it was.

What counts as such a line is looser than what the command parser accepts, so that no
password the parser might have read is kept: the keyword (``SIGNON``, ``SIGN ON``, ``SET
PASSWORD``, any case, a trailing ``.`` ``:`` or ``!``) at the start of a line, after quote
marks (``>``), or right after an HTML tag or ``&nbsp;``.  For ``SIGNON`` the first word
after it (the power and game, and the game too when the power initial stands apart) is
kept and every later word of the line masked; for ``OBSERVE`` and ``WATCH`` the first
word (the game) kept and every later one masked; for ``SET PASSWORD`` every word.  In HTML a
line ends at the next tag.  One pass over the text, linear in its length.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterator
from email.message import Message
from email.parser import BytesParser
from email.policy import compat32

from judge.mail.decode import MAX_MULTIPARTS, multipart_count

__all__ = ["MASK", "mask_passwords", "redact_passwords"]

#: What each character of a password becomes.
MASK = "*"

_KEYWORD = re.compile(
    r"(?:^|(?<=[>;]))[ \t]*(?:(sign[ \t]*on)|(observe|watch)|set[ \t]+password)(?![\w@])"
    r"[.:!]?",
    re.IGNORECASE | re.MULTILINE,
)
# Between words: blanks or &nbsp;.  A word: up to a blank, a tag, an entity's "&nbsp;" or
# the end of the line.
_GAP = re.compile(r"(?:[ \t]|&nbsp;)+", re.IGNORECASE)
_WORD = re.compile(r"(?:[^\s<&]|&(?!nbsp;))+", re.IGNORECASE)
_LINE_END = re.compile(r"[\n<]")
_NBSP = re.compile(r"(&nbsp;)", re.IGNORECASE)
_VISIBLE = re.compile(r"\S")


def mask_passwords(text: str) -> str:
    """``text`` with the password of each SIGNON, OBSERVE, WATCH and SET PASSWORD line
    masked."""
    pieces: list[str] = []
    done = 0
    at = 0
    while (match := _KEYWORD.search(text, at)) is not None:
        end = _LINE_END.search(text, match.end())
        line_end = end.start() if end is not None else len(text)
        keep = match.end()
        if match.group(1) is not None:  # SIGNON: the power and the game stay
            words = _words(text, match.end(), line_end, 3)
            if words:
                kept = 2 if words[0][1] - words[0][0] == 1 and len(words) > 2 else 1
                keep = words[kept - 1][1]
        elif match.group(2) is not None:  # OBSERVE <game> <password>: the game stays
            words = _words(text, match.end(), line_end, 1)
            if words:
                keep = words[0][1]
        pieces.append(text[done:keep])
        pieces.extend(
            piece if piece.lower() == "&nbsp;" else _VISIBLE.sub(MASK, piece)
            for piece in _NBSP.split(text[keep:line_end])
        )
        done = at = line_end
    pieces.append(text[done:])
    return "".join(pieces)


def _words(text: str, start: int, end: int, most: int) -> list[tuple[int, int]]:
    """The spans of the first ``most`` words of ``text[start:end]``."""
    words: list[tuple[int, int]] = []
    position = start
    while len(words) < most and (gap := _GAP.match(text, position, end)) is not None:
        word = _WORD.match(text, gap.end(), end)
        if word is None:
            break
        words.append(word.span())
        position = word.end()
    return words


def redact_passwords(raw: bytes) -> bytes:
    """``raw`` with :func:`mask_passwords` applied to each of its text parts (plain and
    HTML, at any depth, in any transfer encoding and character set).  Never raises.

    A part that changes is decoded, masked and encoded again in its own transfer encoding
    (base64 with its line length, quoted-printable, or as is), and put back in place of
    the old; every other byte of the message is kept.  Masking keeps a password's length,
    so a base64 part keeps its length too.  The header is not touched (commands are read
    from the body only).  A message the decoder does not read the body of (more than
    :data:`~judge.mail.decode.MAX_MULTIPARTS` multipart parts), or that the email package
    cannot parse, has its body masked as it is written instead (:func:`_masked_as_written`).
    """
    if multipart_count(raw) > MAX_MULTIPARTS:
        return _masked_as_written(raw)
    try:
        return _redacted(raw)
    except Exception:
        return _masked_as_written(raw)


def _text_parts(message: Message) -> Iterator[tuple[Message, str, str]]:
    """Each text part of ``message`` whose payload has a password: the part, its payload
    as sent and the payload masked (:func:`_redacted_payload`)."""
    for part in message.walk():
        if part.is_multipart() or part.get_content_maintype() != "text":
            continue
        encoded = part.get_payload()
        if not isinstance(encoded, str):
            continue
        changed = _redacted_payload(part, encoded)
        if changed is not None:
            yield part, encoded, changed


def _redacted(raw: bytes) -> bytes:
    """:func:`redact_passwords` of a message the email package can parse."""
    message = BytesParser(policy=compat32).parsebytes(raw)
    result = raw
    cursor = 0
    for part, encoded, changed in _text_parts(message):
        old = _as_sent(part, encoded)
        found = result.find(old, cursor) if old else -1
        if found < 0:
            # Not found as sent (should not happen: the parser keeps payloads as they
            # are): let the email package write the whole message again instead.
            return _rewritten(raw)
        new = changed.encode("ascii", "surrogateescape")
        result = result[:found] + new + result[found + len(old) :]
        cursor = found + len(new)
    return result


# The end of a message's header: its first empty line.
_HEADER_END = re.compile(rb"\r?\n\r?\n")


def _masked_as_written(raw: bytes) -> bytes:
    """``raw`` with :func:`mask_passwords` applied to its body as written (read as
    Latin-1, which maps every byte to a character and back): the passwords of plain and
    8-bit text are masked, those of base64 or quoted-printable parts are not seen."""
    end = _HEADER_END.search(raw)
    if end is None:
        return raw
    body = end.end()
    return raw[:body] + mask_passwords(raw[body:].decode("latin-1")).encode("latin-1")


def _as_sent(part: Message, payload: str) -> bytes:
    """The bytes of ``payload`` (``part.get_payload()``) as the message has them: the
    parser keeps 8-bit bytes as surrogates, which ``get_payload`` decodes in the part's
    character set."""
    try:
        return payload.encode("ascii", "surrogateescape")
    except UnicodeEncodeError:
        try:
            return payload.encode(part.get_content_charset() or "utf-8", "surrogateescape")
        except (LookupError, UnicodeEncodeError):
            return b""  # not found in the message: it is written again instead


def _redacted_payload(part: Message, encoded: str) -> str | None:
    """The part's payload, encoded as it was, with its passwords masked; None when it has
    none."""
    cte = str(part.get("Content-Transfer-Encoding", "7bit")).strip().lower()
    body = part.get_payload(decode=True)
    if not isinstance(body, bytes):
        return None
    charset = part.get_content_charset() or "us-ascii"
    try:
        text = body.decode(charset)
        codec = charset
    except (LookupError, UnicodeDecodeError):
        # Latin-1 maps every byte to a character and back: nothing is lost.
        text, codec = body.decode("latin-1"), "latin-1"
    masked = mask_passwords(text)
    if masked == text:
        return None
    try:
        data = masked.encode(codec)
    except UnicodeEncodeError:
        data = masked.encode("latin-1", "replace")
    if cte == "base64":
        return _base64_like(data, encoded)
    if cte == "quoted-printable":
        return binascii.b2a_qp(data).decode("ascii")
    return data.decode("ascii", "surrogateescape")


def _base64_like(data: bytes, encoded: str) -> str:
    """``data`` in base64 with the line length and line ends of ``encoded``."""
    eol = "\r\n" if "\r\n" in encoded else "\n"
    lines = encoded.splitlines()
    width = max((len(line.strip()) for line in lines[:1]), default=76) or 76
    width -= width % 4
    text = base64.b64encode(data).decode("ascii")
    wrapped = eol.join(text[i : i + max(width, 4)] for i in range(0, len(text), max(width, 4)))
    return wrapped + (eol if encoded.endswith(("\n", "\r")) else "")


def _rewritten(raw: bytes) -> bytes:
    """The whole message written again by the email package, with its text parts'
    passwords masked (the fallback of :func:`_redacted`)."""
    message = BytesParser(policy=compat32).parsebytes(raw)
    for part, _encoded, changed in list(_text_parts(message)):
        part.set_payload(changed)
    return message.as_bytes()
