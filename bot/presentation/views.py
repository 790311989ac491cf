"""What players read: message texts and inline keyboards, built from a table and a deal state.

Pure functions, no I/O: each returns text (every string through :func:`bot.core.i18n.t`) or a
``(text, Keyboard | None)`` pair. Cards are written as people read them: ``10`` (not
``T``), 小王/大王 (Small/Big joker) — GLOSSARY.md.

Privacy: group views (:func:`lobby_view`, :func:`table_view`, :func:`result_text`) take
only public facts (card counts, plays made, the kitty once revealed, shown hands); a hand is
rendered only by :func:`hand_view` and :func:`my_cards_text`, for its owner. So is the card
counter (:func:`counter_line`): with the public plays it gives away its seat's hand.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence

from bot.core import callbacks as cb
from bot.core.i18n import join_names, normalize_language, t
from bot.core.numbers import grouped, signed
from bot.core.selection import MAX_ENCODED, encode_ranks, offers
from bot.core.table import Seat, Table
from bot.presentation.keyboards import Button, Keyboard
from bot.presentation.menus import help_commands
from engine import Action, ActionKind, IllegalAction, Play, SeatView, classify, play_groups
from engine.ai import card_counter, format_counter
from engine.bidding import must_speak
from engine.cards import BIG_JOKER, RANK_LABELS, SMALL_JOKER, cards_to_ranks, rank_counts
from engine.redeal import is_penalty_result
from engine.scoring import bidding_multiplier
from engine.trick import last_trick, read_play

NAME_LIMIT = 24
RANKS_PER_ROW = 5
OFFER_COLUMNS = 2


def rank_label(rank: int, lang: str) -> str:
    """A rank as people read it: ``3``…``10``…``2``, 小王/大王 (Small/Big joker)."""
    if rank == SMALL_JOKER:
        return t("card.small_joker", lang)
    if rank == BIG_JOKER:
        return t("card.big_joker", lang)
    return RANK_LABELS[rank]


def ranks_text(ranks: Iterable[int], lang: str) -> str:
    """Ranks low to high separated by spaces, e.g. ``3 3 10 J 小王``."""
    return " ".join(rank_label(r, lang) for r in sorted(ranks))


def cards_text(cards: Iterable[int], lang: str) -> str:
    """Card ids ``0..53`` as :func:`ranks_text` writes their ranks."""
    return ranks_text(cards_to_ranks(cards), lang)


def play_text(play: Play, lang: str) -> str:
    """A play as people write it: the body first, then the kickers (``engine.play_groups``,
    RULES.md §5), a rank's copies run together (``555``) unless its label is longer than one
    character (``10 10 10``, 小王 / Small joker).

    >>> from engine import classify
    >>> [play_text(classify(r)[0], "en") for r in [(0, 2, 2, 2), (0, 7, 7, 7), (2, 2, 2, 2, 0, 5)]]
    ['555 3', '10 10 10 3', '5555 3 8']
    """
    return " ".join(_group_text(group, lang) for group in play_groups(play))


def _group_text(group: tuple[int, ...], lang: str) -> str:
    label = rank_label(group[0], lang)
    return label * len(group) if len(label) == 1 else " ".join([label] * len(group))


def action_play(action: Action, view: SeatView) -> Play | None:
    """The reading of a ``play`` action (RULES.md §5): the trick's own when it is the trick's
    current play, else the reading of the action's ``type`` or the first one; ``None`` if
    the cards are no combination."""
    trick = view.trick
    if trick.play is not None and trick.seat == action.seat and trick.play.cards == action.cards:
        return trick.play
    readings = classify(action.cards or (), view.rules)
    return next((r for r in readings if r.type == action.type), readings[0] if readings else None)


def short_name(name: str) -> str:
    """A player's name cut to :data:`NAME_LIMIT` characters (plain text, no markup is used)."""
    name = " ".join(name.split()) or "?"
    return name if len(name) <= NAME_LIMIT else name[: NAME_LIMIT - 1] + "…"


def seat_name(seat: Seat, index: int, lang: str) -> str:
    """How a seat is named in messages: the player's name, or "🤖 Bot N" for a bot seat (N:
    :func:`bot_number`, kept while seats before it leave)."""
    if seat.is_bot:
        return t("seat.bot", lang, n=bot_number(seat, index))
    return short_name(seat.name)


def bot_number(seat: Seat, index: int) -> int:
    """The number of a bot seat: the one it was given when it sat down (the digits its stored
    name ends with, ``seat.bot`` in any language), else its seat number (``index + 1``)."""
    digits = re.search(r"(\d+)\D*$", seat.name)
    return int(digits.group(1)) if digits else index + 1


def _button(
    text: str, kind: str, token: str, version: int = 0, payload: str = ""
) -> Button:
    return Button(text, callback_data=cb.make_callback(kind, token, version, payload))


# --- Lobby ---------------------------------------------------------------------------------------


def wait_text(seconds: float, lang: str) -> str:
    """A time left to wait as the lobby and the result say it: whole seconds under a minute
    (``30 s``), else minutes rounded up (``5 min``, ``5 分钟``); at least ``1 s``.

    >>> wait_text(300, "en"), wait_text(29.2, "zh-Hans"), wait_text(61, "en")
    ('5 min', '30 秒', '2 min')
    """
    whole = max(1, math.ceil(seconds))
    if whole < 60:
        return t("unit.wait_seconds", lang, n=whole)
    return t("unit.wait_minutes", lang, n=math.ceil(whole / 60))


