"""End to end: /top and its variants (ties: fewer deals, then earlier), and /me after deals played
with buttons (issue 5, RULES.md §7–§8)."""

from __future__ import annotations

from bot.core.i18n import t
from bot.presentation.scenes import picture_labels
from engine import Action
from images import LeaderboardRow as BoardRow
from images import LeaderboardScene, render_leaderboard
from tests.bot.economy_helpers import Clock, reply, settle
from tests.bot.flow_helpers import Players, hand_message, play_again, result_message
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

LANG = "en"


def _board(text: str) -> list[tuple[str, str, int]]:
    """(name, beans, deals) per line of a leaderboard text, title left out."""
    rows = []
    for line in text.splitlines()[1:]:
        place, rest = line.split(" ", 1)
        name, rest = rest.split(": ", 1)
        beans, deals = rest.split(" (deals: ")
        beans = beans.removesuffix(" beans").removesuffix(" bean")
        rows.append((name, beans, int(deals.rstrip(")"))))
    return rows


async def test_top_orderings_and_variants(fake_api: FakeBotApi, running_bot: BotRunner):
    store = running_bot.app.bot_data.store
    clock = store.clock = Clock()  # Wednesday 2024-05-01 20:00 in Shanghai
    group, other = fake_api.new_group("Home"), fake_api.new_group("Away")
    ann, bob, cat, dan, eve, fay = (fake_api.new_user(n)
                                    for n in ("Ann", "Bob", "Cat", "Dan", "Eve", "Fay"))
    clock.advance(days=-1)  # Tuesday, the same week
    await settle(store, group.id, [ann, bob, cat], [-2, 1, 1])
    clock.advance(days=1)
    await settle(store, group.id, [ann, bob, cat], [2, -1, -1])
    for points in ([2, -1, -1], [-2, 1, 1], [2, -1, -1]):
        clock.advance(minutes=1)
        await settle(store, group.id, [dan, bob, cat], points)
    clock.advance(minutes=1)
    await settle(store, other.id, [eve, fay, None], [2, -1, -1])  # the bot seat pays nothing
    # Bob and Cat both claim the check-in; Cat first, so Cat got to 1190 earlier.
    clock.advance(minutes=1)
    await reply(fake_api, cat, group, "/daily")
    clock.advance(minutes=1)
    await reply(fake_api, bob, group, "/daily")

    # Today: Ann and Dan +20, Ann in fewer deals; Bob and Cat -20 in 4 deals each.
    today = await reply(fake_api, ann, group, "/top")
    assert today.splitlines()[0] == t("top.title_today", LANG)
    assert today.splitlines()[1] == t("top.row", LANG, place="🥇", name="Ann", beans="+20 beans",
                                      games=1)
    assert _board(today) == [("Ann", "+20", 1), ("Dan", "+20", 3), ("Bob", "-20", 4),
                             ("Cat", "-20", 4)]
    assert await reply(fake_api, ann, group, "/top today") == today
    # This week adds Tuesday: Ann 0 in 2 deals before Bob and Cat.
    assert _board(await reply(fake_api, ann, group, "/top week")) == [
        ("Dan", "+20", 3), ("Ann", "0", 2), ("Bob", "-10", 5), ("Cat", "-10", 5)]
    assert await reply(fake_api, ann, group, "/top 本周") == await reply(
        fake_api, ann, group, "/top week")
    # Balances of this group's players: Cat reached 1190 before Bob.
    everything = await reply(fake_api, ann, group, "/top all")
    assert everything.splitlines()[0] == t("top.title_all", LANG)
    assert _board(everything) == [("Cat", "1,190", 5), ("Bob", "1,190", 5), ("Dan", "1,020", 3),
                                  ("Ann", "1,000", 2)]
    # All groups: Eve and Fay played elsewhere (Eve won only what Fay paid: bots pay nothing).
    assert _board(await reply(fake_api, ann, group, "/top global")) == [
        ("Cat", "1,190", 5), ("Bob", "1,190", 5), ("Dan", "1,020", 3), ("Eve", "1,010", 1),
        ("Ann", "1,000", 2), ("Fay", "990", 1)]
    global_today = await reply(fake_api, ann, group, "/top global today")
    assert global_today.splitlines()[0] == t("top.title_global_today", LANG)
    assert _board(global_today) == [("Ann", "+20", 1), ("Dan", "+20", 3), ("Eve", "+10", 1),
                                    ("Fay", "-10", 1), ("Bob", "-20", 4), ("Cat", "-20", 4)]
    assert await reply(fake_api, ann, ann, "/top") == global_today  # private: all groups
    assert await reply(fake_api, ann, group, "/top sideways") == t("top.usage", LANG)
    clock.advance(days=7)
    assert await reply(fake_api, ann, group, "/top week") == "\n".join([
        t("top.title_week", LANG), t("top.empty_period", LANG)])
    empty = fake_api.new_group("Empty")
    assert await reply(fake_api, ann, empty, "/top all") == "\n".join([
        t("top.title_all", LANG), t("top.empty_all", LANG)])


