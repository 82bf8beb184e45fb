"""Turning the raw bytes of an incoming email into plain values the judge can read.

:func:`decode` takes any bytes at all (a well-formed message, a bounce, a truncated file,
random noise) and returns an :class:`IncomingMail`; it never raises.  Missing or broken
parts come out as empty fields, so later stages (the inbound rules, the command reader)
decide what to do with them.

:func:`order_text` then splits the readable text into the lines a player wrote and the
lines that only quote an earlier message or sign it off, so a player who replies to the
results email with new orders above the quote is read correctly.
"""

from __future__ import annotations

import email
import email.policy
import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from email.message import Message
from html.parser import HTMLParser
from types import MappingProxyType

from judge.mail.subjects import is_forward

__all__ = [
    "MAX_BODY_LINES",
    "MAX_HEADER_BYTES",
    "MAX_HEADER_FIELD_BYTES",
    "MAX_LINE_CHARS",
    "MAX_MULTIPARTS",
    "MAX_PARTS",
    "BodyText",
    "IncomingMail",
    "decode",
    "header_block",
    "html_to_text",
    "multipart_count",
    "order_text",
    "read_body",
]

#: The most bytes of a message's header block that are read: fields after them, and the
#: body, are not (no one's orders come with a header that long).  Storing keeps the same
#: header (:func:`header_block`), so the stored sender and Message-ID are the ones read.
MAX_HEADER_BYTES = 262144
#: The most bytes of one header field (name, value and folded lines) handed to the
#: standard library's parser, whose address parsing is quadratic: a From of 600 kB took
#: about 366 s.  RFC 5322 lines are at most 998 characters; a longer field is left out.
MAX_HEADER_FIELD_BYTES = 16384
#: The most multipart parts (containers, at any depth) of a message that is read; a
#: message with more is read for its header only.
MAX_MULTIPARTS = 64
#: The most inline text parts of a multipart/mixed message whose texts are joined.
MAX_PARTS = 100
#: The most lines of body text read; the rest is reported as not read.
MAX_BODY_LINES = 1000
#: The longest line of body text read (a command or a line of orders is far shorter; an
#: over-long ``SET ADDRESS`` line is still read, to be refused with its own reason).
MAX_LINE_CHARS = 10000


@dataclass(frozen=True)
class IncomingMail:
    """An incoming email reduced to the values the judge uses.

    Every string is clean text: no lone surrogates, no line breaks in header values.
    """

    message_id: str
    """The Message-ID header with angle brackets, or ``<sha256hex@judge.invalid>`` of the
    raw bytes when the header is missing or unusable."""
    sender: str
    """The address to answer: Reply-To if it holds a well-formed address, else From's;
    lowercased bare address, ``''`` if none (then :attr:`sender_problem` says why)."""
    from_addr: str
    """The From address, lowercased and bare (``''`` if none)."""
    subject: str
    """The subject, RFC 2047 decoded, on one line."""
    in_reply_to: str | None
    """The first message id of In-Reply-To, with angle brackets, else ``None``."""
    references: tuple[str, ...]
    """The message ids of References, oldest first."""
    text: str
    """The readable body text: the text/plain body, else the text/html body as text."""
    headers: Mapping[str, str] = field(hash=False)
    """The header fields by lowercase name (first value of each), unfolded but otherwise
    as received (no RFC 2047 decoding)."""
    header_list: tuple[tuple[str, str], ...] = ()
    """Every header field in order as (lowercase name, value), for the fields that may
    occur more than once (``X-Loop``, ``Received``)."""
    unread_parts: tuple[str, ...] = ()
    """The parts of the message that are not in :attr:`text`, each said in words with
    the reason, for the reply to tell the sender (``"an attachment orders.pdf
    (application/pdf): attachments are not read"``).  Other versions of the text (the
    HTML beside the plain text), pictures of an HTML body and signatures are not
    listed: they hold nothing the sender wrote that the text does not."""
    sender_problem: str = ""
    """Why :attr:`sender` is empty although the message has a From header (``"the From
    header 'x' holds no well-formed address"``), for the stored reason; ``''`` otherwise."""


# -- text hygiene -----------------------------------------------------------------------

_SURROGATES = re.compile(r"[\ud800-\udfff]")
# C0 controls other than tab and newline, and DEL: never useful in mail text, and some
# (NUL) are refused by databases.
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_FOLD = re.compile(r"\r?\n(?=[ \t])|\r(?=[ \t])")
_MAX_ID = 250
_MAX_REFERENCES = 50
_MAX_ADDRESS = 254


def _unescape(value: str) -> str:
    """Undo the parser's surrogateescape of 8-bit header bytes (read as UTF-8, which is
    what such bytes nearly always are), and replace any other lone surrogate."""
    if not _SURROGATES.search(value):
        return value
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    except UnicodeError:
        return _SURROGATES.sub("\ufffd", value)


def _one_line(value: str) -> str:
    """``value`` unfolded onto one line with runs of white space made single spaces."""
    return " ".join(_CONTROLS.sub(" ", _unescape(value)).split())


def _clean_text(value: str) -> str:
    """Body text with ``\\n`` line ends, no control characters and no lone surrogates."""
    value = value.replace("\r\n", "\n").replace("\r", "\n")
    return _CONTROLS.sub("", _unescape(value))


# -- headers ----------------------------------------------------------------------------

# The message is parsed with compat32, which keeps header values as the raw strings of the
# source, so reading one costs nothing.  The default policy parses a header through
# email.headerregistry on every access (the parser itself asks for Content-Type several
# times), which made it the bulk of the cost of decoding.  The values that really need
# that parsing (an encoded-word subject, an unusual address or MIME header) are still
# handed to the default policy's header registry, one at a time, so every field decodes as
# it did when the whole message was parsed with the default policy.
_DEFAULT_POLICY = email.policy.default
_LINE_BREAKS = re.compile(r"[\r\n]")
# Printable ASCII without "=?": an unstructured value the header registry reads unchanged
# but for the removal of line breaks.
_PRINTABLE = re.compile(r"[ \t\x21-\x7e]*")
_TOKEN = r"[A-Za-z0-9!#$%&'+.^_`{|}~-]+"  # RFC 2045 token, without "*" (RFC 2231 names)
_QUOTED = r'"[\t\x20\x21\x23-\x5b\x5d-\x7e]*"'  # a quoted string without escapes
# A Content-Type of type, subtype and plain parameters: the registry would give the same
# type and parameter values (it only re-quotes them).
_PARAMETER = rf"{_TOKEN}[ \t]*=[ \t]*(?:{_TOKEN}|{_QUOTED})[ \t]*"
_PLAIN_CONTENT_TYPE = re.compile(rf"[ \t]*{_TOKEN}/{_TOKEN}[ \t]*(?:;[ \t]*(?:{_PARAMETER})?)*")
_PLAIN_MIME = {
    "content-type": _PLAIN_CONTENT_TYPE,
    "content-transfer-encoding": _PRINTABLE,
    "content-id": _PRINTABLE,
}
# "Name <local@domain>", "\"Name\" <local@domain>", "<local@domain>" or "local@domain", in
# printable ASCII, with no comments, groups, lists, quoted local parts or domain literals:
# the forms the header registry and getaddresses read the same way, as this address.
_ATEXT = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]"
_DOT_ATOM = rf"{_ATEXT}+(?:\.{_ATEXT}+)*"
_SIMPLE_ADDRESS = re.compile(
    rf"""(?:
        [ \t.A-Za-z0-9!#$%&'*+/=?^_`{{|}}~-]*                # display name of words, or
      | [ \t]* "[\t\x20\x21\x23-\x5b\x5d-\x7e]*" [ \t]*  # a quoted one, without escapes
    ) < [ \t]* ({_DOT_ATOM}@{_DOT_ATOM}) [ \t]* > [ \t]*
    | [ \t]* ({_DOT_ATOM}@{_DOT_ATOM}) [ \t]*""",
    re.VERBOSE,
)


def _registry_header(name: str, raw: str) -> object:
    """``raw`` read by the default policy's header registry, as ``EmailMessage.get`` of a
    message parsed with that policy returns it."""
    return _DEFAULT_POLICY.header_fetch_parse(name, raw)


