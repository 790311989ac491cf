"""Long polling loses no update to a kill, and handles none twice (:mod:`bot.telegram.inbox`).

PTB's Updater confirms an update (asks for the next offset) before its handlers ran; a bot
killed in between lost it: 1 of 45 ``/give`` vanished over 10 kills. Now every fetched update is
stored before it can be confirmed, marked done once handled, and the ones not done are handled
at the next start; one Telegram sends again is not handled again."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import sys
from pathlib import Path

from bot.core.i18n import t
from bot.store import open_store
from tests.bot.economy_helpers import reply
from tests.bot.test_startup import run_bot_process
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

ROOT = Path(__file__).resolve().parents[2]
LANG = "en"


def _gives(db_path: Path) -> list[tuple[int, int]]:
    db = sqlite3.connect(db_path)
    try:
        return sorted(db.execute("SELECT user_id, amount FROM ledger WHERE reason = 'give'"))
    finally:
        db.close()


def _give_replies(fake_api: FakeBotApi, chat_id: int) -> list[object]:
    return [c for c in fake_api.calls_to("sendMessage")
            if c.ok and c.params.get("chat_id") == chat_id
            and str(c.params.get("text", "")).startswith("🎁")]


async def test_a_give_fetched_right_before_a_kill_is_handled_once_after_the_restart(
    fake_api: FakeBotApi, tmp_path: Path
):
    db_path = tmp_path / "ddz.sqlite3"
    group = fake_api.new_group("Inbox")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    store = await open_store(str(db_path))
    await store.update_group_settings(group.id, give_enabled=True)
    await store.close()
    env = {
        "BOT_TOKEN": fake_api.token,
        "BOT_API_BASE_URL": fake_api.base_url,
        "DATABASE_PATH": str(db_path),
        "DEFAULT_LANGUAGE": LANG,
        "LOG_LEVEL": "INFO",
        "PTB_TIMEDELTA": "true",
        "PYTHONPATH": str(ROOT),
        **{key: os.environ[key] for key in ("PATH", "HOME", "TMPDIR") if key in os.environ},
    }
    held = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "tests.bot.held_bot", cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE)
    try:
        await fake_api.wait_for("deleteWebhook", timeout=60, since=0)  # polling starts
        hello = fake_api.send_text(bob, group, "hello")
        fake_api.send_text(ann, group, "/give 100", reply_to=hello)
        give = max(fake_api.sent_updates)
        # the Updater asked for the updates after it: Telegram will not send it again
        await fake_api.wait_for(
            lambda: any(int(c.params.get("offset") or 0) > give
                        for c in fake_api.calls_to("getUpdates")) or None, 30)
        assert fake_api.pending_updates == 0
        await asyncio.sleep(0.3)
    finally:
        held.send_signal(signal.SIGKILL)
        await held.communicate()
    assert _gives(db_path) == []  # the kill came before its handlers

    process = await run_bot_process(env, tmp_path)
    try:
        await fake_api.wait_for(lambda: _give_replies(fake_api, group.id) or None, 60)
        assert await reply(fake_api, ann, group, "/balance") != ""  # later updates go on
    finally:
        process.send_signal(signal.SIGTERM)
        _, stderr = await asyncio.wait_for(process.communicate(), 30)
    assert process.returncode == 0, stderr.decode()
    assert len(_give_replies(fake_api, group.id)) == 1
    assert _gives(db_path) == sorted([(ann.id, -100), (bob.id, 100)])


async def test_an_update_telegram_sends_again_is_not_handled_again(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """The update was handled, but its offset was not confirmed before the bot stopped (a
    kill before the next getUpdates): Telegram sends it again after the restart. Its beans
    move once."""
    store = running_bot.app.bot_data.store
    group = fake_api.new_group("Twice")
    ann, bob = fake_api.new_user("Ann"), fake_api.new_user("Bob")
    await store.update_group_settings(group.id, give_enabled=True)
    hello = fake_api.send_text(bob, group, "hello")
    assert await reply(fake_api, ann, group, "/give 100", reply_to=hello) == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans=t("unit.beans", LANG, n=100,
                                                             signed="100"),
        giver_balance=900, receiver_balance="1,100", remaining=900)
    give = max(fake_api.sent_updates)
    app = await running_bot.restart()
    since = len(fake_api.calls)
    fake_api.send_again(give)
    await fake_api.wait_for(lambda: any(
        give in [u["update_id"] for u in (c.response or {}).get("result") or []]
        for c in fake_api.calls_to("getUpdates", since=since)) or None, 10)
    await reply(fake_api, ann, group, "/balance")  # taken after the one sent again
    await asyncio.sleep(1.0)  # the time to handle it, were it handled
    assert len(_give_replies(fake_api, group.id)) == 1
    entries = [e.amount for e in await app.bot_data.store.ledger(ann.id, 100)
               if e.reason == "give"]
    assert entries == [-100]
