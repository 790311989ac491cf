"""Rooms: stake tiers and a group's settings (RULES.md §2, §3, §5, §7, §8, §9). Pure, no I/O.

A group (Telegram chat) is one room. Its settings are a flat dict of JSON values; the store keeps
only the values an admin changed and fills in :data:`DEFAULT_GROUP_SETTINGS` when reading.

Settings (key: values, default):

- ``language``: ``"zh-Hans"``, ``"zh-Hant"``, ``"en"`` or ``None`` (the bot's default language).
- ``timezone``: IANA name for the day boundary of check-ins and leaderboards (``Asia/Shanghai``).
- ``players``: seats at the table: ``3`` (RULES.md §1–§9, the default) or ``4`` (the
  four-player, two-deck game of RULES.md §11, engine preset ``four``). With four seats the
  options §11 does not have (``bidding`` rob, ``doubling``, ``show_cards``, ``third_min_two``,
  ``rocket_kickers``, ``four_two_is_bomb``, ``alarm_at``, ``all_pass_forced_landlord``,
  ``redeal_rule``) are kept
  but not passed to the engine: the four-player game bids 1/2/3, never doubles, forces a
  landlord when all pass (逼打) and announces 10 cards left (:func:`rules_for`).
- ``bidding``: preset ``"score"`` (RULES.md §2.1) or ``"rob"`` (§2.2).
- ``doubling``: §3 doubling on/off, ``None`` = the preset's default (off for score, on for rob).
- ``show_cards``: §3 show cards allowed (off).
- ``stake_tier``: §8 ``"beginner"`` (10 beans/point, no minimum), ``"regular"`` (20, balance ≥ 280
  to sit), ``"expert"`` (50, ≥ 850) or ``"custom"`` (``custom_stake`` beans/point,
  ``custom_min_balance`` to sit).
- ``custom_stake`` (10), ``custom_min_balance`` (0): used by the ``custom`` tier only.
- ``multiplier_cap``: §7 cap on the multiplier (封顶), ``None`` = unlimited.
- ``play_timeout``, ``bid_timeout``: §9 seconds, ``None`` = the bot's defaults (30 s and 15 s).
- ``autoplay``: §9 what plays for a seat on auto-play: ``"simple"`` (the seeds' rule: lead the
  smallest single, otherwise pass; the default) or ``"ai"`` (the built-in AI).
- ``bot_level``: how well the bot seats ("Add bot") play: ``"easy"``, ``"normal"`` (the
  default) or ``"hard"`` (``engine.ai`` levels).
- ``redeal_rule``: §2.3 when everybody passes again and again: ``"redeal"`` (deal again
  without end; a table closes after ``engine.redeal.REDEAL_VALVE`` redeals in a row, and says
  so), ``"forced_bid"`` (the third deal's first bidder may not pass) or ``"penalty"`` (the third
  all-pass deal in a row costs the first bidder 4 points, 2 to each other seat); ``None``, the
  default: §2.3's own defaults, ``redeal`` at a group's table and ``forced_bid`` in a match
  (:func:`rules_for`). Not at a four-seat table (逼打: it never redeals).
- ``winner_bids_first``: §1.4 option, the winner of the last deal bids first (off: the first
  bidder rotates).
- House options: ``third_min_two`` (§2.1, off), ``all_pass_forced_landlord`` (§2, off),
  ``rocket_kickers`` (§5, off), ``four_two_is_bomb`` (§5, off), ``alarm_at`` (§4.5, 2 or 3),
  ``autoplay_penalty`` (§9, on).
- ``daily_post``: post yesterday's top 3 at the end of each day (on).
- ``give_enabled``: ``/give`` between players allowed (off).
- ``pictures``: the table, hand and result messages are pictures with captions (on);
  off: text only.
- ``card_counter``: each player's private hand message carries the card counter (记牌器:
  how many of each rank are still out, from public information only; on).
- ``auto_pass``: 自动要不起: when nothing in a human's hand can follow the play to beat, the bot
  passes for them after ``BOT_MOVE_DELAY`` instead of prompting them with the one button 要不起
  (pass is then the only legal action, RULES.md §4 rule 2, §11; on). Off: the prompt and its
  button, as for a seat that may choose.
- ``challenge_open``: who may open a duplicate challenge (``/challenge``) or a group
  tournament (``/tournament``, RULES.md §10.1):
  ``"admins"`` (the default) or ``"anyone"``.
- ``daily_challenge``: a duplicate challenge opens by itself every day (off).
- ``hands``: where each player's hand, prompts and outcome are shown: ``"group"`` (an
  ephemeral message in the group that only its player sees), ``"private"`` (the player's
  private chat with the bot) or ``None``, the default: the bot's ``DEFAULT_HANDS``. A player may
  choose otherwise for themselves (the button in their hand); a four-seat table keeps private.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any
from zoneinfo import available_timezones

from bot.core.i18n import LANGUAGE_NAMES, LANGUAGES, match_language, t
from bot.core.numbers import parse_whole
from engine.presets import REDEAL_RULES, Rules, preset


@dataclass(frozen=True, slots=True)
class StakeTier:
    """A room's stake (RULES.md §8): ``stake`` beans per point, ``min_balance`` beans to sit."""

    name: str
    stake: int
    min_balance: int


