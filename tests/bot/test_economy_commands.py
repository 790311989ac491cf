"""End to end: /daily, /relief, /give, /balance and /audit (issue 5, RULES.md §8) through the fake
Bot API, the real Application and a real SQLite file; the store's clock is set by the test."""

from __future__ import annotations

import asyncio
from dataclasses import replace

from bot.core.i18n import t
from bot.store import LedgerReason
from tests.bot.economy_helpers import Clock, reply, settle, username_stored
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


def _beans(n: int) -> str:
    return t("unit.beans", LANG, n=n, signed=str(n))


async def _rows(store, user_id: int, reason: LedgerReason) -> list[int]:
    return [e.amount for e in await store.ledger(user_id, 100) if e.reason == reason]


async def test_daily_once_a_day_with_a_streak(fake_api: FakeBotApi, running_bot: BotRunner):
    store = running_bot.app.bot_data.store
    clock = store.clock = Clock()  # 2024-05-01 20:00 in Shanghai
    group = fake_api.new_group("Early birds")
    ann = fake_api.new_user("Ann")
    assert await reply(fake_api, ann, group, "/daily") == t(
        "eco.daily_ok", LANG, name="Ann", beans=200, streak=1, balance="1,200")
    assert await reply(fake_api, ann, group, "/daily") == t(
        "eco.daily_already", LANG, day="2024-05-02")
    assert await store.balance(ann.id) == 1200
    clock.advance(hours=4)  # 00:00 on 2024-05-02 in Shanghai: a new day, the streak goes on
    assert await reply(fake_api, ann, ann, "/daily") == t(
        "eco.daily_ok", LANG, name="Ann", beans=220, streak=2, balance="1,420")
    # A group whose day has not ended yet (London: still 2024-05-01) gives no second claim.
    london = fake_api.new_group("London")
    await store.update_group_settings(london.id, timezone="Europe/London")
    assert await reply(fake_api, ann, london, "/daily") == t(
        "eco.daily_already", LANG, day="2024-05-03")
    assert await _rows(store, ann.id, LedgerReason.DAILY) == [220, 200]
    assert await reply(fake_api, ann, group, "/balance") == t(
        "eco.balance", LANG, name="Ann", beans="1,420")


async def test_concurrent_daily_presses_grant_once(fake_api: FakeBotApi, running_bot: BotRunner):
    store = running_bot.app.bot_data.store
    store.clock = Clock()
    group = fake_api.new_group("Eager")
    bob = fake_api.new_user("Bob")
    start = fake_api.mark()
    for _ in range(5):
        fake_api.send_text(bob, group, "/daily")
    await fake_api.wait_for(
        lambda: len(fake_api.calls_to("sendMessage", since=start, chat_id=group)) == 5)
    texts = [c.params["text"] for c in fake_api.calls_to("sendMessage", since=start,
                                                          chat_id=group)]
    granted = t("eco.daily_ok", LANG, name="Bob", beans=200, streak=1, balance="1,200")
    assert texts.count(granted) == 1
    assert texts.count(t("eco.daily_already", LANG, day="2024-05-02")) == 4
    assert await store.balance(bob.id) == 1200
    assert await _rows(store, bob.id, LedgerReason.DAILY) == [200]
    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants


async def test_relief_below_100_once_a_day(fake_api: FakeBotApi, running_bot: BotRunner):
    store = running_bot.app.bot_data.store
    clock = store.clock = Clock()
    group = fake_api.new_group("Broke")
    ann, bob, cat = (fake_api.new_user(n) for n in ("Ann", "Bob", "Cat"))
    assert await reply(fake_api, ann, group, "/relief") == t(
        "eco.relief_not_eligible", LANG, below=100, balance="1,000")
    await settle(store, group.id, [ann, bob, cat], [-96, 48, 48])  # Ann pays 960 of 1000
    assert await reply(fake_api, ann, group, "/balance") == "\n".join([
        t("eco.balance", LANG, name="Ann", beans=40), t("eco.balance_low", LANG, below=100)])
    assert await reply(fake_api, ann, group, "/relief") == t(
        "eco.relief_ok", LANG, name="Ann", beans=460, balance=500)
    await settle(store, group.id, [ann, bob, cat], [-100, 50, 50])  # Ann loses all 500
    assert await store.balance(ann.id) == 0
    assert await reply(fake_api, ann, group, "/relief") == t("eco.relief_already", LANG)
    clock.advance(days=1)
    assert await reply(fake_api, ann, ann, "/relief") == t(
        "eco.relief_ok", LANG, name="Ann", beans=500, balance=500)
    assert await _rows(store, ann.id, LedgerReason.RELIEF) == [500, 460]


