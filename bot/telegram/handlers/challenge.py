"""The duplicate challenge (复式挑战): ``/challenge [deals] [days] [entry fee]
[prizes=60,40]`` opens one
in a group (its admins, or anyone if the group's ``challenge_open`` setting allows); its buttons
(``D:``) enter it (in the group), play a deal and show how the others did on a deal (in the
member's private chat); ``/challenge cancel`` cancels it (admins or its opener). Entry points
into :class:`bot.features.challenge.driver.Challenges`."""

from __future__ import annotations

from dataclasses import replace

from telegram import Update
from telegram.ext import CallbackQueryHandler, CommandHandler

from bot.core import callbacks as cb
from bot.core.i18n import t
from bot.core.numbers import grouped, parse_whole
from bot.features.challenge import views as views
from bot.features.challenge.state import DEFAULT_DEALS, LIMITS, ChallengeOptions
from bot.game.lobby import Person
from bot.telegram.handlers import senders
from bot.telegram.handlers.common import (
    GROUP_TYPES,
    answer,
    answer_private_link,
    ask_private_first,
    chat_language,
    game,
    group_language,
    open_press,
    person,
    refuse,
    store,
    user_language,
)
from bot.telegram.services import App, Context
from engine.prizes import PrizeTableError, parse_prize_table

#: ``/challenge cancel`` (also 取消): the group's open challenge is cancelled.
CANCEL_WORDS = frozenset({"cancel", "取消"})
#: The order of ``/challenge``'s optional numbers.
ARGUMENTS = ("deals", "days", "entry_fee")


#: The word that sets the prize table: ``prizes=60,40`` (``=`` or ``＝``), anywhere.
PRIZES_WORDS = ("prizes", "prize")


def parse_options(args: list[str]) -> ChallengeOptions | PrizeTableError | None:
    """``/challenge``'s numbers (deals, days, fee; each optional, in that order) and an
    optional prize table ``prizes=60,40`` (:func:`engine.prizes.parse_prize_table`, default
    50/30/20); ``None`` for more than three numbers or any that is not a whole number within
    :data:`LIMITS`, the :class:`engine.prizes.PrizeTableError` of a prize table that breaks
    a rule.

    >>> parse_options(["2", "1", "50"]).entry_fee, parse_options(["1e3"])
    (50, None)
    >>> parse_options(["prizes=60,40"]).prizes, parse_options(["prizes=60,30"]).rule
    ((60, 40), 'sum')
    """
    numbers: list[str] = []
    prizes: tuple[int, ...] | None = None
    for word in args:
        name, sep, value = word.replace("＝", "=").partition("=")
        if not sep:
            numbers.append(word)
        elif name.lower() in PRIZES_WORDS and prizes is None:
            try:
                prizes = parse_prize_table(value)
            except PrizeTableError as exc:
                return exc
        else:
            return None
    if len(numbers) > len(ARGUMENTS):
        return None
    values: dict[str, int] = {"deals": DEFAULT_DEALS, "days": 0, "entry_fee": 0}
    for name, word in zip(ARGUMENTS, numbers, strict=False):
        low, high = LIMITS[name]
        number = parse_whole(word, low=low, high=high)
        if number is None:
            return None
        values[name] = number
    options = ChallengeOptions(values["deals"], values["days"], values["entry_fee"])
    return options if prizes is None else replace(options, prizes=prizes)


def _usage(lang: str) -> str:
    return t("challenge.usage", lang, deals_low=LIMITS["deals"][0],
             deals_high=LIMITS["deals"][1], days=LIMITS["days"][1],
             fee=grouped(LIMITS["entry_fee"][1]))


