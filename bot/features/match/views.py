"""What players read about a competition (RULES.md §10): the match lobby with its
option buttons, the standings after each deal and the final standings. Pure functions, no I/O,
every string through :func:`bot.core.i18n.t` (words from GLOSSARY.md)."""

from __future__ import annotations

from collections.abc import Sequence

from bot.core import callbacks as cb
from bot.core.i18n import join_names, t
from bot.core.numbers import grouped
from bot.core.table import Table
from bot.presentation import views
from bot.presentation.keyboards import Button, Keyboard
from bot.presentation.scenes import drawn_name, picture_labels
from bot.presentation.views import place_text
from engine.knockout import PER_DEAL, PER_POINT
from engine.match import FIRST_TO, FIXED, KNOCKOUT, MatchOptions, MatchState, Standing
from engine.presets import REDEAL_RULES
from images.standings import StandingsRow, StandingsScene

#: The values each option button steps through (−/+), by callback option name (which is also
#: the name typed in ``/knockout chips=15``, :data:`TYPED_NAMES`).
CHOICES: dict[str, tuple[str, tuple[int, ...]]] = {
    "deals": ("deals", tuple(range(3, 19))),
    "target": ("target", (10, 15, 20, 30, 50, 100)),
    "chips": ("chips", (5, 10, 15, 20, 30, 50, 100, 150, 200)),
    "base": ("chip_base", (1, 2, 3, 5, 10)),
    "out": ("threshold", (1, 2, 3, 5, 10, 20)),
    "time": ("time_limit", (0, 15, 30, 45, 60, 90)),
    "rise": ("rise_every", (0, 3, 5, 10)),
    "fee": ("entry_fee", (0, 10, 20, 50, 100, 200, 500, 1000)),
}
#: The word options' buttons: one button that switches to the next word (``redeal``: the
#: redeal rule, RULES.md §2.3, cycling through its three values).
WORD_CHOICES: dict[str, tuple[str, tuple[str, ...]]] = {"per": ("base_per", (PER_DEAL, PER_POINT)),
                                                        "redeal": ("redeal_rule", REDEAL_RULES)}
#: The option buttons of each kind of match (:attr:`engine.match.MatchOptions.kind`),
#: one #: row per option (``redeal`` only where the lobby has a redeal rule: not four players).
FORMAT_OPTIONS = {FIXED: ("deals", "time", "redeal", "fee"),
                  FIRST_TO: ("target", "time", "redeal", "fee"),
                  KNOCKOUT: ("chips", "base", "per", "out", "time", "rise", "redeal", "fee")}
#: The typed option that has no button: the prize table (``prizes=60,40``), every kind.
PRIZES_NAMES = ("prizes", "prize")
#: The options typed after ``/match``, ``/firstto`` or ``/knockout`` (``name=value``), by kind:
#: the button names, and the options' own names (and ``prizes``).
TYPED_NAMES: dict[str, dict[str, str]] = {
    fmt: {**{n: (CHOICES | WORD_CHOICES)[n][0] for n in names},
          **{(CHOICES | WORD_CHOICES)[n][0]: (CHOICES | WORD_CHOICES)[n][0] for n in names},
          **dict.fromkeys(PRIZES_NAMES, "prizes")}
    for fmt, names in FORMAT_OPTIONS.items()
}


def stepped(options: MatchOptions, payload: str) -> MatchOptions:
    """The options after an option button (``<option>+`` or ``<option>-``): the next or
    previous value of :data:`CHOICES` (a value between two choices moves to the nearer one in
    that direction; the ends stay); a word option's button (``per+``) switches to its other
    word (:data:`WORD_CHOICES`; ``redeal+`` cycles ``redeal`` → ``forced_bid`` → ``penalty`` →
    ``redeal``, RULES.md §2.3).

    >>> stepped(MatchOptions(FIXED, redeal_rule="penalty"), "redeal+").redeal_rule
    'redeal'

    Raises:
        KeyError: an option the format has no button for, or a word option the lobby shows no
            button for (no redeal rule: a four-player match).
        MatchError: the value does not fit the other options (a threshold above the chips).
    """
    name, sign = payload[:-1], payload[-1]
    if name not in FORMAT_OPTIONS[options.kind] or sign not in "+-":
        raise KeyError(name)
    if name in WORD_CHOICES:
        field, words = WORD_CHOICES[name]
        now_word = getattr(options, field)
        if now_word is None:
            raise KeyError(name)
        index = words.index(now_word) if now_word in words else 0
        return options.with_option(field, words[(index + 1) % len(words)])
    field, values = CHOICES[name]
    now = getattr(options, field)
    if sign == "+":
        value = next((v for v in values if v > now), values[-1])
    else:
        value = next((v for v in reversed(values) if v < now), values[0])
    return options.with_option(field, value)


