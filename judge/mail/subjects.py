"""The "Re:" and "Fwd:" prefixes of a mail subject, in the languages mail programs write.

One list for the whole judge: the decoder asks whether a message is a forward, the inbound
service strips every prefix before looking at the subject, and the renderer replaces the
reply prefixes of a subject by one ``Re:``.  The prefixes are read by a loop that looks at
each character once, so a subject of any length (a run of a million blanks, say) costs
time in proportion to its length.
"""

from __future__ import annotations

import re

__all__ = ["FORWARD_WORDS", "REPLY_WORDS", "is_forward", "strip_prefixes", "strip_reply"]

#: "Re" in other languages: German AW, Nordic SV, Finnish VS, Polish Odp, Italian R/RIF,
#: Dutch Antw, Turkish YNT, Russian Отв.
REPLY_WORDS = frozenset({"re", "aw", "sv", "vs", "odp", "rif", "ref", "antw", "ynt", "отв"})
#: "Fwd" in English, German, French, Spanish, Italian, Portuguese, Dutch, Scandinavian,
#: Finnish and Polish ("vs" is a Norwegian forward as well as a Finnish reply).
FORWARD_WORDS = frozenset(
    {"fwd", "fw", "wg", "tr", "rv", "i", "enc", "doorst", "vb", "vs", "vl", "pd"}
)
# One prefix: a short word, an optional count ("Re[2]:"), a colon.  Each run of blanks
# has exactly one place in the pattern (a run split between two quantifiers made the old
# patterns quadratic), and the word is at most as long as the longest prefix word plus
# one, so one attempt reads a bounded number of letters.
_LONGEST = max(len(word) for word in REPLY_WORDS | FORWARD_WORDS)
_PREFIX = re.compile(rf"\s*([^\W\d_]{{1,{_LONGEST + 1}}})\s*(?:\[\d{{1,4}}\]\s*)?:")


def _strip(subject: str, words: frozenset[str]) -> tuple[str, int]:
    """``subject`` without its leading prefixes whose word is in ``words``, and how many
    were taken off."""
    text = str(subject)
    position = 0
    count = 0
    while True:
        # Each match starts where the last one ended and consumes what it reads, so the
        # loop reads every character at most a bounded number of times.
        match = _PREFIX.match(text, position)
        if match is None or match.group(1).lower() not in words:
            return text[position:], count
        position = match.end()
        count += 1


def strip_reply(subject: str) -> str:
    """``subject`` without its leading reply prefixes (stacked or numbered), unstripped.

    >>> strip_reply("AW: Re[2]: orders"), strip_reply("Re: Fwd: orders")
    (' orders', ' Fwd: orders')
    """
    return _strip(subject, REPLY_WORDS)[0]


def strip_prefixes(subject: str) -> str:
    """``subject`` without its leading reply and forward prefixes, stripped.

    >>> strip_prefixes("Re: Fwd: SV: orders"), strip_prefixes("Area: x")
    ('orders', 'Area: x')
    """
    return _strip(subject, REPLY_WORDS | FORWARD_WORDS)[0].strip()


def is_forward(subject: str) -> bool:
    """Whether ``subject`` starts with a forward prefix (``Fwd:``, ``WG:``, ``TR:``...).

    >>> is_forward("Fwd: orders"), is_forward("Re: Fwd: orders"), is_forward("orders")
    (True, False, False)
    """
    match = _PREFIX.match(str(subject))
    return match is not None and match.group(1).lower() in FORWARD_WORDS
