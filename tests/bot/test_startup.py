"""Start-up of the real Application against the fake Bot API server (issue 3: settings and
start-up; command menu; rate limits; restarts)."""

from __future__ import annotations

from bot.app import COMMANDS
from bot.i18n import t
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi


async def test_start_registers_command_menus_in_chinese_and_english(
    fake_api: FakeBotApi, running_bot: BotRunner
) -> None:
    calls = fake_api.calls_to("setMyCommands")
    assert [call.params.get("language_code") for call in calls] == ["zh", None]
    zh_menu, en_menu = (call.params["commands"] for call in calls)
    assert [command["command"] for command in en_menu] == list(COMMANDS)
    assert zh_menu[0] == {"command": "newgame", "description": t("cmd.newgame", "zh-Hans")}
    assert en_menu[0] == {"command": "newgame", "description": "Open a Dou Dizhu table"}
    assert all(call.ok for call in calls)


async def test_start_opens_the_store_and_keeps_settings(running_bot: BotRunner) -> None:
    bot_data = running_bot.app.bot_data
    assert bot_data["settings"] is running_bot.settings
    player = await bot_data["store"].ensure_player(42, "Alice")
    assert await bot_data["store"].balance(player.user_id) == 1000
    assert running_bot.settings.database_path.exists()
    assert running_bot.app.job_queue is not None