#: RULES.md §8: the seeds' tiers scaled ×10.
STAKE_TIERS: dict[str, StakeTier] = {
    "beginner": StakeTier("beginner", 10, 0),
    "regular": StakeTier("regular", 20, 280),
    "expert": StakeTier("expert", 50, 850),
}

DEFAULT_GROUP_SETTINGS: dict[str, Any] = {
    "language": None,
    "timezone": "Asia/Shanghai",
    "players": 3,
    "bidding": "score",
    "doubling": None,
    "show_cards": False,
    "stake_tier": "beginner",
    "custom_stake": 10,
    "custom_min_balance": 0,
    "multiplier_cap": None,
    "play_timeout": None,
    "bid_timeout": None,
    "autoplay": "simple",
    "bot_level": "normal",
    "third_min_two": False,
    "all_pass_forced_landlord": False,
    "redeal_rule": None,
    "winner_bids_first": False,
    "rocket_kickers": False,
    "four_two_is_bomb": False,
    "alarm_at": 2,
    "autoplay_penalty": True,
    "daily_post": True,
    "give_enabled": False,
    "pictures": True,
    "card_counter": True,
    "auto_pass": True,
    "challenge_open": "admins",
    "daily_challenge": False,
    "hands": None,
}

#: Group settings that are engine rule options (``engine.presets.Rules`` fields).
RULE_KEYS = (
    "doubling",
    "show_cards",
    "multiplier_cap",
    "third_min_two",
    "all_pass_forced_landlord",
    "rocket_kickers",
    "four_two_is_bomb",
    "alarm_at",
    "autoplay_penalty",
    "winner_bids_first",
)

#: RULES.md §2.3: the redeal rule where the group left ``redeal_rule`` at its default.
DEFAULT_REDEAL_RULE = "redeal"
#: RULES.md §2.3, §10: the redeal rule of a match where the group left it at its default.
COMPETITION_REDEAL_RULE = "forced_bid"