class _ReadPolicy(email.policy.Compat32):
    """compat32, but header values are fetched as the default policy would give the
    ``email`` package's own readers (the parser, ``get_content_type``, ``get_param``,
    ``get_payload``) their text: Content-Type, Content-Transfer-Encoding and Content-ID
    pass through the header registry unless they are plain enough to read the same
    either way.  Every other header comes back as parsed: raw text, folded, 8-bit bytes
    surrogate-escaped (never compat32's ``Header`` object); this module decodes those
    itself."""

    def header_fetch_parse(self, name: str, value: str) -> str:
        """The value of header ``name`` as the message's methods should read it."""
        plain = _PLAIN_MIME.get(name.lower())
        if plain is None:
            return value
        unfolded = _LINE_BREAKS.sub("", value)
        if "=?" not in unfolded and plain.fullmatch(unfolded):
            return unfolded
        return str(_registry_header(name, value))


_PARSE_POLICY = _ReadPolicy()


def _raw_headers(msg: Message) -> list[tuple[str, str]]:
    """Every header field as (lowercase name, unfolded value), in order."""
    result: list[tuple[str, str]] = []
    try:
        for name, value in msg.raw_items():
            key = _one_line(str(name)).lower()
            if key:
                result.append(
                    (key, _CONTROLS.sub(" ", _unescape(_FOLD.sub("", str(value)))).strip())
                )
    except Exception:
        # A parser failure part-way leaves what was read so far, which is still useful.
        pass
    return result


def _ids(value: str) -> list[str]:
    """The message ids in a Message-ID, In-Reply-To or References value, bracketed."""
    found = re.findall(r"<([^<>]*)>", value)
    if not found:
        # Some clients omit the brackets; take the words that look like ids.
        found = [word for word in value.split() if "@" in word]
    ids: list[str] = []
    for item in found:
        core = "".join(item.split()).strip("<>")
        if not core:
            continue
        if len(core) > _MAX_ID:
            # Keep the id usable as a database key; the same id always hashes the same.
            core = hashlib.sha256(core.encode("utf-8", "replace")).hexdigest() + "@judge.invalid"
        ids.append(f"<{core}>")
    return ids


def _clean_address(addr: str) -> str:
    """A bare address, lowercased, or ``''`` when it could not be used as a recipient."""
    addr = _unescape(addr).strip().lower()
    if addr.startswith("<") and addr.endswith(">"):
        addr = addr[1:-1].strip()
    if not addr or len(addr) > _MAX_ADDRESS or any(c in addr for c in "<>\r\n\t\0,;"):
        return ""
    # A space can only be part of a quoted local part; anything else is garbage that could
    # end up in an SMTP envelope.
    if " " in addr and not re.fullmatch(r'"[^"]*"@\S+', addr):
        return ""
    if _CONTROLS.search(addr):
        return ""
    return addr


# The address forms a reply may go to: a dot-atom or quoted local part (RFC 5322; UTF-8
# letters allowed, RFC 6532) at a dot-atom domain or a domain literal.  Nothing else: no
# control character, no blank outside quotes, one "@".
_ATOM_CHAR = r"[A-Za-z0-9!#$%&'*+/=?^_`{|}~\-\u0080-\U0010ffff]"
_WELL_FORMED = re.compile(
    rf"(?:{_ATOM_CHAR}+(?:\.{_ATOM_CHAR}+)*|\"[\x20\x21\x23-\x5b\x5d-\x7e]*\")"
    rf"@(?:{_ATOM_CHAR}+(?:\.{_ATOM_CHAR}+)*|\[[0-9A-Fa-f:.]+\])"
)
# A bare local part (MAILER-DAEMON): nobody to answer, but the rules read who it is.
_BARE_LOCAL = re.compile(rf"{_ATOM_CHAR}+(?:\.{_ATOM_CHAR}+)*")
# What the header registry reports when it had to guess at the structure: such a header
# is not read.  (A control character alone is not one: the address read is checked.)
_ADDRESS_DEFECTS = ("InvalidHeaderDefect", "HeaderMissingRequiredValue")


def _address(msg: Message, name: str, raw_value: str | None) -> tuple[str, str]:
    """The first address of header ``name`` and ``''``, or ``''`` and why there is none.

    The address is one the header really holds as an address: read by the header
    registry without a defect (no guessing around unbalanced quotes or brackets, no
    control characters) and well-formed.  Never an address found in a display name or
    a comment, never a fragment of one cut at a NUL byte.
    """
    try:
        header = msg.get(name)
    except Exception:
        header = None
    if header is None:
        return "", ""
    label = name.title()
    shown = repr(_shown(_one_line(raw_value or "")))
    problem = f"the {label} header {shown} holds no well-formed address"
    simple = _SIMPLE_ADDRESS.fullmatch(_LINE_BREAKS.sub("", header))
    if simple:
        # The common case, read without the header registry's full address parser.
        addr = _clean_address(simple.group(1) or simple.group(2))
        # The registry would decode an encoded word even inside an address.
        if addr and "=?" not in addr and _WELL_FORMED.fullmatch(addr):
            return addr, ""
    try:
        parsed = _registry_header(name, header)
        defects = [type(defect).__name__ for defect in getattr(parsed, "defects", ())]
        addresses = [str(item.addr_spec) for item in getattr(parsed, "addresses", ())]
    except Exception:
        return "", problem
    if len(addresses) == 1 and not addresses[0].count("@"):
        bare = _clean_address(addresses[0])
        if bare and _BARE_LOCAL.fullmatch(bare):
            return bare, problem
    if any(defect in _ADDRESS_DEFECTS for defect in defects) or not addresses:
        return "", problem
    addr = _clean_address(addresses[0])
    if not addr or not _WELL_FORMED.fullmatch(addr):
        return "", problem
    return addr, ""


def _subject(msg: Message, raw_value: str | None) -> str:
    """The decoded subject on one line."""
    try:
        header = msg.get("subject")
        if header is not None:
            unfolded = _LINE_BREAKS.sub("", header)
            if "=?" not in unfolded and _PRINTABLE.fullmatch(unfolded):
                # Nothing for RFC 2047 decoding to do.
                return _one_line(unfolded)
            return _one_line(str(_registry_header("subject", header)))
    except Exception:
        pass
    return _one_line(raw_value or "")


# -- body -------------------------------------------------------------------------------

_LATIN1 = frozenset({"iso-8859-1", "iso8859-1", "iso_8859-1", "latin1", "latin-1", "l1", "cp819"})
_UNLABELLED = frozenset(
    {"", "us-ascii", "ascii", "unknown-8bit", "x-unknown", "unknown", "default"}
)


def _decode_bytes(data: bytes, charset: str | None) -> str:
    """``data`` as text in ``charset``, falling back when the label is missing or wrong."""
    name = (charset or "").strip().strip("\"'").lower()
    if name in _UNLABELLED:
        # Unlabelled 8-bit mail is nearly always UTF-8, else a Windows code page.
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("cp1252", "replace")
    if name in _LATIN1:
        # Mail labelled Latin-1 is usually Windows-1252 (curly quotes, dashes), as browsers assume.
        return data.decode("cp1252", "replace")
    try:
        return data.decode(name, "replace")
    except Exception:
        # Unknown labels, binary codecs (zlib, base64) and strict-only codecs (idna).
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return data.decode("cp1252", "replace")


def _unflow(text: str, delsp: bool) -> str:
    """Undo RFC 3676 format=flowed: join soft-broken lines of the same quote depth."""
    out: list[str] = []
    pending: str | None = None
    pending_depth = 0

    def emit(depth: int, content: str) -> None:
        out.append(">" * depth + " " + content if depth else content)

    for line in text.split("\n"):
        stripped = line.lstrip(">")
        depth = len(line) - len(stripped)
        content = stripped[1:] if stripped.startswith(" ") else stripped  # space-stuffing
        if pending is not None:
            if depth == pending_depth and content != "-- ":
                content = pending + content
            else:
                emit(pending_depth, pending)
            pending = None
        if content.endswith(" ") and content != "-- ":
            pending = content[:-1] if delsp else content
            pending_depth = depth
        else:
            emit(depth, content)
    if pending is not None:
        emit(pending_depth, pending)
    return "\n".join(out)


