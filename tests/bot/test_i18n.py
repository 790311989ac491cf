"""Translation catalogues and `t` (issue 3: one translation function; GLOSSARY.md words)."""

from __future__ import annotations

import string

import pytest

from bot.core.i18n import CATALOGUES, LANGUAGES, match_language, normalize_language, t
from bot.presentation.menus import COMMANDS


def placeholders(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name is not None}


def test_every_key_is_in_every_catalogue() -> None:
    keys = {lang: set(catalogue) for lang, catalogue in CATALOGUES.items()}
    everything = set().union(*keys.values())
    assert len(everything) >= 50
    for lang in LANGUAGES:
        assert sorted(everything - keys[lang]) == [], f"missing in {lang}"


def test_placeholders_match_in_every_language() -> None:
    for key, english in CATALOGUES["en"].items():
        for lang in LANGUAGES:
            text = CATALOGUES[lang].get(key, "")
            assert placeholders(text) == placeholders(english), f"{key} in {lang}: {text!r}"


def test_every_message_formats_with_its_placeholders() -> None:
    for lang in LANGUAGES:
        for key, text in CATALOGUES[lang].items():
            t(key, lang, **{name: 1 for name in placeholders(text)})


@pytest.mark.parametrize(
    ("key", "zh_hans", "zh_hant", "en"),
    [
        ("btn.join", "加入", "加入", "Join"),
        ("btn.add_bot", "加机器人", "加機器人", "Add bot"),
        ("btn.pass", "不出", "不出", "Pass"),
        ("btn.no_bid", "不叫", "不叫", "No bid"),
        ("btn.rob", "抢地主", "搶地主", "Rob"),
        ("btn.norob", "不抢", "不搶", "Don't rob"),
        ("btn.autoplay", "托管", "託管", "Auto-play"),
        ("btn.take_back", "取消托管", "取消託管", "Take back"),
        ("btn.bid_3", "3分", "3分", "3 points"),
        ("btn.play_again", "再来一局", "再來一局", "Play again"),
        ("role.farmer", "农民", "農民", "Farmer"),
        ("kitty", "底牌", "底牌", "Kitty"),
        ("multiplier", "倍数", "倍數", "Multiplier"),
        ("beans", "欢乐豆", "歡樂豆", "Beans"),
        ("result.farmers_win", "农民胜", "農民勝", "Farmers win"),
        ("anti_spring", "反春", "反春", "Anti-spring"),
        ("bomb", "炸弹", "炸彈", "Bomb"),
        ("card.big_joker", "大王", "大王", "Big joker"),
    ],
)
def test_glossary_words(key: str, zh_hans: str, zh_hant: str, en: str) -> None:
    assert (t(key, "zh-Hans"), t(key, "zh-Hant"), t(key, "en")) == (zh_hans, zh_hant, en)


def test_alarm_fills_the_count() -> None:
    assert t("alarm", "zh-Hans", n=2) == "只剩2张"
    assert t("alarm", "zh-Hant", n=1) == "只剩1張"
    assert t("alarm", "en", n=2) == "2 cards left!"


def test_a_missing_placeholder_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        t("alarm", "en")


def test_command_descriptions_fit_the_menu() -> None:
    for lang in LANGUAGES:
        for command in COMMANDS:
            description = t(f"cmd.{command}", lang)
            assert description != f"cmd.{command}"
            assert 1 <= len(description) <= 256


def test_fallback_to_english_then_to_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(CATALOGUES, "zh-Hant", {})
    assert t("btn.join", "zh-Hant") == "Join"
    assert t("no.such.key", "zh-Hans") == "no.such.key"


def test_t_accepts_telegram_language_codes() -> None:
    assert t("btn.rob", "zh-tw") == "搶地主"
    assert t("btn.rob", "zh-CN") == "抢地主"
    assert t("btn.rob", "de") == "Rob"


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("zh-Hans", "zh-Hans"),
        ("zh-hans", "zh-Hans"),
        ("zh", "zh-Hans"),
        ("zh-cn", "zh-Hans"),
        ("zh-SG", "zh-Hans"),
        ("zh-Hans-CN", "zh-Hans"),
        ("zh-hant", "zh-Hant"),
        ("zh-tw", "zh-Hant"),
        ("zh-HK", "zh-Hant"),
        ("zh_MO", "zh-Hant"),
        ("zh-Hant-TW", "zh-Hant"),
        ("en", "en"),
        ("en-US", "en"),
        ("en-gb", "en"),
        ("ru", None),
        ("", None),
        (None, None),
    ],
)
def test_match_language(code: str | None, expected: str | None) -> None:
    assert match_language(code) == expected


def test_normalize_language_falls_back_to_the_default() -> None:
    assert normalize_language("zh-hk") == "zh-Hant"
    assert normalize_language(None) == "en"
    assert normalize_language("pt-BR", default="zh-Hans") == "zh-Hans"


def test_plural_forms_come_from_the_catalogue():
    from bot.presentation.views import beans_text, points_text

    assert [points_text(n, "en") for n in (-1, 1, 0, 2, -2)] == [
        "-1 point", "+1 point", "0 points", "+2 points", "-2 points"]
    assert beans_text(-1, "en") == "-1 bean" and beans_text(40, "en") == "+40 beans"
    assert points_text(-1, "zh-Hans") == "-1 分" and beans_text(40, "zh-Hant") == "+40 歡樂豆"
    assert t("alarm", "en", n=1) == "1 card left!" and t("alarm", "en", n=2) == "2 cards left!"
    assert t("table.count", "en", n=1) == "1 card" and t("table.count", "zh-Hans", n=1) == "1张"