def lobby_view(
    table: Table, bot_username: str | None, seconds_left: float
) -> tuple[str, Keyboard]:
    """The lobby message: preset, stake, the seats (three, or four for the four-player game,
    RULES.md §11), the time left before it closes (``seconds_left``, :func:`wait_text`), and
    Join/Leave/Add bot/Start/Close.

    When ``table.messages.join_link`` is set and the bot's username is known, a URL button opens
    the private chat with ``/start join_<token>``, which seats the player.
    """
    lang = table.lang
    lines = [
        t("lobby.title", lang),
        t("lobby.preset", lang, preset=t(f"preset.{table.options.preset}", lang)),
        t("lobby.stake", lang, stake=grouped(table.options.stake)),
        "",
    ]
    for i in range(max(table.options.seat_count, len(table.seats))):
        if i < len(table.seats):
            lines.append(t("lobby.seat", lang, n=i + 1, name=seat_name(table.seats[i], i, lang)))
        else:
            lines.append(t("lobby.seat_empty", lang, n=i + 1))
    help_key = "lobby.help_four" if table.options.seat_count == 4 else "lobby.help"
    lines += ["", t(help_key, lang), t("lobby.expires", lang, time=wait_text(seconds_left, lang))]
    rows = [
        [_button(t("btn.join", lang), cb.LOBBY, table.token, 0, "join"),
         _button(t("btn.leave", lang), cb.LOBBY, table.token, 0, "leave")],
        [_button(t("btn.add_bot", lang), cb.LOBBY, table.token, 0, "bot"),
         _button(t("btn.start", lang), cb.LOBBY, table.token, 0, "start")],
        [_button(t("btn.close", lang), cb.LOBBY, table.token, 0, "close")],
    ]
    if table.messages.join_link and bot_username:
        url = start_link(bot_username, f"{cb.JOIN_LINK}{table.token}")
        rows.append([Button(t("btn.open_private", lang), url=url)])
    return "\n".join(lines), Keyboard(rows)


def start_link(bot_username: str, payload: str) -> str:
    """The link that opens the bot's private chat and, at its Start, sends ``/start payload``
    (Telegram's deep link; ``payload``: 1–64 letters, digits, ``_`` or ``-``).

    >>> start_link("ddz_bot", "join_k3Xq9ZpT")
    'https://t.me/ddz_bot?start=join_k3Xq9ZpT'
    """
    return f"https://t.me/{bot_username}?start={payload}"


def lobby_closed_text(table: Table, reason: str, name: str | None = None) -> str:
    """The lobby message once it is closed: ``reason`` is ``"expired"`` or ``"closed"``."""
    return t(f"lobby.{reason}", table.lang, name=short_name(name or ""))


# --- Welcome and help ------------------------------------------------------------------------

#: The ``startgroup`` parameter of the "add me to a group" link (Telegram: ``[A-Za-z0-9_-]``).
STARTGROUP = "ddz"


def welcome_view(name: str, bot_username: str | None,
                 lang: str) -> tuple[str, Keyboard | None]:
    """``/start`` in private: a short welcome (groups, /practice, /help) and a
    button that adds the bot to a group (``https://t.me/<bot>?startgroup=ddz``; no button while
    the bot's username is unknown)."""
    text = t("reply.start", lang, name=short_name(name))
    if not bot_username:
        return text, None
    url = f"https://t.me/{bot_username}?startgroup={STARTGROUP}"
    return text, Keyboard([[Button(t("btn.add_to_group", lang),
                                                             url=url)]])


def help_text(lang: str, seats: int = 3, *, group: bool = True) -> str:
    """``/help``: the rules in a few lines, then the commands, in ``lang``: the three-player
    game's (RULES.md §1–§7: the deal, bidding in both presets, play, the combinations, scoring),
    or with ``seats`` 4 (a group set to the four-player game) the four-player one's (RULES.md
    §11: two decks, bidding and 逼打, the farmers' bomb allowances, its combinations, scoring);
    the commands are those a group (``group``) or a private chat offers, the admins' marked
    (:func:`bot.presentation.menus.help_commands`)."""
    rules = "help.rules_four" if seats == 4 else "help.rules"
    return t(rules, lang) + "\n\n" + help_commands(lang, group)


# --- Hands (private) ---------------------------------------------------------------------------


def selection_keyboard_rows(
    hand_ranks: Sequence[int], selected: Sequence[int], token: str, version: int, lang: str
) -> list[list[Button]]:
    """One button per rank in the hand, :data:`RANKS_PER_ROW` per row.

    A button shows the rank, how many of it the hand holds, and how many are selected:
    ``7×3`` (none selected), ``✅7 2/3`` (two of three selected), ``✅A`` (the only A selected).
    Its data is ``S:<token>:<version>:r<rank>``; a tap selects one more of that rank, cycling back
    to none after all are selected.
    """
    held = rank_counts(hand_ranks)
    chosen = rank_counts(selected)
    buttons = []
    for rank, count in enumerate(held):
        if not count:
            continue
        label = rank_label(rank, lang)
        if chosen[rank] == 0:
            text = label if count == 1 else f"{label}×{count}"
        elif count == 1:
            text = f"✅{label}"
        else:
            text = f"✅{label} {chosen[rank]}/{count}"
        buttons.append(_button(text, cb.SELECT, token, version, f"r{rank}"))
    return [buttons[i : i + RANKS_PER_ROW] for i in range(0, len(buttons), RANKS_PER_ROW)]


def offer_rows(
    offered: Sequence[Play], token: str, version: int, lang: str
) -> list[list[Button]]:
    """The offered plays (:func:`bot.core.selection.offers`), two buttons a row: ``▶ 333 4`` plays
    ``3334`` at once (data ``S:<token>:<version>:p3334``). A play too long for button data
    (over :data:`bot.core.selection.MAX_ENCODED` cards) is left out."""
    buttons = [
        _button("▶ " + play_text(play, lang), cb.SELECT, token, version,
                cb.OFFER + encode_ranks(play.cards))
        for play in offered if len(play.cards) <= MAX_ENCODED
    ]
    return [buttons[i : i + OFFER_COLUMNS] for i in range(0, len(buttons), OFFER_COLUMNS)]


# --- Deal: shared pieces -----------------------------------------------------------------------

BID_KINDS = frozenset({ActionKind.BID, ActionKind.PASS, ActionKind.CALL, ActionKind.DECLINE,
                       ActionKind.ROB, ActionKind.NOROB})
DOUBLE_KINDS = frozenset({ActionKind.DOUBLE, ActionKind.NODOUBLE})
PLAY_KINDS = frozenset({ActionKind.PLAY, ActionKind.PASS})


def action_label(action: Action, view: SeatView, lang: str) -> str:
    """What a seat did, as the table shows it: the cards played (:func:`play_text`), "Pass",
    "2 points", "Rob"…

    The view's phase tells the two passes apart: 不叫 / No bid while bidding, 不出 / Pass in
    play.
    """
    phase = view.phase
    if action.kind == ActionKind.PLAY:
        play = action_play(action, view)
        return play_text(play, lang) if play is not None else ranks_text(action.cards or (), lang)
    if action.kind == ActionKind.BID:
        return t(f"btn.bid_{action.value}", lang)
    if action.kind == ActionKind.PASS:
        return t("btn.no_bid" if phase == "bidding" else "btn.pass", lang)
    return t(f"btn.{action.kind}", lang)


