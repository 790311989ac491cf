"""What the pictures show (issue 4): the inputs of :mod:`images` built from a table and a deal,
and from a leaderboard. Pure, no I/O.

Privacy: :func:`table_scene` reads only the public fields of a ``SeatView`` (card counts, plays
made, the kitty once revealed, shown hands, roles, auto-play, doubling) and never
``view.hand``, so the group's table picture is the same whichever seat's view it is built from.
:func:`hand_picture` is for the seat's owner only; :func:`result_scene` shows the cards every seat
was left with, which are public once the deal is over (RULES.md §4.4).

Texts inside pictures are ASCII (the font Pillow ships has no CJK glyphs): seats carry
:func:`images.safe_label` initials or their seat number, actions short English words; players'
names and everything in the group's language go in the caption.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

from bot.game.table import Seat, Table
from bot.store import LeaderboardRow
from bot.views import current_multipliers, last_actions
from engine import Action, SeatView
from engine.cards import card_rank
from images import LeaderboardRow as BoardRow
from images import (
    ResultScene,
    ResultSeat,
    SeatScene,
    TableScene,
    cards_for_ranks,
    safe_label,
    safe_name,
)

#: The table picture's countdown is rounded up to this many seconds, so that the same state drawn
#: a second later is the same picture (the caption keeps the exact seconds).
COUNTDOWN_STEP = 5

#: How a non-card action is written on the table picture (RULES.md §2, §3).
ACTION_WORDS = {
    "bid": "bid {value}",
    "call": "call",
    "decline": "no call",
    "rob": "rob",
    "norob": "no rob",
    "double": "double",
    "nodouble": "no double",
}


def seat_label(seat: Seat, index: int) -> str:
    """A seat's badge on the pictures: the player's initials (:func:`images.safe_label`), else
    ``P<n>``; ``B<n>`` for a bot seat (``n`` = seat number from 1).

    >>> seat_label(Seat(1, "Ada Lovelace"), 0), seat_label(Seat(2, "张三"), 1)
    ('AL', 'P2')
    >>> seat_label(Seat(None, "🤖 Bot 3", True), 2)
    'B3'
    """
    if seat.is_bot:
        return f"B{index + 1}"
    return safe_label(seat.name, f"P{index + 1}")


def picture_seconds(seconds: float) -> int:
    """The countdown drawn on the table picture: ``seconds`` rounded up to
    :data:`COUNTDOWN_STEP`.

    >>> picture_seconds(29.6), picture_seconds(25.0), picture_seconds(0.2), picture_seconds(0)
    (30, 25, 5, 0)
    """
    return math.ceil(max(0.0, seconds) / COUNTDOWN_STEP) * COUNTDOWN_STEP


def action_word(
    action: Action, phase: str, cards: tuple[int, ...] | None = None
) -> tuple[int, ...] | str:
    """What the table picture shows for a seat's latest decision: the cards of a play,
    ``"pass"`` in play, ``"no bid"`` while bidding, or a short word (:data:`ACTION_WORDS`).

    ``cards`` are the card ids the play took from the hand (``SeatView.last_cards``). A deal
    stored before the engine recorded them has none: its ranks are then drawn with
    :func:`images.cards_for_ranks`.
    """
    if action.kind == "play":
        return cards or cards_for_ranks(action.cards or ())
    if action.kind == "pass":
        return "no bid" if phase == "bidding" else "pass"
    return ACTION_WORDS.get(action.kind, action.kind).format(value=action.value)


def table_scene(table: Table, view: SeatView, seconds: float) -> TableScene:
    """The group's table picture for a running or just finished deal (RULES.md §1–§4, §7).

    Reads only public facts of ``view`` (any seat's view gives the same scene): each seat's
    role, card count, alarm (RULES.md §4.5), latest decision (:func:`bot.views.last_actions`;
    a play as the very cards that left the hand, ``SeatView.last_cards``),
    shown hand (RULES.md §3), auto-play and doubling; the kitty face down until revealed; the base
    and the largest pair multiplier; whose turn it is with :func:`picture_seconds` of
    ``seconds``.
    """
    playing = view.phase in ("bidding", "doubling", "playing")
    latest = last_actions(view)
    seats = []
    for i, seat in enumerate(table.seats):
        role: Literal["landlord", "farmer"] | None = None
        if view.landlord is not None:
            role = "landlord" if i == view.landlord else "farmer"
        action = latest[i]
        seats.append(SeatScene(
            label=seat_label(seat, i),
            role=role,
            card_count=view.counts[i],
            alarm=view.alarm[i],
            last_play=(action_word(action, view.phase, view.last_cards[i])
                       if action is not None else None),
            shown_cards=view.shown_hands[i],
            is_turn=playing and i in view.to_act,
            autoplay=view.autoplay[i] and not seat.is_bot,
            doubled=view.doubled[i] is True,
        ))
    return TableScene(
        seats=tuple(seats),
        kitty=view.kitty,
        kitty_size=view.rules.kitty_size,
        base=view.base,
        multiplier=max(current_multipliers(view)),
        seconds_left=picture_seconds(seconds) if playing and view.to_act else None,
    )


def hand_picture(
    view: SeatView, selected: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(cards, selected cards)`` for :func:`images.render_hand`: the seat's own hand (card ids)
    and, for each selected rank, that many of the hand's cards of that rank.

    Raises:
        ValueError: the selection holds more of a rank than the hand.
    """
    chosen: list[int] = []
    for rank in sorted(set(selected)):
        cards = [c for c in view.hand if card_rank(c) == rank]
        wanted = list(selected).count(rank)
        if wanted > len(cards):
            raise ValueError(f"selection holds {wanted} of rank {rank}, the hand {len(cards)}")
        chosen += cards[:wanted]
    return tuple(view.hand), tuple(chosen)


def result_scene(
    table: Table,
    view: SeatView,
    hands: Sequence[Sequence[int]],
    points: Sequence[int],
    beans: Sequence[int],
) -> ResultScene | None:
    """The result picture of a finished deal (RULES.md §4.4, §7, §8, §9), or ``None`` for a
    deal that ended without a winner or a landlord (the caption alone tells it). Bombs are drawn
    as doubling the score only where they do: not in the four-player game without its house
    option ``bomb_doubling`` (RULES.md §11; the caption still counts them).

    Args:
        hands: every seat's cards left at the end (public once the deal is over).
        points, beans: per seat, as settled (``store.settle_deal``).
    """
    result = view.result
    if result is None or result.winner is None or result.landlord is None or result.base < 1:
        return None
    seats = tuple(
        ResultSeat(
            label=seat_label(seat, i),
            role="landlord" if i == result.landlord else "farmer",
            points=points[i],
            beans=beans[i],
            cards_left=tuple(hands[i]),
            autoplay=view.autoplay[i] and not seat.is_bot,
            escaped=i in result.escaped,
        )
        for i, seat in enumerate(table.seats)
    )
    winner: Literal["landlord", "farmers"] = \
        "landlord" if result.winner == "landlord" else "farmers"
    rules = view.rules
    doubling_bombs = rules.variant != "four" or rules.bomb_doubling  # RULES.md §7, §11
    return ResultScene(
        winner=winner,
        seats=seats,
        base=result.base,
        multiplier=max(result.multipliers or (1,)),
        bombs=result.bombs if doubling_bombs else 0,
        spring=result.spring,
        anti_spring=result.anti_spring,
    )


#: The leaderboard picture's title per ``/top`` board (``bot.handlers.economy.TOP_QUERIES``).
LEADERBOARD_TITLES = {
    "today": "TOP TODAY",
    "week": "TOP THIS WEEK",
    "all": "TOP BALANCES",
    "global_today": "TOP TODAY - ALL GROUPS",
    "global_week": "TOP THIS WEEK - ALL GROUPS",
    "global": "TOP BALANCES - ALL GROUPS",
}


def leaderboard_scene(
    kind: str, rows: Sequence[LeaderboardRow]
) -> tuple[str, tuple[BoardRow, ...]]:
    """``(title, rows)`` for :func:`images.render_leaderboard` of a ``/top`` board (RULES.md
    §8): the board's ASCII title (:data:`LEADERBOARD_TITLES`) and per row the place, the name
    made ASCII-safe (:func:`images.safe_name`, ``#<place>`` for a name without ASCII letters;
    the caption carries the real names), the beans (won in the period, or the balance for the
    ``all`` boards), the deals played and won that the board covers (the picture draws the win
    rate from these).

    Raises:
        KeyError: an unknown ``kind``.
    """
    return LEADERBOARD_TITLES[kind], tuple(
        BoardRow(row.rank, safe_name(row.name, f"#{row.rank}"), row.value, row.games, row.wins)
        for row in rows
    )
