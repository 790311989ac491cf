"""End to end: the commands (issue 3, flow step 8): /leave during a deal (confirm, escape
penalty), /stop by an admin (nobody pays), /balance, /top, /help, /start."""

from __future__ import annotations

from bot.core.i18n import t
from bot.presentation import views
from bot.presentation.menus import GROUP_COMMANDS, PRIVATE_COMMANDS
from engine import Action
from tests.bot.economy_helpers import reply
from tests.bot.flow_helpers import (
    LANG,
    Players,
    group_texts,
    hand_message,
    result_message,
    start_seeded_deal,
)
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi
from tests.fakebot.server import BOT_USERNAME

SEED = 5150


async def _deal(fake_api: FakeBotApi, running_bot: BotRunner, title: str) -> Players:
    return await start_seeded_deal(fake_api, running_bot.app, title, seed=SEED)


async def _reply(api: FakeBotApi, user, chat, text: str) -> str:
    """The bot's answer: a message's text or a picture's caption (/top with pictures on)."""
    return await reply(api, user, chat, text)


async def test_leave_asks_first_then_forfeits_with_the_escape_penalty(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await _deal(fake_api, running_bot, "Quitters")
    ann, bob, cat = players.users
    group = players.group
    await players.act(Action("bid", 0, value=2))
    await players.act(Action("pass", 1))
    await players.act(Action("pass", 2))
    prompt_text = await _reply(fake_api, bob, group, "/leave")
    assert prompt_text == t("reply.leave_confirm", LANG, name="Bob")
    prompt = fake_api.last_message(group)
    # Only Bob answers his prompt: Cat (seated too) changes nothing with either button.
    for label in ("btn.leave_confirm", "btn.cancel"):
        answer = await players.click(cat, prompt, t(label, LANG))
        assert answer.params["text"] == t("pop.not_asker", LANG, name="Bob")
        assert answer.params["show_alert"] is True
    assert prompt.text == prompt_text and len(prompt.buttons) == 2
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    assert table.state.escaped == (False, False, False)
    answer = await players.click(bob, prompt, t("btn.cancel", LANG))
    assert answer.params["text"] == t("pop.stay", LANG)
    assert prompt.text == t("reply.leave_cancelled", LANG, name="Bob")
    stranger = fake_api.new_user("Zed")
    # a stranger's /join while the deal is played: wait for it to end (not "no table here")
    sent = fake_api.send_text(stranger, group, "/join")
    answer = await fake_api.wait_for("sendMessage", chat_id=group, where=lambda c: (
        c.params.get("reply_parameters") or {}).get("message_id") == sent.message_id)
    assert answer.params["text"] == t("reply.deal_running", LANG)
    prompt_text = await _reply(fake_api, bob, group, "/leave")
    prompt = fake_api.last_message(group)
    answer = await players.click(stranger, prompt, t("btn.leave_confirm", LANG))
    assert answer.params["text"] == t("pop.not_seated", LANG)
    answer = await players.click(bob, prompt, t("btn.leave_confirm", LANG))
    assert answer.params.get("text") is None
    left = t("table.left_deal", LANG, name="Bob")
    assert prompt.text == left
    assert group_texts(fake_api, group).count(left) == 1  # the prompt says it, nothing else
    assert table.state.escaped == (False, True, False)
    assert running_bot.app.bot_data.tables.table_of(bob.id) is None  # free to sit elsewhere
    assert await _reply(fake_api, bob, group, "/leave") == t("reply.not_seated", LANG)
    # Ann and Cat let auto-play finish the deal.
    for user in (ann, cat):
        await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
    result = await result_message(fake_api, group)
    # The result says who left and what they paid, not "the landlord wins" (issue 10 item 6).
    lines = result.content.splitlines()
    paid = -table.state.result.points[1]
    assert lines[0] == t("result.escape_title", LANG, names="Bob")
    assert lines[1] == f"Bob left and pays {paid} points ({paid * 10} beans)."
    assert f"Bob ({t('role.farmer', LANG)}): -{paid} points, -{paid * 10} beans" in result.content
    points = table.state.result.points
    assert points[1] < 0 and sum(points) == 0
    store = running_bot.app.bot_data.store
    assert [await store.balance(u.id) for u in players.users] == [1000 + p * 10 for p in points]

    top = await _reply(fake_api, ann, group, "/top")
    lines = top.splitlines()
    assert lines[0] == t("top.title_today", LANG)
    assert lines[-1] == t("top.row", LANG, place="🥉", name="Bob",
                          beans=views.beans_text(points[1] * 10, LANG),
                          games=1)


async def test_leave_is_announced_once_even_when_the_prompt_was_deleted(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await _deal(fake_api, running_bot, "Vanishing prompt")
    bob, group = players.users[1], players.group
    await _reply(fake_api, bob, group, "/leave")
    prompt = fake_api.last_message(group)
    prompt.deleted = True  # an admin tidied the chat
    answer = await players.click(bob, prompt, t("btn.leave_confirm", LANG))
    assert answer.params.get("text") is None
    left = t("table.left_deal", LANG, name="Bob")
    told = [c.method for c in fake_api.calls
            if c.ok and c.params.get("chat_id") == group.id and c.params.get("text") == left]
    assert told == ["sendMessage"]


async def test_a_leave_confirmation_counts_only_on_the_pending_prompt(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """A "yes" needs the prompt the player's own /leave got: forged data on another message,
    an answered prompt, or a prompt replaced by a newer /leave change nothing."""
    players = await _deal(fake_api, running_bot, "Forgers")
    ann, bob, _ = players.users
    group = players.group
    table = running_bot.app.bot_data.tables.table_of(ann.id)
    not_pending = t("pop.leave_not_pending", LANG)
    forged = f"Q:{table.token}:0:yes1"
    for message in (fake_api.messages_in(group)[0], hand_message(fake_api, bob)):
        answer = await players.press(bob, message, forged)
        assert answer.params["text"] == not_pending
    await _reply(fake_api, bob, group, "/leave")
    first = fake_api.last_message(group)
    await players.click(bob, first, t("btn.cancel", LANG))
    answer = await players.press(bob, first, forged)  # the answered prompt, forged again
    assert answer.params["text"] == not_pending
    await _reply(fake_api, bob, group, "/leave")
    older = fake_api.last_message(group)
    await _reply(fake_api, bob, group, "/leave")
    newer = fake_api.last_message(group)
    answer = await players.click(bob, older, t("btn.leave_confirm", LANG))
    assert answer.params["text"] == not_pending
    assert table.state.escaped == (False, False, False) and not table.seats[1].left
    answer = await players.click(bob, newer, t("btn.leave_confirm", LANG))
    assert answer.params.get("text") is None
    assert table.state.escaped == (False, True, False)


async def test_stop_by_an_admin_cancels_and_nobody_pays(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await _deal(fake_api, running_bot, "Interrupted")
    ann, bob, _ = players.users
    group = players.group
    await players.act(Action("bid", 0, value=3))
    assert await _reply(fake_api, bob, group, "/stop") == t("reply.admin_only", LANG)
    fake_api.make_admin(group, bob)
    stopped = t("lobby.stopped", LANG, name="Bob")
    assert await _reply(fake_api, bob, group, "/stop") == stopped
    table_message = fake_api.messages_in(group)[0]
    assert table_message.content == t("table.closed_mark", LANG)
    assert table_message.buttons == []
    # The notice is posted once (QA of issue 10: the table message repeated it).
    assert [m.content for m in fake_api.messages_in(group)].count(stopped) == 1
    store = running_bot.app.bot_data.store
    assert await store.running_deals() == []
    assert [await store.balance(u.id) for u in players.users] == [1000, 1000, 1000]
    for user in players.users:
        message = hand_message(fake_api, user)
        assert message.buttons == []
    assert await _reply(fake_api, bob, group, "/stop") == t("reply.nothing_to_stop", LANG)
    assert await _reply(fake_api, ann, group, "/newgame") != t("reply.table_exists", LANG)


async def test_small_commands(fake_api: FakeBotApi, running_bot: BotRunner):
    group = fake_api.new_group("Chatty")
    ann = fake_api.new_user("Ann")
    start = await _reply(fake_api, ann, ann, "/start")
    assert start == t("reply.start", LANG, name="Ann")
    assert "/practice" in start and "/help" in start
    welcome = fake_api.messages_in(ann)[-1]
    assert [(b.text, b.url) for b in welcome.buttons] == [
        (t("btn.add_to_group", LANG), f"https://t.me/{BOT_USERNAME}?startgroup=ddz")]
    assert await _reply(fake_api, ann, ann, "/balance") == t("eco.balance", LANG, name="Ann",
                                                             beans="1,000")
    assert await _reply(fake_api, ann, ann, "/newgame") == t("reply.group_only", LANG)
    help_text = await _reply(fake_api, ann, group, "/help")
    # The rules in a few lines, in the group's language, not a link (issue 10 item 8).
    assert help_text == views.help_text(LANG)
    for words in ("Bidding: bid 1, 2 or 3 points", "rob", "straight of 5 or more", "bomb",
                  "rocket", "points = base × multiplier", "/newgame", "/practice", "/match",
                  "/knockout", "/give"):
        assert words in help_text
    assert "http" not in help_text
    top = await _reply(fake_api, ann, group, "/top")
    assert top.splitlines() == [t("top.title_today", LANG), t("top.empty_period", LANG)]
    assert await _reply(fake_api, ann, group, "/join") == t("reply.no_table", LANG)
    assert await _reply(fake_api, ann, group, "/leave") == t("reply.not_seated", LANG)
    await running_bot.app.bot_data.store.update_group_settings(group.id, language="zh-Hans")
    assert await _reply(fake_api, ann, group, "/join") == t("reply.no_table", "zh-Hans")


async def test_help_lists_the_commands_the_chat_offers(fake_api: FakeBotApi,
                                                      running_bot: BotRunner):
    """A new user's report: /match, /knockout and /give were in no /help; /help now lists the
    commands of the chat it is asked in (a group's, a private chat's), the admins' marked."""
    group = fake_api.new_group("Chatty")
    ann = fake_api.new_user("Ann")
    lines = (await _reply(fake_api, ann, group, "/help")).splitlines()
    commands = [line.split(" — ")[0] for line in lines if line.startswith("/")]
    assert commands == [f"/{name}" for name in GROUP_COMMANDS]
    assert {"/match", "/firstto", "/knockout", "/give", "/settings", "/stop"} <= set(commands)
    assert "/settings — Group settings (admins)" in lines
    assert "/stop — Cancel the deal (admins)" in lines
    private = (await _reply(fake_api, ann, ann, "/help")).splitlines()
    commands = [line.split(" — ")[0] for line in private if line.startswith("/")]
    assert commands == [f"/{name}" for name in PRIVATE_COMMANDS]
    assert "/practice" in commands and "/join" not in commands and "/stop" not in commands
    assert private[-1] == t("help.private_note", LANG)


async def test_every_command_is_in_the_menus_of_each_language(fake_api: FakeBotApi,
                                                               running_bot: BotRunner):
    """The group menu has /match, /knockout and /give; the private one /practice; each in
    Simplified Chinese for "zh" and English for the others (Telegram takes a two-letter
    language code only)."""
    await fake_api.wait_for(lambda: len(fake_api.commands) >= 6 or None)
    menus = {key: [c["command"] for c in value] for key, value in fake_api.commands.items()}
    for code in ("zh", ""):
        assert menus[("all_group_chats", code)] == list(GROUP_COMMANDS)
        assert menus[("all_private_chats", code)] == list(PRIVATE_COMMANDS)
        assert set(menus[("default", code)]) == set(GROUP_COMMANDS) | set(PRIVATE_COMMANDS)
    zh = {c["command"]: c["description"] for c in fake_api.commands[("all_group_chats", "zh")]}
    assert zh["match"] == t("cmd.match", "zh-Hans") and zh["give"] == "赠送欢乐豆"


async def test_a_traditional_chinese_chat_gets_a_traditional_menu(fake_api: FakeBotApi,
                                                                  running_bot: BotRunner):
    """zh-Hant users saw the Simplified menu: a language code of setMyCommands is two letters,
    so "zh" is every Chinese user's. A zh-TW user's private chat and a group set to 繁體中文
    get a menu of their own (a chat scope), in Traditional Chinese; a group set back to
    English loses it."""
    mei = fake_api.new_user("Mei", language_code="zh-TW")
    await _reply(fake_api, mei, mei, "/start")
    own = await fake_api.wait_for(lambda: fake_api.commands.get((f"chat:{mei.id}", "")))
    assert [c["command"] for c in own] == list(PRIVATE_COMMANDS)
    assert own[1] == {"command": "practice", "description": t("cmd.practice", "zh-Hant")}
    assert "練習" in own[1]["description"]
    ann = fake_api.new_user("Ann")
    await _reply(fake_api, ann, ann, "/start")
    assert (f"chat:{ann.id}", "") not in fake_api.commands  # English: the language menu
    group = fake_api.new_group("麻雀館")
    store = running_bot.app.bot_data.store
    await store.update_group_settings(group.id, language="zh-Hant")
    await _reply(fake_api, ann, group, "/help")
    menu = await fake_api.wait_for(lambda: fake_api.commands.get((f"chat:{group.id}", "")))
    assert [c["command"] for c in menu] == list(GROUP_COMMANDS)
    assert menu[0]["description"] == t("cmd.newgame", "zh-Hant") == "開一桌鬥地主"
    fake_api.make_admin(group, ann)
    await _reply(fake_api, ann, group, "/settings language en")
    await fake_api.wait_for(lambda: (f"chat:{group.id}", "") not in fake_api.commands or None)


async def test_the_bot_greets_a_group_it_is_added_to(fake_api: FakeBotApi,
                                                     running_bot: BotRunner):
    """Added to a group (a my_chat_member update), the bot says in a few words how to start;
    a change of its rights or being removed says nothing."""
    group = fake_api.new_group("New friends")
    ann = fake_api.new_user("Ann")
    fake_api.set_bot_status(ann, group, "member")
    greeting = await fake_api.wait_for("sendMessage", chat_id=group.id)
    assert greeting.params["text"] == t("greet.group", LANG)
    assert "/newgame" in greeting.params["text"] and "/help" in greeting.params["text"]
    fake_api.set_bot_status(ann, group, "administrator", old_status="member")
    fake_api.set_bot_status(ann, group, "left", old_status="administrator")
    fake_api.send_text(ann, ann, "/balance")  # a later update: the ones before are handled
    await fake_api.wait_for("sendMessage", chat_id=ann.id)
    assert len(fake_api.calls_to("sendMessage", chat_id=group.id)) == 1


async def test_seated_at_a_running_deal_names_the_group_and_warns_leaving_forfeits(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """A new user's report: "你已在另一桌" did not say which table, nor that /leave there
    forfeits the running deal (RULES.md §9)."""
    players = await start_seeded_deal(fake_api, running_bot.app, "Friday night 🃏", seed=SEED)
    ann = players.users[0]
    other = fake_api.new_group("Office")
    assert await _reply(fake_api, ann, other, "/newgame") == t(
        "pop.seated_deal", LANG, group="Friday night 🃏")
    await running_bot.app.bot_data.store.update_group_settings(other.id, language="zh-Hans")
    assert await _reply(fake_api, ann, other, "/newgame") == \
        "你正在「Friday night 🃏」打一局：请先打完。在那里发 /leave 会判负（逃跑扣分）。"