def last_actions(view: SeatView) -> list[Action | None]:
    """Per seat, its latest decision worth showing on the table, or ``None``.

    Bidding: the seat's latest bid/call/rob. Doubling: double or not. Playing (and finished): the
    seat's play or pass within the last round of turns (the last ``seats`` plays/passes since the
    landlord's first lead, RULES.md §4), so the table shows the trick as it stands.
    """
    seats = view.rules.seats
    history = view.history
    if view.phase == "bidding":
        recent = [a for a in history if a.kind in BID_KINDS]
    elif view.phase == "doubling":
        recent = [a for a in history if a.kind in DOUBLE_KINDS]
    elif view.phase in ("playing", "finished"):
        start = next((i for i, a in enumerate(history) if a.kind == ActionKind.PLAY),
                     len(history))
        recent = [a for a in history[start:] if a.kind in PLAY_KINDS][-seats:]
    else:
        recent = []
    latest: list[Action | None] = [None] * seats
    for action in recent:
        latest[action.seat] = action
    return latest


def bidding_word(view: SeatView) -> str:
    """The bidding word that applies now (RULES.md §2), a catalogue key part: ``"bid"`` in the
    score preset (叫分), ``"call"`` in the rob preset before anybody called (叫地主), ``"rob"``
    after a call (抢地主, also the caller's last chance to rob back)."""
    stage = view.bidding.stage
    return "rob" if stage in ("rob", "last") else stage


def multiplier_text(multipliers: Sequence[int]) -> str:
    """``×4``, or ``×4 / ×8`` when the farmer–landlord pairs differ (RULES.md §3, §7)."""
    values = list(dict.fromkeys(multipliers)) or [1]
    return " / ".join(f"×{m}" for m in values)


#: The show-cards factor of a show before bidding (RULES.md §3): the only show a seat can make
#: before the landlord is known.
_SHOW_BEFORE_BIDDING = 4


def current_multipliers(view: SeatView) -> list[int]:
    """Each farmer–landlord pair's multiplier so far (RULES.md §7). While bidding, one value for
    every pair: ``2^robs`` × 4 if a seat has shown its cards (RULES.md §3: a show before bidding
    multiplies the whole deal from the moment it is made), capped at the table's cap."""
    if view.multipliers:
        return list(view.multipliers)
    shown = any(hand is not None for hand in view.shown_hands)
    multiplier = 2 ** view.bidding.robs * (_SHOW_BEFORE_BIDDING if shown else 1)
    cap = view.rules.multiplier_cap
    return [multiplier if cap is None else min(multiplier, cap)]


def forced_landlord(view: SeatView) -> bool:
    """The landlord was forced: everybody passed and the first bidder took the kitty at base 1
    (逼打, RULES.md §11; the house option ``all_pass_forced_landlord`` of §2)."""
    return view.landlord is not None and not any(
        a.kind in (ActionKind.BID, ActionKind.CALL, ActionKind.ROB) for a in view.history)


def bombs_left_text(view: SeatView, seat: int, lang: str) -> str | None:
    """A farmer's bomb allowance as the table writes it ("还能出 1 个炸弹" / "1 bomb left"),
    ``None`` for a seat that may play any number (the landlord, a 头撂 deal, RULES.md §11)."""
    left = view.bombs_left(seat)
    if left is None:
        return None
    if left == 1:
        return t("table.bombs_left_one", lang)
    return t("table.bombs_left", lang, n=left) if left else t("table.no_bombs_left", lang)


def _names(table: Table, seats: Iterable[int], lang: str) -> str:
    return join_names((seat_name(table.seats[s], s, lang) for s in seats), lang)


def _playing(view: SeatView) -> bool:
    return view.phase in ("bidding", "doubling", "playing")


# --- Deal: call-outs --------------------------------------------------------------------------

_PLANES = frozenset({"plane", "plane_single", "plane_pair"})
#: Kinds of action that move the multiplier when taken (RULES.md §2.2, §3).
_CALLED = {ActionKind.ROB: "callout.rob", ActionKind.DOUBLE: "callout.double",
           ActionKind.SHOW: "callout.show"}


def callout(table: Table, view: SeatView, lang: str) -> str | None:
    """The call-out of the latest moment worth announcing, or ``None``:
    炸弹, 王炸, 飞机 (a play), 抢地主, 加倍, 明牌 (a decision), 春天 / 反春 (the deal's end),
    with the multiplier it leads to when it moved it, e.g. ``💣 李雷 炸弹！倍数 ×4``.

    Read from the public state only (``view.history``, the multipliers, the result), so the
    group table and every private caption show the same line: it stands while the last round
    of turns (one action per seat) holds the event, then gives way.
    """
    result = view.result
    if view.phase == "finished" and result is not None and (result.spring
                                                            or result.anti_spring):
        key = "callout.spring" if result.spring else "callout.anti_spring"
        return t(key, lang) + _multiplier_suffix(view, lang)
    decisions = [a for a in view.history
                 if a.kind not in (ActionKind.AUTOPLAY, ActionKind.TIMEOUT)]
    for action in reversed(decisions[-view.rules.seats:]):
        name = seat_name(table.seats[action.seat], action.seat, lang)
        if action.kind == ActionKind.PLAY:
            play = action_play(action, view)
            kind = play.type.value if play is not None else ""
            if kind in ("bomb", "rocket", "joker_bomb"):
                key = "callout.rocket" if kind != "bomb" else "callout.bomb"
                moved = view.rules.variant != "four" or view.rules.bomb_doubling
                return t(key, lang, name=name) + (_multiplier_suffix(view, lang) if moved else "")
            if kind in _PLANES:
                return t("callout.plane", lang, name=name)
        elif action.kind in _CALLED:
            return t(_CALLED[action.kind], lang, name=name) + _multiplier_suffix(view, lang)
    return None


def _multiplier_suffix(view: SeatView, lang: str) -> str:
    return t("callout.multiplier", lang, m=multiplier_text(current_multipliers(view)))


