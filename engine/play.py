"""A play's value type and what beats what, for both games (RULES.md §5, §6, §11).

:class:`ComboType` names every combination type of RULES.md §5 (three players, one deck) and
§11 (four players, two decks: the same names plus ``joker_bomb``, 天尊); :class:`Play` is one
reading of a set of cards. The readers that turn cards into plays are :mod:`engine.combos`
(§5) and :mod:`engine.four.reader` (§11); the comparison here serves both, because §11's rules
extend §6's without changing any three-player case:

* A chain (straight, pair chain, plane, plane with wings) compares by its main rank in chain
  order (:func:`chain_value`: ``2`` counts 2 and stands only low, ``A`` counts 14 at the top of
  a chain, RULES.md §11). Three-player chains never hold a 2 and end at most at A, where chain
  order is the rank order.
* A bomb's ``n`` is its number of cards in the four-player game (4–8) and 1 in the three-player
  game (also for a four-with-two read as a bomb, RULES.md §5): bombs compare by ``(n, main)``,
  so more cards beat fewer (§11) and three-player bombs compare by rank (§6).
* ``joker_bomb`` (``XXDD``) beats everything (§11); ``rocket`` (``XD``) beats everything (§6).
  Neither game has the other's.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from engine.cards import ACE, BIG_JOKER, RANK_CHARS, SMALL_JOKER, TWO, format_ranks

__all__ = [
    "CHAIN_TYPES", "POSITION_RANK", "ComboType", "Play", "beat_reason", "beats", "body_size",
    "chain_ranks", "chain_value", "play_groups",
]


class ComboType(StrEnum):
    """The combination types of RULES.md §5 and §11, named as the judge protocol names them."""

    SINGLE = "single"
    PAIR = "pair"
    TRIO = "trio"
    TRIO_SINGLE = "trio_single"
    TRIO_PAIR = "trio_pair"
    STRAIGHT = "straight"
    PAIR_CHAIN = "pair_chain"
    PLANE = "plane"
    PLANE_SINGLE = "plane_single"
    PLANE_PAIR = "plane_pair"
    FOUR_TWO_SINGLES = "four_two_singles"
    FOUR_TWO_PAIRS = "four_two_pairs"
    BOMB = "bomb"
    ROCKET = "rocket"
    #: RULES.md §11: the four jokers ``XXDD`` (天尊) of the two-deck game.
    JOKER_BOMB = "joker_bomb"


@dataclass(frozen=True, slots=True)
class Play:
    """One reading of a set of cards (RULES.md §5, §11).

    Attributes:
        type: the combination type.
        main: main rank ``0..14`` (RULES.md §6): the rank of a single/pair/trio/bomb, the highest
            rank of a chain or plane body in chain order (``5`` for ``A2345``, RULES.md §11); for
            a rocket or joker bomb, the big joker.
        n: number of consecutive groups for chains and planes; the number of cards of a
            four-player bomb (4–8, RULES.md §11); else 1.
        cards: the ranks played, sorted low to high.

    ``str(play)`` is the canonical card string, e.g. ``'33344456'``.
    """

    type: ComboType
    main: int
    n: int
    cards: tuple[int, ...]

    def __str__(self) -> str:
        return format_ranks(self.cards)

    @property
    def main_char(self) -> str:
        """The main rank as a judge character, e.g. ``'6'``."""
        return RANK_CHARS[self.main]


_T = ComboType
#: Types whose body is a run of consecutive ranks compared in chain order (RULES.md §6, §11).
CHAIN_TYPES = frozenset({_T.STRAIGHT, _T.PAIR_CHAIN, _T.PLANE, _T.PLANE_SINGLE, _T.PLANE_PAIR})
#: Cards in one group of the body, per type (the body is what the main rank is read from).
_GROUP_SIZE = {
    _T.SINGLE: 1, _T.PAIR: 2, _T.TRIO: 3, _T.TRIO_SINGLE: 3, _T.TRIO_PAIR: 3, _T.STRAIGHT: 1,
    _T.PAIR_CHAIN: 2, _T.PLANE: 3, _T.PLANE_SINGLE: 3, _T.PLANE_PAIR: 3,
    _T.FOUR_TWO_SINGLES: 4, _T.FOUR_TWO_PAIRS: 4, _T.BOMB: 4, _T.ROCKET: 2, _T.JOKER_BOMB: 4,
}
#: Types whose kickers are pairs (RULES.md §5, §11); other types' kickers are single cards.
_PAIR_KICKERS = frozenset({_T.TRIO_PAIR, _T.PLANE_PAIR, _T.FOUR_TWO_PAIRS})


def chain_value(rank: int) -> int:
    """A chain's top rank in chain order (RULES.md §11): ``3``…``K`` count 3…13, ``2`` counts
    2 (it stands only low), ``A`` counts 14 (an A on top is high; A counts 1 only at the
    bottom of ``A2345``, where it is never the main rank).

    >>> [chain_value(r) for r in (0, 10, 11, 12)]
    [3, 13, 14, 2]
    """
    if rank == TWO:
        return 2
    return 14 if rank == ACE else rank + 3


def chain_ranks(main: int, n: int) -> tuple[int, ...]:
    """The ``n`` ranks of a chain whose top is ``main``, from its bottom in chain order
    (RULES.md §11: ``A`` low below ``2``; for three-player chains simply ``main-n+1 … main``).

    >>> chain_ranks(2, 5), chain_ranks(11, 3)
    ((11, 12, 0, 1, 2), (9, 10, 11))
    """
    top = chain_value(main)
    return tuple(POSITION_RANK[v] for v in range(top - n + 1, top + 1))


#: Chain order position → rank (index 0 unused): 1 is a low A, 2 the 2, 3…13 are 3…K, 14 a high
#: A (RULES.md §11; :func:`chain_value` is the inverse for a chain's top).
POSITION_RANK = (-1, ACE, TWO, *range(0, 11), ACE)


def body_size(play: Play) -> int:
    """Number of cards in the play's body (the cards that are not kickers).

    >>> from engine.combos import classify
    >>> body_size(classify((0, 0, 0, 1, 1, 1, 2, 2, 2, 4, 4, 4))[0])
    9
    """
    if play.type is _T.BOMB:
        return play.cards.count(play.main)
    return _GROUP_SIZE[play.type] * play.n


def play_groups(play: Play) -> tuple[tuple[int, ...], ...]:
    """The play's ranks grouped as people read them (RULES.md §5, §11): the body first, a group
    per rank in chain order (a straight's cards one by one, a rocket's two jokers apart, a joker
    bomb as ``XX DD``), then the kickers low to high, one group per kicker (a single card, or a
    pair for ``trio_pair``, ``plane_pair``, ``four_two_pairs`` and an 8-card four-with-two read
    as a ``bomb`` under ``four_two_is_bomb``).

    >>> from engine.combos import classify
    >>> play_groups(classify((0, 2, 2, 2))[0])
    ((2, 2, 2), (0,))
    >>> play_groups(classify((0, 0, 0, 1, 1, 1, 2, 3))[0])
    ((0, 0, 0), (1, 1, 1), (2,), (3,))
    """
    body: list[tuple[int, ...]]
    if play.type is _T.ROCKET:
        body = [(SMALL_JOKER,), (BIG_JOKER,)]
    elif play.type is _T.JOKER_BOMB:
        body = [(SMALL_JOKER,) * 2, (BIG_JOKER,) * 2]
    elif play.type is _T.BOMB:
        body = [(play.main,) * play.cards.count(play.main)]
    elif play.type in CHAIN_TYPES:
        size = _GROUP_SIZE[play.type]
        body = [(r,) * size for r in chain_ranks(play.main, play.n)]
    else:
        body = [(play.main,) * _GROUP_SIZE[play.type]]
    kickers = list(play.cards)
    for group in body:
        for rank in group:
            kickers.remove(rank)
    pairs = play.type in _PAIR_KICKERS or (play.type is _T.BOMB and len(kickers) == 4)
    unit = 2 if pairs else 1
    return tuple(body) + tuple(tuple(kickers[i:i + unit]) for i in range(0, len(kickers), unit))


def beat_reason(play: Play, prev: Play) -> str | None:
    """Why ``play`` cannot be played on top of ``prev`` (RULES.md §6, §11), or ``None`` if it can.

    Codes:
        ``"type_mismatch"``: a different type that is not a bomb, rocket or joker bomb beating
        ``prev`` (including any non-bomb played on a bomb);
        ``"length_mismatch"``: the same type with another number of cards or groups;
        ``"too_low"``: the main rank is not higher (chains in chain order), also: a bomb on a
        bomb that is not smaller (fewer cards, or as many of a lower rank), anything on a rocket
        or joker bomb.

    A rocket (§6) and a joker bomb (§11) beat everything. Kickers never matter.
    """
    if play.type is _T.ROCKET or play.type is _T.JOKER_BOMB:
        return None
    if prev.type is _T.ROCKET or prev.type is _T.JOKER_BOMB:
        return "too_low"
    if play.type is _T.BOMB:
        if prev.type is not _T.BOMB or (play.n, play.main) > (prev.n, prev.main):
            return None
        return "too_low"
    if play.type is not prev.type:
        return "type_mismatch"
    if play.n != prev.n or len(play.cards) != len(prev.cards):
        return "length_mismatch"
    if play.type in CHAIN_TYPES:
        higher = chain_value(play.main) > chain_value(prev.main)
    else:
        higher = play.main > prev.main
    return None if higher else "too_low"


def beats(play: Play, prev: Play) -> bool:
    """True if ``play`` may be played on top of ``prev`` (RULES.md §6, §11).

    >>> rocket = Play(ComboType.ROCKET, BIG_JOKER, 1, (SMALL_JOKER, BIG_JOKER))
    >>> bomb = Play(ComboType.BOMB, TWO, 1, (TWO,) * 4)
    >>> beats(rocket, bomb), beats(bomb, rocket)
    (True, False)
    """
    return beat_reason(play, prev) is None
