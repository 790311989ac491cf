"""End to end, issue 14 defect 7: senders that are not people (anonymous admins, channels, any
message with ``sender_chat``) never get a wallet; anonymous admins may use admin commands."""

from __future__ import annotations

import pytest

from bot.core.i18n import t
from tests.bot.economy_helpers import reply
from tests.conftest import BotRunner
from tests.fakebot import CHANNEL_BOT, GROUP_ANONYMOUS_BOT, Call, Chat, FakeBotApi, FakeMessage

LANG = "en"
PLAYER_COMMANDS = ("/daily", "/relief", "/balance", "/me", "/give 100", "/newgame", "/join",
                   "/leave")


async def _answer(api: FakeBotApi, chat: Chat, sent: FakeMessage) -> str:
    def replied() -> Call | None:
        return next((c for c in api.calls if c.ok and c.method == "sendMessage"
                     and c.params.get("chat_id") == chat.id
                     and (c.params.get("reply_parameters") or {}).get("message_id")
                     == sent.message_id), None)

    call = await api.wait_for(replied)
    return call.params["text"]


@pytest.mark.parametrize("command", PLAYER_COMMANDS)
async def test_an_anonymous_admin_or_a_channel_gets_no_wallet(
    fake_api: FakeBotApi, running_bot: BotRunner, command: str
):
    store = running_bot.app.bot_data.store
    first, second = fake_api.new_group("One"), fake_api.new_group("Two")
    await store.update_group_settings(first.id, give_enabled=True)
    channel = fake_api.new_channel("News")
    someone = fake_api.new_user("Ann")
    said = fake_api.send_text(someone, first, "hello")
    for chat, sent in (
        (first, fake_api.send_anonymously(first, command, reply_to=said)),
        (second, fake_api.send_anonymously(second, command)),
        (first, fake_api.send_as_channel(channel, first, command, reply_to=said)),
    ):
        assert await _answer(fake_api, chat, sent) == t("reply.not_person", LANG)
    for account in (GROUP_ANONYMOUS_BOT, CHANNEL_BOT):
        assert await store.get_player(account.id) is None
    assert running_bot.app.bot_data.tables.get(f"{first.id}:0") is None
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants == 0


async def test_anonymous_admins_use_admin_commands_and_channels_do_not(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("Admins")
    channel = fake_api.new_channel("News")
    saved = await _answer(fake_api, group,
                          fake_api.send_anonymously(group, "/settings give_enabled on"))
    assert (await store.get_group_settings(group.id))["give_enabled"] is True
    assert saved != t("reply.admin_only", LANG)
    refused = fake_api.send_as_channel(channel, group, "/settings give_enabled off")
    assert await _answer(fake_api, group, refused) == t("reply.admin_only", LANG)
    assert (await store.get_group_settings(group.id))["give_enabled"] is True

    ann = fake_api.new_user("Ann")
    fake_api.open_private_chat(ann)
    await reply(fake_api, ann, group, "/newgame")
    assert running_bot.app.bot_data.tables.get(f"{group.id}:0") is not None
    stop = fake_api.send_anonymously(group, "/stop")
    assert await _answer(fake_api, group, stop) == t("lobby.closed", LANG, name="Admins")
    assert running_bot.app.bot_data.tables.get(f"{group.id}:0") is None

    audit = fake_api.send_anonymously(group, "/audit 1001")
    assert await _answer(fake_api, group, audit) == t("audit.anonymous", LANG)
    assert await store.get_player(GROUP_ANONYMOUS_BOT.id) is None


async def test_give_to_an_anonymous_admin_or_a_channel_is_refused(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("Givers")
    await store.update_group_settings(group.id, give_enabled=True)
    ann = fake_api.new_user("Ann")
    anonymous = fake_api.send_anonymously(group, "thanks all")
    posted = fake_api.send_as_channel(fake_api.new_channel(), group, "news")
    for target in (anonymous, posted):
        assert await reply(fake_api, ann, group, "/give 100", reply_to=target) == t(
            "give.not_person", LANG)
    for account in (GROUP_ANONYMOUS_BOT, CHANNEL_BOT):
        assert await store.get_player(account.id) is None
    assert (await store.totals()).ledger == 0  # refused before anything was written
