"""What players read about beans: check-in, relief, /give, balances, leaderboards, statistics,
the admins' audit and the end-of-day post (RULES.md §8).

Pure functions, no I/O: each takes store records and a language and returns text, every string
through :func:`bot.core.i18n.t` (words from GLOSSARY.md). Names are cut by
:func:`bot.presentation.views.short_name`; no markup is used, so names need no escaping.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from zoneinfo import ZoneInfo

from bot.core.i18n import t
from bot.core.numbers import grouped
from bot.presentation.views import beans_text, short_name
from bot.store import Claim, Gift, LeaderboardRow, LedgerEntry, MatchStats, PlayerStats

#: Medals of the first three places; later places show their number.
MEDALS = {1: "🥇", 2: "🥈", 3: "🥉"}


def _place(rank: int) -> str:
    return MEDALS.get(rank, f"{rank}.")


def percent(rate: float | None) -> str:
    """A rate as a whole percentage, ``—`` before the first deal.

    >>> percent(0.666), percent(None)
    ('67%', '—')
    """
    return "—" if rate is None else f"{round(rate * 100)}%"


def daily_text(name: str, claim: Claim, lang: str) -> str:
    """A granted check-in: beans, the streak, the new balance."""
    return t("eco.daily_ok", lang, name=short_name(name), beans=grouped(claim.amount),
             streak=claim.streak, balance=grouped(claim.balance))


def daily_refused_text(next_day: date, lang: str) -> str:
    """The check-in of today was already claimed; the next one opens on ``next_day``."""
    return t("eco.daily_already", lang, day=next_day.isoformat())


def relief_text(name: str, claim: Claim, lang: str) -> str:
    """A granted relief (救济金): the top-up and the new balance."""
    return t("eco.relief_ok", lang, name=short_name(name), beans=grouped(claim.amount),
             balance=grouped(claim.balance))


def relief_refused_text(code: str, lang: str, *, below: int, balance: int) -> str:
    """Why relief was refused: ``not_eligible`` (balance not below ``below``) or
    ``already_claimed`` (once a day)."""
    if code == "not_eligible":
        return t("eco.relief_not_eligible", lang, below=grouped(below),
                 balance=grouped(balance))
    return t("eco.relief_already", lang)


def balance_text(name: str, balance: int, lang: str, *, relief_below: int) -> str:
    """``/balance``: the beans, with a hint at relief when the balance is low."""
    text = t("eco.balance", lang, name=short_name(name), beans=grouped(balance))
    if balance < relief_below:
        text += "\n" + t("eco.balance_low", lang, below=grouped(relief_below))
    return text


def give_text(giver: str, receiver: str, gift: Gift, lang: str) -> str:
    """A completed ``/give``: who gave whom how much (with the unit's plural form: ``1 bean``),
    both balances, what is left today."""
    return t("give.ok", lang, giver=short_name(giver), receiver=short_name(receiver),
             beans=_beans(gift.amount, lang, balance=True),
             giver_balance=grouped(gift.giver_balance),
             receiver_balance=grouped(gift.receiver_balance),
             remaining=grouped(gift.remaining_today))


def give_refused_text(code: str, lang: str, remaining: int | None = None, *,
                      word: str = "", amount: int | str = 0, balance: int = 0) -> str:
    """Why ``/give`` was refused, from :class:`bot.store.GiveRefused` codes (and the bot's own
    ``give_usage``, ``give_not_number`` naming the ``word`` typed, ``give_unknown_target``,
    ``give_bot``, ``give_no_account``): ``give_limit`` says the beans ``remaining`` today,
    ``give_insufficient`` the giver's ``balance`` and the ``amount`` asked (a number, or the
    word typed for one too large to read)."""
    return t(f"give.{code.removeprefix('give_')}", lang, n=remaining or 0,
             remaining=grouped(remaining or 0), word=word[:32],
             amount=grouped(amount) if isinstance(amount, int) else amount,
             beans=_beans(balance, lang, balance=True))


def _beans(value: int, lang: str, *, balance: bool = False) -> str:
    """Beans with their unit in the catalogue's plural form: a balance without a sign
    (``1,000 beans``), a change signed except a zero (``+40 beans``, ``0 beans``), digits
    grouped (:func:`bot.core.numbers.grouped`)."""
    if balance:
        return t("unit.beans", lang, n=value, signed=grouped(value))
    return beans_text(value, lang)


def top_text(kind: str, rows: Sequence[LeaderboardRow], lang: str) -> str:
    """A leaderboard (``/top``), best first.

    ``kind`` (see ``bot.telegram.handlers.economy.TOP_QUERIES``): ``today``/``week`` (net beans won
    in this group), ``all`` (balances of this group's players), ``global_today``/``global_week``
    (net beans over all groups), ``global`` (balances of all players). Rows show medal or rank,
    name, value and deals played; a zero is ``0`` (not ``+0``), a balance has no sign, and no
    row shows a win rate (the deals played say how much a value means).
    """
    balances = kind in ("all", "global")
    lines = [t(f"top.title_{kind}", lang)]
    for row in rows:
        value = _beans(row.value, lang, balance=balances)
        lines.append(t("top.row", lang, place=_place(row.rank), name=short_name(row.name),
                       beans=value, games=row.games))
    if not rows:
        lines.append(t(f"top.empty_{'all' if balances else 'period'}", lang))
    return "\n".join(lines)


def daily_post_text(day: date, rows: Sequence[LeaderboardRow], lang: str) -> str:
    """The end-of-day post: the group's top 3 of ``day`` by net beans won."""
    lines = [t("post.daily_title", lang, day=day.isoformat())]
    lines += [
        t("top.row", lang, place=_place(row.rank), name=short_name(row.name),
          beans=_beans(row.value, lang), games=row.games)
        for row in rows
    ]
    lines.append(t("post.daily_footer", lang))
    return "\n".join(lines)


def stats_text(stats: PlayerStats, lang: str, *, in_group: bool,
               matches: MatchStats | None = None,
               tournaments: tuple[int, int] = (0, 0)) -> str:
    """``/me``: deals, wins and win rates as landlord and as farmer, springs, bombs played, the
    best single-deal win, the current and longest win streak, the balance and its rank (in this
    group when ``in_group``, else over all players), the matches played and won (only
    for a player who has finished one) and the group tournaments ``(played, won)`` (only for a
    player who has played one to its end, RULES.md §10.1)."""
    if stats.rank is None:
        rank = t("stats.rank_none", lang)
    else:
        rank = t("stats.rank_group" if in_group else "stats.rank_global", lang, rank=stats.rank)
    return "\n".join([
        t("stats.title", lang, name=short_name(stats.name)),
        t("stats.balance", lang, beans=grouped(stats.balance), rank=rank),
        t("stats.games", lang, games=stats.games, wins=stats.wins,
          rate=percent(stats.win_rate)),
        t("stats.landlord", lang, wins=stats.landlord_wins, games=stats.landlord_games,
          rate=percent(stats.landlord_win_rate)),
        t("stats.farmer", lang, wins=stats.farmer_wins, games=stats.farmer_games,
          rate=percent(stats.farmer_win_rate)),
        t("stats.springs_bombs", lang, springs=stats.springs, bombs=stats.bombs),
        t("stats.best", lang, beans=grouped(stats.best_win)),
        t("stats.streak", lang, current=stats.current_streak, longest=stats.longest_streak),
        *([t("me.matches", lang, played=matches.played, won=matches.won)]
          if matches and matches.played else []),
        *([t("me.tournaments", lang, played=tournaments[0], won=tournaments[1])]
          if tournaments[0] else []),
    ])


def audit_text(name: str, user_id: int, entries: Sequence[LedgerEntry], tz: str,
               lang: str) -> str:
    """The admins' audit: a player's latest ledger rows, newest first, times in zone ``tz``.

    Each row: local date and time, signed amount, reason (and deal id), balance after.
    """
    lines = [t("audit.title", lang, name=short_name(name), user_id=user_id, n=len(entries))]
    zone = ZoneInfo(tz)
    for entry in entries:
        reason = t(f"audit.reason_{entry.reason.value}", lang)
        if entry.deal_id is not None:
            reason += f" #{entry.deal_id}"
        elif entry.match_id is not None:
            reason += f" #{entry.match_id}"
        lines.append(t("audit.row", lang,
                       time=entry.created_at.astimezone(zone).strftime("%Y-%m-%d %H:%M"),
                       amount=f"{entry.amount:+,d}", reason=reason,
                       balance=grouped(entry.balance_after)))
    if not entries:
        lines.append(t("audit.empty", lang))
    return "\n".join(lines)


def match_top_text(week: Sequence[LeaderboardRow], ever: Sequence[LeaderboardRow],
                   lang: str, *, tournaments: bool = False) -> str:
    """``/top matches``: the group's match winners (冠军) of this week and of all time, most
    matches won first; ``tournaments``: ``/top tournaments``, the group's tournament winners
    (RULES.md §10.1) in the same form."""
    kind = "tournaments" if tournaments else "matches"
    lines = [t(f"top.{kind}_title", lang)]
    for heading, rows in (("top.matches_week", week), ("top.matches_all", ever)):
        lines += ["", t(heading, lang)]
        lines += [t("top.matches_line", lang, rank=r.rank, name=short_name(r.name), wins=r.wins,
                    games=r.games) for r in rows] or [t(f"top.{kind}_empty", lang)]
    return "\n".join(lines)
