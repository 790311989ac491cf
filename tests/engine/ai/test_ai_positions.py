"""Concrete positions with the right move (RULES.md §4, §6; issue 6)."""

from __future__ import annotations

from engine.ai import levels
from engine.cards import parse_ranks
from tests.engine.ai.helpers import position

# One single of every rank 3..2 and the small joker are gone: no bomb or rocket is possible.
NO_BOMBS = [(i % 3, "3456789TJQKA2"[i]) for i in range(13)] + [(1, "X")]


def decide(view) -> str:
    return str(levels.choose_action(view, "hard"))


def test_farmer_does_not_lead_a_losable_single_against_a_one_card_landlord():
    # RULES.md §4.5 alarm: the landlord (seat 0) has one card left; farmer seat 1 leads.
    view = position(1, "3688TT", (1, 6, 5))
    action = levels.choose_action(view, "hard")
    assert action.kind == "play"
    assert len(action.cards) >= 2, f"led a single {action} the landlord may beat"


def test_farmer_leads_its_top_single_when_only_singles_are_left():
    # Only singles: the 2 cannot be beaten by a one-card landlord once both jokers are out.
    view = position(1, "5792", (1, 4, 5), played=[(0, "XD")])
    assert decide(view) == "play 2"


def test_farmer_does_not_bomb_the_partners_winning_play():
    # Partner (seat 2) played an A, the landlord passed; seat 1 holds a bomb.
    view = position(1, "588889", (10, 6, 4), trick=(2, "A"))
    assert decide(view) == "pass"


def test_farmer_does_not_overtake_the_partners_pair():
    view = position(1, "3QQKK7", (9, 6, 6), trick=(2, "99"))
    assert decide(view) == "pass"


def test_farmer_blocks_the_alarmed_landlord_after_a_low_partner_single():
    # Seat 2 answers its partner's 4 before the one-card landlord: the 2 is safe (jokers out).
    view = position(2, "26789", (1, 3, 5), trick=(1, "4"), played=[(0, "XD")])
    assert decide(view) == "play 2"


def test_landlord_plays_the_known_winning_endgame():
    # D cannot be beaten (no bomb, no rocket possible), then 33 plays out; 33 first could lose.
    view = position(0, "33D", (3, 10, 10), played=NO_BOMBS)
    assert decide(view) == "play D"


def test_rocket_first_then_the_pair():
    view = position(0, "33XD", (4, 10, 10))
    assert decide(view) == "play XD"


def test_farmer_takes_the_trick_with_a_safe_card_and_plays_out():
    view = position(1, "77D", (12, 3, 10), trick=(0, "9"), played=NO_BOMBS)
    assert decide(view) == "play D"


def test_plays_out_at_once_when_one_play_empties_the_hand():
    assert decide(position(0, "33344456", (8, 9, 8))) == "play 33344456"
    assert decide(position(1, "77", (9, 2, 8), trick=(0, "55"))) == "play 77"


def test_landlord_beats_a_farmer_about_to_play_out():
    # Farmer seat 2 has 1 card after leading a 7; the landlord must answer, even with a bomb.
    view = position(0, "555534", (6, 9, 1), trick=(2, "7"))
    action = levels.choose_action(view, "hard")
    assert action.kind == "play"
    assert action.cards == parse_ranks("5555")


def test_hints_are_ordered_legal_plays_starting_with_the_choice():
    view = position(0, "3456789JJQ", (10, 17, 17))
    hints = levels.hints(view, limit=3)
    assert 1 <= len(hints) <= 3
    assert str(hints[0]) == str(levels.choose_action(view, "hard")).removeprefix("play ")
    assert len(set(map(str, hints))) == len(hints)


def test_hint_advises_pass_on_the_partners_winning_play():
    # QA of issue 10: the AI passes on the partner's A, yet the hints' best play was the bomb.
    view = position(1, "588889", (10, 6, 4), trick=(2, "A"))
    advice = levels.hint_advice(view)
    assert advice.pass_first
    assert [str(p) for p in advice.plays] == [str(p) for p in levels.hints(view)]
    assert "8888" in {str(p) for p in advice.plays}
    # Leading (nothing to follow) or beating the landlord: no pass advice.
    assert not levels.hint_advice(position(0, "3456789JJQ", (10, 17, 17))).pass_first
    assert not levels.hint_advice(position(0, "555534", (6, 9, 1), trick=(2, "7"))).pass_first


def test_landlord_leads_the_chain_only_a_bomb_could_beat():
    # The farmers hold 33445566 and KKKK between them: the four Ks may be a bomb in the
    # four-card farmer's hand, but a bomb beats every lead alike; by type nothing beats the
    # pair chain, while the single 9 loses to a K (issue 17: the landlord judges by type).
    played = [(1, "XD"), (2, "222"), (1, "2"), (2, "AAAA"), (1, "QQQ"), (2, "Q"), (1, "JJJJ"),
              (2, "TTT"), (1, "T"), (2, "999"), (1, "888"), (2, "8"), (1, "777"), (2, "7")]
    view = position(0, "334455669", (9, 4, 9), played=played)
    assert decide(view) == "play 33445566"


def test_farmer_before_a_low_landlord_does_not_let_the_partners_single_stand():
    # 顶牌: seat 2 answers its partner's 8 right before the landlord, who holds 5 cards and
    # could beat it: it plays over the 8, so the landlord must beat a higher card or pass.
    view = position(2, "245689JJQQK", (5, 12, 11), trick=(1, "8"), played=[(0, "XD")])
    action = levels.choose_action(view, "hard")
    assert action.kind == "play"
    assert len(action.cards) == 1 and action.cards[0] > parse_ranks("8")[0]


def test_farmer_lets_the_partners_single_stand_while_the_landlord_holds_many_cards():
    view = position(2, "245689JJQQK", (9, 8, 11), trick=(1, "8"), played=[(0, "XD")])
    assert decide(view) == "pass"


# The 15 unseen cards are 33 5 6 7 99 T J Q K A 22 X: of the pairs above 4 only 99 and 22,
# while ten of them are singles above 8 (issue 17).
ENDGAME = [(0, "3456789TJQKA"), (1, "34567"), (2, "JJ"), (0, "KK"), (1, "56789T"), (2, "QQ"),
           (0, "AA")]


def test_farmer_leads_the_pair_a_two_card_landlord_rarely_beats():
    # The landlord holds 2 of the unseen cards: 2 in 105 of its hands beat 44 (and play out),
    # 95 in 105 beat a single 8. Seat 2 holds 13 cards, too many for the sampled search.
    view = position(1, "4488", (2, 4, 13),
                    played=[*ENDGAME, (1, "T"), (0, "22"), (1, "D")])
    assert decide(view) == "play 44"


def test_landlord_leads_the_pair_a_two_card_farmer_rarely_beats():
    view = position(0, "4488", (4, 2, 13),
                    played=[*ENDGAME, (1, "22"), (1, "T"), (1, "D")])
    assert decide(view) == "play 44"