def _part_text(part: Message) -> str:
    """The decoded text of one text part, ``''`` if it cannot be read."""
    try:
        payload = part.get_payload(decode=True)
    except Exception:
        return ""
    if not isinstance(payload, bytes):
        return ""
    try:
        charset = part.get_content_charset()
    except Exception:
        charset = None
    text = _clean_text(_decode_bytes(payload, charset))
    try:
        flowed = str(part.get_param("format", "")).lower() == "flowed"
        delsp = str(part.get_param("delsp", "")).lower() == "yes"
    except Exception:
        flowed = delsp = False
    if flowed and part.get_content_subtype() == "plain":
        text = _unflow(text, delsp)
    return text


# A part's Content-Disposition read by the header registry (as ``is_attachment`` does) and
# by compat32 agree when it starts with a plain token.
_DISPOSITION = re.compile(r"[ \t]*([A-Za-z0-9!#$%&'*+.^_`{|}~-]+)[ \t]*(?:;.*)?", re.DOTALL)


def _is_attachment(part: Message) -> bool:
    """Whether ``part`` is marked ``Content-Disposition: attachment``, as
    ``EmailMessage.is_attachment`` decides it."""
    raw = part.get("content-disposition")
    if raw is None:
        return False
    plain = _DISPOSITION.fullmatch(_LINE_BREAKS.sub("", raw))
    if plain:
        return plain.group(1).lower() == "attachment"
    # Comments, encoded words, stray characters: let the registry read it.
    disposition = getattr(_registry_header("content-disposition", raw), "content_disposition", None)
    return disposition == "attachment"


def _find_body(msg: Message, preferencelist: tuple[str, ...]) -> Message | None:
    """The text part ``EmailMessage.get_body(preferencelist)`` would choose, or ``None``.

    The same depth-first search (attachments skipped, only the root part of a
    multipart/related followed), written as a loop so deep nesting cannot exhaust the
    stack; ``preferencelist`` holds text subtypes only.  A subpart that claims to be
    multipart/related but has no parts is skipped where ``get_body`` would fail.
    """
    best: Message | None = None
    best_rank = len(preferencelist)
    stack = [msg]
    while stack:
        part = stack.pop()
        if _is_attachment(part):
            continue
        maintype, subtype = part.get_content_type().split("/")
        if maintype == "text":
            if subtype in preferencelist:
                rank = preferencelist.index(subtype)
                if rank < best_rank:
                    best, best_rank = part, rank
                    if rank == 0:
                        break
            continue
        payload = part.get_payload()
        # Only a part that really is multipart (its payload a list) is descended into.
        if maintype != "multipart" or not isinstance(payload, list):
            continue
        subparts = [sub for sub in payload if isinstance(sub, Message)]
        if subtype == "related":
            # Only the root part counts: the one named by "start", else the first.
            start = part.get_param("start")
            candidates = [sub for sub in subparts if start and sub.get("content-id") == start]
            subparts = candidates[:1] or subparts[:1]
        stack.extend(reversed(subparts))
    return best


def _body(msg: Message) -> tuple[str, tuple[Message, ...], tuple[str, ...]]:
    """The readable text of the message and the parts it comes from.

    Usually one part (see :func:`_one_body`).  But a multipart/mixed message whose text is
    broken by a picture or another inline part (Apple Mail: text, picture, more text) has
    the sender's words in several inline parts: each is read, in order, and the texts are
    joined.  Attachments (a filename, or ``Content-Disposition: attachment``) are not
    text the sender typed, and of the alternatives of one text only one is read.
    At most :data:`MAX_PARTS` of them are read; the third value says how many more there
    were, if any.
    """
    try:
        pieces = _mixed_pieces(msg)
    except Exception:
        pieces = None
    if pieces is None:
        text, part = _one_body(msg)
        return text, (() if part is None else (part,)), ()
    more: tuple[str, ...] = ()
    if len(pieces) > MAX_PARTS:
        more = (
            f"{len(pieces) - MAX_PARTS:,} further text parts: at most {MAX_PARTS} parts of a "
            "message are read",
        )
        pieces = pieces[:MAX_PARTS]
    texts = [text for text, _part in pieces]
    # Each part's text on lines of its own, however the part ended.
    joined = "\n".join(t[:-1] if t.endswith("\n") else t for t in texts[:-1])
    return joined + "\n" + texts[-1], tuple(part for _text, part in pieces), more


def _mixed_pieces(msg: Message) -> list[tuple[str, Message]] | None:
    """The text of each inline text part (or group of alternatives) of a multipart/mixed
    message, in order, when there are two or more of them; else ``None``."""
    container = msg
    # A signed message holds the real one as its first part.
    for _ in range(_MAX_DEPTH):
        if container.get_content_type() != "multipart/signed":
            break
        payload = container.get_payload()
        first = payload[0] if isinstance(payload, list) and payload else None
        if not isinstance(first, Message):
            return None
        container = first
    if container.get_content_type() != "multipart/mixed":
        return None
    payload = container.get_payload()
    if not isinstance(payload, list):
        return None
    pieces: list[tuple[str, Message]] = []
    for sub in payload:
        if not isinstance(sub, Message) or _is_attachment(sub) or sub.get_filename():
            continue
        ctype = sub.get_content_type()
        if ctype in ("text/plain", "text/html") or ctype in (
            "multipart/alternative",
            "multipart/related",
        ):
            if len(pieces) >= MAX_PARTS:
                # Counted for the note, not decoded.
                pieces.append(("", sub))
                continue
            text, part = _one_body(sub)
            if part is not None:
                pieces.append((text, part))
    return pieces if len(pieces) > 1 else None


def _one_body(msg: Message) -> tuple[str, Message | None]:
    """The readable text of ``msg`` and the part it comes from: plain text preferred,
    HTML converted otherwise, or when the plain text is empty or has lost the line breaks
    its HTML twin has."""
    try:
        body = _find_body(msg, ("plain", "html"))
    except Exception:
        body = None
    if body is None:
        try:
            # A single-part message of another text type (text/enriched, text/markdown, or
            # a body marked as an attachment) is still what the sender wrote.
            if not msg.is_multipart() and msg.get_content_maintype() == "text":
                body = msg
        except Exception:
            body = None
    if body is None:
        return "", None
    try:
        is_html = body.get_content_subtype() == "html"
    except Exception:
        is_html = False
    text = _part_text(body)
    if is_html:
        return html_to_text(text), body
    try:
        html_part = _find_body(msg, ("html",)) if msg.is_multipart() else None
    except Exception:
        html_part = None
    if html_part is None:
        return text, body
    html = _part_text(html_part)
    # Some clients send an empty plain part beside the real HTML one; Yahoo's plain part
    # runs the lines of the HTML one together ("SIGNON Fx pwA Par-BurA Mar-Spa").
    if not text.strip() or _lost_line_breaks(text, html):
        return html_to_text(html), html_part
    return text, body


# The tags that start a new line of the text of an HTML body.
_HTML_BREAK = re.compile(r"<(?:br|div|p|li|tr|h[1-6])\b", re.IGNORECASE)
_SQUEEZE = re.compile(r"[\s>]+")


def _lost_line_breaks(plain: str, html: str) -> bool:
    """Whether ``plain`` is the text of ``html`` with line breaks lost: the same
    characters but for white space (and the ``>`` of quote marks), on fewer lines."""
    plain_lines = sum(1 for line in plain.splitlines() if line.strip())
    # Cheap test first: the HTML cannot have more lines than it has line-breaking tags.
    if len(_HTML_BREAK.findall(html)) <= plain_lines:
        return False
    full = _html_text(html, keep_quotes=True)
    html_lines = sum(1 for line in full.splitlines() if line.strip())
    return html_lines > plain_lines and _SQUEEZE.sub("", plain) == _SQUEEZE.sub("", full)


