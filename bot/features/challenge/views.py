"""What members read about a duplicate challenge (复式挑战, RULES.md §10): the group's
challenge message with its board and Enter button, a member's menu of deals in private, a
deal's comparison with the others, the final board with the revealed seed, and the buttons'
data. Pure functions, no I/O, every string through :func:`bot.core.i18n.t` (words from GLOSSARY.md).

Buttons carry ``D:<challenge id>:<op>:<deal>`` (:func:`challenge_callback`): ``enter`` (deal
0) in the group, ``play`` and ``view`` of a deal (1–12) in private. The data can be forged:
:func:`parse_challenge_callback` accepts only what this module draws, and the driver checks
everything again (the presser entered, the deal was played or not).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from zoneinfo import ZoneInfo

from bot.core.i18n import t
from bot.core.numbers import grouped
from bot.features.challenge.state import ChallengeOptions, Standing
from bot.presentation.keyboards import Button, Keyboard
from bot.presentation.scenes import drawn_name
from bot.presentation.views import place_text, play_text, points_text, ranks_text
from engine import Action, ActionKind, classify
from engine.challenge import MAX_DEALS
from engine.presets import Rules
from images.challenge_board import BoardRow, BoardScene
from images.labels import Labels

PREFIX = "D"
OPS = ("enter", "play", "view")
_DATA_RE = re.compile(r"D:([1-9][0-9]{0,11}):(enter|play|view):(0|[1-9][0-9]?)")


class ChallengeDataError(ValueError):
    """Button data this module did not draw."""


@dataclass(frozen=True, slots=True)
class ChallengePress:
    """A parsed challenge button: ``challenge_id``, ``op`` and ``deal`` (0 for ``enter``)."""

    challenge_id: int
    op: str
    deal: int


def challenge_callback(challenge_id: int, op: str, deal: int = 0) -> str:
    """The data of a challenge button.

    >>> challenge_callback(12, "play", 3)
    'D:12:play:3'
    """
    data = f"{PREFIX}:{challenge_id}:{op}:{deal}"
    parse_challenge_callback(data)
    return data


def parse_challenge_callback(data: object) -> ChallengePress:
    """Parse and check a challenge button's data.

    Raises:
        ChallengeDataError: anything :func:`challenge_callback` could not have drawn (an
            unknown op, ``enter`` with a deal, ``play``/``view`` of deal 0 or above 12).
    """
    match = _DATA_RE.fullmatch(data) if isinstance(data, str) else None
    if match is None:
        raise ChallengeDataError("not a challenge button")
    press = ChallengePress(int(match[1]), match[2], int(match[3]))
    if (press.op == "enter") != (press.deal == 0) or press.deal > MAX_DEALS:
        raise ChallengeDataError("no such deal")
    return press


def local_time(moment: datetime, tz: str) -> str:
    """``YYYY-MM-DD HH:MM`` in the group's time zone."""
    return moment.astimezone(ZoneInfo(tz)).strftime("%Y-%m-%d %H:%M")


def title(challenge_id: int, lang: str) -> str:
    """复式挑战 #12 / Duplicate challenge #12."""
    return t("challenge.title", lang, id=challenge_id)


def board_lines(board: Sequence[Standing], deals: int, lang: str) -> list[str]:
    """The board as text lines: place, name, matchpoints, deals played / N."""
    if not board:
        return [t("challenge.no_entrants", lang)]
    return [t("challenge.line", lang, place=line.place, name=line.name,
              mp=mp_text(line.matchpoints, lang), played=line.deals, total=deals)
            if line.place else
            t("challenge.line_unplaced", lang, name=line.name, played=line.deals, total=deals)
            for line in board]


def mp_text(matchpoints: int, lang: str) -> str:
    """``1 matchpoint``, ``4 matchpoints`` / ``4 比赛分``."""
    return t("challenge.mp", lang, n=matchpoints)


def board_scene(challenge_id: int, board: Sequence[Standing], deals: int, lang: str,
                labels: Labels, *, mark: str = "") -> BoardScene:
    """The board picture's input (``labels``: :func:`bot.presentation.scenes.picture_labels` of
    ``lang``; ``mark``: the closed board's mark, e.g. ``labels.final``)."""
    lang = labels.lang
    rows = tuple(BoardRow(line.place, drawn_name(line.name, n, lang), line.matchpoints,
                          line.deals, deals) for n, line in enumerate(board[:25], start=1))
    return BoardScene(title(challenge_id, lang), rows, labels, mark=mark)


