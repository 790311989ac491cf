"""End to end, issue 14 defect 9: replies survive commands that were deleted before the bot
answered (groups whose moderation bots delete commands); the fake Bot API answers 400 "message
to be replied not found" as Telegram does, unless the reply allows sending without it."""

from __future__ import annotations

import aiohttp

from bot.core.i18n import t
from tests.bot.flow_helpers import LANG, start_seeded_deal
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


async def _call(api: FakeBotApi, method: str, payload: dict) -> dict:
    async with aiohttp.ClientSession() as session, session.post(
            f"{api.base_url}{api.token}/{method}", json=payload) as response:
        return await response.json()


async def test_the_fake_api_refuses_a_reply_to_a_deleted_message_unless_allowed(
    fake_api: FakeBotApi
):
    group, ann = fake_api.new_group("Tidy"), fake_api.new_user("Ann")
    command = fake_api.send_text(ann, group, "/daily")
    fake_api.delete(command)
    refused = await _call(fake_api, "sendMessage", {
        "chat_id": group.id, "text": "hi", "reply_parameters": {"message_id": command.message_id}})
    assert refused == {"ok": False, "error_code": 400,
                       "description": "Bad Request: message to be replied not found"}
    sent = await _call(fake_api, "sendMessage", {
        "chat_id": group.id, "text": "hi", "reply_parameters": {
            "message_id": command.message_id, "allow_sending_without_reply": True}})
    assert sent["ok"] and "reply_to_message" not in sent["result"]
    assert fake_api.last_message(group).reply_to_message_id is None


def _delete_each_command(api: FakeBotApi, user, chat, text: str):
    message = api.send_text(user, chat, text)
    api.delete(message)  # before the bot can answer: the moderation bot is quicker
    return message


async def test_daily_leave_and_stop_answer_although_their_command_is_gone(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    players = await start_seeded_deal(fake_api, running_bot.app, "Moderated", seed=5150)
    ann, bob, _ = players.users
    group = players.group

    _delete_each_command(fake_api, ann, group, "/daily")
    daily = await fake_api.wait_for("sendMessage", chat_id=group)
    assert daily.params["text"].startswith("✅")

    _delete_each_command(fake_api, bob, group, "/leave")
    prompt = await fake_api.wait_for("sendMessage", chat_id=group)
    assert prompt.params["text"] == t("reply.leave_confirm", LANG, name="Bob")
    assert fake_api.message(group, prompt.result["message_id"]).buttons

    fake_api.make_admin(group, ann)
    _delete_each_command(fake_api, ann, group, "/stop")
    stopped = t("lobby.stopped", LANG, name="Ann")
    await fake_api.wait_for("sendMessage", chat_id=group, text=stopped)
    assert not [c for c in fake_api.calls if not c.ok and c.method == "sendMessage"]
