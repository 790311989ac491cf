"""End to end: a four-player match (RULES.md §10, §11) through the fake Bot API, the real
Application and a real SQLite file: a seat that has lost three deals as landlord in the match
may only pass in the next deal's bidding (seed 004 rule 5: 做了三副大地主失败，以后不得再争叫地主，
逼打除外), and its hand says why.

Playing three whole four-player deals that one seat loses as landlord would be slow and hang on
the AI's choices, so the test writes three such deals into the match's stored state (as the
settlement of three deals would have, ``MatchState.record(..., landlord=0)``) while the first
deal is being bid; the human then turns on auto-play so that the first deal plays itself out,
and the second deal is dealt from the stored state like any match deal."""

from __future__ import annotations

import json

import pytest

from bot.core.i18n import t
from engine import Action
from engine.match import MatchState
from tests.bot.flow_helpers import button_data
from tests.bot.four_helpers import FourTable
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 7


async def seed_lost_landlord_deals(store, match_id: int, seat: int, deals: int) -> None:
    """Write ``deals`` deals that ``seat`` lost as landlord into the stored match state."""
    record = await store.get_match(match_id)
    state = MatchState.from_dict(json.loads(record.state_json))
    for n in range(deals):
        points = [1, 1, 1, 1]
        points[seat] = -3
        state = state.record(-1 - n, points, landlord=seat)
    async with store._write() as db:  # the test plays the part of three settlements
        await db.execute("UPDATE matches SET state = $1 WHERE id = $2",
                         json.dumps(state.to_dict()), match_id)


@pytest.mark.parametrize("lang", ("en", "zh-Hans", "zh-Hant"))
async def test_a_seat_that_lost_three_landlord_deals_may_only_pass_and_is_told_why(
    fake_api: FakeBotApi, running_bot: BotRunner, lang: str
):
    app = running_bot.app
    store = app.bot_data.store
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 3  # deal 2 rotates to seat 0: Eve bids first
    table = await FourTable.open(fake_api, app, "Four match", ("Eve",), lang)
    eve = table.users[0]
    await table.command(eve, "/match")
    lobby = table.lobby()
    for _ in range(3):
        await table.click(eve, lobby, "btn.add_bot")
    await table.click(eve, lobby, "btn.start")
    (match,) = await store.running_matches()
    seated = app.bot_data.tables.get(f"{table.group.id}:0")
    assert seated is not None and seated.state is not None
    first = seated.progress.deal_id
    assert seated.state.rules.variant == "four" and seated.state.bidding.barred == ()
    assert t("hand.barred", lang) not in table.hand(eve).content

    await seed_lost_landlord_deals(store, match.match_id, 0, 3)
    hand = table.hand(eve)
    answer = await table.press(eve, hand, button_data(hand, suffix=":auto1"))  # deal 1 plays out
    assert answer.params.get("text") == t("pop.autoplay_on", lang)

    def second_deal_bidding():
        state = seated.state
        return seated.progress.deal_id != first and state is not None and state.phase == "bidding" \
            and state.to_act == (0,) or None

    await fake_api.wait_for(second_deal_bidding, 60)
    record = await store.get_match(match.match_id)
    stored = MatchState.from_dict(json.loads(record.state_json))
    assert stored.played == 4 and stored.landlord_losses()[0] >= 3
    state = seated.state
    assert state.first_bidder == 0 and state.bidding.barred == (True, False, False, False)
    assert state.legal_actions(0) == [Action("pass", 0)]

    # Eve's hand: No bid is her only bidding button, and a line says why.
    message = await table.prompt(eve, suffix=":pass")
    assert t("hand.barred", lang) in message.content.splitlines()
    labels = [b.text for b in message.buttons]
    assert t("btn.no_bid", lang) in labels
    assert not {t(f"btn.bid_{v}", lang) for v in (1, 2, 3)} & set(labels)
    assert not any((b.callback_data or "").endswith(("bid1", "bid2", "bid3"))
                   for b in message.buttons)

    # A bid forged from the prompt's own token and version is refused and changes nothing.
    forged = button_data(message, suffix=":pass").removesuffix("pass") + "bid3"
    answer = await table.press(eve, message, forged)
    assert answer.params.get("text") == t("illegal.barred", lang)
    assert seated.state is state and seated.state.to_act == (0,)

    # She passes; the bidding goes on without her (逼打 may still make her landlord).
    answer = await table.press(eve, message, button_data(message, suffix=":pass"))
    assert answer.params.get("text") is None
    await fake_api.wait_for(lambda: seated.state is not state and
                            seated.state.history[:1] == (Action("pass", 0),) or None)
    assert seated.state.bidding.barred == (True, False, False, False)