# --- Deal: the group's table message ----------------------------------------------------------


def table_view(
    table: Table, view: SeatView, seconds: float, notice: str | None = None
) -> tuple[str, Keyboard | None]:
    """The group's table message for a running (or just finished) deal.

    Shows seats with role, card count, alarm (RULES.md §4.5), auto-play and each seat's latest
    decision (:func:`last_actions`), base and multiplier, the kitty once revealed, shown hands,
    the latest call-out (:func:`callout`), whose turn it is with ``seconds`` left, and an
    optional ``notice`` line. Only public fields
    of ``view`` are read (never ``view.hand``). The keyboard has "My cards".
    """
    lang = table.lang
    preset = t(f"preset.{table.options.preset}", lang)
    competition = table.competition
    if competition.challenge_id is not None:
        lines = [t("table.title_challenge", lang, preset=preset, deal=competition.challenge_deal,
                   title=t("challenge.title", lang, id=competition.challenge_id))]
    elif competition.tournament is not None:  # RULES.md §10.1: its stage, table and deal
        info = competition.tournament
        lines = [t("table.title_tournament", lang, preset=preset, id=info["id"],
                   stage=info["stage"], n=info["number"], deal=info["deal"])]
    elif competition.match_options is not None:  # a match plays for points or chips, not a stake
        fmt = t(f"match.format_{competition.match_options.get('format', 'fixed')}", lang)
        lines = [t("table.title_match", lang, preset=preset, format=fmt)]
    else:
        lines = [t("table.title_practice", lang, preset=preset) if table.private
                 else t("table.title", lang, preset=preset, stake=grouped(table.options.stake))]
    if view.phase == "bidding":
        lines.append(t(f"table.phase_{bidding_word(view)}", lang))
    elif view.phase == "doubling":
        lines.append(t("table.phase_doubling", lang))
    if view.base:
        lines.append(t("table.base_multiplier", lang, base=view.base,
                       multiplier=multiplier_text(current_multipliers(view))))
    if forced_landlord(view):
        lines.append(t("table.forced", lang))
    if view.kitty is not None:
        lines.append(t("table.kitty", lang, cards=cards_text(view.kitty, lang)))
    lines.append("")
    latest = last_actions(view)
    for i, seat in enumerate(table.seats):
        parts = [("▶ " if _playing(view) and i in view.to_act else "") + _role_mark(view, i)
                 + seat_name(seat, i, lang)]
        if view.landlord is not None:
            parts[0] += t("table.role", lang, role=_role(view, i, lang))
        parts.append(t("table.count", lang, n=view.counts[i]))
        if view.alarm[i]:
            parts.append(t("alarm", lang, n=view.counts[i]))
        allowance = bombs_left_text(view, i, lang) if _playing(view) else None
        if allowance is not None:
            parts.append(allowance)
        if view.escaped[i]:
            parts.append(t("table.left", lang))
        elif view.autoplay[i] and not seat.is_bot:
            parts.append(t("table.autoplay", lang))
        action = latest[i]
        if action is not None:
            parts.append(action_label(action, view, lang))
        lines.append(" · ".join(parts))
        shown_hand = view.shown_hands[i]
        if shown_hand is not None:
            shown = cards_text(shown_hand, lang)
            lines.append("   " + t("table.shown", lang, cards=shown))
    announced = callout(table, view, lang)
    if announced:
        lines += ["", announced]
    if _playing(view) and view.to_act:
        lines += ["", t("table.turn", lang, names=_names(table, view.to_act, lang),
                        seconds=max(0, round(seconds)))]
    if notice:
        lines += ["", notice]
    row = [_button(t("btn.my_cards", lang), cb.MY_CARDS, table.token)]
    if view.phase == "playing":
        row.append(_button(t("btn.last_trick", lang), cb.MY_CARDS, table.token, 0,
                           cb.LAST_TRICK))
    keyboard = Keyboard([row]) if _playing(view) else None
    return "\n".join(lines), keyboard


def _role(view: SeatView, seat: int, lang: str) -> str:
    return t("role.landlord" if seat == view.landlord else "role.farmer", lang)


def _role_mark(view: SeatView, seat: int) -> str:
    if view.landlord is None:
        return ""
    return "👑 " if seat == view.landlord else "🌾 "


# --- Deal: the private hand message -----------------------------------------------------------


def passes_itself(table: Table, view: SeatView) -> bool:
    """The seat is to follow, nothing in its hand beats the play on the table (pass is its only
    legal action, RULES.md §4 rule 2; §11 with its bomb allowance) and the table's
    ``auto_pass`` (自动要不起, a group setting) is on: the bot passes for it after
    ``BOT_MOVE_DELAY`` and its player is not prompted (a prompt and its keyboard's
    removal are two edits for a press that decides nothing)."""
    return table.options.auto_pass and view.phase == "playing" and view.seat in view.to_act \
        and not view.autoplay[view.seat] and not view.leading and not view.legal_plays()


def is_prompted(table: Table, view: SeatView) -> bool:
    """The seat is to act and its player decides: not on auto-play (a seat that left is on
    auto-play too) and not passing by itself (:func:`passes_itself`)."""
    seat = view.seat
    return seat in view.to_act and _playing(view) and not view.autoplay[seat] \
        and not passes_itself(table, view)


