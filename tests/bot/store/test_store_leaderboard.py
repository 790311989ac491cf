"""Leaderboards, /me statistics and the end-of-day post marker (issue 5)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bot.store import SeatFacts, open_store

GROUP = -1001  # Asia/Shanghai (the default)
OTHER = -1002
NEW_YORK = -1003

LANDLORD_WINS = [
    SeatFacts("landlord", True),
    SeatFacts("farmer", False),
    SeatFacts("farmer", False),
]
FARMERS_WIN = [SeatFacts("landlord", False), SeatFacts("farmer", True), SeatFacts("farmer", True)]


@pytest.fixture
async def players(store):
    for uid in range(1, 7):
        await store.ensure_player(uid, f"p{uid}")


@pytest.fixture
def play(store, make_deal, clock):
    """``await play(user_ids, points, facts=None, chat_id=GROUP)``: a settled deal, one minute
    after the previous one."""

    async def settle(user_ids, points, facts=None, chat_id=GROUP, stake=10):
        clock.advance(minutes=1)
        deal_id = await make_deal(user_ids, chat_id=chat_id, stake=stake)
        return await store.settle_deal(deal_id, points, "{}", facts)

    return settle


def board(rows):
    return [(row.rank, row.user_id, row.value, row.games) for row in rows]


async def test_today_is_net_beans_in_this_group_ordered_by_value(store, players, play):
    await play([1, 2, 3], [4, -2, -2])  # 1: +40, 2: -20, 3: -20
    await play([1, 2, 4], [-2, 1, 1])  # 1: -20, 2: +10, 4: +10
    await play([5, 6, 1], [2, -1, -1], chat_id=OTHER)  # another group
    assert board(await store.leaderboard(GROUP, "today")) == [
        (1, 1, 20, 2),
        (2, 4, 10, 1),
        (3, 2, -10, 2),
        (4, 3, -20, 1),
    ]
    rows = await store.leaderboard(GROUP, "today", limit=2)
    assert [(r.user_id, r.name) for r in rows] == [(1, "p1"), (4, "p4")]
    assert board(await store.leaderboard(None, "today", limit=3)) == [
        (1, 5, 20, 1),
        (2, 4, 10, 1),
        (3, 1, 10, 3),
    ]


async def test_ties_go_to_fewer_games_then_to_whoever_got_there_earlier(store, players, play):
    await play([4, 5, 6], [2, -1, -1])  # 4: +20 in one game
    await play([1, 2, 3], [2, -1, -1])  # 1: +20 in one game, later than 4
    await play([6, 2, 3], [3, -2, -1])  # 6: -10 + 30 = +20 in two games
    assert board(await store.leaderboard(GROUP, "today")) == [
        (1, 4, 20, 1),
        (2, 1, 20, 1),
        (3, 6, 20, 2),
        (4, 5, -10, 1),
        (5, 3, -20, 2),
        (6, 2, -30, 2),
    ]


async def test_today_week_and_yesterday_follow_the_groups_day(store, clock, players, play):
    clock.now = datetime(2024, 4, 29, 1, 0, tzinfo=UTC)  # Monday 09:00 in Shanghai
    await play([1, 2, 3], [2, -1, -1])
    clock.now = datetime(2024, 5, 1, 15, 0, tzinfo=UTC)  # Wednesday 23:01 in Shanghai
    await play([2, 1, 3], [2, -1, -1])
    clock.now = datetime(2024, 5, 1, 16, 30, tzinfo=UTC)  # Thursday 00:30 in Shanghai
    await play([3, 1, 2], [2, -1, -1])
    assert board(await store.leaderboard(GROUP, "today")) == [
        (1, 3, 20, 1),
        (2, 1, -10, 1),
        (3, 2, -10, 1),
    ]
    assert board(await store.leaderboard(GROUP, "yesterday")) == [
        (1, 2, 20, 1),
        (2, 1, -10, 1),
        (3, 3, -10, 1),
    ]
    week = board(await store.leaderboard(GROUP, "week"))
    assert week == [(1, 1, 0, 3), (2, 2, 0, 3), (3, 3, 0, 3)]
    # the same moment in New York (Wednesday 12:31): two of the three deals are "today"
    assert [r.user_id for r in await store.leaderboard(GROUP, "today", tz="America/New_York")] == [
        2,
        3,
        1,
    ]
    await store.update_group_settings(GROUP, timezone="America/New_York")
    assert len(await store.leaderboard(GROUP, "today")) == 3
    assert (await store.leaderboard(GROUP, "today"))[0].games == 2


async def test_all_is_balance_of_the_groups_players_and_global_of_everyone(store, players, play):
    await play([1, 2, 3], [4, -2, -2])  # 1: 1040, 2: 980, 3: 980
    await play([4, 5, 6], [-2, 1, 1], chat_id=OTHER)  # 4: 980, 5: 1010, 6: 1010
    assert board(await store.leaderboard(GROUP, "all")) == [
        (1, 1, 1040, 1),
        (2, 2, 980, 1),
        (3, 3, 980, 1),
    ]
    assert [r.user_id for r in await store.leaderboard(None, "all")] == [1, 5, 6, 2, 3, 4]
    await store.ensure_player(7, "p7")  # has played nowhere: on the global board only
    assert 7 not in [r.user_id for r in await store.leaderboard(GROUP, "all")]
    assert 7 in [r.user_id for r in await store.leaderboard(None, "all")]
    with pytest.raises(ValueError):
        await store.leaderboard(GROUP, "month")


def wins(rows):
    return [(row.user_id, row.wins, row.games) for row in rows]


async def test_wins_count_the_deals_won_on_each_board(store, clock, players, play):
    clock.now = datetime(2024, 4, 30, 4, 0, tzinfo=UTC)  # Tuesday 12:00 in Shanghai
    await play([1, 2, 3], [2, -1, -1], LANDLORD_WINS)  # 1 won
    clock.now = datetime(2024, 5, 1, 4, 0, tzinfo=UTC)  # Wednesday 12:00 in Shanghai
    await play([1, 2, 3], [-2, 1, 1], FARMERS_WIN)  # 2 and 3 won
    await play([2, 1, 4], [2, -1, -1], LANDLORD_WINS)  # 2 won
    await play([1, 5, 6], [4, -2, -2], LANDLORD_WINS, chat_id=OTHER)  # 1 won elsewhere
    await play([4, 5, 6], [-2, 1, 1])  # no facts: the seats with points > 0 won (5 and 6)
    # today: 2 +30, 3 +10 (earlier than 5 and 6), 5 +10, 6 +10, 1 -30 (earlier than 4), 4 -30
    assert wins(await store.leaderboard(GROUP, "today")) == [(2, 2, 2), (3, 1, 1), (5, 1, 1),
                                                             (6, 1, 1), (1, 0, 2), (4, 0, 2)]
    assert wins(await store.leaderboard(GROUP, "yesterday")) == [(1, 1, 1), (2, 0, 1), (3, 0, 1)]
    # this week: 2 +20, 5 +10, 6 +10, 3 0, 1 -10, 4 -30
    assert wins(await store.leaderboard(GROUP, "week")) == [(2, 2, 3), (5, 1, 1), (6, 1, 1),
                                                            (3, 1, 2), (1, 1, 3), (4, 0, 2)]
    assert sorted(wins(await store.leaderboard(GROUP, "all"))) == [
        (1, 1, 3), (2, 2, 3), (3, 1, 2), (4, 0, 2), (5, 1, 1), (6, 1, 1)]
    assert sorted(wins(await store.leaderboard(OTHER, "all"))) == [(1, 1, 1), (5, 0, 1), (6, 0, 1)]
    assert sorted(wins(await store.leaderboard(None, "today"))) == [
        (1, 1, 3), (2, 2, 2), (3, 1, 1), (4, 0, 2), (5, 1, 2), (6, 1, 2)]
    assert sorted(wins(await store.leaderboard(None, "all"))) == [
        (1, 2, 4), (2, 2, 3), (3, 1, 2), (4, 0, 2), (5, 1, 2), (6, 1, 2)]


async def test_player_stats(store, players, play):
    await play(
        [1, 2, 3],
        [4, -2, -2],
        [SeatFacts("landlord", True, bombs=1, spring=True), *LANDLORD_WINS[1:]],
    )
    await play([2, 1, 3], [-2, 1, 1], FARMERS_WIN)
    await play(
        [2, 3, 1], [-2, 1, 1], [FARMERS_WIN[0], FARMERS_WIN[1], SeatFacts("farmer", True, bombs=2)]
    )
    await play([1, 2, 3], [-4, 2, 2], FARMERS_WIN)
    await play([1, 2, 3], [2, -1, -1], LANDLORD_WINS)
    stats = await store.player_stats(1, GROUP)
    assert (stats.games, stats.wins, stats.balance) == (5, 4, 1000 + 40 + 10 + 10 - 40 + 20)
    assert (stats.landlord_games, stats.landlord_wins, stats.landlord_win_rate) == (3, 2, 2 / 3)
    assert (stats.farmer_games, stats.farmer_wins, stats.farmer_win_rate) == (2, 2, 1.0)
    assert (stats.springs, stats.bombs, stats.best_win) == (1, 3, 40)
    assert (stats.current_streak, stats.longest_streak) == (1, 3)
    assert stats.win_rate == 4 / 5
    assert stats.rank == 1
    # player 2: 950 beans, lost, lost, lost, won, lost; player 3 holds 1010
    other = await store.player_stats(2, GROUP)
    assert (other.balance, other.rank, other.current_streak, other.longest_streak) == (950, 3, 0, 1)
    new = await store.player_stats(4, GROUP)
    assert (new.games, new.win_rate, new.landlord_win_rate, new.rank) == (0, None, None, None)
    assert (await store.player_stats(4)).rank is not None


async def test_rank_follows_the_leaderboard_order(store, players, play):
    await play([1, 2, 3], [2, -1, -1])
    await play([4, 5, 6], [2, -1, -1])
    await play([4, 5, 6], [2, -1, -1], chat_id=OTHER)
    for chat_id in (GROUP, OTHER, None):
        rows = await store.leaderboard(chat_id, "all", limit=100)
        ranks = [(await store.player_stats(r.user_id, chat_id)).rank for r in rows]
        assert ranks == [r.rank for r in rows]


async def test_end_of_day_post_runs_once_even_across_restarts(
    store, database, clock, players, play
):
    await store.update_group_settings(OTHER, daily_post=False)
    await store.update_group_settings(NEW_YORK, timezone="America/New_York")
    clock.now = datetime(2024, 5, 1, 12, 0, tzinfo=UTC)  # Shanghai May 1 20:00, New York 08:00
    await play([1, 2, 3], [2, -1, -1])
    await play([4, 5, 6], [2, -1, -1], chat_id=OTHER)
    await play([4, 5, 6], [2, -1, -1], chat_id=NEW_YORK)
    assert await store.daily_posts_due() == []  # May 1 is not over anywhere
    clock.now = datetime(2024, 5, 1, 16, 5, tzinfo=UTC)  # Shanghai May 2 00:05, New York 12:05
    assert await store.daily_posts_due() == [(GROUP, date(2024, 5, 1))]
    assert [r.user_id for r in await store.leaderboard(GROUP, "yesterday", limit=3)] == [1, 2, 3]
    assert await store.mark_posted(GROUP, date(2024, 5, 1))
    assert not await store.mark_posted(GROUP, date(2024, 5, 1))
    await store.close()
    reopened = await open_store(database, clock=clock)
    try:
        assert await reopened.daily_posts_due() == []
        assert not await reopened.mark_posted(GROUP, date(2024, 5, 1))
        clock.now = datetime(2024, 5, 2, 4, 10, tzinfo=UTC)  # New York May 2 00:10
        assert await reopened.daily_posts_due() == [(NEW_YORK, date(2024, 5, 1))]
        assert await reopened.mark_posted(NEW_YORK, date(2024, 5, 1))
        clock.advance(days=1)  # nothing was played on May 2
        assert await reopened.daily_posts_due() == []
    finally:
        await reopened.close()
