"""What the pictures show: the inputs of :mod:`images` built from a table and a
deal, and from a leaderboard, in the group's language. Pure, no I/O.

Privacy: :func:`table_scene` reads only the public fields of a ``SeatView`` (card counts, plays
made, the kitty once revealed, shown hands, roles, auto-play, doubling) and never
``view.hand``, so the group's table picture is the same whichever seat's view it is built from.
:func:`hand_picture` is for the seat's owner only; :func:`result_scene` shows the cards every seat
was left with, which are public once the deal is over (RULES.md §4.4).

Words: every word a picture draws comes from the catalogues (:func:`picture_labels`, the
``pic.*`` block and a few shared keys), action words from
:func:`bot.presentation.views.action_label`, and players' names as
:func:`bot.presentation.views.seat_name` gives them; the picture cuts a long name and leaves out
characters its fonts lack (emoji), the caption keeps it whole.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Sequence
from functools import lru_cache

from bot.core.i18n import CATALOGUES, FALLBACK_LANGUAGE, normalize_language, t
from bot.core.table import Seat, Table
from bot.presentation.views import (
    action_label,
    action_play,
    bidding_escape_multiplier,
    bot_number,
    current_multipliers,
    last_actions,
    seat_name,
    short_payers,
)
from bot.store import LeaderboardRow
from engine import Action, ActionKind, SeatView, play_groups
from engine.cards import card_rank
from images import (
    Labels,
    LeaderboardScene,
    ResultScene,
    ResultSeat,
    SeatScene,
    TableScene,
    badge,
    cards_for_ranks,
    drawable,
)
from images import LeaderboardRow as BoardRow
from images.models import Role, Winner
from images.result import breakdown, pair_multipliers, seat_factors
from images.text import width_units

log = logging.getLogger(__name__)

#: The table picture's countdown is rounded up to this many seconds, so that the same state drawn
#: a second later is the same picture (the caption keeps the exact seconds).
COUNTDOWN_STEP = 5

#: Picture words that are the same as a message the texts use already; every other field
#: ``x`` of :class:`images.Labels` is the message ``pic.x``.
SHARED_KEYS = {
    "landlord": "role.landlord",
    "farmer": "role.farmer",
    "autoplay": "btn.autoplay",
    "doubled": "btn.double",
    "landlord_wins": "result.landlord_wins",
    "farmers_win": "result.farmers_win",
    "beans": "beans",
    "shown": "btn.show",
    "bidding_escape": "result.bidding_escape",
    "bidding_escape_bid": "result.bidding_escape_bid",
}


@lru_cache(maxsize=8)
def picture_labels(lang: str) -> Labels:
    """Every word of the pictures in ``lang`` (any tag :func:`bot.core.i18n.normalize_language`
    understands), from the catalogues; see :data:`SHARED_KEYS`.

    >>> words = picture_labels("zh-Hans")
    >>> words.landlord, words.base.format(base=3), words.rob.format(n=2, m=4)
    ('地主', '底分 3', '抢地主 2 次 ×4')
    """
    lang = normalize_language(lang)
    words = {key: _template(SHARED_KEYS.get(key, f"pic.{key}"), lang) for key in Labels.words()}
    return Labels(lang=lang, **words)


def _template(key: str, lang: str) -> str:
    """A catalogue message with its ``{placeholders}`` kept (``t`` would fill them)."""
    return CATALOGUES[lang].get(key) or CATALOGUES[FALLBACK_LANGUAGE].get(key) or key


def seat_label(seat: Seat, index: int, lang: str = "en") -> str:
    """A seat's badge on the pictures: the first hanzi of the player's name, else the initials
    (:func:`images.badge`), else the seat's placeholder badge (``pic.seat_badge``: P3 / 玩3,
    like the first character of the placeholder name "Player 3" / "玩家3" that
    :func:`picture_name` draws); for a bot seat the catalogue's short bot name in ``lang``
    (``pic.bot_badge``: 机3 / 機3 / B3, like the first character of "机器人3"; the bot's own
    number, :func:`bot.presentation.views.bot_number`).

    >>> seat_label(Seat(1, "Ada Lovelace"), 0), seat_label(Seat(2, "王小明"), 1)
    ('AL', '王')
    >>> seat_label(Seat(3, "🔥🔥"), 2), seat_label(Seat(None, "🤖 Bot 3", True), 2)
    ('P3', 'B3')
    >>> seat_label(Seat(None, "🤖 机器人3", True), 2, "zh-Hans")
    '机3'
    >>> seat_label(Seat(3, "𠀋"), 2, "zh-Hans")
    '玩3'
    """
    if seat.is_bot:
        return t("pic.bot_badge", lang, n=bot_number(seat, index))
    return badge(seat.name, t("pic.seat_badge", lang, n=index + 1))


def seat_labels(table: Table, lang: str) -> list[str]:
    """Every seat's badge (:func:`seat_label`), told apart where two would be the same: the
    human seats whose badges collide (选手甲 and 选手乙: both 选) take the first character
    where their names differ (甲, 乙; for a narrow one, with the name's first: "AL" and "AN"
    for "Al Lee" and "Ann"); a badge that still collides stays."""
    labels = [seat_label(seat, i, lang) for i, seat in enumerate(table.seats)]
    for label in set(labels):
        same = [i for i, seat in enumerate(table.seats) if labels[i] == label and not seat.is_bot]
        if len(same) < 2:
            continue
        names = ["".join(drawable(table.seats[i].name, lang).split()) for i in same]
        cut = len(os.path.commonprefix(names))
        for i, name in zip(same, names, strict=True):
            if cut >= len(name):
                continue
            ch = name[cut]
            labels[i] = ch if width_units(ch) == 2 else (name[0] + ch).upper()
    return labels


def picture_name(seat: Seat, index: int, lang: str) -> str:
    """The name a picture draws for a seat: :func:`bot.presentation.views.seat_name` (the bot seat's
    "🤖 机器人2"), or :func:`drawn_name`'s placeholder "玩家2" when nothing of it can be drawn
    (a name of emoji, Arabic or very rare hanzi only)."""
    return drawn_name(seat_name(seat, index, lang), index + 1, lang)


def drawn_name(name: str, n: int, lang: str) -> str:
    """The one fallback of every picture that draws names (table, result, ``/top``, a match's
    standings, a challenge's board): ``name`` when any of its characters can be drawn (the
    picture leaves out the others), else the placeholder ``pic.seat`` with ``n`` ("Player 3" /
    "玩家3"): the seat number at a table, the row's position on a board, so two such names are
    never drawn alike.

    >>> drawn_name("💰💰💰", 2, "en"), drawn_name("Ζωή", 1, "en")
    ('Player 2', 'Ζωή')
    """
    return name if drawable(name, lang) else t("pic.seat", lang, n=n)


def picture_seconds(seconds: float) -> int:
    """The countdown drawn on the table picture: ``seconds`` rounded up to
    :data:`COUNTDOWN_STEP`.

    >>> picture_seconds(29.6), picture_seconds(25.0), picture_seconds(0.2), picture_seconds(0)
    (30, 25, 5, 0)
    """
    return math.ceil(max(0.0, seconds) / COUNTDOWN_STEP) * COUNTDOWN_STEP


def action_word(
    action: Action, view: SeatView, lang: str, cards: tuple[int, ...] | None = None
) -> tuple[int, ...] | str:
    """What the table picture shows for a seat's latest decision: the cards of a play, else the
    decision's word in ``lang`` (:func:`bot.presentation.views.action_label`: 不出, 不叫, 叫地主,
    2分 …).

    ``cards`` are the card ids the play took from the hand (``SeatView.last_cards``). A deal
    stored before the engine recorded them has none: its ranks are then drawn with
    :func:`images.cards_for_ranks`. A play's cards come in the order the caption writes it
    (:func:`bot.presentation.views.play_text`: the body, then the kickers; a plane ``QQQ KKK 4 4 9
    9``, not ``4 4 9 9 QQQ KKK``), the order the picture draws them in.
    """
    if action.kind != ActionKind.PLAY:
        return action_label(action, view, lang)
    ids = cards or cards_for_ranks(action.cards or ())
    play = action_play(action, view)
    return ids if play is None else reading_order(ids, play_groups(play))


def reading_order(cards: Sequence[int], groups: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """``cards`` (card ids) in the order of the rank ``groups`` (``engine.play_groups``), each
    rank's cards low suit first; cards no group names (none, for a play's own groups) last.

    >>> reading_order((0, 1, 4, 8, 9, 10), [(2, 2, 2), (0,), (1,)])
    (8, 9, 10, 0, 4, 1)
    """
    left = sorted(cards, key=lambda card: (card_rank(card), card))
    ordered: list[int] = []
    for group in groups:
        for rank in group:
            card = next((c for c in left if card_rank(c) == rank), None)
            if card is not None:
                left.remove(card)
                ordered.append(card)
    return (*ordered, *left)


def table_scene(table: Table, view: SeatView, seconds: float) -> TableScene:
    """The group's table picture for a running or just finished deal (RULES.md §1–§4, §7), in
    the table's language.

    Reads only public facts of ``view`` (any seat's view gives the same scene): each seat's
    name, role, card count, alarm (RULES.md §4.5), latest decision
    (:func:`bot.presentation.views.last_actions`; a play as the very cards that left the hand,
    ``SeatView.last_cards``; none for the seat to play, whose clock runs: its 不出 or play of
    the round before is not the trick it answers), shown hand (RULES.md §3), auto-play and
    doubling; the kitty face down until revealed; the base and the pair multipliers (both
    when a farmer's doubling set them apart, as the result shows them); whose turn it is with
    :func:`picture_seconds` of ``seconds``.
    """
    lang = table.lang
    playing = view.phase in ("bidding", "doubling", "playing")
    latest = last_actions(view)
    labels = seat_labels(table, lang)
    seats = []
    for i, seat in enumerate(table.seats):
        role: Role | None = None
        if view.landlord is not None:
            role = "landlord" if i == view.landlord else "farmer"
        action = latest[i]
        if view.phase == "playing" and i in view.to_act:
            action = None  # its clock runs: its pass or play of the round before is over
        seats.append(SeatScene(
            label=labels[i],
            name=picture_name(seat, i, lang),
            role=role,
            card_count=view.counts[i],
            alarm=view.alarm[i],
            last_play=(action_word(action, view, lang, view.last_cards[i])
                       if action is not None else None),
            shown_cards=view.shown_hands[i],
            is_turn=playing and i in view.to_act,
            autoplay=view.autoplay[i] and not seat.is_bot,
            doubled=view.doubled[i] is True,
            bombs_left=view.bombs_left(i) if view.phase == "playing" else None,
        ))
    return TableScene(
        seats=tuple(seats),
        kitty=view.kitty,
        kitty_size=view.rules.kitty_size,
        base=view.base,
        multiplier=max(current_multipliers(view)),
        seconds_left=picture_seconds(seconds) if playing and view.to_act else None,
        labels=picture_labels(lang),
        multipliers=tuple(current_multipliers(view)),
    )


def hand_picture(
    view: SeatView, selected: Sequence[int]
) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """``(cards, selected cards)`` for :func:`images.render_hand`: the seat's own hand (card ids)
    and, for each selected rank, that many of the hand's cards of that rank. Once the deal is
    over nothing is selected: the picture shows the hand as it ended (empty for the seat that
    played out, which ``render_hand`` draws with its ``played_out`` words).

    Raises:
        ValueError: the selection holds more of a rank than the hand.
    """
    if view.phase not in ("bidding", "doubling", "playing"):
        return tuple(view.hand), ()
    chosen: list[int] = []
    for rank in sorted(set(selected)):
        cards = [c for c in view.hand if card_rank(c) == rank]
        wanted = list(selected).count(rank)
        if wanted > len(cards):
            raise ValueError(f"selection holds {wanted} of rank {rank}, the hand {len(cards)}")
        chosen += cards[:wanted]
    return tuple(view.hand), tuple(chosen)


def shown_factors(table: Table, view: SeatView) -> tuple[int, ...]:
    """Per seat, the show-cards factor it took (4 or 2, 0 if it did not show, RULES.md §3):
    ``DealState.shown`` of the table's deal (a ``SeatView`` has only the shown hands)."""
    state = table.state
    if state is not None and state.version == view.version:
        return tuple(state.shown)
    return tuple(0 for _ in range(view.rules.seats))


def result_scene(
    table: Table,
    view: SeatView,
    hands: Sequence[Sequence[int]],
    points: Sequence[int],
    beans: Sequence[int],
) -> ResultScene | None:
    """The result picture of a finished deal (RULES.md §3, §4.4, §7, §8, §9) in the table's
    language: a deal left during the bidding has no winner and no roles, its picture names the
    leaver and the payment (RULES.md §9: flat before anyone bid, else for the highest bid, the
    scene's ``base``, and the multiplier so far, its ``multiplier``) like every other result
    picture; ``None`` only for a deal with no result, or none of those (no winner and nobody
    left).

    The multiplier's parts are the deal's own facts (robs, each seat's doubling and show, bombs
    and rockets, spring or anti-spring, the cap) and each farmer's pair multiplier the engine's
    result (``DealResult.multipliers``); points and beans are the settled ones, the same numbers
    as the caption's. Parts that do not give the engine's multipliers
    (:func:`images.result.pair_multipliers`; a rule the picture does not know) are logged.

    Args:
        hands: every seat's cards left at the end (public once the deal is over).
        points, beans: per seat, as settled (``store.settle_deal``).
    """
    result = view.result
    if result is None or (result.winner is None and not result.escaped):
        return None
    lang = table.lang
    rules = view.rules
    labels = seat_labels(table, lang)
    shown = shown_factors(table, view)
    doubled = tuple(d is True for d in view.doubled)
    pairs = dict(zip(result.farmers, result.multipliers, strict=False))
    short = short_payers(table, points, beans)
    seats = tuple(
        ResultSeat(
            label=labels[i],
            name=picture_name(seat, i, lang),
            role=None if result.landlord is None
            else "landlord" if i == result.landlord else "farmer",
            points=points[i],
            beans=beans[i],
            cards_left=tuple(hands[i]),
            autoplay=view.autoplay[i] and not seat.is_bot,
            escaped=i in result.escaped,
            doubled=doubled[i],
            shown=shown[i],
            multiplier=pairs.get(i),
            penalized=i in result.autoplay_penalized,
            short=i in short,
        )
        for i, seat in enumerate(table.seats)
    )
    winner: Winner | None = None if result.winner is None \
        else "landlord" if result.winner == "landlord" else "farmers"
    scene = ResultScene(
        winner=winner,
        seats=seats,
        base=result.base,
        multiplier=bidding_escape_multiplier(table, view) if result.landlord is None
        else max(result.multipliers or (1,)),
        bombs=result.bombs,
        rockets=result.rockets,
        robs=view.bidding.robs,
        spring=result.spring,
        anti_spring=result.anti_spring,
        cap=rules.multiplier_cap,
        labels=picture_labels(lang),
        bombs_double=rules.variant != "four" or rules.bomb_doubling,
        bonus=result.bonus,
        with_beans=table.plays_for_beans,
        practice=table.practice,
    )
    if pair_multipliers(scene) != list(result.multipliers):
        log.warning("result picture: its parts give %s, the engine %s",
                    pair_multipliers(scene), result.multipliers)
    return scene


def result_breakdown(scene: ResultScene) -> list[str]:
    """The multiplier's parts exactly as the result picture draws them, for the caption: the
    parts every pair shares ending in the pair multipliers (:func:`images.result.breakdown`),
    then one line per farmer with parts of its own, e.g. ``"李雷：加倍 ×2 → ×8"``
    (RULES.md §3, §7).
    """
    colon = "：" if scene.labels.lang.startswith("zh") else ": "
    shared = breakdown(scene)
    lines = [" · ".join(shared)] if shared else []
    for seat in scene.seats:
        own = seat_factors(scene, seat)
        if own:
            total = scene.labels.multiplier.format(n=seat.multiplier or scene.multiplier)
            lines.append(f"{seat.name}{colon}{' · '.join(own)} → {total}")
    return lines


#: The ``/top`` boards whose values are balances (``bot.telegram.handlers.economy.TOP_QUERIES``).
BALANCE_BOARDS = ("all", "global")


def leaderboard_scene(
    kind: str, rows: Sequence[LeaderboardRow], lang: str = "en"
) -> LeaderboardScene:
    """The picture of a ``/top`` board (RULES.md §8) in ``lang``: the board's title
    (``top.title_<kind>``, the caption's), per row the place, the player's name, the beans won
    in the period or the balance on the ``all`` boards (drawn without a sign), the deals played
    and won that the board covers (no win rate without a deal).

    Raises:
        KeyError: an unknown ``kind``.
    """
    if kind not in ("today", "week", "all", "global_today", "global_week", "global"):
        raise KeyError(kind)
    return LeaderboardScene(
        title=t(f"top.title_{kind}", lang),
        rows=tuple(BoardRow(row.rank, drawn_name(row.name, n, lang), row.value, row.games,
                            row.wins) for n, row in enumerate(rows, start=1)),
        balances=kind in BALANCE_BOARDS,
        labels=picture_labels(lang),
    )
