"""Competitions: ``/match`` (fixed deals, 定局积分), ``/firstto`` (first to N points,
先得N分者胜) and ``/knockout`` (打立出局) open a match lobby; its option buttons (``O:``) let the
opener or an admin set the options before the start. Options can also be typed after the
command: ``/knockout [fee] [name=value …]``, e.g. ``/knockout 100 chips=15 out=5 per=point``,
``/match 100 prizes=60,40`` or ``/match redeal=penalty`` (names: the lobby buttons'
:data:`TYPED_NAMES`, and ``prizes``, the prize table); a value out of its range is refused
with the range, a prize table breaking a rule of :mod:`engine.prizes` with that rule, and
nothing opens. Entry points into
:class:`bot.features.match.driver.Matches`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from telegram import Update
from telegram.ext import CallbackQueryHandler, CommandHandler, ContextTypes

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.core.numbers import parse_whole
from bot.features.match.views import CHOICES, FORMAT_OPTIONS, TYPED_NAMES, WORD_CHOICES
from bot.telegram.handlers import senders
from bot.telegram.handlers.common import (
    GROUP_TYPES,
    answer,
    chat_language,
    game,
    locked_press,
    may_manage,
    person,
)
from bot.telegram.services import App, Context
from engine.match import (
    DEFAULT_TARGET,
    FIRST_TO,
    FIXED,
    KNOCKOUT,
    LIMITS,
    WORD_OPTIONS,
    MatchError,
    MatchOptions,
)
from engine.prizes import PrizeTableError, parse_prize_table

#: The command of each kind of match (:attr:`engine.match.MatchOptions.kind`).
COMMANDS = {FIXED: "match", FIRST_TO: "firstto", KNOCKOUT: "knockout"}
#: The example of each command's usage.
EXAMPLES = {FIXED: "/match 100 deals=6 time=15", FIRST_TO: "/firstto 100 target=30 time=30",
            KNOCKOUT: "/knockout 100 chips=15 out=5"}
#: The lobby button (its label names the option in a refusal) of each option.
BUTTONS = {field: name for name, (field, _) in (CHOICES | WORD_CHOICES).items()}


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why typed options were refused: ``key`` (an i18n key) and its fields."""

    key: str
    fields: dict[str, Any]


def typed_options(fmt: str, args: Sequence[str]) -> MatchOptions | Refusal:
    """The options typed after ``/match``, ``/firstto`` or ``/knockout`` (``fmt``: the kind of
    match, :data:`COMMANDS`): an optional entry fee first, then ``name=value`` words (``=`` or
    the full-width ``＝``) with the names of :data:`bot.features.match.views.TYPED_NAMES` (the lobby
    buttons' names, or the options' own); the rest keep their defaults (RULES.md §10; a
    first-to match's target :data:`engine.match.DEFAULT_TARGET`; the redeal rule the
    group's, :meth:`bot.features.match.driver.Matches.open`). A number must be whole and
    in :data:`engine.match.LIMITS` (the threshold at most the starting chips); a word
    option one of its words (``per=deal|point``, ``redeal=redeal|forced_bid|penalty``, RULES.md
    §2.3; ``forced-bid`` too); ``prizes`` a prize table (:func:`engine.prizes.parse_prize_table`:
    e.g. ``60,40``). Returns the options, or a :class:`Refusal` (``match.usage``: not the command's
    syntax; ``match.typed_range`` / ``match.typed_words``: a value out of range, with the
    range; ``prizes.bad_<rule>``: the rule of :class:`engine.prizes.PrizeTableError` the table
    broke) — nothing opens then.
    """
    values: dict[str, Any] = {}
    names = TYPED_NAMES[fmt]
    for n, word in enumerate(args):
        name, sep, value = word.replace("＝", "=").partition("=")
        if not sep:
            if n:
                return Refusal("match.usage", {})
            name, value = "fee", word
        field = names.get(name.lower())
        if field is None or field in values:
            return Refusal("match.usage", {})
        if field == "prizes":
            try:
                values[field] = parse_prize_table(value)
            except PrizeTableError as exc:
                return prize_refusal(exc)
            continue
        if field in WORD_OPTIONS:
            word = value.lower().replace("-", "_")  # forced-bid as forced_bid
            if word not in WORD_OPTIONS[field]:
                return Refusal("match.typed_words", {"option": BUTTONS[field],
                                                     "words": WORD_OPTIONS[field]})
            values[field] = word
            continue
        low, high = LIMITS[field]
        number = parse_whole(value, low=low, high=high)
        if number is None:
            return Refusal("match.typed_range", {"option": BUTTONS[field], "low": low,
                                                 "high": high})
        values[field] = number
    if fmt == FIRST_TO:
        values.setdefault("target", DEFAULT_TARGET)
    fmt = FIXED if fmt == FIRST_TO else fmt
    try:
        return MatchOptions(fmt, **values)
    except MatchError:  # the only cross-check: a threshold above the starting chips
        options = MatchOptions(fmt, **{k: v for k, v in values.items() if k != "threshold"})
        return Refusal("match.typed_range", {"option": BUTTONS["threshold"],
                                             "low": LIMITS["threshold"][0],
                                             "high": options.chips})


