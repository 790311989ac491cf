"""End to end (issue 10): a whole deal in a zh-Hans group draws Chinese words and the players'
Chinese names in every table picture, and a result picture whose multiplier and points are the
engine's and the caption's. ``SAVE_PICTURES=/some/dir`` keeps the pictures the bot sent there,
to look at them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.core.i18n import t
from bot.presentation import scenes
from images import TableScene, render_result
from tests.bot.flow_helpers import Players, button_data, result_message
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi, FakeMessage, User

ZH = "zh-Hans"
NAMES = ("王小明", "李雷", "韩梅梅")


def zh_hand_message(api: FakeBotApi, user: User) -> FakeMessage:
    prefix = t("hand.title", ZH, n=0).split("（")[0]
    for message in reversed(api.messages_in(user)):
        if message.content.startswith(prefix):
            return message
    raise LookupError(f"no hand message for {user.first_name}")


async def test_a_zh_hans_deal_draws_chinese_words_and_names(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch: pytest.MonkeyPatch
):
    drawn: list[TableScene] = []
    build = scenes.table_scene

    def table_scene(*args, **kwargs) -> TableScene:
        drawn.append(build(*args, **kwargs))
        return drawn[-1]

    monkeypatch.setattr(scenes, "table_scene", table_scene)
    app = running_bot.app
    app.bot_data.game.deal_seed = 7
    app.bot_data.game.first_bidder = 0
    users = [fake_api.new_user(name, language_code="zh-hans") for name in NAMES]
    group = fake_api.new_group("斗地主群")
    await app.bot_data.store.update_group_settings(group.id, language=ZH)
    players = Players(fake_api, group, users)
    for user in users:
        fake_api.open_private_chat(user)
    await players.command(users[0], "/newgame")
    lobby = players.table_message()
    for user in users[1:]:
        await players.click(user, lobby, t("btn.join", ZH))
    await players.click(users[0], lobby, t("btn.start", ZH))

    await fake_api.wait_for(lambda: zh_hand_message(fake_api, users[0]).buttons)
    message = zh_hand_message(fake_api, users[0])
    await players.press(users[0], message, button_data(message, label=t("btn.bid_3", ZH)))
    for user in users:  # everybody on auto-play: the deal plays itself out
        await fake_api.wait_for(lambda user=user: zh_hand_message(fake_api, user).buttons)
        message = zh_hand_message(fake_api, user)
        await players.press(user, message, button_data(message, label=t("btn.autoplay", ZH)))
    result = await result_message(fake_api, group)
    if os.environ.get("SAVE_PICTURES"):
        out = Path(os.environ["SAVE_PICTURES"])
        out.mkdir(parents=True, exist_ok=True)
        (out / "zh_result.png").write_bytes(fake_api.file(result.photo))
        table_photo = next(m for m in fake_api.messages_in(group)
                           if m.photo and m.message_id != result.message_id)
        (out / "zh_table.png").write_bytes(fake_api.file(table_photo.photo))
        for i, user in enumerate(users):
            hand = zh_hand_message(fake_api, user)
            (out / f"zh_hand{i}.png").write_bytes(fake_api.file(hand.photo))

    table = app.bot_data.tables.get(f"{group.id}:0")
    final = table.state
    store = app.bot_data.store
    beans = [await store.balance(u.id) - 1000 for u in users]
    scene = scenes.result_scene(table, final.view(0), final.hands, final.result.points, beans)
    assert scene is not None
    assert fake_api.file(result.photo) == render_result(scene)
    assert scene.labels == scenes.picture_labels(ZH) and scene.labels.landlord == "地主"
    assert [s.name for s in scene.seats] == list(NAMES)
    assert [s.label for s in scene.seats] == ["王", "李", "韩"]
    assert [s.points for s in scene.seats] == list(final.result.points)
    assert [s.multiplier for s in scene.seats if s.role == "farmer"] == \
        list(final.result.multipliers)
    for seat, value in zip(scene.seats, beans, strict=True):
        assert seat.beans == value
        assert f"{value:+d}" in result.caption  # the caption's beans are the picture's
    # The caption's multiplier breakdown is the picture's, line for line (issue 10 item 6).
    breakdown = scenes.result_breakdown(scene)
    assert "\n".join(breakdown) in result.caption
    assert breakdown[0].startswith(f"底分 {final.result.base}")

    assert len(drawn) > 5
    for table_scene_drawn in drawn:
        assert table_scene_drawn.labels.lang == ZH
        assert [s.name for s in table_scene_drawn.seats] == list(NAMES)
    played = [s.last_play for d in drawn for s in d.seats if isinstance(s.last_play, str)]
    assert played and all(not word.isascii() for word in played)  # 不叫, 1分, 不出 …
