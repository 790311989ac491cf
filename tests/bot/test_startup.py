"""Start-up of the real Application against the fake Bot API server (issue 3: settings and
start-up; command menu; rate limits; restarts)."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from telegram import Update
from telegram.error import RetryAfter
from telegram.ext import TypeHandler

import bot.__main__ as bot_main
from bot.__main__ import LIBRARY_LOG_FLOORS, configure_logging
from bot.core.i18n import t
from bot.core.settings import Settings
from bot.presentation.menus import COMMANDS, MENU_LANGUAGES
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

#: setMyCommands calls at start-up: the default, private and group menus, each language.
MENU_CALLS = 3 * len(MENU_LANGUAGES)


async def test_start_registers_command_menus_in_chinese_and_english(
    fake_api: FakeBotApi, running_bot: BotRunner
) -> None:
    calls = fake_api.calls_to("setMyCommands")[:2]  # the default scope's
    assert [call.params.get("language_code") for call in calls] == ["zh", None]
    zh_menu, en_menu = (call.params["commands"] for call in calls)
    assert [command["command"] for command in en_menu] == list(COMMANDS)
    assert zh_menu[0] == {"command": "newgame", "description": t("cmd.newgame", "zh-Hans")}
    assert en_menu[0] == {"command": "newgame", "description": "Open a Dou Dizhu table"}
    assert all(call.ok for call in calls)


async def test_start_opens_the_store_and_keeps_settings(running_bot: BotRunner) -> None:
    bot_data = running_bot.app.bot_data
    assert bot_data.settings is running_bot.settings
    player = await bot_data.store.ensure_player(42, "Alice")
    assert await bot_data.store.balance(player.user_id) == 1000
    assert running_bot.settings.database_path.exists()
    assert running_bot.app.job_queue is not None


def test_python_m_bot_without_token_prints_one_line_and_exits_2(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=tmp_path,
        env={},
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stdout == ""
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("ddz-bot: BOT_TOKEN is not set")
    assert "Traceback" not in result.stderr


async def test_rate_limiter_waits_retry_after_and_retries(
    fake_api: FakeBotApi, running_bot: BotRunner
) -> None:
    group = fake_api.new_group()
    fake_api.fail_next("sendMessage", 429, retry_after=1)
    message = await running_bot.app.bot.send_message(group.id, "table")
    failed, retried = fake_api.calls_to("sendMessage")
    assert (failed.status, retried.status) == (429, 200)
    assert retried.time - failed.time >= 1.0
    assert message.message_id == fake_api.last_message(group).message_id


async def test_rate_limiter_gives_up_after_three_retries(
    fake_api: FakeBotApi, running_bot: BotRunner
) -> None:
    group = fake_api.new_group()
    fake_api.fail_next("sendMessage", 429, retry_after=1, times=4)
    with pytest.raises(RetryAfter):
        await running_bot.app.bot.send_message(group.id, "table")
    assert [call.status for call in fake_api.calls_to("sendMessage")] == [429] * 4
    assert fake_api.messages_in(group) == []


async def test_restart_keeps_the_database_and_delivers_each_update_once(
    fake_api: FakeBotApi, bot_runner: BotRunner
) -> None:
    seen: list[str] = []

    async def record(update: Update, context: object) -> None:
        seen.append(update.effective_message.text)

    bot_runner.on_build.append(
        lambda application: application.add_handler(TypeHandler(Update, record), group=-100)
    )
    alice, group = fake_api.new_user("Alice"), fake_api.new_group()
    first = await bot_runner.start()
    await first.bot_data.store.ensure_player(alice.id, "Alice")
    fake_api.send_text(alice, group, "ping 1")
    await fake_api.wait_for(lambda: seen == ["ping 1"])

    await bot_runner.stop()
    fake_api.send_text(alice, group, "ping 2")  # arrives while the bot is down
    await bot_runner.start()
    await fake_api.wait_for(lambda: seen == ["ping 1", "ping 2"])

    second = await bot_runner.restart()
    assert second is not first and second.running
    assert await second.bot_data.store.balance(alice.id) == 1000
    fake_api.send_text(alice, group, "ping 3")
    await fake_api.wait_for(lambda: seen == ["ping 1", "ping 2", "ping 3"])
    assert fake_api.pending_updates <= 1
    assert len(fake_api.calls_to("setMyCommands")) == 3 * MENU_CALLS


async def test_private_start_is_answered_in_the_users_language(
    fake_api: FakeBotApi, running_bot: BotRunner
) -> None:
    li, chen = (
        fake_api.new_user("Li", language_code="zh-hans"),
        fake_api.new_user("Chen", language_code="zh-tw"),
    )
    fake_api.send_text(li, li, "/start")
    reply = await fake_api.wait_for("sendMessage", chat_id=li)
    assert reply.params["text"] == t("reply.start", "zh-Hans", name="Li")
    assert reply.params["text"].startswith("你好，Li")
    fake_api.send_text(chen, chen, "/start")
    reply = await fake_api.wait_for("sendMessage", chat_id=chen)
    assert reply.params["text"] == t("reply.start", "zh-Hant", name="Chen")
    assert await running_bot.app.bot_data.store.balance(li.id) == 1000


@pytest.fixture
def restore_logging() -> Iterator[None]:
    names = ["", *LIBRARY_LOG_FLOORS]
    levels = {name: logging.getLogger(name).level for name in names}
    yield
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


@pytest.mark.usefixtures("restore_logging")
async def test_debug_logging_shows_no_message_text_and_no_token(
    fake_api: FakeBotApi, bot_runner: BotRunner, caplog: pytest.LogCaptureFixture
) -> None:
    configure_logging("DEBUG")
    assert logging.getLogger("httpx").level == logging.WARNING
    assert logging.getLogger("telegram").level == logging.INFO
    caplog.set_level(logging.DEBUG)
    await bot_runner.start()
    alice = fake_api.new_user("Alice")
    fake_api.send_text(alice, alice, "/start 3-3-4-4-secret-hand")
    await fake_api.wait_for("sendMessage", chat_id=alice)
    await bot_runner.stop()
    assert any(record.name.startswith("telegram") for record in caplog.records)
    assert "secret-hand" not in caplog.text
    assert fake_api.token not in caplog.text
    assert "Alice" not in caplog.text


@pytest.mark.usefixtures("restore_logging")
@pytest.mark.parametrize("webhook", [False, True])
def test_main_runs_polling_or_webhook(
    webhook: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    env = {"BOT_TOKEN": "1:AAH-fake-token-for-the-tests-only_01", "LOG_LEVEL": "WARNING"}
    if webhook:
        env |= {"WEBHOOK_URL": "https://ddz.example.org/tg/hook", "WEBHOOK_SECRET": "abc"}
        env |= {"WEBHOOK_PORT": "8088"}
    monkeypatch.setattr(os, "environ", env)
    monkeypatch.chdir(tmp_path)
    runs: list[tuple[str, dict[str, object]]] = []

    class FakeApplication:
        def run_polling(self, **kwargs: object) -> None:
            runs.append(("polling", kwargs))

        def run_webhook(self, **kwargs: object) -> None:
            runs.append(("webhook", kwargs))

    built: list[Settings] = []
    monkeypatch.setattr(
        bot_main, "build_application", lambda settings: built.append(settings) or FakeApplication()
    )
    bot_main.main()
    assert built[0].bot_token == env["BOT_TOKEN"]
    if webhook:
        assert runs == [
            (
                "webhook",
                {
                    "listen": "0.0.0.0",
                    "port": 8088,
                    "url_path": "tg/hook",
                    "webhook_url": "https://ddz.example.org/tg/hook",
                    "secret_token": "abc",
                },
            )
        ]
    else:
        assert runs == [("polling", {})]


async def run_bot_process(env: dict[str, str], cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )


async def test_python_m_bot_serves_until_sigterm(fake_api: FakeBotApi, tmp_path: Path) -> None:
    env = {
        "BOT_TOKEN": fake_api.token,
        "BOT_API_BASE_URL": fake_api.base_url,
        "DATABASE_PATH": str(tmp_path / "db" / "ddz.sqlite3"),
        "DEFAULT_LANGUAGE": "en",
        "LOG_LEVEL": "INFO",
    }
    process = await run_bot_process(env, tmp_path)
    try:
        await fake_api.wait_for("deleteWebhook", timeout=30, since=0)  # polling starts
        alice = fake_api.new_user("Alice")
        fake_api.send_text(alice, alice, "/start")
        reply = await fake_api.wait_for("sendMessage", timeout=10, chat_id=alice)
        assert reply.params["text"] == t("reply.start", "en", name="Alice")
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, stderr.decode()
    assert "Traceback" not in stderr.decode()
    assert len(fake_api.calls_to("setMyCommands")) == MENU_CALLS
    assert (tmp_path / "db" / "ddz.sqlite3").exists()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.mark.parametrize("log_level", ["INFO", "CRITICAL"])
@pytest.mark.parametrize(
    ("case", "status", "message"),
    [
        ("wrong token", 2, "ddz-bot: Telegram rejected BOT_TOKEN"),
        ("no server", 1, "ddz-bot: cannot reach the Bot API at http://127.0.0.1:"),
    ],
)
async def test_python_m_bot_start_up_failures_are_one_line(
    case: str, status: int, message: str, log_level: str, fake_api: FakeBotApi, tmp_path: Path
) -> None:
    if case == "wrong token":
        env = {"BOT_TOKEN": "42:" + "x" * 35, "BOT_API_BASE_URL": fake_api.base_url}
    else:
        env = {
            "BOT_TOKEN": fake_api.token,
            "BOT_API_BASE_URL": f"http://127.0.0.1:{closed_port()}/bot",
        }
    process = await run_bot_process({**env, "LOG_LEVEL": log_level}, tmp_path)
    stdout, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == status
    last_line = stderr.decode().splitlines()[-1]
    assert last_line.startswith(message)
    assert "Traceback" not in stderr.decode()
    if log_level == "CRITICAL":
        assert stderr.decode().count("\n") == 1
    assert fake_api.token not in stderr.decode() and "x" * 35 not in stderr.decode()
