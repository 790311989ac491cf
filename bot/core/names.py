"""Players' names as the bot shows them: what Telegram lets people put in a name
must not rearrange the line it is shown in.

Bidirectional controls (U+202E RIGHT-TO-LEFT OVERRIDE and the other embeddings, overrides,
isolates and marks) reverse or reorder the rest of a result or leaderboard line; they are
removed. Other control characters (line breaks, tabs) become spaces. Letters of right-to-left
scripts stay as they are.
"""

from __future__ import annotations

import unicodedata

#: Unicode's Bidi_Control characters: ALM, LRM, RLM, LRE, RLE, PDF, LRO, RLO, LRI, RLI, FSI, PDI.
BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
_TO_NOTHING = {ord(c): None for c in BIDI_CONTROLS}


def clean_name(name: str) -> str:
    """``name`` without bidirectional controls, control characters and runs of white space
    as single spaces, trimmed; ``""`` when nothing is left.

    >>> clean_name("\\u202eAnn won")
    'Ann won'
    >>> clean_name(" Bob\\nSmith\\u2066 "), clean_name("\\u202e")
    ('Bob Smith', '')
    """
    kept = name.translate(_TO_NOTHING)
    spaced = "".join(" " if unicodedata.category(c) == "Cc" else c for c in kept)
    return " ".join(spaced.split())
