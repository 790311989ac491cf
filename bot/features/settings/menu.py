"""The ``/settings`` inline menu of a group: what it offers, its button data, and its texts and
keyboards (the settings themselves are :mod:`bot.core.rooms`). Pure, no I/O.

Every button carries ``C:<version>:<op>[:<key>[:<index>]]`` (at most 64 bytes):

* ``version``: :func:`settings_version` of the settings the menu was drawn for. A press whose
  version is not the group's current one is stale and changes nothing (the menu is redrawn), so
  two admins never overwrite each other by accident and an old menu cannot replay a change.
* ``op``: ``m`` main page, ``x`` close, ``o`` open the options page of ``key``, ``t`` toggle the
  on/off setting ``key``, ``s`` set ``key`` to its option number ``index`` (:data:`MENU`).

Button data comes from the client and can be forged: :func:`parse_menu_data` accepts only data
this menu could draw (known op, known key of the right kind, option index in range) and raises
:class:`MenuDataError` otherwise; the handler also checks the version and that the presser is an
admin.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.core.i18n import LANGUAGE_NAMES, t
from bot.core.numbers import grouped
from bot.core.rooms import STAKE_TIERS, is_four, room_stake, rules_for
from bot.presentation.keyboards import Button, Keyboard

PREFIX = "C"
VERSION_LENGTH = 6

#: Time zones offered in the menu; any other IANA zone can be typed (``/settings timezone …``).
TIMEZONES = (
    "Asia/Shanghai", "Asia/Hong_Kong", "Asia/Taipei", "Asia/Singapore", "Asia/Tokyo",
    "Europe/London", "Europe/Berlin", "America/New_York", "America/Los_Angeles", "UTC",
)


@dataclass(frozen=True, slots=True)
class MenuItem:
    """One setting of the menu: ``options`` to choose from, or none for an on/off toggle."""

    key: str
    options: tuple[Any, ...] = ()

    @property
    def is_toggle(self) -> bool:
        return not self.options


#: The menu, in display order (RULES.md §2, §3, §5, §7, §8, §9 and the group's own options).
MENU: tuple[MenuItem, ...] = (
    MenuItem("language", ("zh-Hans", "zh-Hant", "en")),
    MenuItem("players", (3, 4)),
    MenuItem("bidding", ("score", "rob")),
    MenuItem("doubling"),
    MenuItem("show_cards"),
    MenuItem("stake_tier", (*STAKE_TIERS, "custom")),
    MenuItem("multiplier_cap", (None, 8, 16, 32, 64, 128, 256)),
    MenuItem("play_timeout", (None, 10, 15, 20, 30, 45, 60, 90)),
    MenuItem("bid_timeout", (None, 10, 15, 20, 30)),
    MenuItem("autoplay", ("simple", "ai")),
    MenuItem("bot_level", ("easy", "normal", "hard")),
    MenuItem("autoplay_penalty"),
    MenuItem("third_min_two"),
    MenuItem("all_pass_forced_landlord"),
    MenuItem("redeal_rule", (None, "redeal", "forced_bid", "penalty")),
    MenuItem("winner_bids_first"),
    MenuItem("rocket_kickers"),
    MenuItem("four_two_is_bomb"),
    MenuItem("alarm_at", (2, 3)),
    MenuItem("daily_post"),
    MenuItem("give_enabled"),
    MenuItem("pictures"),
    MenuItem("card_counter"),
    MenuItem("auto_pass"),
    MenuItem("hands", (None, "group", "private")),
    MenuItem("challenge_open", ("admins", "anyone")),
    MenuItem("daily_challenge"),
    MenuItem("timezone", TIMEZONES),
)
ITEMS: dict[str, MenuItem] = {item.key: item for item in MENU}
#: Settings of the three-player game only: a four-seat table (``players`` 4, RULES.md §11) does
#: not use them, so its menu hides them and says so (:func:`main_page`).
THREE_ONLY = frozenset({
    "bidding", "doubling", "show_cards", "third_min_two", "all_pass_forced_landlord",
    "rocket_kickers", "four_two_is_bomb", "alarm_at", "redeal_rule",
})
#: Options pages that explain how to type a value the page does not offer, or what the
#: options mean (``redeal_rule``, RULES.md §2.3).
TYPED_HINTS = frozenset({"stake_tier", "multiplier_cap", "timezone", "redeal_rule"})

_DATA_RE = re.compile(
    rf"{PREFIX}:(?P<version>[0-9a-f]{{{VERSION_LENGTH}}}):"
    r"(?:(?P<nav>[mx])|(?P<op>[ot]):(?P<key>[a-z_]{1,32})|s:(?P<skey>[a-z_]{1,32}):(?P<index>0|[1-9][0-9]?))"
)


class MenuDataError(ValueError):
    """Button data that this menu did not draw."""


@dataclass(frozen=True, slots=True)
class MenuPress:
    """A parsed press: ``op`` (``m``, ``x``, ``o``, ``t``, ``s``), ``version``, the setting
    ``key`` (``""`` for ``m``/``x``) and the chosen ``value`` (for ``s``)."""

    op: str
    version: str
    key: str = ""
    value: Any = None


def settings_version(settings: Mapping[str, Any]) -> str:
    """A short fingerprint of a group's full settings; any change gives another one.

    >>> len(settings_version({"bidding": "rob"}))
    6
    """
    text = json.dumps(dict(settings), sort_keys=True, separators=(",", ":"))
    return hashlib.sha1(text.encode()).hexdigest()[:VERSION_LENGTH]


def menu_data(version: str, op: str, key: str = "", index: int | None = None) -> str:
    """Button data for a press (see the module docstring).

    Raises:
        MenuDataError: the pieces would not parse back (a bug in the caller).
    """
    parts = [PREFIX, version, op, key, "" if index is None else str(index)]
    data = ":".join(part for part in parts if part)
    parse_menu_data(data)
    return data


def parse_menu_data(data: object) -> MenuPress:
    """Parse and check menu button data; the inverse of :func:`menu_data`.

    Raises:
        MenuDataError: not text, too long, malformed, an unknown setting, ``t`` on a setting
            with options, ``o``/``s`` on an on/off setting, or an option index out of range.
    """
    if not isinstance(data, str) or len(data.encode("utf-8", "surrogatepass")) > 64:
        raise MenuDataError("not menu data")
    match = _DATA_RE.fullmatch(data)
    if match is None:
        raise MenuDataError("malformed menu data")
    version = match["version"]
    if match["nav"]:
        return MenuPress(match["nav"], version)
    key = match["key"] or match["skey"]
    item = ITEMS.get(key)
    if item is None:
        raise MenuDataError("unknown setting")
    if match["op"] == "t":
        if not item.is_toggle:
            raise MenuDataError("not an on/off setting")
        return MenuPress("t", version, key)
    if item.is_toggle:
        raise MenuDataError("an on/off setting has no options")
    if match["op"] == "o":
        return MenuPress("o", version, key)
    index = int(match["index"])
    if index >= len(item.options):
        raise MenuDataError("option out of range")
    return MenuPress("s", version, key, item.options[index])


def effective_value(key: str, settings: Mapping[str, Any]) -> Any:
    """What a setting means for the next deal: ``doubling`` ``None`` is the bidding preset's
    own default (RULES.md §3), every other setting is its stored value."""
    if key == "doubling":
        return rules_for(settings).doubling
    return settings[key]


def value_label(key: str, value: Any, settings: Mapping[str, Any], lang: str,
                default_timeouts: Mapping[str, float]) -> str:
    """How a setting's value reads on a button.

    ``default_timeouts`` maps ``play_timeout``/``bid_timeout`` to the bot's own defaults in
    seconds, shown for ``None``.
    """
    if isinstance(value, bool):
        return t("set.on" if value else "set.off", lang)
    if key == "language":
        return LANGUAGE_NAMES.get(value, t("set.default", lang))
    if key == "bidding":
        return t(f"preset.{value}", lang)
    if key == "stake_tier":
        tier = room_stake({**settings, "stake_tier": value})
        return t(f"set.tier_{value}", lang, stake=grouped(tier.stake),
                 minimum=grouped(tier.min_balance))
    if key == "multiplier_cap":
        return t("set.unlimited", lang) if value is None else f"×{value}"
    if key in ("play_timeout", "bid_timeout"):
        if value is None:
            return t("set.default_seconds", lang, n=f"{default_timeouts[key]:g}")
        return t("set.seconds", lang, n=value)
    if key in ("autoplay", "bot_level", "challenge_open"):
        return t(f"set.{key}_{value}", lang)
    if key == "alarm_at":
        return t("set.alarm_value", lang, n=value)
    if key == "players":
        return t(f"set.players_{value}", lang)
    if key == "redeal_rule":
        return t(f"set.redeal_rule_{value or 'default'}", lang)
    if key == "hands":
        return t(f"set.hands_{value or 'default'}", lang)
    return str(value)


def _label(key: str, settings: Mapping[str, Any], lang: str,
           default_timeouts: Mapping[str, float]) -> str:
    value = effective_value(key, settings)
    return t("set.button", lang, name=t(f"set.name.{key}", lang),
             value=value_label(key, value, settings, lang, default_timeouts))


def main_page(settings: Mapping[str, Any], lang: str,
              default_timeouts: Mapping[str, float]) -> tuple[str, Keyboard]:
    """The menu's first page: one button per setting showing its value (two per row), Close.

    At a four-seat table the settings of the three-player game (:data:`THREE_ONLY`) are left out
    and the title says they do not apply (RULES.md §11)."""
    version = settings_version(settings)
    four = is_four(settings)
    buttons = []
    for item in MENU:
        if four and item.key in THREE_ONLY:
            continue
        op = "t" if item.is_toggle else "o"
        buttons.append(Button(
            _label(item.key, settings, lang, default_timeouts),
            callback_data=menu_data(version, op, item.key),
        ))
    rows = [buttons[i:i + 2] for i in range(0, len(buttons), 2)]
    rows.append([Button(t("set.close", lang), callback_data=menu_data(version, "x"))])
    title = t("set.title", lang)
    if four:
        title += "\n" + t("set.four_hidden", lang)
    return title, Keyboard(rows)


def options_page(key: str, settings: Mapping[str, Any], lang: str,
                 default_timeouts: Mapping[str, float]) -> tuple[str, Keyboard]:
    """The options of one setting, the current one ticked, and Back.

    Raises:
        KeyError: ``key`` is not a menu setting with options.
    """
    item = ITEMS[key]
    if item.is_toggle:
        raise KeyError(key)
    version = settings_version(settings)
    current = effective_value(key, settings)
    rows = []
    for index, option in enumerate(item.options):
        label = value_label(key, option, settings, lang, default_timeouts)
        chosen = option == current and type(option) is type(current)
        rows.append([Button(("✅ " if chosen else "") + label,
                                          callback_data=menu_data(version, "s", key, index))])
    rows.append([Button(t("set.back", lang), callback_data=menu_data(version, "m"))])
    lines = [t("set.page_title", lang, name=t(f"set.name.{key}", lang))]
    if key in TYPED_HINTS:
        lines.append(t(f"set.hint.{key}", lang))
    if is_four(settings) and key in THREE_ONLY:
        lines.append(t("set.four_unused", lang))
    return "\n".join(lines), Keyboard(rows)


#: Settings that are no rule of a deal and apply at once (``/give``, leaderboards, the daily
#: post, challenges), and the one that running deals take from their next move (how messages
#: look, :meth:`bot.features.service.Game.group_settings_changed`); the others count from the next
#: deal (``set.saved``).
SAVED_NOW = frozenset({"give_enabled", "daily_post", "timezone", "challenge_open",
                       "daily_challenge"})
SAVED_NEXT_MOVE = frozenset({"pictures"})


def saved_text(key: str, settings: Mapping[str, Any], lang: str,
               default_timeouts: Mapping[str, float]) -> str:
    """The pop-up (or reply) after a change: the setting's new value and when it applies (at
    once, from the running deals' next move, or from the next deal), and at a four-seat table
    that a setting of the three-player game does not apply there (RULES.md §11)."""
    value = effective_value(key, settings)
    saved = "set.saved_now" if key in SAVED_NOW else \
        "set.saved_next_move" if key in SAVED_NEXT_MOVE else "set.saved"
    text = t(saved, lang, name=t(f"set.name.{key}", lang),
             value=value_label(key, value, settings, lang, default_timeouts))
    if is_four(settings) and key in THREE_ONLY:
        text += " " + t("set.four_unused", lang)
    return text