# Parts that only sign the text: nothing in them was written by the sender.
_SIGNATURE_TYPES = frozenset(
    {
        "application/pgp-signature", "application/pkcs7-signature",
        "application/x-pkcs7-signature", "application/pgp-keys",
    }
)  # fmt: skip
_SMIME_TYPES = frozenset({"application/pkcs7-mime", "application/x-pkcs7-mime"})
_MAX_UNREAD = 20
_MAX_NAME = 80


def _holds(part: Message, wanted: frozenset[int]) -> bool:
    """Whether ``part`` or one of its subparts is one of the parts whose ``id`` is in
    ``wanted``."""
    stack = [part]
    seen = 0
    while stack and seen < 10000:
        seen += 1
        item = stack.pop()
        if id(item) in wanted:
            return True
        payload = item.get_payload()
        if isinstance(payload, list):
            stack.extend(sub for sub in payload if isinstance(sub, Message))
    return False


def _part_name(part: Message) -> str:
    """The file name of an attachment, on one line and not too long, or ``''``."""
    try:
        name = _one_line(str(part.get_filename() or ""))
    except Exception:
        return ""
    return name if len(name) <= _MAX_NAME else name[: _MAX_NAME - 3] + "..."


def _unread_parts(msg: Message, read: tuple[Message, ...]) -> tuple[str, ...]:
    """What the parts of ``msg`` other than those ``read`` hold that is not read, in words."""
    found: list[str] = []
    read_ids = frozenset(id(body) for body in read)
    stack: list[tuple[Message, int]] = [(msg, 0)]
    while stack and len(found) < _MAX_UNREAD:
        part, depth = stack.pop()
        if id(part) in read_ids:
            continue
        try:
            ctype = part.get_content_type()
        except Exception:
            continue
        maintype, _, subtype = ctype.partition("/")
        payload = part.get_payload()
        if maintype == "multipart":
            if not isinstance(payload, list) or depth >= _MAX_DEPTH:
                continue
            subparts = [sub for sub in payload if isinstance(sub, Message)]
            if subtype == "encrypted":
                found.append("a PGP/MIME encrypted part: this judge cannot decrypt it")
                continue
            if subtype == "alternative":
                # Versions of one text: when the body is one of them, the others say
                # the same; otherwise the last (the richest) stands for them all.
                if _holds(part, read_ids):
                    continue
                subparts = subparts[-1:]
            elif subtype == "related":
                subparts = subparts[:1]  # the rest are the pictures of the root
            elif subtype == "signed":
                subparts = subparts[:1]  # the rest is the signature
            stack.extend((sub, depth + 1) for sub in reversed(subparts))
            continue
        if ctype in _SIGNATURE_TYPES:
            continue
        if ctype in _SMIME_TYPES:
            found.append(f"an S/MIME encrypted or signed part ({ctype}): this judge cannot open it")
            continue
        if maintype == "message" and isinstance(payload, list):
            inner = next((sub for sub in payload if isinstance(sub, Message)), None)
            subject = _subject(inner, inner.get("subject")) if inner is not None else ""
            about = f" ({subject!r})" if subject else ""
            found.append(
                f"an attached message{about}: forwarded messages are not read, as they "
                "may be someone else's"
            )
            continue
        name = _part_name(part)
        inline_text = maintype == "text" and not _is_attachment(part)
        kind = "a further text part" if inline_text else "an attachment"
        what = f"{kind} {name} ({ctype})" if name else f"{kind} ({ctype})"
        found.append(f"{what}: only the text of the message itself is read")
    return tuple(found)


# -- HTML -------------------------------------------------------------------------------

_VOID = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link",
        "meta", "param", "source", "track", "wbr",
    }
)  # fmt: skip
_BLOCK = frozenset(
    {
        "address", "article", "aside", "blockquote", "center", "dd", "details", "dialog",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1",
        "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
        "pre", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul",
    }
)  # fmt: skip
_CELL = frozenset({"td", "th"})
# Elements whose content is never what the sender wrote: code, styling, and quotes.
_DROP_TAGS = frozenset({"script", "style", "head", "title", "template", "noscript", "blockquote"})
# Gmail wraps the quoted message in div.gmail_quote (with its "On ... wrote:" line);
# Yahoo uses div.yahoo_quoted.
_DROP_CLASSES = frozenset({"gmail_quote", "yahoo_quoted"})
_MAX_DEPTH = 512


class _TextExtractor(HTMLParser):
    """Collects the visible text of an HTML body, one line per block."""

    def __init__(self, *, keep_quotes: bool = False) -> None:
        super().__init__(convert_charrefs=True)
        self.keep_quotes = keep_quotes
        self.parts: list[str] = []
        self.at_line_start = True
        # Open elements as (tag, dropped); the stack survives sloppy HTML because an end
        # tag closes everything opened since its start tag, and unknown end tags are ignored.
        self.stack: list[tuple[str, bool]] = []
        self.open_count: dict[str, int] = {}  # makes a stray end tag cost nothing
        self.dropping = 0
        self.pre = 0

    def _newline(self, *, force: bool = False) -> None:
        if force or not self.at_line_start:
            self.parts.append("\n")
            self.at_line_start = True

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        tag = tag.lower()
        if tag in _VOID:
            if not self.dropping:
                if tag == "br":
                    self._newline(force=True)
                elif tag == "hr":
                    self._newline()
            return
        classes: set[str] = set()
        for name, value in attrs:
            if name.lower() == "class" and value:
                classes.update(value.split())
        if self.keep_quotes:
            drop = tag in _DROP_TAGS and tag != "blockquote"
        else:
            # Yahoo prefixes its class names when a message is replied to again
            # ("ydp3c2e5f0ayahoo_quoted").
            drop = tag in _DROP_TAGS or any(
                name in _DROP_CLASSES or name.endswith("yahoo_quoted") for name in classes
            )
        if len(self.stack) >= _MAX_DEPTH and not drop:
            # Pathological nesting: stop tracking rather than grow without bound.
            return
        self.stack.append((tag, drop))
        self.open_count[tag] = self.open_count.get(tag, 0) + 1
        if drop:
            self.dropping += 1
        if tag == "pre":
            self.pre += 1
        if not self.dropping:
            if tag in _BLOCK:
                self._newline()
            elif tag in _CELL and not self.at_line_start:
                self.parts.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        # "<br/>" is one line break, and "<div/>" opens nothing that needs closing.
        self.handle_starttag(tag, attrs)
        if tag.lower() not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        tag = tag.lower()
        if tag == "br" and not self.dropping:
            self._newline(force=True)  # browsers read </br> as <br>
            return
        if not self.open_count.get(tag):
            return
        index = len(self.stack) - 1
        while self.stack[index][0] != tag:
            index -= 1
        while len(self.stack) > index:
            closed, dropped = self.stack.pop()
            self.open_count[closed] -= 1
            if dropped:
                self.dropping -= 1
            if closed == "pre":
                self.pre -= 1
            if not self.dropping and closed in _BLOCK:
                self._newline()

    def handle_data(self, data: str) -> None:
        if self.dropping:
            return
        if self.pre:
            text = data.replace("\r\n", "\n").replace("\r", "\n")
        else:
            text = re.sub(r"\s+", " ", data)
            if self.at_line_start:
                text = text.lstrip()
        if text:
            self.parts.append(text)
            self.at_line_start = text.endswith("\n")


def html_to_text(html: str) -> str:
    """The visible text of an HTML email body, one line per block, quotes left out.

    Quoted messages (``<blockquote>``, Gmail's ``div.gmail_quote``), scripts and styles
    are dropped; block elements and ``<br>`` end lines; entities are decoded.  Never raises.

    >>> html_to_text("<div>A Par-Bur<br>F Bre&nbsp;H</div><blockquote>old</blockquote>")
    'A Par-Bur\\nF Bre H'
    """
    return _html_text(html, keep_quotes=False)


def _html_text(html: str, *, keep_quotes: bool) -> str:
    """The text of :func:`html_to_text`, with the quoted messages too if ``keep_quotes``."""
    parser = _TextExtractor(keep_quotes=keep_quotes)
    try:
        parser.feed(str(html))
        parser.close()
    except Exception:
        # html.parser gives up on a few malformed constructs; keep what it read.
        pass
    lines = [
        " ".join(line.replace("\xa0", " ").split()) for line in "".join(parser.parts).split("\n")
    ]
    # At most one blank line in a row, none at either end.
    out: list[str] = []
    for line in lines:
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return _clean_text("\n".join(out))


