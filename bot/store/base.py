"""The store's interface: every read and write of persistent data goes through :class:`Store`.

Handlers depend on this interface only. :class:`bot.store.sql.SQLStore` implements it once for
both databases: :class:`~bot.store.sql.SQLiteStore` for one bot process (one connection, an
``asyncio.Lock`` around each transaction), :class:`~bot.store.sql.PostgresStore` for several
workers on one database (row locks in the database). :func:`bot.store.open_store`
(:mod:`bot.store.factory`) opens the one a setting names.

All beans are ints. Methods that change beans write balance and ledger rows in one transaction
(RULES.md §8) and, when they refuse, raise a :class:`~bot.store.records.StoreError` subclass and
change nothing.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime
from typing import Any

from bot.core.beans import EconomyRules, Period
from bot.store.challenge_records import (
    ChallengeEntry,
    ChallengePayout,
    ChallengePlay,
    ChallengeRecord,
)
from bot.store.records import (
    Claim,
    DealHold,
    DealRecord,
    Gift,
    LeaderboardRow,
    LedgerEntry,
    MatchPayout,
    MatchRecord,
    MatchStats,
    Player,
    PlayerStats,
    SeatFacts,
    SeatRecord,
    Settlement,
    TimerRecord,
    Totals,
    UsernameOwner,
)
from bot.store.tournament_records import TournamentStore

Clock = Callable[[], datetime]


class Store(TournamentStore, ABC):
    """Players, beans, groups, tables and deals."""

    economy: EconomyRules
    clock: Clock

    @abstractmethod
    async def close(self) -> None:
        """Close the database (again: no effect); the store may not be used afterwards."""

    # Players

    @abstractmethod
    async def ensure_player(self, user_id: int, name: str, language: str | None = None) -> Player:
        """The player with this Telegram user id, created if new (RULES.md §8).

        A new player gets ``economy.start_balance`` (1000) beans with a ledger row ``grant``. An
        existing player's name is updated, and the language too when ``language`` is given.
        Names are stored without bidirectional controls (:func:`bot.core.names.clean_name`; the user
        id when nothing is left), so no stored name can reorder a leaderboard line.
        """

    @abstractmethod
    async def get_player(self, user_id: int) -> Player | None:
        """The player, or ``None`` if unknown."""

    @abstractmethod
    async def set_player_hands(self, user_id: int, hands: str | None) -> None:
        """Store where the player wants their hands shown (``"group"``, ``"private"`` or
        ``None``: the group's setting); an unknown player is not created (nothing happens).

        Raises:
            ValueError: ``hands`` is none of these.
        """

    @abstractmethod
    async def balance(self, user_id: int) -> int:
        """The player's balance in beans. Raises ``UnknownPlayer``."""

    # Usernames (for /give @user and /audit @user)

    @abstractmethod
    async def remember_username(self, user_id: int, username: str | None, name: str) -> None:
        """Record that person ``user_id`` (display name ``name``) holds ``@username`` now, or
        no username (``None`` or empty), in one transaction: the user's earlier username is
        forgotten, and a username another user held before is this user's now (the latest
        owner wins; Telegram lets a freed username be taken). Names are stored as by
        :meth:`ensure_player`. Every call writes: callers skip calls that would change
        nothing (:class:`bot.store.usernames.UsernameBook`)."""

    @abstractmethod
    async def username_owner(self, username: str) -> UsernameOwner | None:
        """Who holds ``username`` (with or without ``@``, in any case) as last recorded by
        :meth:`remember_username`, or ``None``."""

    # Groups

    @abstractmethod
    async def get_group_settings(self, chat_id: int) -> dict[str, Any]:
        """The group's full settings: defaults (``bot.core.rooms.DEFAULT_GROUP_SETTINGS``) overlaid
        with the values its admins changed."""

    @abstractmethod
    async def update_group_settings(self, chat_id: int, **changes: Any) -> dict[str, Any]:
        """Change some settings; returns the full settings after the change.

        Raises:
            bot.core.rooms.GroupSettingError: unknown key or invalid value (nothing changed).
        """

    @abstractmethod
    async def migrate_chat(self, old_chat_id: int, new_chat_id: int) -> bool:
        """Move everything stored under a group that Telegram upgraded to a supergroup
        (``migrate_to_chat_id``) to its new id, in one transaction.

        Moves: the group's settings (values already set under the new id win), its stored
        tables (keys ``"<chat_id>:<thread>"``, :func:`bot.table.table_key`, and their data's
        ``chat_id``; a table already stored under the new key stays and the old one is kept
        under its old key), its deals (running and settled, with their table keys), the
        leaderboards' seat rows and group members (counts added up if the new id has some),
        the holds of its running deals, its matches (with their table keys) and match places,
        its duplicate challenges (their group message forgotten: the board is posted again),
        and the markers of its once-only posts. Ledger, claim
        and gift rows keep the id they were written with: they are the record of where a
        change happened and count per player, not per group.

        Returns ``True`` when something was moved, ``False`` when nothing was stored under
        ``old_chat_id`` (e.g. the second of Telegram's two migration messages).
        """

    # Tables (for restarts)

    @abstractmethod
    async def save_table(self, table_key: str, data: dict[str, Any]) -> None:
        """Store (replace) the JSON-ready ``data`` of a table."""

    @abstractmethod
    async def load_tables(self) -> dict[str, dict[str, Any]]:
        """All stored tables by key."""

    @abstractmethod
    async def delete_table(self, table_key: str) -> None:
        """Forget a table (no error if unknown)."""

    # Deals

    @abstractmethod
    async def create_deal(
        self,
        table_key: str,
        chat_id: int,
        seats: Sequence[SeatRecord],
        rules: dict[str, Any],
        stake: int,
        state_json: str,
        version: int = 0,
        *,
        match_id: int | None = None,
        replaces: int | None = None,
        table: dict[str, Any] | None = None,
        for_beans: bool = True,
    ) -> int:
        """Record a new running deal; returns its id (``match_id``: a deal of that match,
        settled by :meth:`settle_match_deal`, moving no beans).

        In the same transaction each human seat of a deal that can move beans gets its hold
        (:meth:`deal_hold`): the player's balance now, which is what the deal may take
        (:meth:`settle_deal`) and what they cannot move away while it runs (:meth:`give`,
        :meth:`start_match`). :meth:`settle_deal` and :meth:`cancel_deal` release the holds in
        their own transactions. Only such deals hold beans (RULES.md §8): a match's deal
        (``match_id``) and one with ``for_beans=False`` (a practice or challenge deal, which
        its end cancels or records without settling) hold none, so a player who only practises
        or plays a challenge may still /give and pay a match's entry fee.

        Args:
            seats: in seat order; human seats must be known players.
            rules: ``Rules.to_dict()``; stake: beans per point (≥ 1); state_json: the engine's
                initial ``DealState.to_json()`` with its ``version``.
            for_beans: the deal is settled by :meth:`settle_deal` (a group's deal for beans);
                ``False`` for one that moves no beans: no holds.
            replaces: a running deal of the same table that this one deals again (a redeal,
                RULES.md §2): cancelled in the same transaction (its holds released, its
                stored state kept), so no crash leaves the table with neither deal.
            table: the table's data (:meth:`save_table`), stored under ``table_key`` in the
                same transaction with its ``"deal_id"`` set to the new deal's id.

        Raises:
            UnknownPlayer: a human seat's player does not exist. ValueError: stake < 1 or no seats.
            UnknownDeal, DealNotRunning: ``replaces`` is unknown or settled (nothing stored).
        """

    @abstractmethod
    async def deal_hold(self, user_id: int) -> DealHold | None:
        """The running deal for beans the player was dealt into (seated still or left), with
        the balance they held when it started; ``None`` when there is none (RULES.md §8:
        beans a running deal may still take cannot be moved away, nor staked at another
        table). A practice, challenge or match deal holds nothing (:meth:`create_deal`)."""

    @abstractmethod
    async def save_deal_state(
        self, deal_id: int, version: int, state_json: str, table: dict[str, Any] | None = None
    ) -> None:
        """Store the state after an accepted action, and the table's data if given, in one
        transaction.

        Raises:
            UnknownDeal, DealNotRunning, StaleVersion: ``version`` is not newer than the stored one.
        """

    @abstractmethod
    async def get_deal(self, deal_id: int) -> DealRecord:
        """A deal in any status (for replays). Raises ``UnknownDeal``."""

    @abstractmethod
    async def running_deals(self) -> list[DealRecord]:
        """Every running deal, oldest first (restored at start-up)."""

    @abstractmethod
    async def settle_deal(
        self,
        deal_id: int,
        points: Sequence[int],
        state_json: str,
        facts: Sequence[SeatFacts] | None = None,
        *,
        version: int | None = None,
        table: dict[str, Any] | None = None,
    ) -> Settlement:
        """Settle a finished deal (RULES.md §8) in one transaction.

        Bean changes come from :func:`bot.core.beans.settle_beans`: ``points × stake``, winners
        share what losers could pay in proportion, sum exactly zero, bot seats neither pay nor
        receive. The loss cap of RULES.md §8 ("never more than they hold") is computed against
        what each player held when the deal started (their hold, :meth:`create_deal`), never
        above their balance now: beans won or claimed elsewhere during the deal are not at
        stake, and beans cannot have left (``/give`` refuses while a hold exists). The escape
        penalty (RULES.md §9) is part of the points and capped the same way. Writes the ledger
        rows (reason ``deal``), balances, statistics, the seat facts and the deal row (status
        ``settled``, final state, result) and releases the holds. A second call for the same
        deal changes nothing and returns the first settlement with ``repeated=True``.

        Args:
            points: the engine's points per seat (sum zero).
            state_json: the final engine state; version: its version (stored if given).
            facts: per seat, for statistics; without them (``None`` or empty) roles, bombs and
                springs are not counted and a seat has won when its points are positive.
            table: the table's next data (:meth:`save_table`: the result phase, the new
                token, the result still to post), stored under the deal's table key in the same
                transaction (a crash cannot split a deal's end); a repeated call
                stores it too.

        Raises:
            UnknownDeal, DealNotRunning (cancelled), ValueError (wrong number of seats, points
            not summing to zero, facts for the wrong number of seats).
        """

    @abstractmethod
    async def cancel_deal(self, deal_id: int, state_json: str | None = None, *,
                          table: dict[str, Any] | None = None) -> bool:
        """Cancel a running deal: nobody pays, its holds are released; ``table`` (the table's
        next data, as in :meth:`settle_deal`) is stored in the same transaction. Returns
        ``False`` if it was already cancelled.

        Raises:
            UnknownDeal, DealNotRunning: it was settled.
        """

    # Matches (RULES.md §10)

    @abstractmethod
    async def start_match(
        self,
        table_key: str,
        chat_id: int,
        format: str,
        options: dict[str, Any],
        seats: Sequence[SeatRecord],
        entry_fee: int,
        state_json: str,
    ) -> int:
        """Record a running match and take every human seat's ``entry_fee`` (a ledger row
        ``match``, −fee, per human) into its pool, in one transaction; returns the match id.
        Bot seats pay nothing.

        Raises:
            MatchRefused: ``match_held`` (a human sits at a running deal, whose beans it may
                still take) or ``match_fee`` (a human holds less than the fee); nothing changed.
            UnknownPlayer, ValueError: a negative fee, fewer than two seats, a player twice.
        """

    @abstractmethod
    async def get_match(self, match_id: int) -> MatchRecord:
        """A match in any status. Raises ``UnknownMatch``."""

    @abstractmethod
    async def running_matches(self) -> list[MatchRecord]:
        """Every running match, oldest first (restored at start-up)."""

    @abstractmethod
    async def settle_match_deal(
        self,
        match_id: int,
        deal_id: int,
        points: Sequence[int],
        state_json: str,
        match_state_json: str,
        facts: Sequence[SeatFacts] | None = None,
        *,
        version: int | None = None,
        table: dict[str, Any] | None = None,
    ) -> Settlement:
        """Settle a finished deal of a running match and store the match's state after it,
        in one transaction. The deal moves no beans (every ``beans`` is 0: the room's stake
        does not apply inside a match); points, statistics and seat facts are recorded as by
        :meth:`settle_deal`. A second call for the same deal changes nothing but ``table``
        and returns the first settlement with ``repeated=True``. ``table``: the table's next
        data, stored under the deal's table key in the same transaction, as in
        :meth:`settle_deal`.

        Raises:
            UnknownMatch, UnknownDeal, MatchNotRunning, DealNotRunning, ValueError (the deal
            belongs to another match, points not summing to zero, wrong number of seats).
        """

    @abstractmethod
    async def finish_match(
        self,
        match_id: int,
        paid: Sequence[int],
        places: Sequence[int],
        won: Sequence[bool],
        result: dict[str, Any],
        state_json: str | None = None,
    ) -> MatchPayout:
        """End a running match and pay its pool out, exactly once: per seat ``paid`` beans
        (ledger rows ``match``), which must sum to the pool with nothing for bot seats; the
        human seats' ``places`` and ``won`` (champion) go to the match statistics. A second
        call pays nothing and returns the first payout with ``repeated=True``.

        Raises:
            UnknownMatch, MatchNotRunning (cancelled), ValueError (a payout that is not the
            pool, a prize for a bot seat, wrong number of seats).
        """

    @abstractmethod
    async def cancel_match(self, match_id: int) -> MatchPayout:
        """Cancel a running match (an admin's /stop): every entry fee goes back to its payer
        (ledger rows ``match``) and its running deal is cancelled, exactly once; a second
        call refunds nothing (``repeated=True``).

        Raises:
            UnknownMatch, MatchNotRunning (it finished).
        """

    @abstractmethod
    async def match_ledger(self, match_id: int) -> list[LedgerEntry]:
        """The match's ledger rows (fees, prizes, refunds), oldest first; once the match is
        over they sum to zero."""

    @abstractmethod
    async def match_stats(self, user_id: int) -> MatchStats:
        """Finished matches the player sat in (all groups), and how many they won."""

    @abstractmethod
    async def match_leaderboard(
        self, chat_id: int, period: Period = "all", tz: str | None = None, limit: int = 10
    ) -> list[LeaderboardRow]:
        """The group's match winners (``/top matches``): ``value`` and ``wins`` are matches
        won (champion) among matches finished in ``period`` (days in ``tz``, default the
        group's), ``games`` matches played; players without a win are left out. Ties: fewer
        matches played, then the earlier first win, then the lower user id.

        Raises:
            ValueError: unknown period, or ``limit`` < 1.
        """

    # Economy (RULES.md §8)

    # Duplicate challenges (RULES.md §10)

    @abstractmethod
    async def open_challenge(
        self,
        chat_id: int,
        thread_id: int | None,
        opener_id: int,
        options: dict[str, Any],
        entry_fee: int,
        seed: str,
        seed_hash: str,
        closes_at: datetime,
        *,
        daily: str | None = None,
    ) -> int:
        """Record an open challenge of a group (its window closes at ``closes_at``); returns its
        id. ``daily``: the group's day of its daily challenge (one per group and day).

        Raises:
            ChallengeRefused: ``challenge_open`` (the chat has an open challenge),
                ``challenge_daily`` (that day's daily challenge exists); nothing stored.
            ValueError: a negative fee.
        """

    @abstractmethod
    async def get_challenge(self, challenge_id: int) -> ChallengeRecord:
        """A challenge in any status. Raises ``UnknownChallenge``."""

    @abstractmethod
    async def open_challenges(self) -> list[ChallengeRecord]:
        """Every open challenge, oldest first (their windows are re-armed at start-up)."""

    @abstractmethod
    async def set_challenge_message(self, challenge_id: int, message_id: int) -> None:
        """Remember the group message that shows the challenge. Raises ``UnknownChallenge``."""

    @abstractmethod
    async def enter_challenge(self, challenge_id: int, user_id: int, name: str) -> ChallengeEntry:
        """Enter a member into an open challenge and take the entry fee into its pool (a ledger
        row ``challenge``, −fee), in one transaction.

        Raises:
            ChallengeRefused: ``challenge_closed``, ``challenge_entered`` (entered before),
                ``challenge_held`` (a running deal holds the member's beans and the fee is not
                0), ``challenge_fee`` (the balance is below the fee); nothing changed.
            UnknownChallenge, UnknownPlayer.
        """

    @abstractmethod
    async def challenge_entries(self, challenge_id: int) -> list[ChallengeEntry]:
        """The members who entered, in entering order."""

    @abstractmethod
    async def challenge_plays(self, challenge_id: int) -> list[ChallengePlay]:
        """Every finished deal of the challenge, in finishing order."""

    @abstractmethod
    async def finish_challenge_deal(
        self,
        challenge_id: int,
        user_id: int,
        deal: int,
        deal_id: int,
        points: int,
        landlord_won: bool,
        state_json: str,
        *,
        table: dict[str, Any] | None = None,
    ) -> bool:
        """End a member's challenge deal in one transaction: the store's deal is cancelled with
        its final state (it moves no beans, its holds are released), the member's result
        recorded, and ``table`` (the table's next data) stored under the deal's table key.
        Returns ``False`` when that member's deal was recorded before (nothing but ``table``
        changes then).

        Raises:
            ChallengeNotOpen: the window closed (nothing changed; the caller cancels the deal).
            UnknownChallenge, UnknownDeal, ValueError: the member did not enter.
        """

    @abstractmethod
    async def close_challenge(
        self, challenge_id: int, paid: Mapping[int, int], result: dict[str, Any]
    ) -> ChallengePayout:
        """Close an open challenge and pay its pool out, exactly once: ``paid`` beans per
        member (ledger rows ``challenge``) must sum to the pool and go to entrants only;
        ``result`` (the final board) is stored with the status. A second call pays nothing
        and returns the first payout with ``repeated=True``.

        Raises:
            UnknownChallenge, ValueError (a payout that is not the pool, or to a non-member).
        """

    @abstractmethod
    async def announce_challenge(self, challenge_id: int) -> bool:
        """Mark a closed challenge's final ranking as posted (claimed or not); ``False`` when
        it was already (or the challenge is still open)."""

    @abstractmethod
    async def claim_announcement(self, challenge_id: int, seconds: float = 120.0) -> bool:
        """Claim the posting of a closed challenge's final ranking for ``seconds``, right
        before it is sent: ``True`` for one caller only, while it is neither posted nor under a
        claim that still runs (two workers do not post it side by side). A claim
        that ran out (its poster died before recording it sent) may be taken again: the
        ranking, which reveals the seed, is posted at least once; twice only when its poster
        died between Telegram taking it and :meth:`announce_challenge`. A claimed ranking
        counts as posted (``ChallengeRecord.announced``)."""

    @abstractmethod
    async def release_announcement(self, challenge_id: int) -> None:
        """Give up a claim of :meth:`claim_announcement` whose message could not be sent: the
        ranking is posted again later (after a restart, or by the watchdog)."""

    @abstractmethod
    async def unannounced_challenges(self, *, claimed: bool = False) -> list[ChallengeRecord]:
        """Closed challenges whose final ranking was not posted yet and is under no claim that
        still runs (posted after a restart); ``claimed``: with those under a running claim too
        (``announced`` set: a single process's start, whose claims died with the process)."""

    @abstractmethod
    async def daily_challenge_groups(self) -> list[int]:
        """The groups whose ``daily_challenge`` setting is on, by chat id."""

    @abstractmethod
    async def challenge_ledger(self, challenge_id: int) -> list[LedgerEntry]:
        """The challenge's ledger rows (fees, prizes, refunds), oldest first; once it closed
        they sum to zero."""

    @abstractmethod
    async def claim_daily(self, user_id: int, chat_id: int | None = None) -> Claim:
        """Daily check-in (RULES.md §8): ``economy.daily_amount(streak)`` beans, ledger ``daily``.

        The day is the player's day (:func:`bot.core.beans.player_day`: midnight Beijing time for
        every player, whatever group ``chat_id`` they claim in; the group is only recorded).
        A claim needs a day later than the last claimed one; the streak continues when the last
        claim was the day before.

        Raises:
            UnknownPlayer, AlreadyClaimed.
        """

    @abstractmethod
    async def claim_relief(self, user_id: int, chat_id: int | None = None) -> Claim:
        """Relief (救济金, RULES.md §8): a player below ``economy.relief_below`` beans is topped up
        to ``economy.relief_target``, once a day (days as in :meth:`claim_daily`), ledger
        ``relief``.

        Raises:
            UnknownPlayer, NotEligible (balance not low enough), AlreadyClaimed.
        """

    @abstractmethod
    async def give(self, giver_id: int, receiver_id: int, amount: int, chat_id: int,
                   request: str | None = None) -> Gift:
        """Move ``amount`` beans between two players in group ``chat_id`` (two ledger rows
        ``give``), if the group allows it (``give_enabled``), the giver sits at no running
        deal (:meth:`deal_hold`: that deal may still take the beans) and the giver's gifts on
        their day (:meth:`claim_daily`) stay within ``economy.give_daily_limit``.

        ``request`` names the command that asked (``"<chat id>:<message id>"``): a gift is made
        once per request, so an update processed again moves nothing and gets the gift it
        made (with today's balances).

        Raises:
            UnknownPlayer, GiveRefused (code says why; more than the giver's balance is
            ``give_insufficient`` even when it is over today's limit too: no limit would let
            it through).
        """

    @abstractmethod
    async def ledger(self, user_id: int, limit: int = 20) -> list[LedgerEntry]:
        """The player's latest ``limit`` (≥ 1) ledger rows, newest first (the admins' audit)."""

    @abstractmethod
    async def leaderboard(
        self,
        chat_id: int | None,
        period: Period = "today",
        tz: str | None = None,
        limit: int = 10,
    ) -> list[LeaderboardRow]:
        """A leaderboard, best first.

        ``today``/``yesterday``/``week``: net beans won from deals settled in that period in group
        ``chat_id`` (``None``: all groups), days in time zone ``tz`` (default: the group's).
        ``all``: balances of the group's players (who played a deal there); ``chat_id=None``: all
        players. Ties: fewer games first, then whoever got there earlier, then lower user id.
        ``games`` is the number of deals in the period (in the group, for a group's ``all``);
        ``wins`` the number of those deals the player won.

        Cost: a group's boards and the global ``all`` read one index range; ``chat_id=None``
        with a period aggregates every deal of the period in all groups (bench/store.py: ~10 ms
        for a day, ~0.1 s for a week at a million deals a year), so ``/top global`` should use
        ``all``.

        Raises:
            ValueError: unknown period, or ``limit`` < 1.
        """

    @abstractmethod
    async def player_stats(self, user_id: int, chat_id: int | None = None) -> PlayerStats:
        """Statistics for ``/me`` with the balance rank in group ``chat_id`` (or overall).

        Raises:
            UnknownPlayer.
        """

    @abstractmethod
    async def daily_posts_due(self, kind: str = "daily_top") -> list[tuple[int, date]]:
        """Groups (with ``daily_post`` on and a deal settled on their local yesterday) whose
        end-of-day post for yesterday has not been marked yet, with that day."""

    @abstractmethod
    async def mark_posted(self, chat_id: int, day: date, kind: str = "daily_top") -> bool:
        """Mark a once-only post as done; ``True`` only for the first caller for that
        (group, kind, day), so a post runs once even across restarts and workers."""

    @abstractmethod
    async def totals(self) -> Totals:
        """Bean totals: balances, all ledger rows, granted beans and the fees held by running
        matches' pools (``balances == ledger == grants − pools``, :attr:`Totals.conserved`)."""

    # Several workers

    @abstractmethod
    async def schedule_timer(self, key: str, due: datetime, payload: dict[str, Any]) -> int:
        """Set the timer ``key`` (one per key, e.g. ``"turn:<table key>"``) to fire at ``due``
        with the JSON-ready ``payload``, replacing its earlier schedule and any lease on it.
        Returns the new schedule's generation (it grows with every schedule of the key)."""

    @abstractmethod
    async def cancel_timer(self, key: str) -> bool:
        """Remove the timer; ``False`` if there was none."""

    @abstractmethod
    async def claim_timers(
        self, worker: str, *, limit: int = 20, lease: float = 30.0
    ) -> list[TimerRecord]:
        """Claim up to ``limit`` (≥ 1) due timers for ``worker``, earliest first, for ``lease``
        seconds: timers due by the clock and under no running lease. Workers claiming at the
        same time get disjoint timers (``FOR UPDATE SKIP LOCKED`` on PostgreSQL; one writer at a
        time on SQLite). A lease that runs out (its worker died) lets another worker claim the
        timer again, so a timer fires at least once; what it does must check the stored state
        (e.g. the deal's version) to take effect once.

        Raises:
            ValueError: ``limit`` < 1 or ``lease`` ≤ 0.
        """

    @abstractmethod
    async def finish_timer(self, timer: TimerRecord) -> bool:
        """Delete a fired timer if it is still this claim's: same generation (not scheduled
        again since) and still leased to ``timer.claimed_by``. ``False`` when it was
        rescheduled, cancelled or taken over by another worker after the lease ran out."""

    # --- The polling inbox ---------------------------------------------------------------------

    @abstractmethod
    async def store_update(self, update_id: int, body: str) -> bool:
        """Store an update fetched by long polling (``body``: its JSON) in the inbox (migration
        0007's table, which the webhook workers fill too) before Telegram is told it arrived;
        ``False`` when it was stored before (Telegram sent it again: it was, or will be,
        processed from the inbox, not again)."""

    @abstractmethod
    async def finish_update(self, update_id: int) -> None:
        """The update's handlers ran: it is done and is not processed again."""

    @abstractmethod
    async def pending_updates(self) -> list[tuple[int, str]]:
        """The stored updates not done yet, oldest first: ``(update_id, body)`` (a process that
        died before their handlers ran fetched them)."""

    @abstractmethod
    async def forget_done_updates(self, before: datetime) -> int:
        """Delete the updates done before ``before`` (Telegram stops sending an update again
        well within a day); returns how many."""
