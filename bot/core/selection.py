"""Choosing a play in few taps: the hand keyboard's logic, no Telegram types.

A player builds a *selection* (ranks, one card per tap, :func:`tap`) and the keyboard then
*offers* the plays that complete it (:func:`offers`): a button that plays one of them at once.
Every common play thus takes at most three taps including the play itself, from a hand that
holds it:

* single ``r``: tap ``r``, 出牌. Pair, trio, bomb: tap ``r``, then the offered ``rr`` / ``rrr`` /
  ``rrrr``. Rocket: tap a joker, then the offered rocket.
* trio with a kicker (``3335``, ``33355``): tap the trio's rank and the kicker's, then the offer.
* a chain (straight, pair chain, plane, plane with single or pair wings): tap its two ends, then
  the offered chain between them (a plane's wings are the lowest cards the hand can spare, as
  the AI picks them; other wings cost one more tap each).

When following, only plays that beat the table are offered (the legal plays the caller passes),
so a single tap on a rank usually offers the few plays of the table's type that hold it.

Hint (:func:`hint_order`) cycles through every legal play: the AI's recommendation first, then
the others from the lowest up, bombs and the rocket last.

Counts come from the hand, never from a fixed four per rank, so a two-deck hand (up to 8 copies
of a rank, RULES.md §11) works the same. Plays travel in button data as rank characters
(:func:`encode_ranks`, :func:`decode_ranks`); the data is never trusted: decoding checks the
alphabet and the length, and :func:`holds` checks the hand.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from engine.cards import RANK_CHARS, RANK_COUNT
from engine.play import CHAIN_TYPES, ComboType, Play, chain_ranks, play_groups

#: At most this many plays are offered at once (the keyboard shows them in rows of two).
OFFER_LIMIT = 8
#: The longest play a button can carry: 64 bytes of callback data minus ``S:<token>:<version>:p``.
MAX_ENCODED = 44

_T = ComboType
#: Types a single-rank selection completes to when leading (a lone rank is rarely meant as the
#: end of a chain or a kicker: those start with two taps).
_SAME_RANK = frozenset({_T.PAIR, _T.TRIO, _T.BOMB, _T.ROCKET, _T.JOKER_BOMB})
_BOMBS = frozenset({_T.BOMB, _T.ROCKET, _T.JOKER_BOMB})
#: The order offers are listed in, most common first.
_PRIORITY = {kind: i for i, kind in enumerate([
    _T.SINGLE, _T.PAIR, _T.TRIO, _T.TRIO_SINGLE, _T.TRIO_PAIR, _T.STRAIGHT, _T.PAIR_CHAIN,
    _T.PLANE_SINGLE, _T.PLANE_PAIR, _T.PLANE, _T.FOUR_TWO_SINGLES, _T.FOUR_TWO_PAIRS, _T.BOMB,
    _T.ROCKET, _T.JOKER_BOMB,
])}


def counts(ranks: Iterable[int]) -> list[int]:
    """How many cards of each rank ``0..14`` (any number of copies)."""
    out = [0] * RANK_COUNT
    for rank in ranks:
        out[rank] += 1
    return out


def holds(hand: Sequence[int], ranks: Sequence[int]) -> bool:
    """True if ``hand`` holds every card of ``ranks`` (as many copies of each rank)."""
    have = counts(hand)
    return all(n <= have[r] for r, n in enumerate(counts(ranks)))


def tap(hand: Sequence[int], selected: Sequence[int], rank: int) -> list[int]:
    """The selection after tapping ``rank``: one more card of it, none after all the hand holds
    were selected; unchanged for a rank the hand does not hold. Sorted.

    >>> tap([0, 0, 5], [0], 0), tap([0, 0, 5], [0, 0], 0), tap([0, 0, 5], [0], 9)
    ([0, 0], [], [0])
    """
    held = counts(hand)[rank] if 0 <= rank < RANK_COUNT else 0
    if held == 0:
        return sorted(selected)
    have = sum(1 for r in selected if r == rank)
    others = [r for r in selected if r != rank]
    return sorted(others + [rank] * ((have + 1) % (held + 1)))


def offers(selected: Sequence[int], legal: Iterable[Play], *, leading: bool,
           limit: int = OFFER_LIMIT) -> list[Play]:
    """The plays the keyboard offers for ``selected``: legal plays (``legal``, e.g.
    ``SeatView.legal_plays()``) that hold every selected card and more.

    A chain (straight, pair chain, plane, with or without wings) whose two ends are selected
    is offered per body (the lowest wings); when following, so are the chains that add the
    fewest cards. Other plays only per type with the fewest cards added (a two-deck bomb: per
    size), and per body (the non-kicker ranks) the lowest such play. A single-rank selection
    while leading completes only to the same rank (pair, trio, bomb) or the rocket. Listed by
    type (most common first), then fewer cards added, then lower cards; at most ``limit``.
    Empty for an empty selection.

    >>> from engine.cards import parse_ranks
    >>> from engine.moves import legal_moves
    >>> hand = parse_ranks("3334445678")
    >>> [str(p) for p in offers(parse_ranks("37"), legal_moves(hand), leading=True)]
    ['3337', '34567']
    """
    if not selected:
        return []
    want = counts(selected)
    size = len(selected)
    single_rank = sum(1 for n in want if n) == 1
    best: dict[tuple[tuple[ComboType, int], tuple[int, ...]], Play] = {}
    spans: dict[tuple[ComboType, tuple[int, ...]], Play] = {}
    fewest: dict[tuple[ComboType, int], int] = {}
    for play in legal:
        if len(play.cards) <= size or (leading and single_rank and play.type not in _SAME_RANK):
            continue
        have = counts(play.cards)
        if any(n > have[r] for r, n in enumerate(want) if n):
            continue
        if play.type in CHAIN_TYPES:
            ends = chain_ranks(play.main, play.n)
            if want[ends[0]] and want[ends[-1]]:  # the two ends tapped: the chain between
                span = (play.type, _body(play))
                if span not in spans or play.cards < spans[span].cards:
                    spans[span] = play
            elif leading:  # a lead's chain is offered by its two ends only
                continue
        extra = len(play.cards) - size
        kind = (play.type, play.n if play.type is _T.BOMB else 0)  # two-deck bombs: per size
        if extra > fewest.get(kind, extra):
            continue
        if extra < fewest.get(kind, extra + 1):
            fewest[kind] = extra
            best = {k: p for k, p in best.items() if k[0] != kind}
        key = (kind, _body(play))
        if key not in best or play.cards < best[key].cards:
            best[key] = play
    unique = {p.cards: p for p in [*spans.values(), *best.values()]}
    ordered = sorted(unique.values(),
                     key=lambda p: (_PRIORITY.get(p.type, 99), len(p.cards), p.cards))
    return ordered[:limit]


def _body(play: Play) -> tuple[int, ...]:
    groups = play_groups(play)
    if play.type in (_T.TRIO_SINGLE, _T.TRIO_PAIR, _T.FOUR_TWO_SINGLES, _T.FOUR_TWO_PAIRS):
        return groups[0]
    if play.type in (_T.PLANE_SINGLE, _T.PLANE_PAIR):
        return tuple(r for g in groups[: play.n] for r in g)
    return play.cards


def hint_order(legal: Iterable[Play], recommended: Sequence[Play] = ()) -> list[Play]:
    """Every play Hint cycles through: the AI's first recommendation, then every other legal
    play from the lowest up (by main rank, then fewer cards), bombs and the rocket last; a set
    of cards once (its first reading).

    >>> from engine.cards import parse_ranks
    >>> from engine.combos import classify
    >>> from engine.moves import legal_moves
    >>> table = classify(parse_ranks("55"))[0]
    >>> plays = legal_moves(parse_ranks("667799TTAAXD"), table)
    >>> [str(p) for p in hint_order(plays, [classify(parse_ranks("TT"))[0]])]
    ['TT', '66', '77', '99', 'AA', 'XD']
    """
    unique: dict[tuple[int, ...], Play] = {}
    for play in legal:
        unique.setdefault(play.cards, play)
    first = [unique[p.cards] for p in recommended[:1] if p.cards in unique]
    rest = sorted((p for p in unique.values() if not first or p.cards != first[0].cards),
                  key=lambda p: (p.type in _BOMBS, p.type is not _T.BOMB, p.main,
                                 len(p.cards), p.cards))
    return first + rest


def encode_ranks(ranks: Sequence[int]) -> str:
    """Ranks as judge characters low to high (``"33344456"``), for button data.

    >>> encode_ranks((7, 0, 14))
    '3TD'
    """
    return "".join(RANK_CHARS[r] for r in sorted(ranks))


def decode_ranks(text: str) -> tuple[int, ...] | None:
    """The ranks of :func:`encode_ranks`'s text, or ``None`` if it is not such text (empty,
    longer than :data:`MAX_ENCODED`, another character, not sorted low to high).

    >>> decode_ranks("3TD"), decode_ranks("T3"), decode_ranks("3Z")
    ((0, 7, 14), None, None)
    """
    if not text or len(text) > MAX_ENCODED or any(c not in RANK_CHARS for c in text):
        return None
    ranks = tuple(RANK_CHARS.index(c) for c in text)
    return ranks if list(ranks) == sorted(ranks) else None
