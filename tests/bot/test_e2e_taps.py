"""End to end (issue 10 item 4): a whole deal played by three people in as few taps as the hand
keyboard allows, through the fake Bot API; each common play takes at most three presses
including the play, a seat that cannot beat the table sees only 要不起 / Can't beat, and a
bomb, rocket or plane is called out on the group table and in the private captions."""

from __future__ import annotations

from collections import defaultdict

from bot.core.i18n import t
from bot.core.selection import encode_ranks
from engine import SCORE, Action, ComboType, apply, new_deal
from engine.ai import choose_action
from tests.bot.flow_helpers import LANG, Players, button_data, hand_message
from tests.bot.taps import OFFER, taps_to_play
from tests.conftest import BotRunner
from tests.fakebot import FakeBotApi

SEED = 20240601
_T = ComboType
#: Common plays whose every instance must take at most three presses (a plane's wings count
#: only when they are the lowest, see bot.core.selection).
ALWAYS = (_T.SINGLE, _T.PAIR, _T.TRIO_SINGLE, _T.TRIO_PAIR, _T.STRAIGHT, _T.PAIR_CHAIN,
          _T.BOMB, _T.ROCKET)
#: Plays that the table and the captions announce (issue 10 item 5).
CALLOUTS = {_T.BOMB: "callout.bomb", _T.ROCKET: "callout.rocket", _T.PLANE: "callout.plane",
            _T.PLANE_SINGLE: "callout.plane", _T.PLANE_PAIR: "callout.plane"}


async def test_a_deal_played_in_few_taps(fake_api: FakeBotApi, running_bot: BotRunner):
    app = running_bot.app
    app.bot_data.game.deal_seed = SEED
    app.bot_data.game.first_bidder = 0
    group = fake_api.new_group("Few taps")
    # a seat that cannot beat is prompted with 要不起 alone, not passed by the bot
    await app.bot_data.store.update_group_settings(group.id, auto_pass=False)
    users = [fake_api.new_user(name) for name in ("Ann", "Bob", "Cat")]
    players = Players(fake_api, group, users, auto_pass=False)
    lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=SEED, first_bidder=0)
    await players.act(Action("bid", 0, value=3))
    while players.state.phase != "playing":
        seat = players.state.to_act[0]
        await players.act(choose_action(players.state.view(seat)))

    presses: dict[str, list[int]] = defaultdict(list)
    cannot_beat = callouts = 0
    while players.state.phase == "playing":
        state = players.state
        seat = state.to_act[0]
        user = users[seat]
        view = state.view(seat)
        legal = view.legal_plays()
        action = choose_action(view)
        message = await fake_api.wait_for(lambda u=user: _prompt(fake_api, u))
        if not legal:
            labels = [b.text for b in message.buttons]
            assert labels == [t("btn.cannot_beat", LANG), t("btn.my_cards", LANG),
                              t("btn.autoplay", LANG), t("btn.last_trick", LANG)]
            await players.click(user, message, t("btn.cannot_beat", LANG))
            players.state = apply(state, action)
            cannot_beat += 1
            continue
        if action.kind != "play":
            await players.act(action)
            continue
        target = next(p for p in legal if p.cards == tuple(sorted(action.cards)))
        found = taps_to_play(view.hand_ranks, legal, view.leading, target)
        if found is None:  # e.g. a plane whose wings are not the lowest: one tap per card
            assert target.type not in ALWAYS, str(target)
            await players.act(action)
            presses["(card by card) " + target.type.value].append(len(target.cards) + 1)
            continue
        count, path = found
        for rank in path[:-1]:
            answer = await players.press(user, hand_message(fake_api, user),
                                         button_data(hand_message(fake_api, user),
                                                     suffix=f":r{rank}"))
            assert answer.params.get("text") is None
        if path[-1] == OFFER:
            suffix = ":p" + encode_ranks(target.cards)
            offered = await fake_api.wait_for(
                lambda u=user, s=suffix: _with_button(fake_api, u, s))
            answer = await players.press(user, offered, button_data(offered, suffix=suffix))
        else:
            answer = await players.click(user, hand_message(fake_api, user), t("btn.play", LANG))
        assert answer.params.get("text") is None, (str(target), answer)
        players.state = apply(state, Action("play", seat, cards=target.cards, type=target.type))
        presses[target.type.value].append(count)
        key = CALLOUTS.get(target.type)
        if key is not None:  # announced on the group table and in the others' captions
            said = t(key, LANG, name=user.first_name)
            await fake_api.wait_for(lambda s=said: _announced(fake_api, group, s))
            other = users[(seat + 1) % 3]
            await fake_api.wait_for(lambda s=said, o=other: s in hand_message(fake_api, o).content)
            callouts += 1
    assert players.state.phase == "finished"
    print("\npresses per play in one deal (rank taps + the play):")
    for kind, counts in sorted(presses.items()):
        print(f"  {kind:28} {counts}")
    assert cannot_beat >= 1 and callouts >= 1
    assert all(max(presses[k.value]) <= 3 for k in ALWAYS if presses.get(k.value))
    assert len([k for k in ALWAYS if presses.get(k.value)]) >= 3


def _announced(api: FakeBotApi, group, said: str) -> bool:
    return any(said in m.content for m in api.messages_in(group))


def _prompt(api: FakeBotApi, user):
    """The user's hand message once it asks them to play (Play or Can't beat is on it)."""
    message = hand_message(api, user)
    labels = {b.text for b in message.buttons}
    return message if labels & {t("btn.play", LANG), t("btn.cannot_beat", LANG)} else None


def _with_button(api: FakeBotApi, user, suffix: str):
    message = hand_message(api, user)
    return message if any((b.callback_data or "").endswith(suffix) for b in message.buttons) \
        else None