async def test_give_is_off_by_default_then_limited_per_day(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    store = running_bot.app.bot_data.store
    store.clock = Clock()
    group = fake_api.new_group("Generous")
    ann = fake_api.new_user("Ann", username="ann_w")
    bob = fake_api.new_user("Bob", username="bobby")
    fake_api.make_admin(group, ann)
    bob_says_hi = fake_api.send_text(bob, group, "hi")  # the bot learns @bobby
    await username_stored(store, "bobby", bob)
    assert await reply(fake_api, ann, group, "/give @bobby 100") == t("give.disabled", LANG)
    assert await reply(fake_api, ann, group, "/settings give_enabled on") == t(  # QA5: at once
        "set.saved_now", LANG, name=t("set.name.give_enabled", LANG), value=t("set.on", LANG))

    assert await reply(fake_api, ann, group, "/give @bobby 300") == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans=_beans(300), giver_balance=700,
        receiver_balance="1,300", remaining=700)
    assert await reply(fake_api, ann, group, "/give 50", reply_to=bob_says_hi) == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans=_beans(50), giver_balance=650,
        receiver_balance="1,350", remaining=650)
    assert await reply(fake_api, ann, group, f"/give {bob.id} 10") == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans=_beans(10), giver_balance=640,
        receiver_balance="1,360", remaining=640)
    assert await reply(fake_api, ann, group, "/give @bobby 641") == t(
        "give.insufficient", LANG, beans=_beans(640), amount=641)  # the balance, first
    assert await reply(fake_api, ann, group, "/give @bobby lots") == t(
        "give.not_number", LANG, word="lots")
    assert await reply(fake_api, ann, group, "/give @nobody 5") == t("give.unknown_target", LANG)
    assert await reply(fake_api, ann, group, "/give @ann_w 5") == t("give.same_player", LANG)
    assert await reply(fake_api, ann, group, "/give 5") == t("give.unknown_target", LANG)
    assert await reply(fake_api, ann, ann, "/give @bobby 5") == t("reply.group_only", LANG)
    assert [await store.balance(u.id) for u in (ann, bob)] == [640, 1360]
    assert await _rows(store, ann.id, LedgerReason.GIVE) == [-10, -50, -300]
    assert await _rows(store, bob.id, LedgerReason.GIVE) == [10, 50, 300]


