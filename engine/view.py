"""What one seat may see of a deal, and the decisions it may take (RULES.md §1.3, §3, §4.5,
§11).

A :class:`SeatView` holds only public information plus the seat's own hand; the AI and the bot's
pictures decide from it alone. ``legal_actions()`` is computed from the view, so a seat's legal
actions never depend on anything it cannot see.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import moves
from engine.action import Action, ActionKind
from engine.bidding import Bidding, bidding_choices
from engine.cards import cards_to_ranks
from engine.combos import Play
from engine.four.allowance import is_bomb
from engine.presets import Rules
from engine.scoring import DealResult
from engine.trick import Trick


@dataclass(frozen=True, slots=True)
class SeatView:
    """One seat's view of a deal.

    Attributes:
        seat: the viewing seat.
        rules: the deal's rules.
        phase: ``"bidding"``, ``"doubling"``, ``"playing"``, ``"finished"`` or ``"redeal"``.
        version: the state's version (+1 per applied action).
        to_act: seats that may act now (see ``DealState.to_act``).
        hand: the seat's own cards (card ids ``0..53``, sorted).
        counts: every seat's number of cards.
        kitty: the kitty's cards once revealed (after bidding, RULES.md §1.3), else ``None``.
        shown_hands: per seat, the current hand if that seat showed its cards (RULES.md §3),
            else ``None``.
        history: the public action history (every action; a ``timeout`` is followed by the
            action it resolved to).
        trick: the current trick (last play, its seat, passes since).
        bidding: the public bidding state (RULES.md §2).
        landlord: the landlord seat once decided.
        base: the base score (highest bid so far in the score preset; 1 in the rob preset).
        multipliers: each farmer–landlord pair's multiplier so far, farmers in seat order
            (empty before the landlord is decided).
        doubled: per seat, ``True``/``False`` once decided in the doubling round, else ``None``.
        autoplay: per seat, auto-play on (RULES.md §9).
        escaped: per seat, left the deal (RULES.md §9).
        alarm: per seat, the alarm (RULES.md §4.5): playing and ``0 < count ≤ rules.alarm_at``.
        played: every rank played so far, sorted low to high.
        last_cards: per seat, the card ids of its latest play (public, RULES.md §4), ``None``
            before its first play (see ``DealState.last_cards``).
        result: the result once finished.
        seat_bombs: per seat, the bombs (rockets, joker bombs) it has played.
        bomb_limits: per seat, how many bombs it may play in the deal, ``None`` = any number
            (the farmers' allowances of the four-player game, public, RULES.md §11; see
            :meth:`bombs_left`).
    """

    seat: int
    rules: Rules
    phase: str
    version: int
    to_act: tuple[int, ...]
    hand: tuple[int, ...]
    counts: tuple[int, ...]
    kitty: tuple[int, ...] | None
    shown_hands: tuple[tuple[int, ...] | None, ...]
    history: tuple[Action, ...]
    trick: Trick
    bidding: Bidding
    landlord: int | None
    base: int
    multipliers: tuple[int, ...]
    doubled: tuple[bool | None, ...]
    autoplay: tuple[bool, ...]
    escaped: tuple[bool, ...]
    alarm: tuple[bool, ...]
    played: tuple[int, ...]
    last_cards: tuple[tuple[int, ...] | None, ...]
    result: DealResult | None
    seat_bombs: tuple[int, ...] = ()
    bomb_limits: tuple[int | None, ...] = ()

    @property
    def hand_ranks(self) -> tuple[int, ...]:
        """The seat's own hand as sorted ranks."""
        return cards_to_ranks(self.hand)

    @property
    def leading(self) -> bool:
        """True when the seat to play leads a new trick (it may not pass)."""
        return self.trick.play is None

    def may_show(self) -> int:
        """The show-cards factor this seat may take now (RULES.md §3), 0 if it may not show.

        4 during bidding before the first bid/call; 2 for the landlord after taking the kitty
        and before the first play. RULES.md §3 lets the landlord show ×2
        even after another seat showed ×4 (seed 003 does not: 如果此前无人明牌); only the
        largest factor of the deal counts, so that show reveals the hand and adds nothing.
        """
        if not self.rules.show_cards or self.shown_hands[self.seat] is not None:
            return 0
        if self.phase == "bidding" and not self.bidding.started:
            return 4
        if (self.phase in ("doubling", "playing") and self.seat == self.landlord
                and not self.played):
            return 2
        return 0

    def bombs_left(self, seat: int | None = None) -> int | None:
        """How many more bombs ``seat`` (default: the viewing seat) may play in this deal,
        ``None`` if any number (RULES.md §11; e.g. a farmer told "你还能出 1 个炸弹")."""
        seat = self.seat if seat is None else seat
        limit = self.bomb_limits[seat] if self.bomb_limits else None
        if limit is None:
            return None
        return max(0, limit - (self.seat_bombs[seat] if self.seat_bombs else 0))

    def legal_plays(self) -> list[Play]:
        """The plays this seat may make now (empty unless it is to play): every legal play of
        the hand (:func:`engine.moves.legal_moves`) without bombs once its allowance is spent
        (RULES.md §11)."""
        if self.phase != "playing" or self.seat not in self.to_act:
            return []
        plays = moves.legal_moves(self.hand_ranks, self.trick.play, self.rules)
        if self.bombs_left() == 0:
            plays = [p for p in plays if not is_bomb(p)]
        return plays

    def legal_actions(self) -> list[Action]:
        """The game decisions this seat may take now, as actions.

        Includes ``show`` whenever allowed (it is taken out of turn). The meta actions
        ``timeout``, ``autoplay`` and ``leave`` are not listed. Plays carry their reading's
        ``type``; in play, ``pass`` is listed only when following, and bombs only while the
        seat's allowance lasts (:meth:`legal_plays`).
        """
        seat = self.seat
        result = [Action(ActionKind.SHOW, seat)] if self.may_show() else []
        if seat not in self.to_act:
            return result
        if self.phase == "bidding":
            choices = bidding_choices(self.bidding, self.rules)
            result += [Action(kind, seat, value=value) for kind, value in choices]
        elif self.phase == "doubling":
            result += [Action(ActionKind.DOUBLE, seat), Action(ActionKind.NODOUBLE, seat)]
        elif self.phase == "playing":
            plays = self.legal_plays()
            result += [Action(ActionKind.PLAY, seat, cards=p.cards, type=p.type) for p in plays]
            if not self.leading:
                result.append(Action(ActionKind.PASS, seat))
        return result