def hand_view(
    table: Table, view: SeatView, seconds: float, outcome: str | None = None
) -> tuple[str, Keyboard | None]:
    """A seat's private message: its hand, the table's :func:`status_line`, selection, status,
    and the buttons it may press now; once the deal is over, ``outcome``
    (:func:`outcome_line`) as its last line. During the bidding a seat barred from bidding
    (three deals lost as landlord in its four-player match or tournament stage, RULES.md §11)
    reads why its only button is No bid.

    The status line and the card counter (:func:`counter_line`, when the table's
    ``card_counter`` is on) stand on the prompt of a seat to act. A seat that waits reads
    instead what each other seat did last (:func:`others_line`) above whom it waits for: its
    message follows the table (a caption edit per decision, sent at the watchers' rank within
    the flood budget), so a player need not look at the group between turns. A waiting seat
    has a 记牌器 button (:data:`bot.core.callbacks.COUNTER`): the counter and the status line,
    fresh, in a pop-up (:func:`counter_popup`); so has a seat on auto-play or that left
    (RULES.md §9), even on its turns: it is never prompted, and its message changes only with
    its hand (not twice per turn).

    Buttons: bidding/doubling choices when the seat is to act; in play,
    one button per rank (:func:`selection_keyboard_rows`), the plays that complete the selection
    (:func:`offer_rows`), then Play, Pass (only when following, RULES.md §4.1),
    Hint, Clear — or, when nothing in the hand beats the table, only 要不起 / Can't beat and
    My cards; "Show cards" while allowed (RULES.md §3); and Auto-play or Take
    back (RULES.md §9). Decision buttons carry the state version; the auto-play switch does not
    (switching is the same request whatever the state). While the deal runs and the table's
    ``card_counter`` is on, a :func:`counter_line` under the hand. In the player's own language
    (:meth:`bot.core.table.Table.seat_lang`).
    """
    seat = view.seat
    lang = table.seat_lang(seat)
    selected = table.progress.selections[seat] if seat < len(table.progress.selections) else []
    lines = [t("hand.title", lang, n=len(view.hand)), cards_text(view.hand, lang)]
    if view.landlord is not None:
        lines.append(t("hand.role", lang, role=_role(view, seat, lang)))
    prompted = is_prompted(table, view)
    if prompted:
        lines.append(status_line(table, view, lang))
    elif _playing(view) and not view.autoplay[seat] and not view.escaped[seat]:
        others = others_line(table, view, lang)  # while waiting: what the others did
        if others:
            lines.append(others)
    allowance = _allowance_line(view, lang)
    if allowance is not None:
        lines.append(allowance)
    if view.phase == "bidding" and view.bidding.is_barred(seat):  # RULES.md §11: why only pass
        lines.append(t("hand.barred_stage" if table.competition.tournament is not None
                       else "hand.barred", lang))
    if table.options.card_counter and prompted:
        lines.append(counter_line(view, lang))
    legal = view.legal_plays() if prompted and view.phase == "playing" else []
    if selected and prompted and view.phase == "playing":
        lines.append(selection_line(view, selected, legal, lang))
    announced = callout(table, view, lang)
    if announced:
        lines.append(announced)
    lines.append("")
    lines.append(_hand_status(table, view, seconds, lang, outcome))
    if not _playing(view) or view.escaped[seat]:
        return "\n".join(lines), None
    rows: list[list[Button]] = []
    version = view.version
    if prompted:
        if view.phase == "playing" and not legal:  # nothing beats the table: 要不起 only
            rows.append([_button(t("btn.cannot_beat", lang), cb.ACTION, table.token, version,
                                 "pass"),
                         _button(t("btn.my_cards", lang), cb.MY_CARDS, table.token)])
        elif view.phase == "playing":
            rows += selection_keyboard_rows(view.hand_ranks, selected, table.token, version, lang)
            rows += offer_rows(offers(selected, legal, leading=view.leading), table.token,
                               version, lang)
            controls = [_button(t("btn.play", lang), cb.SELECT, table.token, version, "play")]
            if not view.leading:
                controls.append(
                    _button(t("btn.pass", lang), cb.ACTION, table.token, version, "pass")
                )
            controls += [
                _button(t("btn.hint", lang), cb.SELECT, table.token, version, "hint"),
                _button(t("btn.clear", lang), cb.SELECT, table.token, version, "clear"),
            ]
            rows.append(controls)
        else:
            choices = [a for a in view.legal_actions() if a.kind != ActionKind.SHOW]
            rows.append([
                _button(action_label(a, view, lang), cb.ACTION, table.token, version,
                        f"{a.kind}{a.value}" if a.kind == ActionKind.BID else a.kind)
                for a in choices
            ])
    if view.may_show() and not view.autoplay[seat]:
        rows.append([_button(t("btn.show", lang), cb.ACTION, table.token, version, "show")])
    if not prompted and table.options.card_counter and view.phase == "playing":
        rows.append([_button(t("btn.counter", lang), cb.MY_CARDS, table.token, 0, cb.COUNTER)])
    if view.autoplay[seat]:
        last = [_button(t("btn.take_back", lang), cb.ACTION, table.token, 0, "auto0")]
    else:
        last = [_button(t("btn.autoplay", lang), cb.ACTION, table.token, 0, "auto1")]
    if view.phase == "playing":  # 上一轮: the last trick that is over, in a pop-up
        last.append(_button(t("btn.last_trick", lang), cb.MY_CARDS, table.token, 0,
                            cb.LAST_TRICK))
    rows.append(last)
    return "\n".join(lines), Keyboard(rows)


def selection_line(view: SeatView, selected: Sequence[int], legal: Iterable[Play],
                   lang: str) -> str:
    """The prompt's line for the seat's selection (ranks), saying whether it can be played
    now: ``Selected: 3 3 3 4 · ✅ trio with a single, can be played``, or why not, as Play's
    pop-up would say it (RULES.md §5, §6; §11's bomb allowance), e.g. ``Selected: 3 4 · ✖
    These cards are not a valid combination.`` ``legal``: the seat's legal plays
    (``view.legal_plays()``). The selection is shown here and on the keyboard, not on the
    hand's picture: a tap costs a caption edit, no upload."""
    cards = tuple(sorted(selected))
    shown = t("hand.selected", lang, cards=ranks_text(cards, lang))
    play = next((p for p in legal if p.cards == cards), None)
    if play is not None:
        verdict = t("hand.selection_ok", lang, type=t(f"combo.{play.type.value}", lang))
    else:
        try:
            read_play(cards, None, view.trick.play, view.rules)
        except IllegalAction as exc:
            reason = refusal_text(exc, lang)
        else:  # a reading beats the table, yet no legal play: the bomb allowance is spent
            reason = illegal_text("bomb_limit" if view.bombs_left() == 0 else "not_allowed",
                                  lang)
        verdict = t("hand.selection_no", lang, reason=reason)
    return STATUS_SEP.join([shown, verdict])


