"""/give once per command (RULES.md §8: beans are never moved twice): a gift named by its request
(the command's chat and message) moves beans once, however often its update is processed."""

from __future__ import annotations

import pytest

from bot.store import GiveRefused

GROUP = -1002


@pytest.fixture
async def players(store):
    for uid in (1, 2):
        await store.ensure_player(uid, f"p{uid}")
    await store.update_group_settings(GROUP, give_enabled=True)


async def _ledger_sum(store, user_id: int) -> tuple[int, int]:
    rows = [e for e in await store.ledger(user_id, 100) if e.reason == "give"]
    return len(rows), sum(e.amount for e in rows)


async def test_a_request_given_again_moves_no_beans_and_gets_its_gift(store, players):
    first = await store.give(1, 2, 300, GROUP, request=f"{GROUP}:77")
    again = await store.give(1, 2, 300, GROUP, request=f"{GROUP}:77")
    assert (first.amount, first.giver_balance, first.receiver_balance) == (300, 700, 1300)
    assert (again.amount, again.giver_balance, again.receiver_balance) == (300, 700, 1300)
    assert again.remaining_today == first.remaining_today
    assert await store.balance(1) == 700 and await store.balance(2) == 1300
    assert await _ledger_sum(store, 1) == (1, -300)
    assert await _ledger_sum(store, 2) == (1, 300)


async def test_another_request_is_another_gift(store, players):
    await store.give(1, 2, 100, GROUP, request=f"{GROUP}:1")
    await store.give(1, 2, 100, GROUP, request=f"{GROUP}:2")
    await store.give(1, 2, 100, GROUP)  # no request: always a new gift
    assert await store.balance(1) == 700 and await store.balance(2) == 1300
    assert await _ledger_sum(store, 1) == (3, -300)


async def test_a_refused_request_can_be_asked_again(store, players):
    with pytest.raises(GiveRefused):
        await store.give(1, 2, 5000, GROUP, request=f"{GROUP}:9")
    assert await store.balance(1) == 1000
    gift = await store.give(1, 2, 50, GROUP, request=f"{GROUP}:9")
    assert gift.amount == 50 and await store.balance(1) == 950