# -- the message ------------------------------------------------------------------------


def _as_bytes(raw: object) -> bytes:
    """``raw`` as bytes, whatever the caller passed."""
    if isinstance(raw, bytes):
        return raw
    if isinstance(raw, bytearray | memoryview):
        return bytes(raw)
    if isinstance(raw, str):
        return raw.encode("utf-8", "surrogateescape")
    return str(raw).encode("utf-8", "replace")


# A line the email parser reads as a header field: a name and a colon, a continuation
# (starting with a blank), or a Unix "From " line.  Any other line ends the header.
_FIELD_START = re.compile(rb"[\x21-\x39\x3b-\x7e]*:|From ")
_NEWLINE = re.compile(rb"\r\n|\r|\n")
_FIELD_NAME = re.compile(rb"[\x21-\x39\x3b-\x7e]{1,76}(?=[ \t]*:)")
# A multipart part, as its Content-Type header declares one (anywhere in the message).
_MULTIPART = re.compile(rb"^content-type:[ \t]*(?:\r?\n[ \t]+)?multipart/", re.I | re.M)


@dataclass(frozen=True)
class _Header:
    """A message split at the end of its header, with the header capped."""

    fields: bytes
    """The header fields read, as written, with their line ends."""
    rest: bytes
    """What follows the fields read: the empty line and the body, or ``b""``."""
    notes: tuple[str, ...]
    """What was left out, in words."""
    dropped: Mapping[str, int]
    """The size of each field left out for its size, by lowercase name (the first)."""


def _field_name(field: bytes) -> str:
    """The name of a header field as written (``From``), for a note."""
    match = _FIELD_NAME.match(field)
    return match.group().decode("ascii") if match else "unnamed"


def _cap_header(data: bytes) -> _Header:
    """``data`` split into its header fields and the rest, keeping only the fields that
    are at most :data:`MAX_HEADER_FIELD_BYTES` long and end within the first
    :data:`MAX_HEADER_BYTES`.  One pass over the lines of the header, which stops at the
    limit: linear, and bounded whatever follows."""
    kept: list[bytes] = []
    notes: list[str] = []
    dropped: dict[str, int] = {}
    length = len(data)
    position = 0  # the start of the line being read
    start = 0  # the start of the field being read
    while True:
        if position > MAX_HEADER_BYTES:
            notes.append(
                f"the header beyond its first {MAX_HEADER_BYTES:,} bytes "
                f"({length - start:,} bytes) and the body: a header longer than "
                f"{MAX_HEADER_BYTES:,} bytes is not read further"
            )
            return _Header(b"".join(kept), b"\r\n", tuple(notes), MappingProxyType(dropped))
        newline = _NEWLINE.search(data, position)
        end = newline.end() if newline else length
        continuation = data[position : position + 1] in (b" ", b"\t")
        ends_header = position >= length or (
            not continuation
            and (not data[position:end].strip(b"\r\n") or not _FIELD_START.match(data, position))
        )
        if position > start and not continuation:
            # The field that started at ``start`` ends here.
            field = data[start:position]
            if len(field) > MAX_HEADER_FIELD_BYTES:
                name = _field_name(field)
                dropped.setdefault(name.lower(), len(field))
                notes.append(
                    f"the {name} header ({len(field):,} bytes): at most "
                    f"{MAX_HEADER_FIELD_BYTES:,} bytes of a header field are read"
                )
            else:
                kept.append(field)
            start = position
        if ends_header:
            return _Header(b"".join(kept), data[position:], tuple(notes), MappingProxyType(dropped))
        position = end


def multipart_count(data: bytes) -> int:
    """How many multipart parts (containers, at any depth) ``data`` declares; a message
    with more than :data:`MAX_MULTIPARTS` is read for its header only (the email
    package's parser recurses once per level: 5,000 levels exhaust Python's stack)."""
    return len(_MULTIPART.findall(data))


def header_block(raw: bytes) -> bytes:
    """The header of ``raw`` as :func:`decode` reads it, ending in an empty line: the
    fields that fit the limits (:data:`MAX_HEADER_BYTES`, :data:`MAX_HEADER_FIELD_BYTES`).
    Storing a message decodes this, so it stores the sender and Message-ID that
    processing reads.  Never raises.

    >>> header_block(b"From: a@b.org\\r\\nX-Big: " + b"x" * 20000 + b"\\r\\n\\r\\nbody")
    b'From: a@b.org\\r\\n\\r\\n'
    """
    try:
        data = _as_bytes(raw)
    except Exception:
        return b"\r\n"
    return _cap_header(data).fields + b"\r\n"


def decode(raw: bytes) -> IncomingMail:
    """Decode a raw email.  Never raises: what cannot be read comes out empty.

    >>> mail = decode(b"From: Ann <Ann@Example.org>\\r\\nSubject: =?utf-8?q?Ordres_=C3=A9t=C3=A9?="
    ...               b"\\r\\n\\r\\nA Par-Bur\\r\\n")
    >>> mail.sender, mail.subject, mail.text
    ('ann@example.org', 'Ordres été', 'A Par-Bur\\n')
    >>> mail.message_id.endswith("@judge.invalid>")
    True
    """
    try:
        data = _as_bytes(raw)
    except Exception:
        data = b""
    fallback_id = f"<{hashlib.sha256(data).hexdigest()}@judge.invalid>"
    try:
        header = _cap_header(data)
        notes = header.notes
        read_body = True
        multiparts = multipart_count(data)
        if multiparts > MAX_MULTIPARTS:
            read_body = False
            notes += (
                f"the body: it has {multiparts:,} multipart parts, more than the "
                f"{MAX_MULTIPARTS} this judge reads; please send your commands as plain text",
            )
        source = header.fields + (header.rest if read_body else b"\r\n")
        msg = email.message_from_bytes(source, policy=_PARSE_POLICY)
        return _from_message(msg, fallback_id, notes, header.dropped)
    except Exception:
        # Each field is already read defensively; this is the last line of defence.
        return IncomingMail(fallback_id, "", "", "", None, (), "", MappingProxyType({}))


def _from_message(
    msg: Message,
    fallback_id: str,
    notes: tuple[str, ...] = (),
    dropped: Mapping[str, int] = MappingProxyType({}),
) -> IncomingMail:
    """The fields of a parsed message; ``notes`` says what of it was not read, ``dropped``
    gives the size of each header field (by lowercase name) left out for its size."""
    header_list = _raw_headers(msg)
    first: dict[str, str] = {}
    for name, value in header_list:
        first.setdefault(name, value)

    message_ids = _ids(first.get("message-id", ""))
    reply_ids = _ids(first.get("in-reply-to", ""))
    references = _ids(first.get("references", ""))
    if len(references) > _MAX_REFERENCES:
        # Keep the thread's root and its most recent messages.
        references = references[:10] + references[-(_MAX_REFERENCES - 10) :]
    from_addr, problem = _address(msg, "from", first.get("from"))
    if "from" in dropped:
        problem = (
            f"the From header is {dropped['from']:,} bytes long; at most "
            f"{MAX_HEADER_FIELD_BYTES:,} bytes of a header field are read"
        )
    reply_to = _address(msg, "reply-to", first.get("reply-to"))[0] if "reply-to" in first else ""
    try:
        text, read, more = _body(msg)
    except Exception:
        text, read, more = "", (), ()
    try:
        unread = (*notes, *more, *_unread_parts(msg, read))
    except Exception:
        unread = (*notes, *more)
    # A bare local part (MAILER-DAEMON) stays in from_addr for the rules; the sender is
    # an address a reply can go to, or nothing.
    sender = reply_to if "@" in reply_to else from_addr if "@" in from_addr else ""
    return IncomingMail(
        message_id=message_ids[0] if message_ids else fallback_id,
        sender=sender,
        sender_problem="" if "@" in sender else problem,
        from_addr=from_addr,
        subject=_subject(msg, first.get("subject")),
        in_reply_to=reply_ids[0] if reply_ids else None,
        references=tuple(references),
        text=text,
        headers=MappingProxyType(first),
        header_list=tuple(header_list),
        unread_parts=unread,
    )


