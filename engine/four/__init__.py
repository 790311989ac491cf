"""The four-player, two-deck game (RULES.md §11): its reader, legal plays, bomb allowances and
score. The rest of the engine dispatches here when ``rules.variant == "four"``
(:data:`engine.presets.FOUR`), so the public API is the same for both games:

* ``new_deal(FOUR, seed=…, first_bidder=…)``: four hands of 25 cards from two decks (card ids
  ``0..53``, each twice) and an 8-card kitty; ``apply``, ``auto_action`` (RULES.md §9),
  ``DealState.to_json`` / ``from_json`` as for three seats.
* Bidding ``bid 1|2|3`` / ``pass``, a 3 ends it; all four pass → 逼打 (the first bidder is
  landlord at base 1). ``DealState.bomb_limits`` / ``SeatView.bomb_limits`` (per seat, ``None``
  = any number) are set when the landlord is known (:mod:`engine.four.allowance`);
  ``SeatView.bombs_left(seat)`` says how many remain ("你还能出 1 个炸弹");
  ``SeatView.legal_plays()`` and ``legal_actions()`` leave bombs out past it, and ``apply``
  refuses one with ``IllegalAction("bomb_limit", …)``.
* Three failed landlord deals: ``new_deal(FOUR, barred=…)`` (per seat) bars the seats that
  lost three deals as landlord in their match or stage: they may only pass
  (``Bidding.barred``; a bid is ``IllegalAction("barred", …)``), and 逼打 still makes a barred
  first bidder landlord.
* ``engine.classify(ranks, FOUR)``, ``engine.legal_moves(hand, prev, FOUR)``, ``engine.beats``:
  the combinations of §11 (:mod:`engine.four.reader`, :mod:`engine.four.moves`); a bomb's ``n`` is
  its number of cards, ``ComboType.JOKER_BOMB`` is 天尊; ``engine.play_groups`` writes chains in
  chain order (``A 2 3 4 5``).
* ``DealResult``: ``points`` for four seats, ``multipliers`` for three pairs (1, or ``2^bombs``
  with the house option ``bomb_doubling``), ``bonus`` the 头撂 point per pair
  (:mod:`engine.four.score`); no spring.
* The alarm is at 10 cards (``rules.alarm_at``): ``SeatView.alarm`` is on from 10 cards down; the
  seed announces it once, which is the caller's to do on the change.
* ``engine.ai.choose_action`` / ``hints`` play it (:mod:`engine.ai.four`).
"""