def announcement(challenge_id: int, options: ChallengeOptions, seed_hash: str,
                 closes_at: datetime, tz: str, board: Sequence[Standing], pool: int,
                 lang: str, *, closed: bool = False, cancelled: bool = False) -> str:
    """The group's challenge message: what it is, the fee and pool, the window (or that it was
    ``cancelled``), the published SHA-256 of the seed, and the board."""
    lines = [f"🎯 {title(challenge_id, lang)}",
             t("challenge.about", lang, n=options.deals)]
    if options.entry_fee and not cancelled:
        split = " / ".join(f"{p}%" for p in options.prizes)
        lines.append(t("challenge.fee", lang, fee=grouped(options.entry_fee), pool=grouped(pool),
                       split=split))
    if cancelled:
        lines.append(t("challenge.cancelled_note", lang))
    else:
        key = "challenge.closed_at" if closed else "challenge.closes"
        lines.append(t(key, lang, time=local_time(closes_at, tz), tz=tz))
    # once closed the seed is revealed in the post below
    lines.append(t("challenge.hash_revealed" if closed or cancelled else "challenge.hash", lang,
                   hash=seed_hash))
    lines.append("")
    lines.append(t("challenge.board", lang))
    lines.extend(board_lines(board, options.deals, lang))
    return "\n".join(lines)


def enter_markup(challenge_id: int, lang: str) -> Keyboard:
    """The group message's 参加 / Enter button."""
    return Keyboard([[Button(
        t("challenge.btn_enter", lang), callback_data=challenge_callback(challenge_id, "enter"))]])


def menu(challenge_id: int, group: str, options: ChallengeOptions, played: Mapping[int, int],
         closes_at: datetime, tz: str, lang: str) -> tuple[str, Keyboard]:
    """A member's private menu: the deals, ▶ to play the ones not played yet, 👁 to see how
    the others did on the ones played (``played``: deal → the member's points)."""
    head = f"🎯 {title(challenge_id, lang)}"
    lines = [f"{head} · {group}" if group else head,
             t("challenge.menu_about", lang, n=options.deals,
               time=local_time(closes_at, tz), tz=tz)]
    for deal in range(1, options.deals + 1):
        if deal in played:
            lines.append(t("challenge.menu_played", lang, deal=deal,
                           points=points_text(played[deal], lang)))
        else:
            lines.append(t("challenge.menu_open", lang, deal=deal))
    rows: list[list[Button]] = []
    row: list[Button] = []
    for deal in range(1, options.deals + 1):
        op, key = ("view", "challenge.btn_view") if deal in played \
            else ("play", "challenge.btn_play")
        row.append(Button(t(key, lang, deal=deal),
                                        callback_data=challenge_callback(challenge_id, op, deal)))
        if len(row) == 3:
            rows.append(row)
            row = []
    if row:
        rows.append(row)
    if len(played) == options.deals:
        lines.append(t("challenge.menu_done", lang))
    return "\n".join(lines), Keyboard(rows)


@dataclass(frozen=True, slots=True)
class DealLine:
    """One member's result on one deal, for the comparison: ``name``, ``points``, their role
    (``landlord`` or ``farmer``; ``None``: nobody bid), ``matchpoints`` on the deal so far,
    and their ``line``: what they bid and played (:func:`line_text`)."""

    name: str
    points: int
    role: str | None
    matchpoints: int
    line: str = ""


#: Decisions a line of play shows besides the plays (passes, auto-play and timeouts are not).
LINE_DECISIONS = (ActionKind.CALL, ActionKind.ROB, ActionKind.DOUBLE, ActionKind.SHOW)
#: Characters of a line of play shown at most.
LINE_MAX = 300