def others_line(table: Table, view: SeatView, lang: str) -> str | None:
    """What the other seats did last, for a seat that waits (its hand message's line above
    whom it waits for): each other seat from the next one on (下家 first, as
    :func:`status_line`) with its latest decision as the table shows it
    (:func:`last_actions`, :func:`action_label`: a play, 不出 / Pass, a bid...), in 上一轮's
    words (``pop.trick_play``), e.g. ``Bob 333 4 · Cat Pass``; a seat that has not acted in the
    current round of turns is left out; ``None`` when no other seat has. Public facts only."""
    seats = view.rules.seats
    latest = last_actions(view)
    parts = []
    for step in range(1, seats):
        other = (view.seat + step) % seats
        action = latest[other]
        if action is not None:
            parts.append(t("pop.trick_play", lang,
                           name=seat_name(table.seats[other], other, lang),
                           play=action_label(action, view, lang)))
    return STATUS_SEP.join(parts) or None


def status_line(table: Table, view: SeatView, lang: str) -> str:
    """What a player needs of the table under their hand, in ``lang``: each
    other seat from the next one on (下家 first) with its name, role once the landlord is known
    and card count, ⚠️ at the alarm (RULES.md §4.5: 1–2 cards left); the multiplier once there
    is a base (RULES.md §7); the kitty once revealed (RULES.md §1.3). Public facts only, e.g.
    ``李雷（地主）⚠️2张 · 韩梅梅（农民）15张 · 倍数 ×4 · 底牌：3 K 2``."""
    return STATUS_SEP.join(status_parts(table, view, lang))


#: The separator of the status line's parts.
STATUS_SEP = " · "


def status_parts(table: Table, view: SeatView, lang: str) -> list[str]:
    """The parts of :func:`status_line`, in its order: the other seats, the multiplier, the
    kitty."""
    seats = view.rules.seats
    parts = []
    for step in range(1, seats):
        other = (view.seat + step) % seats
        name = seat_name(table.seats[other], other, lang)
        count = ("⚠️" if view.alarm[other] else "") + t("table.count", lang, n=view.counts[other])
        if view.landlord is None:
            parts.append(t("hand.status_seat", lang, name=name, count=count))
        else:
            parts.append(t("hand.status_seat_role", lang, name=name, count=count,
                           role=_role(view, other, lang)))
    if view.base:
        parts.append(t("hand.status_multiplier", lang,
                       m=multiplier_text(current_multipliers(view))))
    if view.kitty is not None:
        parts.append(t("table.kitty", lang, cards=cards_text(view.kitty, lang)))
    return parts


def outcome_line(points: int, beans: int | None, balance: int | None, lang: str, *,
                 won: bool | None = None, penalized: bool = False) -> str:
    """The last line of a player's hand message once the deal is settled:
    won or lost by the sign of the seat's ``points`` (after an escape the side that did not
    leave may win points though the landlord's side "won", RULES.md §9), the points, and where
    beans were at stake (``beans`` and the new ``balance`` given) the beans and the balance,
    e.g. ``🎉 你赢了 +2 分 · +80 欢乐豆（余额 1,080）``.

    No points: lost by ``won`` (the seat's side), or its side won with nothing for it
    (``hand.side_won``: no 🎉 for 0 points), followed by the reason when the auto-play penalty
    took them (``penalized``, RULES.md §9: a farmer on auto-play wins nothing);
    ``本局已结束。`` when ``won`` is ``None`` (a deal with no winner)."""
    if not points and won is None:
        return t("hand.finished", lang)
    key = "hand.won" if points > 0 else "hand.side_won" if not points and won else "hand.lost"
    if beans is None or balance is None:
        line = t(key, lang, points=points_text(points, lang))
    else:
        line = t(f"{key}_beans", lang, points=points_text(points, lang),
                 beans=beans_text(beans, lang), balance=amount_text(balance, lang))
    return line + t("hand.penalty_note", lang) if penalized and not points else line


def amount_text(amount: int, lang: str) -> str:
    """A whole amount (a balance in beans) with the language's digit grouping: ``1,080``
    (:func:`bot.core.numbers.grouped`, the same in every language the bot speaks)."""
    return grouped(amount)


def timeout_notice(table: Table, seat: int) -> tuple[str, Keyboard]:
    """The private message to a seat whose turn timed out into auto-play (RULES.md §9):
    what happened and how to take back control, with the hand message's own Take back
    button (取消托管), in the player's language."""
    lang = table.seat_lang(seat)
    button = _button(t("btn.take_back", lang), cb.ACTION, table.token, 0, "auto0")
    return t("notice.timed_out", lang), Keyboard([[button]])


def counter_line(view: SeatView, lang: str) -> str:
    """The card counter (记牌器) of ``view.seat`` in ``lang``: how many of each rank
    are neither played nor in the seat's hand, strongest first (``记牌器：大王1 小王0 2×3 …``,
    ``Card counter: BJ×1 SJ×0 2×3 …``), from the seat's view alone
    (:func:`engine.ai.card_counter`); two decks in the four-player game (RULES.md §11).

    Private: with the public plays it gives away the seat's own hand, so it belongs only in that
    seat's hand message."""
    labels = {BIG_JOKER: t("counter.big_joker", lang), SMALL_JOKER: t("counter.small_joker", lang)}
    return t("hand.counter", lang, counts=format_counter(card_counter(view), labels))


def _allowance_line(view: SeatView, lang: str) -> str | None:
    """A farmer's own bomb allowance on the hand message of the four-player game (RULES.md
    §11): how many are left, or any number (after a 头撂); ``None`` for the landlord and in the
    three-player game."""
    if not _playing(view) or view.rules.variant != "four" or view.landlord in (None, view.seat):
        return None
    left = view.bombs_left()
    if left is None:
        return t("hand.bombs_any", lang)
    if left == 1:
        return t("hand.bombs_left_one", lang)
    return t("hand.bombs_left", lang, n=left) if left else t("hand.no_bombs_left", lang)


def hand_stopped_text(table: Table, view: SeatView) -> str:
    """A hand message after an admin stopped the deal: the hand, no buttons (the player's
    language)."""
    lang = table.seat_lang(view.seat)
    return "\n".join([t("hand.title", lang, n=len(view.hand)), cards_text(view.hand, lang), "",
                      t("hand.stopped", lang)])