async def test_give_and_audit_find_a_username_after_a_restart(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA5 defect 7: @username came from this process's memory, so after a restart (and on
    the workers that did not see the user write) /give @user and /audit @user said "unknown"
    until the user wrote again. The store keeps it: any case, the latest owner of a username
    that moved, a changed or removed username forgotten."""
    group = fake_api.new_group("Remembering")
    ann = fake_api.new_user("Ann", username="ann_w")
    bob = fake_api.new_user("Bob", username="bobby")
    fake_api.make_admin(group, ann)
    fake_api.send_text(bob, group, "hi")
    await username_stored(running_bot.app.bot_data.store, "bobby", bob)
    await running_bot.app.bot_data.store.update_group_settings(group.id, give_enabled=True)

    app = await running_bot.restart()  # nobody has written to this process
    store = app.bot_data.store
    assert len(app.bot_data.usernames) == 0
    assert await reply(fake_api, ann, group, "/give @BobBy 100") == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans=_beans(100), giver_balance=900,
        receiver_balance="1,100", remaining=900)
    fake_api.open_private_chat(ann)
    assert await reply(fake_api, ann, group, "/audit @bobby") == t("audit.sent", LANG,
                                                                   name="Ann")
    assert fake_api.last_message(ann).text.splitlines()[0] == t(
        "audit.title", LANG, name="Bob", user_id=bob.id, n=2)

    bob = replace(bob, username="bob_new")  # Bob renames himself; Cat takes the old name
    cat = fake_api.new_user("Cat", username="bobby")
    fake_api.send_text(bob, group, "new name")
    fake_api.send_text(cat, group, "hello")
    await username_stored(store, "bob_new", bob)
    await username_stored(store, "bobby", cat)
    assert await reply(fake_api, ann, group, "/give @bobby 10") == t(  # a first-time player
        "give.ok", LANG, giver="Ann", receiver="Cat", beans=_beans(10), giver_balance=890,
        receiver_balance="1,010", remaining=890)
    assert await reply(fake_api, ann, group, "/give @bob_new 10") == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans=_beans(10), giver_balance=880,
        receiver_balance="1,110", remaining=880)

    bob = replace(bob, username=None)  # Bob drops his username
    fake_api.send_text(bob, group, "anonymous now")
    for _ in range(250):
        if await store.username_owner("bob_new") is None:
            break
        await asyncio.sleep(0.02)
    assert await reply(fake_api, ann, group, "/give @bob_new 10") == t("give.unknown_target",
                                                                       LANG)
    assert await store.username_owner("bob_new") is None
    assert await reply(fake_api, ann, group, f"/give {bob.id} 10") == t(  # the id still works
        "give.ok", LANG, giver="Ann", receiver="Bob", beans=_beans(10), giver_balance=870,
        receiver_balance="1,120", remaining=870)
    assert [await store.balance(u.id) for u in (ann, bob, cat)] == [870, 1120, 1010]


async def test_give_says_what_is_wrong_first_thing_first(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """QA of issue 10: /give being off comes before the command's shape; a bad amount says
    what is wrong with it; English says "1 bean"; too little says the balance."""
    store = running_bot.app.bot_data.store
    store.clock = Clock()
    group = fake_api.new_group("Particular")
    ann, bob, cat = (fake_api.new_user(n, username=n.lower()) for n in ("Ann", "Bob", "Cat"))
    for user in (bob, cat):
        fake_api.send_text(user, group, "hi")
    await username_stored(store, "bob", bob)
    await username_stored(store, "cat", cat)
    for command in ("/give", "/give @bob lots", "/give @nobody 0", "/give @bob 5"):
        assert await reply(fake_api, ann, group, command) == t("give.disabled", LANG), command
    await store.update_group_settings(group.id, give_enabled=True)
    assert await reply(fake_api, ann, group, "/give") == t("give.usage", LANG)
    for command in ("/give @bob 5 6", "/give 5 6 7", "/give @bob 5 beans"):  # nothing given
        assert await reply(fake_api, ann, group, command) == t("give.usage", LANG), command
    for word in ("lots", "1.5", "²", "5k"):
        assert await reply(fake_api, ann, group, f"/give @bob {word}") == t(
            "give.not_number", LANG, word=word)
    for word in ("0", "-5", "000"):
        assert await reply(fake_api, ann, group, f"/give @nobody {word}") == t(
            "give.invalid_amount", LANG), word
    assert await reply(fake_api, ann, group, "/give @nobody 5") == t("give.unknown_target", LANG)
    assert await reply(fake_api, ann, group, "/give @bob 1") == t(
        "give.ok", LANG, giver="Ann", receiver="Bob", beans="1 bean", giver_balance=999,
        receiver_balance="1,001", remaining=999)
    await settle(store, group.id, [cat, ann, bob], [-90, 45, 45])  # Cat keeps 100 beans
    assert await reply(fake_api, cat, group, "/give @bob 200") == t(
        "give.insufficient", LANG, beans="100 beans", amount=200)
    # a new user's report: more than the balance said "1000 more today", not the balance
    assert await reply(fake_api, cat, group, "/give @bob 1001") == t(
        "give.insufficient", LANG, beans="100 beans", amount="1,001")
    assert await reply(fake_api, ann, group, "/give @bob 1000") == t(
        "give.limit", LANG, n=999, remaining=999)
    assert [await store.balance(u.id) for u in (ann, bob, cat)] == [1449, 1451, 100]


async def test_audit_is_for_admins_and_arrives_privately(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    store = running_bot.app.bot_data.store
    store.clock = Clock()
    group = fake_api.new_group("Audited")
    ann = fake_api.new_user("Ann")
    bob = fake_api.new_user("Bob", username="bobby")
    cat = fake_api.new_user("Cat")
    fake_api.make_admin(group, ann)
    bob_says_hi = fake_api.send_text(bob, group, "hi")
    await username_stored(store, "bobby", bob)
    await store.update_group_settings(group.id, give_enabled=True)
    await store.ensure_player(ann.id, "Ann")
    await store.ensure_player(bob.id, "Bob")
    for amount in range(1, 25):
        await store.give(ann.id, bob.id, amount, group.id)

    assert await reply(fake_api, bob, group, "/audit", reply_to=bob_says_hi) == t(
        "reply.admin_only", LANG)
    assert await reply(fake_api, ann, group, "/audit @bobby") == t("audit.open_private", LANG)
    fake_api.open_private_chat(ann)
    assert await reply(fake_api, ann, group, "/audit", reply_to=bob_says_hi) == t(
        "audit.sent", LANG, name="Ann")
    lines = fake_api.last_message(ann).text.splitlines()
    assert lines[0] == t("audit.title", LANG, name="Bob", user_id=bob.id, n=20)
    # Newest first, times in Shanghai: the 24th gift was the last change.
    assert lines[1] == t("audit.row", LANG, time="2024-05-01 20:00", amount="+24",
                         reason=t("audit.reason_give", LANG), balance="1,300")
    assert lines[20] == t("audit.row", LANG, time="2024-05-01 20:00", amount="+5",
                          reason=t("audit.reason_give", LANG), balance="1,015")
    assert len(lines) == 21
    assert await reply(fake_api, ann, group, f"/audit {bob.id}") == t("audit.sent", LANG,
                                                                      name="Ann")
    assert fake_api.last_message(ann).text.splitlines() == lines

    await store.ensure_player(cat.id, "Cat")
    fake_api.set_member_status(group, cat, "left")
    assert await reply(fake_api, ann, group, f"/audit {cat.id}") == t("audit.not_member", LANG)
    assert await reply(fake_api, ann, group, "/audit") == t("audit.usage", LANG)
    assert await reply(fake_api, ann, group, "/audit @stranger") == t("audit.usage", LANG)


async def test_balance_and_me_in_private(fake_api: FakeBotApi, running_bot: BotRunner):
    dee = fake_api.new_user("Dee", language_code="zh-hant")
    assert await reply(fake_api, dee, dee, "/balance") == t("eco.balance", "zh-Hant", name="Dee",
                                                           beans="1,000")
    me = (await reply(fake_api, dee, dee, "/me")).splitlines()
    assert me[0] == t("stats.title", "zh-Hant", name="Dee")
    assert me[1] == t("stats.balance", "zh-Hant", beans="1,000",
                      rank=t("stats.rank_global", "zh-Hant", rank=1))
    assert me[2] == t("stats.games", "zh-Hant", games=0, wins=0, rate="—")


async def test_a_command_is_answered_while_its_senders_username_write_is_held_up(
    fake_api: FakeBotApi, running_bot: BotRunner, monkeypatch
):
    """With several workers another worker's transaction on a user's username (its advisory
    lock held) can be frozen half-way: that user's /leave waited for it and was never
    answered. A command waits at most USERNAME_WAIT for its sender's username to be stored;
    the write goes on in the background."""
    store = running_bot.app.bot_data.store
    held = asyncio.Event()
    remember = store.remember_username

    async def frozen(user_id: int, username: str | None, name: str) -> None:
        await held.wait()
        await remember(user_id, username, name)

    monkeypatch.setattr(store, "remember_username", frozen)
    group = fake_api.new_group("Held")
    ann = fake_api.new_user("Ann", username="ann_h")
    try:
        assert await reply(fake_api, ann, group, "/balance") == t(
            "eco.balance", LANG, name="Ann", beans="1,000")
        assert await store.username_owner("ann_h") is None  # still on its way
    finally:
        held.set()  # the bot stops only once its tasks are done
    await username_stored(store, "ann_h", ann)