async def cmd_challenge(update: Update, context: Context) -> None:
    """/challenge [deals] [days] [fee]: open a duplicate challenge in this group (RULES.md §10);
    ``/challenge cancel``: cancel it; in a private chat, say where challenges are opened."""
    app = context.application
    message = senders.message_of(update)
    lang = await chat_language(app, update)
    if message.chat.type not in GROUP_TYPES:
        await message.reply_text(t("challenge.private", lang))
        return
    if context.args and context.args[0].lower() in CANCEL_WORDS:
        await _cancel(app, update, lang)
        return
    group = await store(app).get_group_settings(message.chat.id)
    if group.get("challenge_open") != "anyone" and not await senders.sender_is_admin(app, message):
        await message.reply_text(t("challenge.admins_only", lang))
        return
    user = await senders.player(app, update)
    if user is None:
        return
    options = parse_options(context.args or [])
    if options is None:
        await message.reply_text(_usage(lang))
        return
    if isinstance(options, PrizeTableError):
        await message.reply_text(t(f"prizes.bad_{options.rule}", lang, **options.fields))
        return
    chat = message.chat
    thread = message.message_thread_id if message.is_topic_message else None
    challenge_id, refusal = await game(app).challenges.open(
        chat.id, thread, chat.title or "", person(user), options)
    if challenge_id is None:
        await message.reply_text(refusal)


async def _cancel(app: App, update: Update, lang: str) -> None:
    """/challenge cancel: an admin (or the opener) cancels the group's open challenge, every
    fee refunded (:meth:`bot.features.challenge.driver.Challenges.cancel`); a refusal is the
    reply."""
    message = senders.message_of(update)
    is_admin = await senders.sender_is_admin(app, message)
    user = senders.person(message)
    if user is not None:
        who = person(user)
    elif is_admin:  # an anonymous admin, writing as the group
        chat = message.sender_chat or message.chat
        who = Person(0, chat.title or message.chat.title or "?")
    else:
        await senders.player(app, update)  # says that beans belong to people
        return
    refusal = await game(app).challenges.cancel(message.chat.id, who, is_admin, lang)
    if refusal:
        await message.reply_text(refusal)


async def on_press(update: Update, context: Context) -> None:
    """A challenge button: Enter (group), ▶ a deal or 👁 a played deal (private).

    An Enter by someone the bot cannot write to privately (known before, or its welcome
    refused: :class:`bot.game.reach.PrivateChats`) enters nothing and is answered with a link
    that opens the bot's chat (:func:`~bot.telegram.handlers.common.ask_private_first`); its Start
    there says to press Enter again."""
    app = context.application
    pressed = await open_press(app, senders.query_of(update), views.parse_challenge_callback,
                               views.ChallengeDataError)
    if pressed is None:
        return
    query, player, lang, press = pressed.query, pressed.player, pressed.lang, pressed.press
    user = query.from_user
    challenges = game(app).challenges
    if press.op == "enter":
        message = query.message
        if message is None or message.chat.type not in GROUP_TYPES:
            await refuse(app, query, t("pop.invalid", lang), alert=True)
            return
        group = await store(app).get_group_settings(message.chat.id)
        lang = user_language(app, user, player.language if player else
                             group_language(app, group))
        link = f"{cb.CHALLENGE_LINK}{press.challenge_id}"
        opened = t("challenge.pop_open_private", lang)
        if await ask_private_first(app, query, link, opened):
            return
        text = await challenges.enter(press.challenge_id, person(user), lang, message.chat.id)
        if game(app).ctx.private_chats.known(user.id) is False:  # its welcome was refused
            await answer_private_link(app, query, link, opened)
            return
        await answer(query, text, alert=True)
        return
    async def ack() -> None:
        await answer(query)

    if press.op == "play":
        refusal = await challenges.play(press.challenge_id, press.deal, person(user), lang, ack)
    else:
        refusal = await challenges.view(press.challenge_id, press.deal, user.id, lang, ack)
    if refusal is not None:
        await refuse(app, query, refusal, alert=True)


def register(app: App) -> None:
    """Route /challenge (and /fushi, its pinyin) and the challenge buttons."""
    app.add_handler(CommandHandler(["challenge", "fushi"], cmd_challenge))
    app.add_handler(CallbackQueryHandler(on_press, pattern=f"^{views.PREFIX}:"))
