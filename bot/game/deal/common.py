"""What the parts of the deal driver share: the phases a deal is played in, which seats the
bot plays for, and small helpers on a table's running deal."""

from __future__ import annotations

from bot.core.table import Table
from bot.game import timers
from bot.presentation import views
from engine import DealState

ACTIVE = ("bidding", "doubling", "playing")


def is_auto(table: Table, state: DealState, seat: int) -> bool:
    """A seat the bot plays for now: a bot seat, a human seat on auto-play (RULES.md §9), or a
    human seat that cannot follow at a table with ``auto_pass``
    (:func:`bot.presentation.views.passes_itself`: the bot passes for it)."""
    return table.seats[seat].is_bot or state.autoplay[seat] \
        or views.passes_itself(table, state.view(seat))


def turn_timeout(table: Table, state: DealState) -> float:
    """Seconds a turn of ``state``'s phase lasts at the table (a play's or a bid's)."""
    return table.options.play_timeout if state.phase == "playing" else table.options.bid_timeout


def seconds_left(table: Table) -> float:
    """Seconds left of the table's turn (0 when it has no deadline)."""
    return timers.seconds_left(table.progress.deadline)


def hand_order(table: Table, first: int | None) -> list[int]:
    """The human seats, seat ``first`` (the presser) before the others."""
    order = [i for i, _ in table.humans()]
    if first in order:
        order.remove(first)
        order.insert(0, first)
    return order


def padded(values: list[int | None], n: int) -> list[int | None]:
    """``values`` with ``None`` added up to ``n`` items."""
    return values + [None] * (n - len(values))


def running_deal_id(table: Table) -> int:
    """The store's id of the table's running deal (there is one while a deal runs)."""
    assert table.progress.deal_id is not None, f"table {table.key} has no deal"
    return table.progress.deal_id
