"""The group settings ``redeal_rule`` (RULES.md §2.3) and ``winner_bids_first`` (RULES.md §1.4):
values, typed words, the menu's pages, the engine rules of a table and of a match, the stored
table's last winner."""

from __future__ import annotations

import pytest

from bot.core.i18n import t
from bot.core.rooms import (
    GroupSettingError,
    parse_value,
    rules_for,
    typed_choices,
    validate_changes,
    with_defaults,
)
from bot.core.table import DealProgress, Table
from bot.features.settings import menu
from bot.game.config import TableConfig

TIMEOUTS = {"play_timeout": 30.0, "bid_timeout": 15.0}


def _config(**group: object) -> TableConfig:
    return TableConfig.of(with_defaults(group), default_language="en", play_timeout=30,
                          bid_timeout=15)


def test_redeal_rule_defaults_are_rules_2_3s_redeal_at_tables_and_forced_bid_in_matches():
    assert with_defaults({})["redeal_rule"] is None
    config = _config()
    assert config.rules.redeal_rule == "redeal"
    assert config.match_rules is not None and config.match_rules.redeal_rule == "forced_bid"
    chosen = _config(redeal_rule="penalty")
    assert chosen.rules.redeal_rule == chosen.match_rules.redeal_rule == "penalty"
    kept = _config(redeal_rule="redeal")  # chosen explicitly: matches redeal too
    assert kept.match_rules is not None and kept.match_rules.redeal_rule == "redeal"


def test_a_four_seat_table_never_redeals_so_no_redeal_rule_reaches_it():
    for competition in (False, True):
        rules = rules_for(with_defaults({"players": 4, "redeal_rule": "penalty"}),
                          competition=competition)
        assert rules.variant == "four" and rules.redeal_rule == "redeal"
        assert rules.all_pass_forced_landlord


@pytest.mark.parametrize(("text", "value"), [
    ("forced_bid", "forced_bid"), ("Forced-Bid", "forced_bid"), ("penalty", "penalty"),
    ("redeal", "redeal"), ("default", None), ("默认", None),
])
def test_redeal_rule_typed_values(text: str, value: object) -> None:
    assert parse_value("redeal_rule", text) == value


def test_redeal_rule_refuses_other_words_and_says_which_it_takes():
    with pytest.raises(GroupSettingError):
        parse_value("redeal_rule", "sometimes")
    with pytest.raises(GroupSettingError):
        validate_changes({"redeal_rule": True})
    assert typed_choices("redeal_rule") == ("redeal", "forced_bid", "penalty", "default")


def test_winner_bids_first_is_an_off_flag_that_reaches_the_rules_of_both_games():
    assert with_defaults({})["winner_bids_first"] is False
    assert parse_value("winner_bids_first", "on") is True
    assert _config().rules.winner_bids_first is False
    assert _config(winner_bids_first=True).rules.winner_bids_first is True
    assert _config(winner_bids_first=True, players=4).rules.winner_bids_first is True
    assert menu.ITEMS["winner_bids_first"].is_toggle


@pytest.mark.parametrize("lang", ["en", "zh-Hans", "zh-Hant"])
def test_the_menu_offers_the_redeal_rules_with_the_default_ticked(lang: str) -> None:
    group = with_defaults({})
    text, markup = menu.main_page(group, lang, TIMEOUTS)
    labels = [b.text for row in markup.inline_keyboard for b in row]
    name = t("set.name.redeal_rule", lang)
    assert t("set.button", lang, name=name, value=t("set.redeal_rule_default", lang)) in labels
    winner = t("set.name.winner_bids_first", lang)
    assert t("set.button", lang, name=winner, value=t("set.off", lang)) in labels
    text, markup = menu.options_page("redeal_rule", group, lang, TIMEOUTS)
    assert t("set.hint.redeal_rule", lang) in text
    options = [row[0].text for row in markup.inline_keyboard[:-1]]
    assert options == ["✅ " + t("set.redeal_rule_default", lang),
                       *(t(f"set.redeal_rule_{v}", lang)
                         for v in ("redeal", "forced_bid", "penalty"))]
    press = menu.parse_menu_data(markup.inline_keyboard[2][0].callback_data)
    assert (press.op, press.key, press.value) == ("s", "redeal_rule", "forced_bid")
    # a four-seat table hides it (RULES.md §11: never redeals)
    _, four = menu.main_page(with_defaults({"players": 4}), lang, TIMEOUTS)
    assert name not in " ".join(b.text for row in four.inline_keyboard for b in row)


def test_the_table_keeps_its_last_winner_and_an_old_dict_reads_as_none():
    table = Table(-1, None, "en", progress=DealProgress(last_winner=2))
    assert Table.from_dict(table.to_dict()).progress.last_winner == 2
    stored = table.to_dict()
    del stored["last_winner"]
    assert Table.from_dict(stored).progress.last_winner is None