# -- quotes and signatures --------------------------------------------------------------

# The header block a mail program prints above the message it quotes or forwards
# (Outlook's "From: / Sent: / To: / Subject:"), in the languages such programs are sold
# in: for each, the words for "From", the words for "Sent" or "Date", and the other
# fields.  Collected for this judge from the programs' own screens.
_HEADER_WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {
    "en": (("from",), ("sent", "date"),
           ("to", "cc", "bcc", "subject", "reply-to", "importance", "attachments")),
    "es": (("de",), ("enviado", "enviado el", "enviada el", "fecha"),
           ("para", "cc", "cco", "asunto", "importancia", "datos adjuntos", "responder a")),
    "pt": (("de",), ("enviado", "enviada", "enviado em", "enviada em", "data"),
           ("para", "cc", "cco", "assunto", "importância", "anexos", "responder a")),
    "fr": (("de", "expéditeur"), ("envoyé", "envoyé le", "date"),
           ("à", "a", "destinataire", "cc", "cci", "objet", "importance", "pièces jointes",
            "répondre à")),
    "de": (("von",), ("gesendet", "datum"),
           ("an", "cc", "bcc", "betreff", "wichtigkeit", "anlagen", "antwort an")),
    "it": (("da",), ("inviato", "inviato il", "data"),
           ("a", "cc", "ccn", "oggetto", "priorità", "allegati", "rispondi a")),
    "nl": (("van",), ("verzonden", "datum"),
           ("aan", "cc", "bcc", "onderwerp", "urgentie", "bijlagen", "antwoord aan")),
    "sv": (("från",), ("skickat", "skickades", "datum"),
           ("till", "kopia", "ämne", "prioritet", "bifogade filer", "svara till")),
    "da": (("fra",), ("sendt", "dato"), ("til", "cc", "emne", "prioritet", "vedhæftede filer")),
    "nb": (("fra",), ("sendt", "dato"), ("til", "kopi", "emne", "viktighet", "vedlegg")),
    "fi": (("lähettäjä",), ("lähetetty", "päivämäärä"),
           ("vastaanottaja", "kopio", "aihe", "tärkeys", "liitteet")),
    "pl": (("od",), ("wysłano", "wysłane", "data"),
           ("do", "dw", "udw", "temat", "ważność", "załączniki")),
    "ru": (("от",), ("отправлено", "дата"), ("кому", "копия", "тема", "важность", "вложения")),
    "uk": (("від",), ("надіслано", "дата"), ("кому", "копія", "тема", "вкладення")),
    "bg": (("от",), ("изпратено", "дата"), ("до", "копие", "относно", "тема")),
    "cs": (("od",), ("odesláno", "datum"), ("komu", "kopie", "předmět", "důležitost", "přílohy")),
    "sk": (("od",), ("odoslané", "dátum"), ("komu", "kópia", "predmet", "prílohy")),
    "sl": (("od",), ("poslano", "datum"), ("za", "kp", "zadeva")),
    "hr": (("šalje", "pošiljatelj"), ("poslano", "datum"), ("prima", "kopija", "predmet")),
    "hu": (("feladó",), ("elküldve", "dátum"), ("címzett", "másolatot kap", "tárgy", "fontosság")),
    "ro": (("de la",), ("trimis", "data"), ("către", "cc", "subiect")),
    "tr": (("kimden",), ("gönderildi", "gönderilme", "tarih"), ("kime", "bilgi", "konu")),
    "el": (("από",), ("αποστολή", "στάλθηκε", "ημερομηνία"), ("προς", "κοιν", "θέμα")),
    "et": (("saatja",), ("saadetud", "kuupäev"), ("adressaat", "koopia", "teema")),
    "lv": (("no",), ("nosūtīts", "datums"), ("kam", "kopija", "tēma")),
    "lt": (("nuo",), ("išsiųsta", "data"), ("kam", "kopija", "tema")),
    "ca": (("de",), ("enviat", "enviat el", "data"), ("per a", "a", "cc", "assumpte")),
    "id": (("dari",), ("dikirim", "tanggal"), ("kepada", "cc", "subjek", "perihal")),
    "vi": (("từ",), ("đã gửi", "ngày"), ("đến", "cc", "chủ đề")),
    "ja": (("差出人", "送信者"), ("送信日時", "日付"), ("宛先", "cc", "件名")),
    "zh-hans": (("发件人",), ("发送时间", "日期"), ("收件人", "抄送", "主题")),
    "zh-hant": (("寄件者",), ("寄件日期", "日期"), ("收件者", "副本", "主旨")),
    "ko": (("보낸 사람",), ("보낸 날짜", "날짜"), ("받는 사람", "참조", "제목")),
    "he": (("מאת",), ("נשלח", "תאריך"), ("אל", "עותק", "נושא")),
    "ar": (("من",), ("تاريخ الإرسال", "التاريخ"), ("إلى", "نسخة", "الموضوع")),
    "th": (("จาก",), ("ส่ง", "วันที่"), ("ถึง", "สำเนาถึง", "เรื่อง")),
}  # fmt: skip


def _word_key(word: str) -> str:
    """A header word as looked up: lower case, single spaces."""
    return " ".join(word.lower().split())


def _header_kinds() -> dict[str, str]:
    """Each header word of :data:`_HEADER_WORDS` and its kind: ``from``, ``sent`` or
    ``field`` (a word of two kinds in two languages is read as the first one found; the
    tests check the table has none)."""
    kinds: dict[str, str] = {}
    for froms, sents, fields in _HEADER_WORDS.values():
        for kind, words in (("from", froms), ("sent", sents), ("field", fields)):
            for word in words:
                kinds.setdefault(_word_key(word), kind)
    return kinds


_HEADER_KIND = _header_kinds()


