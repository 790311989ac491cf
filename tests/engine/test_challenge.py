"""A duplicate challenge's deals from its seed (RULES.md §10, engine/challenge.py) and the
referee's ``challenge`` op that checks them."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter

import pytest

from engine import SCORE
from engine.cards import DECK
from engine.challenge import (
    MEMBER_SEAT,
    ChallengeSeedError,
    challenge_deal,
    challenge_deals,
    deal_state,
    new_seed,
    seed_hash,
)
from engine.judge import handle

SEED = "00112233445566778899aabbccddeeff"


def test_the_hash_is_the_sha256_of_the_seed_text():
    assert seed_hash(SEED) == hashlib.sha256(SEED.encode()).hexdigest()
    assert len(new_seed()) == 32 and new_seed() != new_seed()
    assert seed_hash(new_seed()) != seed_hash(SEED)


def test_each_deal_is_one_whole_deck_and_the_first_bidder_rotates_from_the_member():
    deals = challenge_deals(SEED, 6)
    assert [d.number for d in deals] == [1, 2, 3, 4, 5, 6]
    assert [d.first_bidder for d in deals] == [MEMBER_SEAT, 1, 2, 0, 1, 2]
    for deal in deals:
        assert [len(h) for h in deal.hands] == [17, 17, 17] and len(deal.kitty) == 3
        assert Counter(c for h in deal.hands for c in h) + Counter(deal.kitty) == Counter(DECK)
    assert len({d.hands for d in deals}) == 6  # six different deals


def test_the_same_seed_gives_the_same_deals_and_another_seed_others():
    assert challenge_deals(SEED, 3) == challenge_deals(SEED, 3)
    assert challenge_deal(SEED, 2) == challenge_deals(SEED, 2)[1]
    assert challenge_deal(SEED, 1) != challenge_deal("f" * 32, 1)


def test_the_engine_deals_the_challenge_cards():
    deal = challenge_deal(SEED, 2)
    state = deal_state(deal, SCORE)
    assert state.hands == deal.hands and state.kitty == deal.kitty
    assert state.to_act == (1,) and state.first_bidder == 1


@pytest.mark.parametrize("seed", ["", "xyz" * 8, "ABCDEF0123456789", "0" * 15, "0" * 130, 7])
def test_malformed_seeds_are_refused(seed):
    with pytest.raises(ChallengeSeedError):
        challenge_deals(seed, 2)


@pytest.mark.parametrize("count", [0, 13, -1, True, "2"])
def test_deal_counts_out_of_range_are_refused(count):
    with pytest.raises(ChallengeSeedError):
        challenge_deals(SEED, count)


def test_the_judge_prints_the_deals_and_the_hash():
    answer = handle({"op": "challenge", "seed": SEED, "deals": 2})
    assert answer["sha256"] == seed_hash(SEED)
    first = answer["deals"][0]
    deal = challenge_deal(SEED, 1)
    assert first["deal"] == 1 and first["first_bidder"] == 0
    assert first["hand_cards"] == [list(h) for h in deal.hands]
    assert first["kitty_cards"] == list(deal.kitty)
    assert [len(h) for h in first["hands"]] == [17, 17, 17] and len(first["kitty"]) == 3
    # the printed hands feed the replay op as they are
    replay = handle({"op": "replay", "hands": first["hands"], "kitty": first["kitty"],
                     "first_bidder": 0, "actions": ["bid 3"]})
    assert replay["ok"] is True and replay["landlord"] == 0


@pytest.mark.parametrize("request_", [
    {"op": "challenge", "deals": 2},
    {"op": "challenge", "seed": SEED},
    {"op": "challenge", "seed": "nothex", "deals": 2},
    {"op": "challenge", "seed": SEED, "deals": 99},
])
def test_the_judge_answers_bad_challenge_requests_with_an_error(request_):
    assert "error" in handle(request_)


def test_the_judge_command_line_checks_a_challenge():
    line = json.dumps({"op": "challenge", "seed": SEED, "deals": 1})
    out = subprocess.run([sys.executable, "-m", "engine.judge"], input=line + "\n",
                         capture_output=True, text=True, check=True).stdout
    assert json.loads(out)["sha256"] == seed_hash(SEED)
