"""Pictures the bot sends: pure functions, data in, PNG or JPEG bytes out (Pillow only).

* :func:`render_hand` — a player's hand, fanned, selection raised (private chat).
* :func:`render_table` — the table: seats, last plays, kitty, base, multiplier, countdown.
* :func:`render_result` — the end of a deal: winner, multiplier parts, points and beans per seat.
* :func:`render_leaderboard` — top players by beans won.

Inputs are the frozen values of :mod:`images.models`; every text inside a picture is ASCII
(:func:`safe_label` / :func:`safe_name` for players' names, whose real spelling belongs in the
caption). Bad input raises :class:`RenderError` (a ``ValueError``) with a clear message.
The same input always gives the same bytes, so the bot may key Telegram ``file_id`` values by a
hash of the bytes (or of the input) and re-send instead of uploading again.
"""

from images.hand import render_hand
from images.leaderboard import render_leaderboard
from images.models import (
    LeaderboardRow,
    RenderError,
    ResultScene,
    ResultSeat,
    SeatScene,
    TableScene,
    cards_for_ranks,
    safe_label,
    safe_name,
)
from images.result import render_result
from images.table import render_table

__all__ = [
    "LeaderboardRow",
    "RenderError",
    "ResultScene",
    "ResultSeat",
    "SeatScene",
    "TableScene",
    "cards_for_ranks",
    "render_hand",
    "render_leaderboard",
    "render_result",
    "render_table",
    "safe_label",
    "safe_name",
]
