"""The deal driver: start, accept an action, redeal, finish, leave, stop.

:class:`DealDriver` (:mod:`~bot.game.deal.driver`) is what the rest of the bot calls; it is
composed of parts of one job each, each importing only the ones below it (a contract in
``pyproject.toml``):

- :mod:`~bot.game.deal.play`: the loop every change runs (apply → persist → show →
  schedule), the bot moves, turn timeouts, clocks and notices' timers, Hint's advice;
- :mod:`~bot.game.deal.dealing`: a new deal, a deal dealt again after everybody passed;
- :mod:`~bot.game.deal.result`: the deal's end (settled, the outcomes, the result posted) or
  its stop;
- :mod:`~bot.game.deal.hands`: the players' hand messages; :mod:`~bot.game.deal.notices`: the
  "your turn" and auto-play notices;
- :mod:`~bot.game.deal.picture`: the audience's table message and what it is told;
- :mod:`~bot.game.deal.hooks`: what the competitions at a table (match, challenge,
  tournament) are asked; :mod:`~bot.game.deal.common`: small shared helpers.

Everything on one table runs under that table's lock (``Tables.lock``); the methods whose
docstring says "lock held" must be called with it.
"""

from bot.game.deal.driver import DealDriver
from bot.game.deal.hooks import ChallengeHook, MatchHook, Standings
from bot.game.deal.picture import TABLE
from bot.game.deal.play import Ack
from bot.game.deal.result import RESULT_RETRY_SECONDS, seat_facts

__all__ = [
    "RESULT_RETRY_SECONDS",
    "TABLE",
    "Ack",
    "ChallengeHook",
    "DealDriver",
    "MatchHook",
    "Standings",
    "seat_facts",
]