def _words_pattern(words: list[str]) -> str:
    """An alternation of ``words`` (longest first), their spaces matching any blanks."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    return "|".join(re.escape(word).replace(r"\ ", r"[ \t]+") for word in ordered)


# "Word: value" as it comes out of plain text ("From:"), of HTML ("From:" after the bold
# tags are gone) and of a plain part made from bold HTML ("*From:*", "*From*:").
# Each run of blanks has one place in the pattern, and is taken whole (possessive: never
# given back), so a line of blanks is read in one pass rather than retried from each of
# its positions against every header word.
_STARS = r"[ \t]*+(?:\*++[ \t]*+)?"
_HEADER_LINE = re.compile(
    rf"^{_STARS}({_words_pattern(list(_HEADER_KIND))}){_STARS}[:：]", re.IGNORECASE
)
_SENT_INLINE = re.compile(
    rf"(?<!\w)({_words_pattern([w for w, k in _HEADER_KIND.items() if k == 'sent'])})"
    rf"{_STARS}[:：]",
    re.IGNORECASE,
)


def _has_colon(line: str) -> bool:
    """Whether ``line`` has a colon (every header pattern needs one)."""
    return ":" in line or "：" in line


def _header_kind(line: str) -> str | None:
    """``from``, ``sent`` or ``field`` when ``line`` is a "Word: value" header line."""
    if not _has_colon(line):
        return None  # cheap: a header line has its colon
    match = _HEADER_LINE.match(line)
    return _HEADER_KIND.get(_word_key(match.group(1))) if match else None


# The marker lines above a quoted or forwarded message ("-----Original Message-----",
# Thunderbird's "-------- Original Message --------", Gmail's "---------- Forwarded
# message ---------", Apple Mail's "Begin forwarded message:"), in many languages.
_ORIGINAL_PHRASES = (
    "original message", "message d'origine", "message d’origine", "ursprüngliche nachricht",
    "originalnachricht", "mensaje original", "messaggio originale", "mensagem original",
    "oorspronkelijk bericht", "originalmeddelande", "ursprungligt meddelande",
    "oprindelig meddelelse", "opprinnelig melding", "alkuperäinen viesti",
    "oryginalna wiadomość", "wiadomość oryginalna", "исходное сообщение",
    "оригинальное сообщение", "вихідне повідомлення", "původní zpráva", "pôvodná správa",
    "eredeti üzenet", "mesaj original", "mesajul original", "özgün ileti", "orijinal ileti",
    "αρχικό μήνυμα", "originalna poruka", "izvirno sporočilo", "originaalsõnum",
    "sākotnējā ziņa", "originalus laiškas", "missatge original", "pesan asli", "thư gốc",
    "原始邮件", "原始郵件", "元のメッセージ", "원본 메시지",
)  # fmt: skip
_FORWARD_PHRASES = (
    "forwarded message", "message transféré", "weitergeleitete nachricht",
    "mensaje reenviado", "messaggio inoltrato", "mensagem encaminhada",
    "mensagem reencaminhada", "doorgestuurd bericht", "vidarebefordrat meddelande",
    "videresendt meddelelse", "videresendt melding", "välitetty viesti",
    "edelleenlähetetty viesti", "przekazana wiadomość", "wiadomość przekazana",
    "пересылаемое сообщение", "пересланное сообщение", "переслане повідомлення",
    "přeposlaná zpráva", "preposlaná správa", "továbbított üzenet", "mesaj redirecționat",
    "iletilen ileti", "προωθημένο μήνυμα", "proslijeđena poruka", "posredovano sporočilo",
    "edastatud sõnum", "pārsūtītā ziņa", "persiųstas laiškas", "missatge reenviat",
    "pesan terusan", "thư chuyển tiếp", "转发的邮件", "轉寄的郵件", "転送されたメッセージ",
    "전달된 메시지",
)  # fmt: skip
_BEGIN_FORWARD_PHRASES = (
    "begin forwarded message", "anfang der weitergeleiteten nachricht",
    "anfang der weitergeleiteten e-mail", "début du message réexpédié",
    "début du message transféré", "inicio del mensaje reenviado",
    "inizio messaggio inoltrato", "início da mensagem reencaminhada",
    "início da mensagem encaminhada", "begin doorgestuurd bericht", "vidarebefordrat mejl",
    "videresendt e-mail", "videresendt e-post", "początek przekazywanej wiadomości",
    "начало переадресованного сообщения", "пересланное сообщение",
)  # fmt: skip
# Possessive runs (``*+``, ``{2,}+``): a run of blanks or dashes is never given back to be
# retried against every phrase from each of its positions.
_SEPARATOR = re.compile(
    rf"^\s*+-{{2,}}+\s*+(?:({_words_pattern(list(_FORWARD_PHRASES))})"
    rf"|{_words_pattern(list(_ORIGINAL_PHRASES))})\s*+-{{2,}}+\s*+$"
    rf"|^\s*+({_words_pattern(list(_BEGIN_FORWARD_PHRASES))})\s*+[:：]\s*+$",
    re.IGNORECASE,
)
_UNDERSCORES = re.compile(r"^\s*_{10,}\s*$")

# "On <date>, <name> wrote:" as mail programs write it: first in the forms that start
# with a known word (then neither a date nor an address is needed), ...
_ATTRIBUTIONS = (
    re.compile(r"^\s*on\s.*\bwrote\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*le\s.*\ba\s+[ée]crit\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*am\s.*\bschrieb\b.*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*el\s.*\bescribi[óo]\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*il\s.*\bha\s+scritto\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*op\s.*\bschreef\b.*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*em\s.*\bescreveu\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*den\s.*\bskrev\b.*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*w\s+dniu\s.*\b(pisze|napisał\(a\)|napisał|napisała)\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*pe\s.*\ba\s+scris\s*:\s*$", re.IGNORECASE),
    re.compile(r"^\s*στις\s.*\bέγραψε\s*:\s*$", re.IGNORECASE),
)
# ... then any line that ends with a colon and holds a time of day and either a verb of
# writing with a date or an address, or ends with the address (Gmail in Russian or
# Japanese has no verb at all: "вт, 5 мар. 2024 г. в 10:00, Judge <judge@example.org>:").
_WROTE = re.compile(
    r"(?<!\w)(?:wrote|writes|a\s+[ée]crit|schrieb|escribi[óo]|ha\s+scritto|scrisse|escreveu"
    r"|schreef|skrev|pisze|napisał\(a\)|napisał|napisała|написал\(а\)|написал|написала"
    r"|пишет|пише|написав|написа|kirjoitti|írta|napsal|napísal|a\s+scris|yazdı|έγραψε"
    r"|kirjutas|rašė|rakstīja|je\s+napisal|je\s+napisao|menulis|đã\s+viết|כתב|كتب)(?!\w)"
    r"|写道|寫道|작성|のメッセージ",
    re.IGNORECASE,
)
_TIME = re.compile(r"(?<!\d)\d{1,2}[:.h]\d\d(?!\d)")
_DATE = re.compile(r"(?<!\d)(?:1[89]|20)\d\d(?!\d)|(?<!\d)\d{1,2}/\d{1,2}/\d{2,4}(?!\d)|年|년")
_ADDRESS = re.compile(r"[^\s<>()@]+@[^\s<>()@]+\.[^\s<>()@:]+")
_ADDRESS_AT_END = re.compile(r"@[^\s<>()@]+\.[^\s<>()@:]+>?\)?\s*[:：]\s*$")
_ENDS_WITH_COLON = re.compile(r"[:：]\s*$")
_MAX_ATTRIBUTION = 400
# The words an attribution of :data:`_ATTRIBUTIONS` starts with.
_START_WORD = re.compile(r"^\s*(on|le|am|el|il|op|em|den|w\s+dniu|pe|στις)\s", re.IGNORECASE)


def _is_attribution(text: str) -> bool:
    """Whether ``text`` (one to three lines joined) introduces a quoted message."""
    if not _ENDS_WITH_COLON.search(text):
        return False
    if any(pattern.match(text) for pattern in _ATTRIBUTIONS):
        return True
    if not _TIME.search(text):
        return False
    if _WROTE.search(text):
        return bool(_DATE.search(text) or _ADDRESS.search(text))
    return bool(_ADDRESS_AT_END.search(text))


def _attribution(lines: list[str], index: int) -> int:
    """How many lines (one to three) from ``index`` form an attribution, 0 if none."""
    joined = ""
    for count in range(1, 4):
        if index + count > len(lines):
            break
        last = lines[index + count - 1]
        joined = (joined + " " + last.strip()).strip()
        if len(joined) > _MAX_ATTRIBUTION:
            break
        if not _ENDS_WITH_COLON.search(last) or not _is_attribution(joined):
            continue
        if count == 1:
            return 1
        # A wrapped attribution starts with its date or the sender's address, never
        # with an order; and when the lines after the first make one by themselves,
        # the first line is not part of it.
        first = lines[index]
        if not (any(c.isdigit() for c in first) or "@" in first or _START_WORD.match(first)):
            continue
        rest = " ".join(line.strip() for line in lines[index + 1 : index + count])
        if not _is_attribution(rest):
            return count
    return 0


def _next_nonblank(lines: list[str], start: int, limit: int) -> list[int]:
    """Indexes of the next ``limit`` non-blank lines from ``start``."""
    found: list[int] = []
    for index in range(start, len(lines)):
        if lines[index].strip():
            found.append(index)
            if len(found) == limit:
                break
    return found


def _header_block(lines: list[str], index: int) -> bool:
    """Whether a "From" header line at ``index`` starts the header block of a quoted
    message: with a "Sent" or "Date" field on it or among the next four lines, or with
    at least two more header fields right after it (blank lines between allowed)."""
    if _has_colon(lines[index]) and _SENT_INLINE.search(lines[index]):
        return True
    following = _next_nonblank(lines, index + 1, 4)
    kinds = [_header_kind(lines[i]) for i in following]
    if "sent" in kinds:
        return True
    return len(kinds) >= 2 and kinds[0] is not None and kinds[1] is not None


def _quote_header(lines: list[str], index: int) -> tuple[int, bool]:
    """How many lines starting at ``index`` form a quote header (0 if none), and
    whether it introduces a forwarded message."""
    line = lines[index]
    separator = _SEPARATOR.match(line) if "--" in line or _has_colon(line) else None
    if separator:
        return 1, bool(separator.group(1) or separator.group(2))
    if _UNDERSCORES.match(line):
        following = _next_nonblank(lines, index + 1, 1)
        if following and _header_kind(lines[following[0]]) == "from":
            return 1, False
        return 0, False
    if _header_kind(line) == "from":
        return (1, False) if _header_block(lines, index) else (0, False)
    return _attribution(lines, index), False


# Inline OpenPGP (RFC 4880, section 7): the signed text sits between the armour lines.
_PGP_SIGNED = re.compile(r"^\s*-----BEGIN PGP SIGNED MESSAGE-----\s*$")
_PGP_BEGIN = re.compile(r"^\s*-----BEGIN PGP ([A-Z][A-Z0-9 ,/]*)-----\s*$")
# A list item as mail programs write it when orders are typed as a list: a bullet, or a
# small number with "." or ")", then a space.
_BULLET = re.compile(r"^[ \t]*(?:[-*•·◦▪‣–§]|\d{1,2}[.)])[ \t]+(?=\S)")
_MAX_SHOWN = 60


@dataclass(frozen=True)
class BodyText:
    """Body text split into what is read and what is left out (see :func:`read_body`)."""

    lines: tuple[str, ...]
    """The lines to read, in order, with list bullets and PGP dash-escapes removed."""
    left_out: tuple[str, ...]
    """The lines left out, exactly as written."""
    quoted: tuple[str, ...]
    """Quotes and signatures left out, in words with their line numbers (worth telling
    only when nothing else was read)."""
    not_read: tuple[str, ...]
    """Other text left out that the sender may have meant to be read (a forwarded
    message, a PGP-encrypted block), in words with the reason."""


def _shown(line: str) -> str:
    """A line for a note: stripped and shortened."""
    text = " ".join(line.split())
    return text if len(text) <= _MAX_SHOWN else text[: _MAX_SHOWN - 3] + "..."


def read_body(text: str, subject: str = "") -> BodyText:
    """Split body text into the lines to read and the lines left out, saying why.

    Reading stops at a signature separator (a line ``--`` or ``-- ``) and at the header of
    a quoted or forwarded message: ``On ... wrote:`` in its many languages (``Am ...
    schrieb ...:``, ``Le ... a écrit :``, ``W dniu ... pisze:``, Gmail's Russian
    ``<date>, <name> <address>:``; also wrapped over up to three lines),
    ``-----Original Message-----`` and the forwarding markers in many languages, Outlook's
    ``____`` line before ``From:``, and a header block in any language Outlook speaks (a
    "From" line with a "Sent"/"Date" line soon after, or with two more header lines
    right after it: ``De: / Para: / Asunto:``).  Lines starting with ``>`` are left out.
    When a quote header is followed by ``>`` lines (an interleaved reply, answered below
    each quote) only the header is left out and reading goes on.

    Inline PGP armour is left out: the ``BEGIN PGP SIGNED MESSAGE`` line with its
    ``Hash:`` lines, and whole ``BEGIN PGP ...`` / ``END PGP ...`` blocks (signatures,
    encrypted messages); the signed text between them is read, with its dash-escapes
    (``- ``) undone.  A list bullet (``-``, ``*``, ``•``, ``·``) or a small number with
    ``.`` or ``)`` before a line is taken off the line.  A quote header is called a
    forwarded message when ``subject`` says the message is a forward (``Fwd:``).

    Every line of ``text`` is in exactly one of the two lists.  Never raises.

    >>> body = read_body("- A Par-Bur\\n\\nOn Mon, 1 Jan 2024, Judge <j@x.org> wrote:\\nold")
    >>> body.lines, body.left_out
    (('A Par-Bur', ''), ('On Mon, 1 Jan 2024, Judge <j@x.org> wrote:', 'old'))
    >>> body.quoted
    ("the quoted message from line 3 on ('On Mon, 1 Jan 2024, Judge <j@x.org> wrote:')",)
    """
    try:
        lines = str(text).splitlines()
    except Exception:
        return BodyText((), (), (), ())
    forward_subject = is_forward(subject)
    kept: list[str] = []
    dropped: list[str] = []
    quoted: list[str] = []
    not_read: list[str] = []
    marked = 0  # lines of quoted text read past: starting with ">", or introducing them
    first_marked = 0
    signed = False  # inside the text of an inline PGP signed message
    index = 0
    long_lines = 0
    first_long = ""
    while index < len(lines):
        raw = lines[index]
        if index >= MAX_BODY_LINES:
            rest = len(lines) - index
            what = (
                f"line {index + 1:,}"
                if rest == 1
                else f"the {rest:,} lines from line {index + 1:,} on"
            )
            not_read.append(
                f"{what}: at most {MAX_BODY_LINES:,} lines of a message are read; send the "
                "rest in another message"
            )
            dropped.extend(lines[index:])
            break
        if len(raw) > MAX_LINE_CHARS:
            # Never searched for quote headers or read as orders: no command is that long.
            long_lines += 1
            first_long = first_long or f"line {index + 1:,} ({_shown(raw)!r})"
            dropped.append(raw)
            index += 1
            continue
        if _PGP_SIGNED.match(raw):
            # The armour line, its "Hash:" header lines and the blank line after them.
            dropped.append(raw)
            index += 1
            while index < len(lines) and lines[index].strip():
                dropped.append(lines[index])
                index += 1
            if index < len(lines):
                dropped.append(lines[index])
                index += 1
            signed = True
            continue
        armour = _PGP_BEGIN.match(raw)
        if armour:
            end_line = f"-----END PGP {armour.group(1)}-----"
            start = index
            while index < len(lines) and lines[index].strip() != end_line:
                dropped.append(lines[index])
                index += 1
            if index < len(lines):
                dropped.append(lines[index])
                index += 1
            if armour.group(1) == "MESSAGE":
                not_read.append(
                    f"a PGP encrypted message, lines {start + 1} to {index}: this judge "
                    "cannot decrypt it"
                )
            signed = False
            continue
        line = raw[2:] if signed and raw.startswith("- ") else raw
        if line.strip() == "--":
            quoted.append(f"the signature from line {index + 1} on")
            dropped.extend(lines[index:])
            break
        if line.lstrip().startswith(">"):
            dropped.append(raw)
            first_marked = first_marked or index + 1
            marked += 1
            index += 1
            continue
        size, forward = _quote_header(lines, index)
        if size:
            following = _next_nonblank(lines, index + size, 1)
            if following and lines[following[0]].lstrip().startswith(">"):
                dropped.extend(lines[index : index + size])
                first_marked = first_marked or index + 1
                marked += size
                index += size
                continue
            if forward or forward_subject:
                not_read.append(
                    f"a forwarded message, from line {index + 1} on ({_shown(raw)!r}): "
                    "forwarded text is not read, as it may be someone else's; to send "
                    "orders from it, write them in your own message"
                )
            else:
                quoted.append(f"the quoted message from line {index + 1} on ({_shown(raw)!r})")
            dropped.extend(lines[index:])
            break
        kept.append(_BULLET.sub("", line, count=1))
        index += 1
    if long_lines:
        what = "a line" if long_lines == 1 else f"{long_lines:,} lines"
        first = "at" if long_lines == 1 else "the first at"
        not_read.insert(
            0,
            f"{what} longer than {MAX_LINE_CHARS:,} characters, {first} {first_long}: such "
            "lines are not read",
        )
    if marked:
        plural = "line" if marked == 1 else "lines"
        quoted.insert(0, f"{marked} {plural} of quoted text, the first at line {first_marked}")
    return BodyText(tuple(kept), tuple(dropped), tuple(quoted), tuple(not_read))


def order_text(text: str) -> tuple[list[str], list[str]]:
    """Split body text into (lines to read, lines left out as quotes or signature).

    The lines of :func:`read_body`, as lists.  Never raises.

    >>> order_text("A Par-Bur\\n\\nOn Mon, 1 Jan 2024, Judge <j@x.org> wrote:\\n> old")
    (['A Par-Bur', ''], ['On Mon, 1 Jan 2024, Judge <j@x.org> wrote:', '> old'])
    """
    body = read_body(text)
    return list(body.lines), list(body.left_out)
