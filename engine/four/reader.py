"""The combinations of the four-player, two-deck game and how a set of cards reads
(RULES.md §11 "Combinations").

Only these types exist: ``single``, ``pair`` (two small or two big jokers are a pair, a small
and a big joker are not), ``trio``, ``trio_pair`` (a trio and a pair of another rank; no trio
with a single), ``straight`` (≥ 5), ``pair_chain`` (≥ 3 pairs), ``plane`` (≥ 2 trios, no
wings), ``plane_pair`` (n trios and n pairs whose ranks are consecutive by the same chain rule),
``bomb`` (4–8 of a rank; ``n`` = its number of cards) and ``joker_bomb`` (``XXDD``, 天尊).

Chains run in chain order: ``A 2 3 … K A``; A stands low (``A2345``) or high (``TJQKA``), never
at both ends, 2 only low, jokers never. A chain's main rank is its top in chain order; a set
that fits both windows (all thirteen ranks) reads as the higher one (main ``A``).

Rule choices where §11 is silent (the shared vectors, made by an independent implementation of
§11, agree): a chain's groups hold exactly one, two or three cards of each rank (``33344455``
is nothing, not a plane with a kicker); wing pairs are exactly two cards of ranks outside the
body; jokers may be the pair of a ``trio_pair`` (``333XX``) but never a chain or a wing.
Every set has at most one reading, so :func:`classify_four` returns ``[]`` or one play.

>>> from engine.cards import parse_ranks
>>> [(p.type.value, p.main_char, p.n) for p in classify_four(parse_ranks("A2345", decks=2))]
[('straight', '5', 5)]
>>> [(p.type.value, p.main_char, p.n) for p in classify_four(parse_ranks("33KKKAAA22", decks=2))]
[('plane_pair', 'A', 2)]
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.cards import ACE, BIG_JOKER, RANK_COUNT, SMALL_JOKER, rank_counts
from engine.play import ComboType, Play

__all__ = ["MIN_CHAIN", "chain_top", "classify_four"]

_T = ComboType
#: RULES.md §11: the fewest groups of each chain type.
MIN_CHAIN = {_T.STRAIGHT: 5, _T.PAIR_CHAIN: 3, _T.PLANE: 2, _T.PLANE_PAIR: 2}
#: Chain order position (1 = a low A … 14 = a high A) of each rank but A; jokers have none.
_POSITION = {**{r: r + 3 for r in range(11)}, 12: 2}


def chain_top(ranks: Sequence[int]) -> int | None:
    """The top rank of ``ranks`` (distinct, at least two) as one run in chain order, or
    ``None`` if they are no run (RULES.md §11). All thirteen ranks read as ``…KA`` (top ``A``).

    >>> chain_top((11, 12, 0)), chain_top((9, 10, 11)), chain_top((10, 11, 12)), chain_top((12,))
    (0, 11, None, None)
    """
    n = len(ranks)
    if n < 2 or any(r >= SMALL_JOKER for r in ranks):
        return None
    if ACE not in ranks:
        positions = sorted(_POSITION[r] for r in ranks)
        return _rank_at(positions[-1]) if positions[-1] - positions[0] == n - 1 else None
    positions = sorted(_POSITION[r] for r in ranks if r != ACE)
    if positions[-1] - positions[0] != n - 2:
        return None
    if positions[-1] == 13:  # …K then A on top (also all thirteen ranks: the higher window)
        return ACE
    if positions[0] == 2:  # A low, below 2…
        return _rank_at(positions[-1])
    return None


def _rank_at(position: int) -> int:
    return 12 if position == 2 else position - 3


def classify_four(ranks: Sequence[int]) -> list[Play]:
    """The reading of a set of cards in the four-player game (RULES.md §11), ``[]`` if none.

    ``ranks`` are ranks ``0..14`` in any order, from two decks (use
    :func:`engine.cards.check_ranks` with ``decks=2`` on untrusted input). A list, like
    :func:`engine.combos.classify`, although it never holds more than one reading.
    """
    cards = tuple(sorted(ranks))
    size = len(cards)
    if not size:
        return []
    counts = rank_counts(cards)
    present = [r for r in range(RANK_COUNT) if counts[r]]
    if len(present) == 1:
        return _one_rank(cards, present[0], size)
    if cards == (SMALL_JOKER, SMALL_JOKER, BIG_JOKER, BIG_JOKER):
        return [Play(_T.JOKER_BOMB, BIG_JOKER, 1, cards)]
    shape = sorted({counts[r] for r in present})
    if shape == [2, 3] and len(present) == 2:
        trio = present[0] if counts[present[0]] == 3 else present[1]
        return [Play(_T.TRIO_PAIR, trio, 1, cards)] if trio < SMALL_JOKER else []
    if len(shape) == 1 and shape[0] <= 3:
        kind = (_T.STRAIGHT, _T.PAIR_CHAIN, _T.PLANE)[shape[0] - 1]
        top = chain_top(present)
        if top is None or len(present) < MIN_CHAIN[kind]:
            return []
        return [Play(kind, top, len(present), cards)]
    if shape == [2, 3]:
        body = [r for r in present if counts[r] == 3]
        wings = [r for r in present if counts[r] == 2]
        top = chain_top(body)
        if len(body) != len(wings) or top is None or chain_top(wings) is None:
            return []
        return [Play(_T.PLANE_PAIR, top, len(body), cards)]
    return []


def _one_rank(cards: tuple[int, ...], rank: int, size: int) -> list[Play]:
    if size == 1:
        return [Play(_T.SINGLE, rank, 1, cards)]
    if size == 2:
        return [Play(_T.PAIR, rank, 1, cards)]
    if rank >= SMALL_JOKER:
        return []
    if size == 3:
        return [Play(_T.TRIO, rank, 1, cards)]
    return [Play(_T.BOMB, rank, size, cards)] if size <= 8 else []