def line_text(history: Sequence[Action], seat: int, rules: Rules, lang: str) -> str:
    """A seat's line of play in a finished deal: its bids and its plays in order, e.g.
    ``3 points · 555 3 · 10 J Q K A``.

    >>> from engine import SCORE
    >>> history = [Action(ActionKind.BID, 0, value=3),
    ...            Action(ActionKind.PLAY, 0, cards=(2, 2, 2, 0))]
    >>> line_text(history, 0, SCORE, "en")
    '3 points · 555 3'
    """
    words = []
    for action in history:
        if action.seat != seat:
            continue
        if action.kind == ActionKind.BID:
            words.append(t(f"btn.bid_{action.value}", lang))
        elif action.kind in LINE_DECISIONS:
            words.append(t(f"btn.{action.kind}", lang))
        elif action.kind == ActionKind.PLAY and action.cards:
            readings = classify(action.cards, rules)
            words.append(play_text(readings[0], lang) if readings
                         else ranks_text(action.cards, lang))
    text = " · ".join(words)
    return text if len(text) <= LINE_MAX else text[:LINE_MAX - 1] + "…"


def comparison(challenge_id: int, deal: int, total: int, mine: DealLine,
               others: Sequence[DealLine], lang: str) -> str:
    """How the member did on a deal against the members who played it too (best first, the
    best result starred); the others' hands stay private, only results are shown."""
    lines = [t("challenge.deal_head", lang, title=title(challenge_id, lang), deal=deal,
               total=total),
             t("challenge.yours", lang, points=points_text(mine.points, lang),
               role=_role(mine.role, lang), mp=mp_text(mine.matchpoints, lang))]
    if not others:
        lines.append(t("challenge.first_to_play", lang))
        return "\n".join(lines)
    lines.append(t("challenge.others", lang, n=len(others)))
    best = max([mine, *others], key=lambda line: line.points)
    for line in sorted(others, key=lambda line: -line.points):
        star = "⭐ " if line.points == best.points else ""
        lines.append(t("challenge.other_line", lang, star=star, name=line.name,
                       points=points_text(line.points, lang), role=_role(line.role, lang),
                       mp=mp_text(line.matchpoints, lang)))
    if best is not mine and best.line:
        lines.append(t("challenge.best_line", lang, name=best.name, line=best.line))
    return "\n".join(lines)


def _role(role: str | None, lang: str) -> str:
    return t(f"challenge.role_{role or 'none'}", lang)


def judge_command(seed: str, deals: int) -> str:
    """The command that checks a revealed challenge (:mod:`engine.judge`)."""
    request = json.dumps({"op": "challenge", "seed": seed, "deals": deals})
    return f"echo '{request}' | python -m engine.judge"


def cancelled_text(challenge_id: int, options: ChallengeOptions, seed: str, seed_hash: str,
                   refunds: Mapping[int, int], by: str, lang: str) -> str:
    """The message when an admin cancels the challenge: who cancelled it, the fees refunded
    (``refunds``: beans per member), the revealed seed and the command that checks it."""
    lines = [t("challenge.cancelled", lang, title=title(challenge_id, lang), name=by)]
    total = sum(refunds.values())
    if total:
        lines.append(t("challenge.cancel_refunded", lang, n=len(refunds), pool=grouped(total)))
    lines.append("")
    lines.append(t("challenge.seed", lang, seed=seed))
    lines.append(t("challenge.verify", lang, hash=seed_hash))
    lines.append(judge_command(seed, options.deals))
    return "\n".join(lines)


def final_text(challenge_id: int, options: ChallengeOptions, seed: str, seed_hash: str,
               board: Sequence[Standing], paid: Mapping[int, int], lang: str) -> str:
    """The message when the window closes: the final ranking with prizes, the revealed seed
    and the command that checks it against the published hash."""
    lines = [t("challenge.over", lang, title=title(challenge_id, lang))]
    for line in board:
        prize = paid.get(line.user_id, 0)
        if line.place:
            text = t("challenge.final_line", lang, place=place_text(line.place, lang),
                     name=line.name, mp=mp_text(line.matchpoints, lang), played=line.deals,
                     total=options.deals)
        else:  # entered, played no deal: as on the board
            text = t("challenge.line_unplaced", lang, name=line.name, played=line.deals,
                     total=options.deals)
        if prize and options.entry_fee:
            text += t("challenge.prize", lang, beans=grouped(prize))
        lines.append(text)
    if not board:
        lines.append(t("challenge.final_no_entrants", lang))
    elif options.entry_fee and all(line.place is None for line in board):
        lines.append(t("challenge.refunded", lang))
    lines.append("")
    lines.append(t("challenge.seed", lang, seed=seed))
    lines.append(t("challenge.verify", lang, hash=seed_hash))
    lines.append(judge_command(seed, options.deals))
    return "\n".join(lines)