def prize_refusal(error: PrizeTableError) -> Refusal:
    """The refusal of a prize table that broke a rule of :mod:`engine.prizes` (its
    ``rule``, e.g. ``prizes.bad_sum`` with the total)."""
    return Refusal(f"prizes.bad_{error.rule}", dict(error.fields))


def refusal_text(refusal: Refusal, fmt: str, lang: str) -> str:
    """A :class:`Refusal` in ``lang``: the usage, the option's range (its button's name), or
    the prize table's broken rule."""
    if refusal.key == "match.usage":
        names = ", ".join([*(f"{n}=" for n in FORMAT_OPTIONS[fmt] if n != "fee"), "prizes="])
        return t("match.usage", lang, command=f"/{COMMANDS[fmt]}",
                 high=LIMITS["entry_fee"][1], names=names, example=EXAMPLES[fmt])
    if refusal.key.startswith("prizes."):
        return t(refusal.key, lang, **refusal.fields)
    fields = dict(refusal.fields)
    fields["option"] = t(f"match.btn_{fields['option']}", lang)
    if "words" in fields:
        fields["words"] = ", ".join(fields["words"])
    return t(refusal.key, lang, **fields)


async def _open(update: Update, context: ContextTypes.DEFAULT_TYPE, fmt: str) -> None:
    app = context.application
    message = senders.message_of(update)
    if message.chat.type not in GROUP_TYPES:
        await message.reply_text(t("reply.group_only", await chat_language(app, update)))
        return
    user = await senders.player(app, update)
    if user is None:
        return
    options = typed_options(fmt, context.args or [])
    if isinstance(options, Refusal):
        lang = await chat_language(app, update)
        await message.reply_text(refusal_text(options, fmt, lang))
        return
    chat = message.chat
    thread = message.message_thread_id if message.is_topic_message else None
    _, text = await game(app).matches.open(chat.id, thread, chat.title or "", person(user), fmt,
                                           options=options)
    if text is not None:
        await message.reply_text(text)


async def cmd_match(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/match [entry fee] [deals=N]: open a fixed-deal match (定局积分, RULES.md §10) in this
    group or topic; the fee (beans, default 0) can also be typed, any whole number up to
    1,000,000, and the options (:func:`typed_options`)."""
    await _open(update, context, FIXED)


async def cmd_firstto(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/firstto [entry fee] [target=N time=N prizes=…]: open a first-to-N match (先得N分者胜,
    seed 000): it ends when a seat's points reach the target (default 30) or the time limit
    is up (:func:`typed_options`)."""
    await _open(update, context, FIRST_TO)


async def cmd_knockout(update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
    """/knockout [entry fee] [chips=N base=N per=deal|point out=N time=N rise=N]: open a
    knock-out by chips (打立出局, RULES.md §10) with these options (:func:`typed_options`)."""
    await _open(update, context, KNOCKOUT)


async def on_option(update: Update, context: Context) -> None:
    """A match lobby's option button: the opener or an admin steps one option (the entry fee
    is not raised under players who joined:
    :meth:`bot.features.match.driver.Matches.option_refusal`)."""
    app = context.application
    query = senders.query_of(update)
    async with locked_press(app, query) as press:
        if press is None:
            return
        if not await may_manage(app, press.table, query.from_user.id):
            await answer(query, t("pop.only_opener", press.lang), alert=True)
            return
        refusal = await game(app).matches.option_refusal(press.table, press.data.payload,
                                                         press.lang)
        if refusal is not None:
            await answer(query, refusal, alert=True)
            return
        if not game(app).matches.set_option(press.table, press.data.payload):
            await answer(query, t("match.pop_limit", press.lang))
            return
        await answer(query, t("match.pop_set", press.lang))
        await game(app).lobby.refresh(press.table)


def register(app: App) -> None:
    """Route /match, /firstto, /knockout and the option buttons."""
    app.add_handler(CommandHandler("match", cmd_match))
    app.add_handler(CommandHandler("firstto", cmd_firstto))
    app.add_handler(CommandHandler("knockout", cmd_knockout))
    app.add_handler(CallbackQueryHandler(on_option, pattern=cb.pattern(cb.MATCH_OPTION)))