async def test_top_in_a_group_with_pictures_is_the_leaderboard_picture(
    fake_api: FakeBotApi, running_bot: BotRunner
):
    """Issues 4, 10: /top draws the board in the group's language with the players' names;
    text only where the group turned pictures off, and in private chats."""
    store = running_bot.app.bot_data.store
    group, plain = fake_api.new_group("Gallery"), fake_api.new_group("Plain")
    ann, zhang, cat = (fake_api.new_user(n) for n in ("Ann", "张三", "Cat"))
    await settle(store, group.id, [ann, zhang, cat], [2, -1, -1])
    await settle(store, plain.id, [ann, zhang, cat], [2, -1, -1])
    await store.update_group_settings(plain.id, pictures=False)

    start = len(fake_api.calls)
    caption = await reply(fake_api, ann, group, "/top")
    (photo,) = fake_api.calls_to("sendPhoto", since=start, chat_id=group.id)
    assert caption == photo.params["caption"]
    # A tie: the lower user id (张三) first.
    assert _board(caption) == [("Ann", "+20", 1), ("张三", "-10", 1), ("Cat", "-10", 1)]
    expected = LeaderboardScene(
        t("top.title_today", LANG),
        (BoardRow(1, "Ann", 20, 1, 1), BoardRow(2, "张三", -10, 1, 0),
         BoardRow(3, "Cat", -10, 1, 0)),
        labels=picture_labels(LANG))
    picture = fake_api.message(group, photo.result["message_id"]).photo
    assert fake_api.file(picture) == render_leaderboard(expected)
    assert fake_api.calls_to("sendMessage", since=start, chat_id=group.id) == []

    start = len(fake_api.calls)
    assert _board(await reply(fake_api, ann, plain, "/top"))[0] == ("Ann", "+20", 1)
    assert await reply(fake_api, ann, ann, "/top")
    assert fake_api.calls_to("sendPhoto", since=start) == []


async def test_me_after_deals_played_with_buttons(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = 11
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Springtime")
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    ann = users[0]
    players = Players(fake_api, group, users)
    lobby = await players.open_table(ann, users[1:])

    async def deal_won_by(seat: int):
        """The seat bids 3; everybody goes on auto-play: the seeds' rule (lead the smallest
        single, follow by passing, RULES.md §9) lets the landlord play out alone: a spring."""
        start = len(fake_api.calls)
        players.state = app.bot_data.tables.table_of(ann.id).state
        await players.act(Action("bid", seat, value=3))
        for user in users:
            await players.click(user, hand_message(fake_api, user), t("btn.autoplay", LANG))
        return await result_message(fake_api, group, 15, since=start)

    await players.click(ann, lobby, t("btn.start", LANG))
    first = await deal_won_by(0)
    await play_again(players, first)  # the next deal starts at once, no lobby
    await deal_won_by(1)

    # Each spring: the landlord +120, each farmer -60. Ann and Bob tie at 1060 after the same
    # number of deals and the same last deal: the lower user id (Ann) ranks first.
    assert [await store.balance(u.id) for u in users] == [1060, 1060, 880]
    me = (await reply(fake_api, ann, group, "/me")).splitlines()
    assert me == [
        t("stats.title", LANG, name="Ann"),
        t("stats.balance", LANG, beans="1,060", rank=t("stats.rank_group", LANG, rank=1)),
        t("stats.games", LANG, games=2, wins=1, rate="50%"),
        t("stats.landlord", LANG, wins=1, games=1, rate="100%"),
        t("stats.farmer", LANG, wins=0, games=1, rate="0%"),
        t("stats.springs_bombs", LANG, springs=1, bombs=0),
        t("stats.best", LANG, beans=120),  # base 3 × spring 2 × two farmers × 10 beans
        t("stats.streak", LANG, current=0, longest=1),
    ]
    assert await reply(fake_api, users[1], group, "/stats") == "\n".join([
        t("stats.title", LANG, name="Bob"),
        t("stats.balance", LANG, beans="1,060", rank=t("stats.rank_group", LANG, rank=2)),
        t("stats.games", LANG, games=2, wins=1, rate="50%"),
        t("stats.landlord", LANG, wins=1, games=1, rate="100%"),
        t("stats.farmer", LANG, wins=0, games=1, rate="0%"),
        t("stats.springs_bombs", LANG, springs=1, bombs=0),
        t("stats.best", LANG, beans=120),
        t("stats.streak", LANG, current=1, longest=1),
    ])


async def test_the_top_usage_names_the_match_board(fake_api: FakeBotApi, running_bot: BotRunner):
    """A word /top does not know answers with the usage, and the usage names every board a
    player can ask for: also ``/top matches`` (the group's match winners), which a player
    otherwise only finds in docs/playing.md. In a private chat, where that board does not
    exist, the usage says it is a group's."""
    group = fake_api.new_group("Curious")
    ann = fake_api.new_user("Ann")
    fake_api.open_private_chat(ann)
    in_group = await reply(fake_api, ann, group, "/top sideways")
    assert in_group == t("top.usage", LANG)
    assert "/top matches" in in_group and "in a group" in in_group
    assert await reply(fake_api, ann, ann, "/top matches") == in_group  # private: no such board
    assert (await reply(fake_api, ann, group, "/top matches")).splitlines()[0] == t(
        "top.matches_title", LANG)
    for lang in ("zh-Hans", "zh-Hant"):
        assert "/top matches" in t("top.usage", lang)
