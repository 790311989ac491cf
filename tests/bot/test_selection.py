"""Fewer taps (issue 10 item 4): the selection logic of :mod:`bot.core.selection`, and every common
play reached in at most three taps (including the play) from dealt hands."""

from __future__ import annotations

from collections import defaultdict

from bot.core import selection as sel
from engine import FOUR, SCORE, ComboType, classify, legal_moves, new_deal
from engine.cards import cards_to_ranks, parse_ranks
from engine.play import play_groups
from tests.bot.taps import taps_to_play

_T = ComboType
COMMON = (_T.SINGLE, _T.PAIR, _T.TRIO_SINGLE, _T.TRIO_PAIR, _T.STRAIGHT, _T.PAIR_CHAIN,
          _T.PLANE_SINGLE, _T.PLANE_PAIR, _T.BOMB, _T.ROCKET)


def lowest_wings(plays):
    """Per plane body, the plane with the lowest wings (the one the keyboard offers)."""
    best = {}
    for play in plays:
        body = play_groups(play)[: play.n]
        if body not in best or play.cards < best[body].cards:
            best[body] = play
    return list(best.values())


def targets(legal):
    by_type = defaultdict(list)
    for play in legal:
        if play.type in COMMON:
            by_type[play.type].append(play)
    for kind in (_T.PLANE_SINGLE, _T.PLANE_PAIR):
        by_type[kind] = lowest_wings(by_type[kind])
    return by_type


def test_tap_cycles_one_card_and_counts_come_from_the_hand():
    hand = parse_ranks("33337", decks=2) + (0, 0, 0, 0)  # eight 3s: the two-deck game
    chosen: list[int] = []
    seen = []
    for _ in range(9):
        chosen = sel.tap(hand, chosen, 0)
        seen.append(len(chosen))
    assert seen == [1, 2, 3, 4, 5, 6, 7, 8, 0]
    assert sel.tap(hand, [0], 9) == [0]  # not held: unchanged
    assert sel.tap(hand, [0], 4) == [0, 4]
    assert sel.tap(hand, [], 99) == []


def test_offers_complete_the_selection_with_the_fewest_cards():
    hand = parse_ranks("33344455667789TXD")
    legal = legal_moves(hand)

    def names(chosen):
        return [str(p) for p in sel.offers(parse_ranks(chosen), legal, leading=True)]

    assert names("3") == ["33", "333"]
    assert names("X") == ["XD"]
    assert names("37") == ["3337", "33377", "34567", "3344556677"]
    assert names("34") == ["3334", "3444", "33344", "33444", "33344455", "3334445566", "333444"]
    assert names("") == []
    assert names("3334445") == ["33344455", "3334445566"]


def test_offers_when_following_are_the_beating_plays_that_hold_the_selection():
    hand = parse_ranks("3456789TTJQ")
    legal = legal_moves(hand, classify(parse_ranks("34567"))[0])
    assert [str(p) for p in sel.offers(parse_ranks("8"), legal, leading=False)] == \
        ["45678", "56789", "6789T", "789TJ", "89TJQ"]
    pair_table = legal_moves(hand, classify(parse_ranks("99"))[0])
    assert [str(p) for p in sel.offers(parse_ranks("T"), pair_table, leading=False)] == ["TT"]


def test_hint_order_recommendation_first_then_lowest_up_bombs_and_rocket_last():
    hand = parse_ranks("5566779999TTXD")
    legal = legal_moves(hand, classify(parse_ranks("44"))[0])
    recommended = [classify(parse_ranks("TT"))[0]]
    assert [str(p) for p in sel.hint_order(legal, recommended)] == \
        ["TT", "55", "66", "77", "99", "9999", "XD"]
    assert [str(p) for p in sel.hint_order(legal)][:2] == ["55", "66"]
    assert sel.hint_order([], recommended) == []


def test_button_text_for_plays_is_checked():
    assert sel.decode_ranks(sel.encode_ranks(parse_ranks("33344456TXD"))) == \
        parse_ranks("33344456TXD")
    for bad in ("", "3a", "43", "3" * 45, "3:3", "10"):
        assert sel.decode_ranks(bad) is None
    assert sel.holds(parse_ranks("3345"), parse_ranks("335"))
    assert not sel.holds(parse_ranks("3345"), parse_ranks("333"))


def _check_hands(rules, seeds):
    worst: dict[ComboType, int] = {}
    plays: dict[ComboType, int] = defaultdict(int)
    for seed in seeds:
        state = new_deal(rules, seed=seed)
        hands = [cards_to_ranks(h) for h in state.hands]
        hands[0] = tuple(sorted(hands[0] + cards_to_ranks(state.kitty)))  # the landlord's 20
        for hand in hands:
            legal = legal_moves(hand, None, rules)
            for kind, targets_of_kind in targets(legal).items():
                for target in targets_of_kind:
                    found = taps_to_play(hand, legal, True, target)
                    assert found is not None, f"{target} ({kind}) from {hand} needs > 3 taps"
                    worst[kind] = max(worst.get(kind, 0), found[0])
                    plays[kind] += 1
    return worst, plays


def test_every_common_lead_takes_at_most_three_taps_from_dealt_hands():
    worst, plays = _check_hands(SCORE, range(12))
    print("\ntaps per play (most over every play of that type in 12 dealt deals):")
    for kind in COMMON:
        if kind in worst:
            print(f"  {kind.value:13} {worst[kind]} taps  ({plays[kind]} plays)")
    assert set(worst) >= set(COMMON) - {_T.ROCKET, _T.PLANE_PAIR} or set(worst) >= set(COMMON)
    assert max(worst.values()) <= 3
    assert worst[_T.SINGLE] == 2 and worst[_T.STRAIGHT] == 3


def test_every_common_follow_takes_at_most_three_taps():
    hand = parse_ranks("444555666778899TTJXD")
    for table in ("5", "66", "3339", "33366", "34567", "334455", "33344456", "3334445566",
                  "5555"):
        prev = classify(parse_ranks(table))[0]
        legal = legal_moves(hand, prev)
        assert legal, table
        for target in legal:
            found = taps_to_play(hand, legal, False, target)
            assert found is not None and found[0] <= 3, (table, str(target))


def test_two_deck_hands_take_at_most_three_taps():
    worst, _ = _check_hands(FOUR, range(3))
    assert max(worst.values()) <= 3
