"""The settings menu's button data, the /top words and the economy texts, without a bot."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.core.i18n import CATALOGUES, LANGUAGES, t
from bot.core.rooms import DEFAULT_GROUP_SETTINGS, with_defaults
from bot.features.economy.views import audit_text, percent, stats_text, top_text
from bot.features.settings import menu
from bot.store import LeaderboardRow, LedgerEntry, LedgerReason, PlayerStats
from bot.telegram.handlers.economy import top_kind

TIMEOUTS = {"play_timeout": 30.0, "bid_timeout": 15.0}


def _every_page(settings):
    yield menu.main_page(settings, "en", TIMEOUTS)
    for item in menu.MENU:
        if not item.is_toggle:
            yield menu.options_page(item.key, settings, "en", TIMEOUTS)


def test_every_drawn_button_parses_back_and_fits_telegram():
    settings = with_defaults({"bidding": "rob", "multiplier_cap": 64})
    version = menu.settings_version(settings)
    ops = set()
    for _, markup in _every_page(settings):
        for row in markup.inline_keyboard:
            for button in row:
                data = button.callback_data
                assert len(data.encode()) <= 64
                press = menu.parse_menu_data(data)
                assert press.version == version
                ops.add(press.op)
    assert ops == {"m", "x", "o", "t", "s"}
    assert menu.parse_menu_data(menu.menu_data(version, "s", "stake_tier", 1)).value == "regular"
    assert menu.parse_menu_data(menu.menu_data(version, "s", "multiplier_cap", 0)).value is None


@pytest.mark.parametrize("data", [
    None, "", "C:abc123", "C:abc123:q", "C:ABC123:m", "C:abc123:m:extra",
    "C:abc123:t:bidding", "C:abc123:o:daily_post", "C:abc123:s:daily_post:0",
    "C:abc123:s:bidding:2", "C:abc123:s:bidding:01", "C:abc123:s:nope:0", "C:abc123:o:nope",
    "C:abc123:s:language:-1", "L:abc123:m", "C:abc123:s:" + "x" * 60 + ":0",
])
def test_forged_menu_data_is_refused(data):
    with pytest.raises(menu.MenuDataError):
        menu.parse_menu_data(data)


def test_a_change_gives_another_version():
    base = with_defaults({})
    assert menu.settings_version(base) == menu.settings_version(dict(reversed(base.items())))
    assert menu.settings_version(base) != menu.settings_version({**base, "alarm_at": 3})


def test_options_page_ticks_the_effective_value():
    settings = with_defaults({"bidding": "rob"})
    text, markup = menu.options_page("play_timeout", settings, "zh-Hans", TIMEOUTS)
    labels = [row[0].text for row in markup.inline_keyboard]
    assert labels[0] == "✅ " + t("set.default_seconds", "zh-Hans", n=30)
    assert labels[-1] == t("set.back", "zh-Hans")
    assert menu.effective_value("doubling", settings) is True  # the rob preset's default
    assert menu.effective_value("doubling", with_defaults({})) is False


def test_every_setting_has_a_name_in_every_language():
    for lang in LANGUAGES:
        for key in DEFAULT_GROUP_SETTINGS:
            assert f"set.name.{key}" in CATALOGUES[lang], (lang, key)
        for item in menu.MENU:
            for option in item.options:
                label = menu.value_label(item.key, option, with_defaults({}), lang, TIMEOUTS)
                assert label and not label.startswith("set."), (lang, item.key, option)


@pytest.mark.parametrize(("args", "in_group", "kind"), [
    ([], True, "today"), (["TODAY"], True, "today"), (["week"], True, "week"),
    (["all"], True, "all"), (["global"], True, "global"), (["global", "week"], True,
                                                           "global_week"),
    (["today", "global"], True, "global_today"), (["总榜"], True, "all"),
    ([], False, "global_today"), (["all"], False, "global"), (["global"], False, "global"),
    (["week", "today"], True, None), (["global", "global"], True, None), (["x"], True, None),
])
def test_top_words(args, in_group, kind):
    assert top_kind(args, in_group) == kind


def test_texts_show_real_values():
    rows = [LeaderboardRow(1, 7, "Ann", 120, 3, 2), LeaderboardRow(4, 8, "B" * 40, -5, 1, 0)]
    assert top_text("week", rows, "en").splitlines() == [
        t("top.title_week", "en"),
        "🥇 Ann: +120 beans (deals: 3)",
        f"4. {'B' * 23}…: -5 beans (deals: 1)",
    ]
    assert top_text("global", rows[:1], "en").splitlines()[1] == "🥇 Ann: 120 beans (deals: 3)"
    # A zero is "0", not "+0"; a balance has no sign; one bean is one bean (issue 10 item 6).
    even = [LeaderboardRow(2, 9, "Cat", 0, 2, 1), LeaderboardRow(3, 10, "Dan", 1, 1, 1)]
    assert top_text("today", even, "en").splitlines()[1:] == [
        "🥈 Cat: 0 beans (deals: 2)", "🥉 Dan: +1 bean (deals: 1)"]
    assert top_text("all", [LeaderboardRow(1, 9, "Cat", 1000, 0, 0)], "zh-Hans").splitlines()[1] \
        == "🥇 Cat：1,000 欢乐豆（0 局）"
    assert percent(2 / 3) == "67%" and percent(None) == "—"
    stats = PlayerStats(7, "Ann", 900, 3, 2, 1, 0, 2, 2, 0, 4, 60, 2, 2, None)
    lines = stats_text(stats, "en", in_group=True).splitlines()
    assert lines[1] == "💰 900 beans · not ranked in this group yet"
    assert lines[3:5] == ["As landlord: won 0/1 (0%)", "As farmer: won 2/2 (100%)"]
    entry = LedgerEntry(5, 7, -40, 960, LedgerReason.DEAL, 12, -1,
                        datetime(2024, 5, 1, 16, 30, tzinfo=UTC))
    assert audit_text("Ann", 7, [entry], "Asia/Shanghai", "en").splitlines()[1] == (
        "2024-05-02 00:30  -40  deal #12  → 960")


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_text_writes_beans_with_the_same_digit_grouping(lang):
    """A new user's report: 余额 1,120 after a deal, but /daily said 1320 and /balance 1080.
    Every text that shows beans groups their digits the one way (bot.core.numbers.grouped)."""
    from datetime import date

    from bot.features.economy.views import balance_text, daily_text, give_text, relief_text
    from bot.presentation import views
    from bot.store import Claim, Gift

    claim = Claim(amount=1200, balance=1320, day=date(2026, 1, 2), streak=3)
    assert "1,320" in daily_text("Ann", claim, lang) and "1320" not in daily_text(
        "Ann", claim, lang)
    assert "1,200" in daily_text("Ann", claim, lang)
    assert "1,320" in relief_text("Ann", claim, lang)
    assert "1,080" in balance_text("Ann", 1080, lang, relief_below=100)
    gift = Gift(amount=1500, giver_balance=12000, receiver_balance=2500, remaining_today=3500)
    given = give_text("Ann", "Bob", gift, lang)
    assert all(n in given for n in ("1,500", "12,000", "2,500", "3,500"))
    assert views.amount_text(1120, lang) == "1,120" and views.beans_text(-1200, lang).startswith(
        "-1,200")