class GroupSettingError(ValueError):
    """A setting change was refused; nothing was changed.

    Attributes:
        key: the setting's name.
        code: ``"unknown_setting"`` or ``"invalid_value"`` (stable, for translated messages).
    """

    def __init__(self, key: str, code: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.code = code


def _choice(*options: Any) -> Callable[[Any], bool]:
    return lambda v: any(v is o or (type(v) is type(o) and v == o) for o in options)


def _flag(value: Any) -> bool:
    return isinstance(value, bool)


def _int_range(low: int, high: int, *, optional: bool = False) -> Callable[[Any], bool]:
    def check(value: Any) -> bool:
        if value is None:
            return optional
        return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high

    return check


#: Entries of the system's zone database that are no place's time: the machine's own zone
#: (``localtime``), the "time zone not set" placeholder (``Factory``), and the POSIX rules
#: files and the leap-second and System V copies of the database on some systems.
NOT_ZONES = frozenset({"localtime", "Factory", "posixrules"})
NOT_ZONE_DIRS = ("posix/", "right/", "SystemV/")


@cache
def _timezones() -> frozenset[str]:
    """The IANA zones ``/settings timezone`` accepts: the system's, without :data:`NOT_ZONES`
    and :data:`NOT_ZONE_DIRS` entries.

    >>> "Asia/Taipei" in _timezones(), "localtime" in _timezones(), "Factory" in _timezones()
    (True, False, False)
    """
    return frozenset(name for name in available_timezones()
                     if name not in NOT_ZONES and not name.startswith(NOT_ZONE_DIRS))


@cache
def _timezones_by_lower() -> dict[str, str]:
    return {name.lower(): name for name in _timezones()}


def _timezone(value: Any) -> bool:
    return isinstance(value, str) and value in _timezones()


#: Seconds a group may give a decision (``play_timeout``, ``bid_timeout``; RULES.md §9): the
#: menu offers 10–90 s to play and 10–30 s to bid, ``/settings play_timeout N`` takes any whole
#: number in this range (the old 600 s let one turn stall a table for ten
#: minutes; 5 s stays for quick tables).
TIMEOUT_RANGE = (5, 120)

#: The whole-number settings with a range of values (``/settings KEY N`` outside it is told the
#: range): ``(low, high)`` beans, points or seconds. ``multiplier_cap``,
#: ``play_timeout`` and ``bid_timeout`` may also be ``None`` (no cap, the bot's own time).
INT_RANGES: dict[str, tuple[int, int]] = {
    "custom_stake": (1, 10_000),
    "custom_min_balance": (0, 10_000_000),
    "multiplier_cap": (1, 1_000_000),
    "play_timeout": TIMEOUT_RANGE,
    "bid_timeout": TIMEOUT_RANGE,
}
_OPTIONAL_INTS = frozenset({"multiplier_cap", "play_timeout", "bid_timeout"})

#: The settings with a fixed list of values (``None``: the bot's default).
CHOICES: dict[str, tuple[Any, ...]] = {
    "language": (*LANGUAGES, None),
    "players": (3, 4),
    "bidding": ("score", "rob"),
    "stake_tier": (*STAKE_TIERS, "custom"),
    "autoplay": ("simple", "ai"),
    "bot_level": ("easy", "normal", "hard"),
    "alarm_at": (2, 3),
    "challenge_open": ("admins", "anyone"),
    "hands": ("group", "private", None),
    "redeal_rule": (*REDEAL_RULES, None),
}

_CHECKS: dict[str, Callable[[Any], bool]] = {
    "timezone": _timezone,
    "doubling": lambda v: v is None or _flag(v),
    **{key: _choice(*options) for key, options in CHOICES.items()},
    **{key: _int_range(*bounds, optional=key in _OPTIONAL_INTS)
       for key, bounds in INT_RANGES.items()},
    **{key: _flag for key, value in DEFAULT_GROUP_SETTINGS.items() if isinstance(value, bool)},
}


def validate_changes(changes: Mapping[str, Any]) -> dict[str, Any]:
    """Check a set of setting changes; returns them as a new dict.

    Values must already have their JSON type (``True``, ``20``, ``"rob"``, ``None``); use
    :func:`parse_value` for text typed by an admin.

    Raises:
        GroupSettingError: the first unknown key or invalid value.
    """
    for key, value in changes.items():
        check = _CHECKS.get(key)
        if check is None:
            raise GroupSettingError(key, "unknown_setting", f"unknown setting {key!r}")
        if not check(value):
            raise GroupSettingError(key, "invalid_value", f"invalid value for {key}: {value!r}")
    return dict(changes)


def with_defaults(stored: Mapping[str, Any]) -> dict[str, Any]:
    """The full settings: defaults overlaid with the valid stored values.

    Unknown keys and values that no longer validate (e.g. from an older version) are ignored.
    """
    settings = dict(DEFAULT_GROUP_SETTINGS)
    for key, value in stored.items():
        check = _CHECKS.get(key)
        if check is not None and check(value):
            settings[key] = value
    return settings


#: The words a flag or a default takes: English ones, and the menu's own words in every
#: language (``开``/``關``/``默认``…: what the bot shows for the value, typed back to it).
_TRUE = {"on", "true", "yes", "1", *(t("set.on", lang).lower() for lang in LANGUAGES)}
_FALSE = {"off", "false", "no", "0", *(t("set.off", lang).lower() for lang in LANGUAGES)}
_NONE = {"none", "default", "unlimited", "-",
         *(t(word, lang).lower() for word in ("set.default", "set.unlimited")
           for lang in LANGUAGES)}
#: Commas between groups of three digits (``10,000``; not ``1,0`` or ``,5``).
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}(?:\D|$))")
#: A language by the name the menu shows for it (``繁體中文``, ``english``).
_LANGUAGE_BY_NAME = {name.lower(): tag for tag, name in LANGUAGE_NAMES.items()}
_INT_KEYS = {
    "players",
    "custom_stake",
    "custom_min_balance",
    "multiplier_cap",
    "play_timeout",
    "bid_timeout",
    "alarm_at",
}


