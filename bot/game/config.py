"""A group's settings as one deal sees them: a frozen, typed snapshot taken when the deal starts
("one source of truth per table").

The group's stored settings (``Store.get_group_settings``, defaults filled in from
:data:`bot.core.rooms.DEFAULT_GROUP_SETTINGS`) are read once per deal; a change made by an admin
during the deal counts from the next deal, except ``pictures`` (how messages look, not a rule),
which the game applies from the next change
(:meth:`bot.features.service.Game.group_settings_changed`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.core.i18n import normalize_language
from bot.core.rooms import room_stake, rules_for
from engine.presets import Rules


@dataclass(frozen=True, slots=True)
class TableConfig:
    """What a deal takes from its group's settings.

    Attributes:
        lang: the group's language (every message to the table's audience).
        rules: the engine rules (preset and house options, RULES.md §2–§9).
        stake: beans per point (RULES.md §8); ``min_balance``: beans needed to sit.
        play_timeout, bid_timeout: seconds per decision (RULES.md §9).
        autoplay_mode: ``"simple"`` (the seeds' rule) or ``"ai"`` for seats on auto-play.
        bot_level: the ``engine.ai`` level of bot seats.
        pictures: messages are pictures with captions; ``False``: text only.
        card_counter: each player's private hand message shows the card counter (记牌器,
            :func:`bot.presentation.views.counter_line`).
        auto_pass: a human seat that cannot follow passes by itself (自动要不起,
            :func:`bot.presentation.views.passes_itself`).
        hands: where the players' hands go unless one chose otherwise: ``"group"`` (ephemeral
            messages in the group) or ``"private"``; the group's ``hands`` setting, else the
            bot's ``default_hands``; a four-seat table (RULES.md §11) keeps ``"private"``.
        match_rules: the rules a match started now would play by: ``rules`` with the
            competitions' defaults where the group left a setting at its default
            (``redeal_rule``: ``forced_bid``, RULES.md §2.3); ``None``: ``rules``.
    """

    lang: str
    rules: Rules
    stake: int
    min_balance: int
    play_timeout: float
    bid_timeout: float
    autoplay_mode: str
    bot_level: str
    pictures: bool
    card_counter: bool
    auto_pass: bool
    match_rules: Rules | None = None
    hands: str = "private"

    @classmethod
    def of(cls, group: Mapping[str, Any], *, default_language: str, play_timeout: float,
           bid_timeout: float, default_hands: str = "private") -> TableConfig:
        """The snapshot of a group's full settings (``group``); the bot's defaults fill what
        the group left unset (language, timeouts, where the hands go)."""
        tier = room_stake(group)
        rules = rules_for(group)
        hands = str(group.get("hands") or default_hands)
        if rules.seats != 3:
            hands = "private"
        return cls(
            lang=normalize_language(group.get("language"), default_language),
            rules=rules,
            stake=tier.stake,
            min_balance=tier.min_balance,
            play_timeout=float(group.get("play_timeout") or play_timeout),
            bid_timeout=float(group.get("bid_timeout") or bid_timeout),
            autoplay_mode=str(group.get("autoplay") or "simple"),
            bot_level=str(group.get("bot_level") or "normal"),
            pictures=bool(group.get("pictures", True)),
            card_counter=bool(group.get("card_counter", True)),
            auto_pass=bool(group.get("auto_pass", True)),
            match_rules=rules_for(group, competition=True),
            hands=hands,
        )
