"""End to end: who reads which language. Group messages are in the group's language; what one
player alone reads (private replies, the hand, the "Your turn" notice, pop-ups) is in the
player's own Telegram language, else the group's (``bot.telegram.handlers.common.user_language``,
``Table.seat_lang``)."""

from __future__ import annotations

from bot.core.i18n import t
from bot.presentation import views
from bot.presentation.views import cards_text
from engine import SCORE, Action, new_deal
from tests.bot.flow_helpers import LANG, Players, button_data, table_picture
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, FakeMessage, User

SEED = 777
ZH = "zh-Hans"


async def _reply(api: FakeBotApi, user: User, chat, text: str) -> str:
    api.send_text(user, chat, text)
    call = await api.wait_for("sendMessage", chat_id=chat)
    return call.params["text"]


async def test_private_replies_are_in_the_users_language(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    li = fake_api.new_user("Li", language_code="zh-hans")
    mei = fake_api.new_user("Mei", language_code="zh-TW")
    hans = fake_api.new_user("Hans", language_code="de")  # no catalogue: the bot's default
    for command in ("/newgame", "/stop", "/leave", "/join"):
        # /leave in private leaves a practice deal; with none, it says so
        key = "reply.not_practising" if command == "/leave" else "reply.group_only"
        assert await _reply(fake_api, li, li, command) == t(key, ZH)
        assert await _reply(fake_api, mei, mei, command) == t(key, "zh-Hant")
        assert await _reply(fake_api, hans, hans, command) == t(key, LANG)
    assert t("reply.group_only", ZH) != t("reply.group_only", LANG)
    help_text = await _reply(fake_api, li, li, "/help")
    assert help_text == views.help_text(ZH, group=False)
    assert "炸弹" in help_text and "叫 1、2 或 3 分" in help_text and "http" not in help_text
    assert await _reply(fake_api, li, li, "/settings") == t("reply.group_only", ZH)


def _hand(api: FakeBotApi, user: User, lang: str, n: int) -> FakeMessage:
    title = t("hand.title", lang, n=n)
    return next(m for m in reversed(api.messages_in(user)) if m.content.startswith(title))


async def test_a_player_reads_their_own_language_at_an_english_table(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Mixed company")
    ann, cat = fake_api.new_user("Ann"), fake_api.new_user("Cat")
    li = fake_api.new_user("Li", language_code="zh-hans")
    players = Players(fake_api, group, [ann, li, cat])
    lobby = await players.open_table(ann, [])
    answer = await players.click(li, lobby, t("btn.join", LANG))
    assert answer.params["text"] == t("pop.seating", ZH) != t("pop.seating", LANG)
    welcome = fake_api.messages_in(li)[-1]
    assert welcome.text == t("hand.welcome", ZH, group="Mixed company")
    await players.click(cat, lobby, t("btn.join", LANG))
    await players.click(ann, lobby, t("btn.start", LANG))
    table = await table_picture(fake_api, group)
    state = new_deal(SCORE, seed=SEED, first_bidder=0)
    players.state = state

    assert table.content.startswith(t("table.title", LANG, preset=t("preset.score", LANG),
                                      stake=10))
    hand = _hand(fake_api, li, ZH, 17)
    assert t("btn.autoplay", ZH) in [b.text for b in hand.buttons]
    # Not Li's turn: the pop-up says so in Chinese; "My cards" on the group table too.
    bid = f"A:{button_data(hand, label=t('btn.autoplay', ZH)).split(':')[1]}:0:bid1"
    answer = await players.press(li, hand, bid)
    assert answer.params["text"] == t("pop.not_your_turn", ZH)
    answer = await players.click(li, table, t("btn.my_cards", LANG))
    assert answer.params["text"] == t("pop.my_cards", ZH, cards=cards_text(state.hands[1], ZH))
    answer = await players.press(li, hand, "garbage")
    assert answer.params["text"] == t("pop.invalid", ZH)

    await players.act(Action("bid", 0, value=1))  # Li's turn: the notice is in Chinese
    notice = t("notice.your_turn_in", ZH, group="Mixed company")
    await fake_api.wait_for(lambda: any(m.text == notice for m in fake_api.messages_in(li)))
    hand = _hand(fake_api, li, ZH, 17)
    assert t("btn.bid_2", ZH) in [b.text for b in hand.buttons]
    # Ann (English) still reads English.
    assert _hand(fake_api, ann, LANG, 17).buttons
    assert not any(m.text == t("notice.your_turn_in", LANG, group="Mixed company")
                   for m in fake_api.messages_in(li))