def _hand_status(table: Table, view: SeatView, seconds: float, lang: str,
                 outcome: str | None = None) -> str:
    seat = view.seat
    left = max(0, round(seconds))
    if view.phase == "finished":
        return outcome or t("hand.finished", lang)
    if view.escaped[seat]:
        return t("hand.left", lang)
    if view.autoplay[seat]:
        return t("hand.autoplay", lang)
    if seat not in view.to_act:
        return t("hand.waiting", lang, names=_names(table, view.to_act, lang))
    if view.phase == "bidding":
        if must_speak(view.bidding):  # RULES.md §2.3 forced_bid: no pass on its keyboard
            return t(f"hand.must_bid_{bidding_word(view)}", lang, seconds=left)
        return t(f"hand.your_bid_{bidding_word(view)}", lang, seconds=left)
    if view.phase == "doubling":
        return t("hand.your_double", lang, seconds=left)
    if view.leading:
        return t("hand.your_lead", lang, seconds=left)
    prev, by = view.trick.play, view.trick.seat
    assert prev is not None and by is not None  # following: there is a play to beat
    name = seat_name(table.seats[by], by, lang)
    if passes_itself(table, view):
        return t("hand.auto_pass", lang, cards=play_text(prev, lang), name=name)
    key = "hand.your_follow" if view.legal_plays() else "hand.cannot_beat"
    return t(key, lang, cards=play_text(prev, lang), name=name, seconds=left)


def counter_popup(table: Table, view: SeatView, lang: str) -> str:
    """The 记牌器 pop-up of a waiting seat (:func:`hand_view`): the :func:`counter_line` and
    the :func:`status_line` now, public facts only, at most :data:`POPUP_LIMIT` characters
    (Telegram's limit for a pop-up): when both do not fit, the status line keeps as many of its
    parts as fit whole, from the first (the kitty, public on the table, goes first), and ends
    with "…" (a part is never cut: "Kitty: 4" would misstate an eight-card kitty)."""
    counter = counter_line(view, lang)
    parts = status_parts(table, view, lang)
    room = POPUP_LIMIT - len(counter) - 1
    line = STATUS_SEP.join(parts)
    while parts and len(line) > room:
        parts.pop()
        line = STATUS_SEP.join([*parts, "…"]) if parts else "…"
    return f"{counter}\n{line}"[:POPUP_LIMIT]


#: Most characters of a pop-up (``answerCallbackQuery`` text).
POPUP_LIMIT = 200


def last_trick_popup(table: Table, view: SeatView, lang: str) -> str:
    """The 上一轮 pop-up, for players and watchers alike: who played what in the last trick
    that is over, in order (:func:`engine.trick.last_trick`; passes as 不出 / Pass), e.g.
    ``Last trick: Ann 3 4 5 6 7 · Bob Pass · Cat Pass``; public facts only, never a hand. At
    most :data:`POPUP_LIMIT` characters: a trick too long for it keeps its last plays, after
    "…"."""
    trick = last_trick(view.history, view.rules.seats)
    if not trick:
        return t("pop.no_last_trick", lang)[:POPUP_LIMIT]
    parts = [t("pop.trick_play", lang, name=seat_name(table.seats[a.seat], a.seat, lang),
               play=t("btn.pass", lang) if a.kind == ActionKind.PASS
               else action_label(a, view, lang))
             for a in trick]
    text = t("pop.last_trick", lang, plays=" · ".join(parts))
    while len(text) > POPUP_LIMIT and len(parts) > 1:
        parts.pop(0)
        text = t("pop.last_trick", lang, plays=" · ".join(["…", *parts]))
    return text[:POPUP_LIMIT]


def my_cards_text(view: SeatView, lang: str) -> str:
    """The "My cards" pop-up for the seat's owner only (at most 200 characters)."""
    return t("pop.my_cards", lang, cards=cards_text(view.hand, lang))[:200]


def points_text(points: int, lang: str) -> str:
    """A change of points with its unit in the catalogue's plural form: ``-1 point``,
    ``+2 points``, ``0 points`` (no sign on a zero)."""
    return t("unit.points", lang, n=points, signed=signed(points))


def beans_text(beans: int, lang: str) -> str:
    """A change of beans with its unit (:func:`points_text`'s rules): ``-10 beans``."""
    return t("unit.beans", lang, n=beans, signed=signed(beans))


# --- Deal: result -------------------------------------------------------------------------------


def short_payers(table: Table, points: Sequence[int], beans: Sequence[int]) -> list[int]:
    """The seats that could not cover their loss (RULES.md §8): at a table that plays for
    beans, when the winners got less than ``points × stake``, each human loser who paid less
    than that too — every bean it held (the winners share what was paid). Seats in order."""
    if not table.plays_for_beans:
        return []
    stake = max(1, table.options.stake)
    humans = [i for i, seat in enumerate(table.seats) if not seat.is_bot]
    if all(beans[i] == points[i] * stake for i in humans if points[i] > 0):
        return []
    return [i for i in humans if points[i] < 0 and -beans[i] < -points[i] * stake]


def bidding_escape_multiplier(table: Table, view: SeatView) -> int:
    """The multiplier so far of a deal a seat left during the bidding (RULES.md §9): its robs
    and a show before the bidding (the table's deal state, when ``view`` is of it), capped;
    what the leaver's payment ``3 × highest bid × multiplier`` was computed with."""
    state = table.state
    shown = state.shown if state is not None and state.version == view.version else ()
    return bidding_multiplier(view.rules, robs=view.bidding.robs, shown=shown)


