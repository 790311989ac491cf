"""Soak (issue 14, "Done when"): the bot is killed at random moments over at least 20 deals,
including between a deal's settlement and its result, and restarted on the same SQLite file.

A kill is an in-process crash: the Application stops without flushing its outbox (what was not
sent yet is lost), and, for the settlement kills, nothing after the deal's end transaction runs
(``post_result`` does nothing, as if the process died right after the commit). Three humans play
with turn limits of 0.2 s, so every seat times out into auto-play and the deals run by
themselves. At the end: every settled deal has its result posted exactly once, every Play again
worked, each deal's ledger rows sum to zero and every balance equals its ledger."""

from __future__ import annotations

import asyncio
import random
import sqlite3

from bot.core.i18n import t
from tests.bot.flow_helpers import LANG, RESULT_MARK, Players, call_text, play_again
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

DEALS = 20
SEED = 1414


async def crash(runner: BotRunner) -> None:
    """Stop the bot the way a kill would: no flush of the outbox."""
    app = runner.app
    app.post_stop = None
    await runner.stop()


def results(api: FakeBotApi, chat_id: int) -> list:
    return [c for c in api.calls if c.ok and c.method in ("sendMessage", "sendPhoto")
            and c.params.get("chat_id") == chat_id and call_text(c).startswith(RESULT_MARK)]


async def test_random_kills_over_twenty_deals_lose_no_result_and_no_bean(
    fake_api: FakeBotApi, bot_runner: BotRunner
):
    rng = random.Random(SEED)
    runner = bot_runner
    runner.allow_errors = True  # a kill may cut a handler short
    app = await runner.start(bid_timeout=0.2, play_timeout=0.2)
    group = fake_api.new_group("Soak")
    users = [fake_api.new_user(name) for name in ("Uma", "Vic", "Wes")]
    await app.bot_data.store.update_group_settings(group.id, pictures=False, autoplay="ai")
    players = Players(fake_api, group, users)
    lobby = await players.open_table(users[0], users[1:])
    started = (await players.click(users[0], lobby, t("btn.start", LANG))).params.get("text")
    key = f"{group.id}:0"
    kills = {"random": 0, "settlement": 0}
    mid_deal = 0  # random kills that found the deal still running
    for deal in range(DEALS):
        mode = rng.choice(("none", "random", "settlement"))
        posted = len(results(fake_api, group.id))
        if mode == "settlement":
            runner.app.bot_data.game.deals.results.post_result = lambda *a, **k: None
            await fake_api.wait_for(
                lambda: getattr(runner.app.bot_data.tables.get(key), "phase", "") == "result",
                30)
            await crash(runner)
            kills["settlement"] += 1
            await runner.start()
        elif mode == "random":
            await asyncio.sleep(rng.uniform(0.0, 1.5))
            mid_deal += runner.app.bot_data.tables.get(key).phase == "deal"
            await crash(runner)
            kills["random"] += 1
            await runner.start()
        await fake_api.wait_for(
            lambda posted=posted: len(results(fake_api, group.id)) > posted or None, 30)
        await runner.app.bot_data.outlet.caught_up()
        result = fake_api.message(group, results(fake_api, group.id)[-1].result["message_id"])
        order = users[deal % 3:] + users[:deal % 3]
        answers = await play_again(players, result, order)  # the next deal, no lobby
        assert answers[-1].params.get("text") == started, (deal, answers)
    assert kills["random"] + kills["settlement"] >= DEALS // 2 and kills["settlement"] >= 3
    assert mid_deal >= 3, kills
    await crash(runner)

    db = sqlite3.connect(runner.settings.database_path)
    settled = [row[0] for row in db.execute("SELECT id FROM deals WHERE status = 'settled'")]
    assert len(settled) >= DEALS
    assert len(results(fake_api, group.id)) == len(settled)  # once each (one per Play again)
    sums = dict(db.execute("SELECT deal_id, SUM(amount) FROM ledger WHERE reason = 'deal'"
                           " GROUP BY deal_id"))
    assert set(sums) <= set(settled) and set(sums.values()) <= {0}
    assert len(sums) > DEALS // 2  # most deals moved beans
    for user_id, balance in db.execute("SELECT user_id, balance FROM players"):
        (ledger,) = db.execute("SELECT SUM(amount) FROM ledger WHERE user_id = ?",
                               (user_id,)).fetchone()
        assert balance == ledger, user_id
    assert db.execute("SELECT COUNT(*) FROM deal_holds").fetchone()[0] <= 3
    db.close()
