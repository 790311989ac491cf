"""Pictures the bot sends: pure functions, data in, PNG or JPEG bytes out (Pillow only).

* :func:`render_hand` — a player's hand, fanned, selection raised (private chat).
* :func:`render_table` — the table: seats with names, last plays, kitty, base, multiplier,
  countdown.
* :func:`render_result` — the end of a deal: winner or leavers, the multiplier's parts, points
  and beans per seat.
* :func:`render_leaderboard` — players by beans won or balance.

Inputs are the frozen values of :mod:`images.models`. Every word comes from the scene: names as
they are, action words translated, and a :class:`Labels` for the rest (the bot fills it from its
catalogues); text is drawn in the vendored Noto Sans CJK subsets (:mod:`images.text`). Bad input
raises :class:`RenderError` (a ``ValueError``) with a clear message. The same input always gives
the same bytes, so the bot may key Telegram ``file_id`` values by a hash of the bytes (or of the
input) and re-send instead of uploading again.
"""

from images.errors import RenderError
from images.hand import render_hand
from images.labels import ENGLISH, Labels
from images.leaderboard import render_leaderboard
from images.models import (
    LeaderboardRow,
    LeaderboardScene,
    ResultScene,
    ResultSeat,
    SeatScene,
    TableScene,
    cards_for_ranks,
)
from images.result import render_result
from images.table import render_table
from images.text import badge, drawable, shorten

__all__ = [
    "ENGLISH",
    "Labels",
    "LeaderboardRow",
    "LeaderboardScene",
    "RenderError",
    "ResultScene",
    "ResultSeat",
    "SeatScene",
    "TableScene",
    "badge",
    "cards_for_ranks",
    "drawable",
    "render_hand",
    "render_leaderboard",
    "render_result",
    "render_table",
    "shorten",
]