def parse_value(key: str, text: str) -> Any:
    """Parse the text an admin typed for setting ``key`` into its JSON value and validate it.

    Flags accept ``on/off/true/false/yes/no/1/0`` and the menu's words for on and off in every
    language (``开``/``关``, ``開``/``關``); settings that may be ``None`` accept
    ``none``/``default``/``unlimited``/``-`` and the menu's words for them (``默认``, ``不封顶``),
    and ``off`` for numbers, for ``None``. Numbers may group their thousands with commas
    (``1,000``, as the bot writes them). A language is any tag :func:`bot.core.i18n.match_language`
    understands (``zh-TW``, ``zh-hk`` → zh-Hant, ``zh-cn`` → zh-Hans, ``en-US`` → en), as for
    players' Telegram languages, or its name in the menu (``繁體中文``). A time zone's name is
    read in any letter case (``asia/shanghai``).

    >>> parse_value("play_timeout", "20"), parse_value("give_enabled", "on")
    (20, True)
    >>> parse_value("auto_pass", "关"), parse_value("custom_stake", "1,000")
    (False, 1000)
    >>> parse_value("language", "zh-TW"), parse_value("language", "en-US")
    ('zh-Hant', 'en')
    >>> parse_value("language", "繁體中文"), parse_value("timezone", "asia/shanghai")
    ('zh-Hant', 'Asia/Shanghai')
    >>> parse_value("multiplier_cap", "off") is None
    True

    Raises:
        GroupSettingError: unknown key or a value that does not parse or validate.
    """
    if key not in _CHECKS:
        raise GroupSettingError(key, "unknown_setting", f"unknown setting {key!r}")
    word = text.strip()
    lowered = word.lower()
    flag = isinstance(DEFAULT_GROUP_SETTINGS[key], bool) or key == "doubling"
    value: Any
    if flag and lowered in _TRUE:
        value = True
    elif flag and lowered in _FALSE:
        value = False
    elif _CHECKS[key](None) and (lowered in _NONE or lowered == "off"):
        value = None
    elif key in _INT_KEYS:
        number = parse_whole(_THOUSANDS.sub("", word))  # ASCII digits only: "²" is not 2
        value = word if number is None else number
    elif key == "language":  # Telegram-style tags as everywhere: zh-TW, zh-cn, en-US…
        value = _LANGUAGE_BY_NAME.get(lowered) or match_language(word) or word
    elif key == "timezone":
        value = _timezones_by_lower().get(lowered, word)
    elif key == "redeal_rule":  # forced_bid, forced-bid
        value = lowered.replace("-", "_")
    else:
        value = lowered
    return validate_changes({key: value})[key]


