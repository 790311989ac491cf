"""Beans are conserved (RULES.md §8): a long random session through the real store."""

from __future__ import annotations

import random

from bot.store import AlreadyClaimed, GiveRefused, NotEligible, SeatFacts

GROUPS = (-1001, -1002)
PLAYERS = range(1, 13)


def random_points(rng: random.Random, seats: int) -> list[int]:
    """Points of a deal (RULES.md §7): landlord seat 0 against the farmers, per pair."""
    base = rng.choice([1, 2, 3])
    pairs = [base * 2 ** rng.randint(0, 6) for _ in range(seats - 1)]
    sign = 1 if rng.random() < 0.45 else -1
    return [sign * sum(pairs), *(-sign * p for p in pairs)]


async def test_random_session_conserves_beans_and_never_goes_negative(
    store, clock, make_deal, raw
):
    rng = random.Random(20240501)
    for uid in PLAYERS:
        await store.ensure_player(uid, f"p{uid}")
    await store.update_group_settings(GROUPS[1], timezone="America/New_York", give_enabled=True)
    settled = reliefs = dailies = gifts = 0
    for step in range(2500):
        clock.advance(minutes=rng.randint(1, 30))
        user = rng.choice(PLAYERS)
        chat_id = rng.choice(GROUPS)
        roll = rng.random()
        try:
            if roll < 0.06:
                await store.claim_daily(user, chat_id)
                dailies += 1
            elif roll < 0.10:
                await store.claim_relief(user, chat_id)
                reliefs += 1
            elif roll < 0.12:
                await store.give(user, rng.choice(PLAYERS), rng.randint(1, 700), GROUPS[1])
                gifts += 1
            else:
                seats = rng.sample(list(PLAYERS), 3)
                if rng.random() < 0.15:
                    seats[rng.randrange(3)] = None  # a bot seat
                deal_id = await make_deal(seats, chat_id=chat_id, stake=rng.choice([10, 20, 50]))
                points = random_points(rng, 3)
                if step % 97 == 0:
                    await store.cancel_deal(deal_id)
                    continue
                won = [p > 0 for p in points]
                facts = [SeatFacts("landlord", won[0], bombs=rng.randint(0, 2))] + [
                    SeatFacts("farmer", w) for w in won[1:]
                ]
                settlement = await store.settle_deal(deal_id, points, "{}", facts)
                assert sum(settlement.beans) == 0
                assert all(b is None or b >= 0 for b in settlement.balances)
                settled += 1
        except (AlreadyClaimed, NotEligible, GiveRefused):
            pass
    assert settled > 2000 and dailies > 50 and reliefs > 20 and gifts > 10

    totals = await store.totals()
    assert totals.balances == totals.ledger == totals.grants
    assert totals.grants > 12_000  # the start balances and more were granted
    await store.close()
    mismatched = await raw.fetch(
        "SELECT p.user_id FROM players p WHERE p.balance < 0"
        " OR p.balance <> (SELECT SUM(amount) FROM ledger l WHERE l.user_id = p.user_id)"
        " OR p.balance <> (SELECT balance_after FROM ledger l WHERE l.user_id = p.user_id"
        "                  ORDER BY id DESC LIMIT 1)"
    )
    unbalanced_deals = await raw.fetch(
        "SELECT deal_id FROM ledger WHERE reason = 'deal'"
        " GROUP BY deal_id HAVING SUM(amount) <> 0"
    )
    stale_copies = await raw.fetch(
        "SELECT g.chat_id, g.user_id FROM group_players g JOIN players p USING (user_id)"
        " WHERE g.balance <> p.balance OR g.balance_changed_at <> p.balance_changed_at"
    )
    [(members,)] = await raw.fetch("SELECT COUNT(*) FROM group_players")
    [(seat_beans,)] = await raw.fetch("SELECT SUM(beans) FROM deal_seats")
    [(negative_steps,)] = await raw.fetch("SELECT COUNT(*) FROM ledger WHERE balance_after < 0")
    assert mismatched == []
    assert stale_copies == [] and members > len(PLAYERS)  # the group copies follow the balance
    assert unbalanced_deals == []
    assert seat_beans == 0
    assert negative_steps == 0
