"""The words the pictures draw, in one language.

``images`` imports nothing of the bot, so the bot fills a :class:`Labels` from its catalogues
(``bot.presentation.scenes.picture_labels``: the field ``landlord`` is the message
``pic.landlord``…) and puts it in each scene; the defaults are the English catalogue's words, for
tests and benchmarks. Fields with ``{placeholders}`` are ``str.format`` templates; ``lang`` picks
the font's glyph forms (:func:`images.text.faces`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from images.errors import RenderError


@dataclass(frozen=True, slots=True)
class Labels:
    """Every word of the table, result, hand and leaderboard pictures.

    Attributes (placeholders in braces):
        lang: the language tag of the words (``zh-Hans``, ``zh-Hant``, ``en``).
        landlord, farmer: the roles (RULES.md §2).
        autoplay, doubled: a seat's tags: on auto-play (RULES.md §9), doubled (RULES.md §3).
        base: the base score, ``{base}`` (RULES.md §7); ``base_unset`` before bidding set it.
        multiplier: a multiplier, ``{n}``.
        landlord_wins, farmers_win: the result's title; ``escape_title`` with ``{names}``.
        escape_paid: a leaver's payment, ``{name}``, ``{points}``, ``{beans}`` (RULES.md §9);
            ``escape_points`` the same without beans; ``practice_left``: the title when
            ``{names}`` left a practice deal (nobody pays), ``practice_free`` the tag under it
            where the multiplier's parts would be; ``bidding_escape``: the flat
            payment of a seat that left during the bidding before anyone bid, ``{n}`` points;
            ``bidding_escape_bid``: the payment of one that left after a bid, ``{n}`` points
            for the highest bid ``{base}`` and the multiplier so far ``{m}`` (RULES.md §9).
        win, lose, left, penalty, short: a result row's tags (``penalty``: the auto-play
            penalty; ``short``: a loser who paid every bean it held, RULES.md §8).
        points, beans: a result row's column heads.
        played_out: a row (or a hand) left with no card.
        rob, bombs, rockets: ``{n}`` times, ``{m}`` the factor (``rob_one``, ``bomb_one``,
            ``rocket_one``: the same once, ``{m}`` only); ``show``, ``landlord_double``,
        ``double``, ``spring``, ``anti_spring``, ``cap``: ``{m}``; ``shown``: the tag of a
        seat that showed its cards; ``head_bid``: the four-player 头撂 bonus, ``{n}`` points;
            ``allowance``: a four-player farmer's bombs left, ``{n}`` (RULES.md §11).
        place, player, net_beans, balance, deals, win_rate: the leaderboard's column heads.
        no_rows: an empty leaderboard.
        matchpoints, no_entrants: a duplicate challenge's board: its score's column head
            (RULES.md §10) and a board nobody entered yet; ``boards``: its deals' column head
            (副数); ``final`` and ``cancelled``: a closed board's marks.
        score, chips, prize: a match's standings: the points (fixed-deal) or chips (knock-out)
            and the prize column heads (RULES.md §10); ``standings`` and ``match_over`` their
            titles after a deal and at the end, ``{format}`` the match's format.
    """

    lang: str = "en"
    landlord: str = "Landlord"
    farmer: str = "Farmer"
    autoplay: str = "Auto-play"
    doubled: str = "Double"
    base: str = "Base {base}"
    base_unset: str = "Base –"
    multiplier: str = "×{n}"
    landlord_wins: str = "Landlord wins"
    farmers_win: str = "Farmers win"
    escape_title: str = "{names} left the deal"
    escape_paid: str = "{name} left and pays {points} points ({beans} beans)"
    escape_points: str = "{name} left and pays {points} points"
    practice_left: str = "{names} ended the practice"
    practice_free: str = "Practice: no points"
    bidding_escape: str = ("Left during the bidding: the leaver pays a flat {n} points (no base "
                           "or multiplier yet).")
    bidding_escape_bid: str = ("Left during the bidding at base {base} ×{m}: the leaver pays {n} "
                               "points (3 × base × multiplier, at least 6).")
    win: str = "Win"
    lose: str = "Lose"
    left: str = "Left"
    penalty: str = "Auto-play penalty"
    short: str = "Short of beans"
    points: str = "Points"
    beans: str = "Beans"
    played_out: str = "Played out"
    rob: str = "Robbed {n} times ×{m}"
    rob_one: str = "Robbed once ×{m}"
    show: str = "Show ×{m}"
    shown: str = "Show cards"
    landlord_double: str = "Landlord doubles ×{m}"
    double: str = "Double ×{m}"
    bombs: str = "{n} bombs ×{m}"
    bomb_one: str = "1 bomb ×{m}"
    rockets: str = "{n} rockets ×{m}"
    rocket_one: str = "Rocket ×{m}"
    spring: str = "Spring ×{m}"
    anti_spring: str = "Anti-spring ×{m}"
    cap: str = "Cap ×{m}"
    head_bid: str = "Head bid +{n}"
    allowance: str = "Bombs left: {n}"
    place: str = "#"
    player: str = "Player"
    net_beans: str = "Beans won"
    balance: str = "Balance"
    deals: str = "Deals"
    win_rate: str = "Win rate"
    no_rows: str = "No deals yet"
    matchpoints: str = "Matchpoints"
    no_entrants: str = "Nobody has entered yet"
    boards: str = "Deals"
    final: str = "Final"
    cancelled: str = "Cancelled"
    score: str = "Score"
    chips: str = "Chips"
    prize: str = "Prize"
    standings: str = "Standings · {format}"
    match_over: str = "Match over · {format}"

    def __post_init__(self) -> None:
        for field in fields(self):
            value = getattr(self, field.name)
            if not isinstance(value, str) or not value.strip():
                raise RenderError(f"label {field.name} must be a non-empty string")

    @classmethod
    def words(cls) -> tuple[str, ...]:
        """The word fields (every field but ``lang``), in order."""
        return tuple(f.name for f in fields(cls) if f.name != "lang")


#: The English words (every scene's default).
ENGLISH = Labels()