def format_name(fmt: str, lang: str) -> str:
    return t(f"match.format_{fmt}", lang)


def prize_table_text(prizes: Sequence[int], lang: str) -> str:
    """A prize table as players read it: "1st 60% · 2nd 40%" (第1名 60% · 第2名 40%)."""
    return " · ".join(t("match.prize_share", lang, place=place_text(place, lang), share=share)
                      for place, share in enumerate(prizes, start=1))


def redeal_word(rule: str, lang: str) -> str:
    """A redeal rule (RULES.md §2.3) in the settings menu's words ("3rd deal: must bid")."""
    return t(f"set.redeal_rule_{rule}", lang)


def redeal_line(rule: str, lang: str) -> str:
    """The lobby's line of the match's redeal rule: "All pass again: 3rd deal: -4 / +2"."""
    return t("match.opt_redeal", lang, rule=redeal_word(rule, lang))


def _word_label(options: MatchOptions, name: str, lang: str) -> str:
    """A word option's button: the redeal rule's name and value, or the chip base's
    switch."""
    value = getattr(options, WORD_CHOICES[name][0])
    if name == "redeal":
        return redeal_line(value, lang)
    return t(f"match.btn_{name}_{value}", lang)


def options_lines(options: MatchOptions, lang: str, humans: int) -> list[str]:
    """The options (the redeal rule too, when the match has one), the entry fee, the prize
    pool (for ``humans`` paying seats) and its prize table."""
    lines = [t("match.title", lang, format=format_name(options.kind, lang))]
    if options.kind == FIXED:
        lines.append(t("match.opt_deals", lang, n=options.deals))
    elif options.kind == FIRST_TO:
        lines.append(t("match.opt_target", lang, n=options.target))
    else:
        key = "match.opt_chips_deal" if options.base_per == PER_DEAL else "match.opt_chips"
        lines.append(t(key, lang, chips=options.chips, base=options.chip_base))
        lines.append(t("match.opt_out", lang, n=options.threshold) if options.threshold > 1
                     else t("match.opt_out_zero", lang))
    lines.append(t("match.opt_time", lang, minutes=options.time_limit)
                 if options.time_limit else t("match.opt_time_off", lang))
    if options.format == KNOCKOUT:
        lines.append(t("match.opt_rise", lang, k=options.rise_every)
                     if options.rise_every else t("match.opt_rise_off", lang))
    if options.redeal_rule is not None:
        lines.append(redeal_line(options.redeal_rule, lang))
    lines.append(t("match.fee", lang, fee=grouped(options.entry_fee),
                   pool=grouped(options.entry_fee * humans)))
    lines.append(t("match.split", lang, split=prize_table_text(options.prizes, lang)))
    return lines


def lobby_view(table: Table, bot_username: str | None,
               seconds_left: float) -> tuple[str, Keyboard]:
    """The match lobby: the lobby of :func:`bot.presentation.views.lobby_view` (seats, Join, Add
    bot, Start) with the format, its options, the entry fee and the prize pool above, and a −/+
    pair of buttons per option, one button per word option (the chip base's switch, the
    redeal rule's cycle: not in a four-player match, which has none); the opener or an admin
    may press them."""
    assert table.competition.match_options is not None
    options = MatchOptions.from_dict(table.competition.match_options)
    lang = table.lang
    text, markup = views.lobby_view(table, bot_username, seconds_left)
    body = text.split("\n")
    humans = sum(1 for _ in table.humans())
    head = options_lines(options, lang, humans) + [t("match.no_stake", lang)]
    rows = [
        [Button(t(f"match.btn_{name}", lang) + f" {sign}",
                              callback_data=cb.make_callback(cb.MATCH_OPTION, table.token, 0,
                                                             name + sign))
         for sign in "-+"]
        if name not in WORD_CHOICES else
        [Button(_word_label(options, name, lang),
                              callback_data=cb.make_callback(cb.MATCH_OPTION, table.token, 0,
                                                             name + "+"))]
        for name in FORMAT_OPTIONS[options.kind]
        if name not in WORD_CHOICES or getattr(options, WORD_CHOICES[name][0]) is not None
    ]
    # the lobby's own first lines (title, preset, stake) give way to the match's
    seats_start = body.index("") if "" in body else 0
    text = "\n".join(head + body[seats_start:])
    return text, Keyboard(rows + [list(r) for r in markup.inline_keyboard])


def _chip_base_note(state: MatchState, lang: str) -> str:
    """The chip base of the next deal, per deal or per point."""
    key = "match.chip_base_deal" if state.options.base_per == PER_DEAL else "match.chip_base"
    return t(key, lang, base=state.chip_base)