def typed_choices(key: str, lang: str = "en") -> tuple[str, ...] | None:
    """What an admin may type after ``/settings KEY`` for a setting with a fixed list of
    values, in the words :func:`parse_value` takes: on and off for a flag, the default for the
    bot's own, each as the menu writes it in ``lang`` (``on``/``开``, ``default``/``默认``);
    ``None`` for the settings whose values are numbers or time zones.

    >>> typed_choices("auto_pass"), typed_choices("doubling"), typed_choices("players")
    (('on', 'off'), ('on', 'off', 'default'), ('3', '4'))
    >>> typed_choices("doubling", "zh-Hans"), typed_choices("play_timeout") is None
    (('开', '关', '默认'), True)
    """
    on, off, default = (t(f"set.{word}", lang).lower() for word in ("on", "off", "default"))
    if key == "doubling":
        return (on, off, default)
    if isinstance(DEFAULT_GROUP_SETTINGS.get(key), bool):
        return (on, off)
    options = CHOICES.get(key)
    if options is None:
        return None
    return tuple(default if option is None else str(option) for option in options)


def room_stake(settings: Mapping[str, Any]) -> StakeTier:
    """The stake tier of a room from its full settings (RULES.md §8).

    >>> room_stake({"stake_tier": "regular"})
    StakeTier(name='regular', stake=20, min_balance=280)
    """
    name = settings.get("stake_tier", "beginner")
    if name == "custom":
        return StakeTier("custom", settings["custom_stake"], settings["custom_min_balance"])
    return STAKE_TIERS[name]


#: The rule options a four-seat table (``players`` 4) passes to the engine: the others are the
#: three-player game's and the ``four`` preset refuses them (RULES.md §11).
FOUR_RULE_KEYS = ("multiplier_cap", "autoplay_penalty", "winner_bids_first")


def is_four(settings: Mapping[str, Any]) -> bool:
    """The room plays the four-player game (setting ``players`` 4, RULES.md §11)."""
    return settings.get("players") == 4


def preset_name(rules: Rules) -> str:
    """The name a table shows for its rules: ``"four"`` for the four-player game (RULES.md
    §11), else the bidding preset (``"score"``, ``"rob"``)."""
    return "four" if rules.variant == "four" else rules.bidding


def rules_for(settings: Mapping[str, Any], *, competition: bool = False) -> Rules:
    """The engine rules of a room's next deal from its full settings.

    ``doubling`` = ``None`` keeps the preset's own default (RULES.md §3); ``redeal_rule`` =
    ``None`` is ``redeal`` at a group's table and ``forced_bid`` for a match (``competition``,
    RULES.md §2.3). With ``players`` 4 the preset is ``four`` (RULES.md §11) with only
    :data:`FOUR_RULE_KEYS` applied.

    >>> rules_for({"players": 4, "bidding": "rob", "show_cards": True}).seats
    4
    >>> rules_for({}).redeal_rule, rules_for({}, competition=True).redeal_rule
    ('redeal', 'forced_bid')

    Raises:
        ValueError: a value the engine does not accept.
    """
    if is_four(settings):
        return preset("four", **{key: settings[key] for key in FOUR_RULE_KEYS if key in settings})
    options = {key: settings[key] for key in RULE_KEYS if key in settings}
    if options.get("doubling") is None:
        options.pop("doubling", None)
    options["redeal_rule"] = settings.get("redeal_rule") or (
        COMPETITION_REDEAL_RULE if competition else DEFAULT_REDEAL_RULE)
    return preset(settings.get("bidding", "score"), **options)