def result_view(
    table: Table, view: SeatView, points: Sequence[int], beans: Sequence[int],
    breakdown: Sequence[str] = (),
    again_seconds: float | None = None,
    *, again: bool = True,
) -> tuple[str, Keyboard | None]:
    """The result message: the winner — or, after an escape, who left and what each paid
    (RULES.md §9) —, spring/anti-spring, the multiplier's breakdown, each seat's points and bean
    change (a line for each loser who could pay only what it held, :func:`short_payers`), the
    landlord's kitty (RULES.md §7, §8); buttons "Play again" and "Leave"
    (:mod:`bot.game.again`) unless ``again`` is off (nobody is left to answer), with a line
    saying how they work when ``again_seconds`` (the time to answer, ``LOBBY_TIMEOUT``) is
    given.

    ``breakdown`` is the result picture's own (:func:`bot.presentation.scenes.result_breakdown`:
    底分, robs, show, bombs, spring, the totals, each farmer's doubling), so caption and picture say
    the same; without it (a deal with no winner) the base and multiplier line stands in.
    ``points`` and ``beans`` are the settled ones (a zero is written ``0``, no sign).
    """
    lang = table.lang
    result = view.result
    assert result is not None
    names = [seat_name(seat, i, lang) for i, seat in enumerate(table.seats)]
    practice_left = bool(result.escaped) and table.practice  # nobody pays (README)
    if practice_left:
        lines = [t("result.practice_left", lang,
                   names=join_names((names[i] for i in result.escaped), lang))]
    elif result.escaped and result.winner is not None:
        lines = [t("result.escape_title", lang,
                   names=join_names((names[i] for i in result.escaped), lang))]
        paid = "result.escape_paid" if table.plays_for_beans else "result.escape_points"
        lines += [t(paid, lang, name=names[i],
                    points=t("unit.points", lang, n=-points[i], signed=grouped(-points[i])),
                    beans=t("unit.beans", lang, n=-beans[i], signed=grouped(-beans[i])))
                  for i in result.escaped]
    elif result.winner == "landlord":
        lines = [t("result.title", lang, winner=t("result.landlord_wins", lang))]
    elif result.winner == "farmers":
        lines = [t("result.title", lang, winner=t("result.farmers_win", lang))]
    elif is_penalty_result(result):  # RULES.md §2.3: the third all-pass deal in a row
        payer = view.bidding.first_bidder
        lines = [t("result.all_pass_penalty", lang, name=names[payer],
                   lost=-result.points[payer], won=max(result.points))]
    else:
        lines = [t("result.cancelled", lang)]
        if result.escaped:
            lines.append(t("pic.escape_title", lang,
                           names=join_names((names[i] for i in result.escaped), lang)))
    # a practice its player left scores 0 for all: no spring, no multiplier to explain
    if result.spring and not practice_left:
        lines.append(t("result.spring", lang, spring=t("spring", lang)))
    if result.anti_spring and not practice_left:
        lines.append(t("result.spring", lang, spring=t("anti_spring", lang)))
    if forced_landlord(view):
        lines.append(t("table.forced", lang))
    if practice_left:
        pass
    elif breakdown:
        lines += list(breakdown)
    elif result.landlord is None and result.escaped:  # left during the bidding
        owed = -result.points[result.escaped[0]]
        if result.base:
            lines.append(t("result.bidding_escape_bid", lang, n=owed, base=result.base,
                           m=bidding_escape_multiplier(table, view)))
        else:
            lines.append(t("result.bidding_escape", lang, n=owed))
    elif is_penalty_result(result):
        pass  # no base, no multiplier: the title said what each pays
    else:
        lines.append(t("table.base_multiplier", lang, base=result.base,
                       multiplier=multiplier_text(result.multipliers or [1])))
    if result.bonus:
        lines.append(t("result.head_bid", lang, n=result.bonus))
    lines.append("")
    for i in range(len(table.seats)):
        role = t("table.role", lang, role=_role(view, i, lang)) if view.landlord is not None else ""
        if table.plays_for_beans:
            lines.append(t("result.seat", lang, mark=_role_mark(view, i), name=names[i],
                           role=role, points=points_text(points[i], lang),
                           beans=beans_text(beans[i], lang)))
        else:
            lines.append(t("result.seat_points", lang, mark=_role_mark(view, i),
                           name=names[i], role=role, points=points_text(points[i], lang)))
    for i in result.autoplay_penalized:
        lines.append(t("result.autoplay_penalty", lang, name=names[i]))
    for i in short_payers(table, points, beans):
        lines.append(t("result.short", lang, name=names[i],
                       beans=t("unit.beans", lang, n=-beans[i], signed=grouped(-beans[i]))))
    if view.kitty is not None and view.landlord is not None:
        lines += ["", t("result.kitty", lang, cards=cards_text(view.kitty, lang))]
    if again_seconds is not None:
        lines += ["", t("result.again_note", lang, time=wait_text(again_seconds, lang))]
    keyboard = Keyboard(
        [[_button(t("btn.play_again", lang), cb.PLAY_AGAIN, table.token),
          _button(t("btn.leave", lang), cb.PLAY_AGAIN, table.token, 0, "leave")]]
    ) if again else None
    return "\n".join(lines), keyboard


# --- Pop-ups for refused plays ------------------------------------------------------------------


def illegal_text(code: str, lang: str) -> str:
    """The pop-up for an ``IllegalAction.code`` (e.g. ``"leader_cannot_pass"``)."""
    text = t(f"illegal.{code}", lang)
    return text if text != f"illegal.{code}" else t("illegal.not_allowed", lang)


def refusal_text(exc: IllegalAction, lang: str) -> str:
    """The pop-up for an action the engine refused: why a play cannot beat the table
    (:func:`beat_text`, from the reading and reason the error carries), else
    :func:`illegal_text` of its code."""
    if exc.code == "cannot_beat" and exc.beaten is not None and exc.reason is not None:
        return beat_text(exc.reason, exc.beaten, lang)
    return illegal_text(exc.code, lang)


def beat_text(reason: str, prev: Play, lang: str) -> str:
    """Why a selection cannot be played on ``prev`` (``engine.beat_reason`` code), e.g. "A pair
    can only be beaten by a higher pair." (RULES.md §6)."""
    kind = t(f"combo.{prev.type.value}", lang)
    if prev.type.value == "rocket":
        return t("beat.rocket", lang)
    if prev.type.value == "bomb":
        return t("beat.bomb", lang)
    if reason == "length_mismatch":
        return t("beat.length_mismatch", lang, type=kind, n=len(prev.cards))
    if reason == "type_mismatch":
        return t("beat.type_mismatch", lang, type=kind)
    return t("beat.too_low", lang, type=kind)


def place_text(place: int, lang: str) -> str:
    """第N名 / "Nth place" (GLOSSARY.md): English writes the ordinal (1st, 2nd…).

    >>> [place_text(n, "en") for n in (1, 2, 3, 11)], place_text(2, "zh-Hans")
    (['1st place', '2nd place', '3rd place', '11th place'], '第2名')
    """
    if normalize_language(lang) != "en":
        return t("match.place", lang, n=place)
    suffix = "th" if 10 <= place % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(place % 10, "th")
    return t("match.place", lang, n=f"{place}{suffix}")