def _score(state: MatchState, standing: Standing, lang: str) -> str:
    if state.knockout:
        return t("match.chips", lang, n=standing.score)
    return t("match.points", lang, n=f"{standing.score:+d}")


def _progress(state: MatchState, standing: Standing, lang: str, *, compact: bool = False) -> str:
    """A seat's deals so far ("deals 3/9", "deals played: 4", "deals 9/9 + 1 extra"), or why it
    plays no more; ``compact``: the numbers only ("3/9", "4", "9/9 +1"), for the picture's
    column that is headed "Deals" already."""
    if standing.forfeited:
        return t("match.forfeited", lang)
    if standing.out:
        return t("match.out", lang)
    if state.knockout or state.first_to:
        return str(standing.deals) if compact else t("match.deals_played", lang, n=standing.deals)
    total = state.options.deals
    if standing.deals > total:
        if compact:
            return f"{total}/{total} +{standing.deals - total}"
        return t("match.deals_extra", lang, n=standing.deals - total, total=total)
    if compact:
        return f"{standing.deals}/{total}"
    return t("match.deals_of", lang, n=standing.deals, total=total)


def standings_text(state: MatchState, names: Sequence[str], lang: str, now: float) -> str:
    """The standings after a deal: a line per seat (place, name, points or chips, deals played
    / N or "out"), the chip base of the next deal in a knock-out, and a line when the next deal
    is an extra deal (加赛)."""
    lines = [t("match.standings", lang, format=format_name(state.options.kind, lang))]
    for s in state.standings():
        lines.append(t("match.line", lang, place=place_text(s.place, lang),
                       name=views.short_name(names[s.seat]), score=_score(state, s, lang),
                       progress=_progress(state, s, lang)))
    if state.knockout:
        lines.append(_chip_base_note(state, lang))
    if state.first_to:
        lines.append(t("match.opt_target", lang, n=state.options.target))
    if state.next_is_extra(now):
        lines.append(t("match.extra_deal", lang))
    return "\n".join(lines)


def standings_scene(state: MatchState, names: Sequence[str], lang: str, now: float, *,
                    paid: Sequence[int] | None = None) -> StandingsScene:
    """The standings' picture (:func:`images.standings.render_standings`) in ``lang``: after a
    deal the rows of :func:`standings_text` and its chip-base or extra-deal note; with ``paid``
    (beans per seat) the final standings, champions crowned and prizes drawn."""
    words = picture_labels(lang)
    fmt = format_name(state.options.kind, lang)
    final = paid is not None
    rows = tuple(
        StandingsRow(s.place, drawn_name(names[s.seat], s.seat + 1, lang), _score(state, s, lang),
                     _progress(state, s, lang, compact=True),
                     prize=paid[s.seat] if paid is not None else 0,
                     out=s.out or s.forfeited)
        for s in state.standings())
    note = ""
    if not final and state.next_is_extra(now):
        note = t("match.extra_deal", lang)
    elif not final and state.knockout:
        note = _chip_base_note(state, lang)
    title = (words.match_over if final else words.standings).format(format=fmt)
    return StandingsScene(title, rows, note, final, words, chips=state.knockout)


def final_text(state: MatchState, names: Sequence[str], paid: Sequence[int], lang: str,
               *, refunded: bool = False) -> str:
    """The final standings post (比赛结束): the champion (冠军), every place with its score
    and prize, and the pool; ``refunded``: nobody won it and every fee went back."""
    standings = state.standings()
    champions = [s for s in standings if s.place == 1 and not s.forfeited]
    lines = [t("match.over", lang, format=format_name(state.options.kind, lang))]
    if champions:
        lines.append(t("match.champion", lang,
                       names=join_names((views.short_name(names[s.seat]) for s in champions),
                                        lang)))
    lines.append("")
    for s in standings:
        line = t("match.line", lang, place=place_text(s.place, lang),
                 name=views.short_name(names[s.seat]), score=_score(state, s, lang),
                 progress=_progress(state, s, lang))
        if paid[s.seat] and not refunded:
            line += " · " + t("match.prize", lang, beans=grouped(paid[s.seat]))
        lines.append(line)
    pool = state.options.entry_fee * sum(state.humans)
    if pool:
        key = "match.refunded" if refunded else "match.pool_paid"
        lines += ["", t(key, lang, pool=grouped(pool))]
    return "\n".join(lines)


def cancelled_text(lang: str, name: str, refunds: Sequence[int]) -> str:
    """An admin stopped the match: fees went back."""
    total = sum(refunds)
    if total:
        return t("match.cancelled_refund", lang, name=views.short_name(name),
                 pool=grouped(total))
    return t("match.cancelled", lang, name=views.short_name(name))
