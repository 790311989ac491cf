"""A table: lobby seats, the running deal, message ids; in a group chat, a forum topic or a
player's private chat (``/practice``).

A :class:`Table` is what the bot knows about a group's game besides the engine state: who sits
where, which messages show the table and the hands, the current turn's deadline, each seat's card
selection. It serializes to a plain dict (``to_dict``/``from_dict``) that the store keeps with every
accepted action (``store.save_deal_state``), so a restart restores it exactly. The engine state
(``DealState``) is stored separately as the deal's JSON and attached on load.

:class:`Tables` is the in-memory registry (``Game.tables``): tables by key and by token, the
table a player sits at (one at a time, checked and taken in one step with no await between,
:meth:`Tables.table_of`), and one ``asyncio.Lock`` per table key so that the updates and timers
of one table run one at a time.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from bot.core.callbacks import new_token

if TYPE_CHECKING:
    from engine.deal import DealState

T = TypeVar("T")

class Phase(StrEnum):
    """Where a table is: its lobby (seats filling), a deal being played, or a deal's result
    (Play again offered). Stored by value (``"lobby"``, ``"deal"``, ``"result"``)."""

    LOBBY = "lobby"
    DEAL = "deal"
    RESULT = "result"


LOBBY, DEAL, RESULT = Phase.LOBBY, Phase.DEAL, Phase.RESULT
PHASES = tuple(Phase)

#: Version of the dict shape written by :meth:`Table.to_dict`.
DICT_VERSION = 1


def table_key(chat_id: int, thread_id: int | None = None) -> str:
    """The key of a group's table: ``"<chat_id>:<thread_id>"`` (thread 0 outside forum topics).

    >>> table_key(-1001, None), table_key(-1001, 7)
    ('-1001:0', '-1001:7')
    """
    return f"{chat_id}:{thread_id or 0}"


def tournament_key(tournament_id: int, stage: int, number: int) -> str:
    """The key of a tournament's table: table ``number`` of stage ``stage`` (RULES.md §10.1);
    its seats play in their private chats, so it has no chat of its own.

    >>> tournament_key(7, 2, 1)
    't7.2.1:tournament'
    """
    return f"t{tournament_id}.{stage}.{number}:tournament"


def challenge_key(user_id: int) -> str:
    """The key of a member's challenge table: one per user, whichever challenge, so
    that nobody plays two challenge deals at once; apart from their practice table.

    >>> challenge_key(42)
    '42:challenge'
    """
    return f"{user_id}:challenge"


@dataclass
class Seat:
    """One seat: a human (``user_id``) or a bot seat (``user_id`` is ``None``, ``is_bot`` true).

    ``left``: the player left the running deal (RULES.md §9 escape); the seat is auto-played.
    ``blocked``: the bot cannot write to the player privately; the seat is auto-played.
    ``lang``: the player's own language (``Player.language`` from ``store.ensure_player``), for
    their private messages; ``None``: the table's language (see :meth:`Table.seat_lang`).
    ``in_group``: at the running deal this seat's hand message is an ephemeral message in the
    table's group that only its player sees (``TableMessages.hand_message_ids`` holds its
    ``ephemeral_message_id``), not a message in their private chat (the group's ``hands``
    setting and the player's own choice, :meth:`bot.game.deal.dealing.Dealer.start`).
    ``welcoming``: a lobby seat whose welcome message (which tells whether the bot can write to
    the player privately) is on its way: since when (UTC seconds); ``None`` once it was sent or
    when none is due (:meth:`bot.game.lobby.Lobby.welcome`). Stored only while set.
    """

    user_id: int | None
    name: str
    is_bot: bool = False
    left: bool = False
    blocked: bool = False
    lang: str | None = None
    welcoming: float | None = None
    in_group: bool = False

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "user_id": self.user_id,
            "name": self.name,
            "is_bot": self.is_bot,
            "left": self.left,
            "blocked": self.blocked,
            "lang": self.lang,
        }
        if self.welcoming is not None:
            data["welcoming"] = self.welcoming
        if self.in_group:
            data["in_group"] = True
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seat:
        return cls(
            user_id=data["user_id"],
            name=data["name"],
            is_bot=bool(data.get("is_bot", False)),
            left=bool(data.get("left", False)),
            blocked=bool(data.get("blocked", False)),
            lang=data.get("lang"),
            welcoming=data.get("welcoming"),
            in_group=bool(data.get("in_group", False)),
        )


@dataclass
class TableOptions:
    """A table's rules and options, taken from its group's settings (or a competition's) when
    its lobby opens (:class:`bot.game.config.TableConfig`).

    Attributes:
        seat_count: how many seats the table has: 3, or 4 for the four-player game (the
            group's ``players`` setting, RULES.md §11), taken from the rules of its deals.
        preset: bidding preset name (``"score"``/``"rob"``), stake: beans per point (RULES.md §8).
        play_timeout, bid_timeout: seconds per decision (RULES.md §9).
        autoplay_mode: what plays for a human seat on auto-play: ``"simple"`` (the seeds' rule,
            ``engine.auto_action``) or ``"ai"`` (``engine.ai.choose_action``), a group setting.
        bot_level: the ``engine.ai`` level of the bot seats (group setting ``bot_level``).
        pictures: the table's messages are pictures with captions (the group's ``pictures``
            setting); ``False``: text only.
        card_counter: the hand messages show the card counter (记牌器, the group's
            ``card_counter`` setting).
        auto_pass: a human seat that nothing in its hand lets follow passes by itself
            (自动要不起, the group's ``auto_pass`` setting;
            :func:`bot.presentation.views.passes_itself`).
        hands: where the table's hands go unless a player chose otherwise (the group's
            ``hands`` setting resolved, :class:`bot.game.config.TableConfig`): ``"group"``
            (ephemeral messages in the group) or ``"private"``.
    """

    seat_count: int = 3
    preset: str = "score"
    stake: int = 10
    play_timeout: float = 30.0
    bid_timeout: float = 15.0
    autoplay_mode: str = "simple"
    bot_level: str = "normal"
    pictures: bool = True
    card_counter: bool = True
    auto_pass: bool = True
    hands: str = "private"


@dataclass
class DealProgress:
    """Where a table's deals are: the running (or last) deal, the current turn's clock and the
    seats' turn memory, and the result phase's Play again.

    Attributes:
        deal_id: the store's id of the running (or last) deal.
        first_bidder: first bidder of the current deal (rotates per deal, RULES.md §1.4).
        redeals: redeals in a row because everybody passed (RULES.md §2).
        last_winner: the seat that played out the table's last deal, for the option
            ``winner_bids_first`` (RULES.md §1.4); ``None`` when that deal had no winner or
            the seats changed since.
        deadline: absolute UTC timestamp (seconds) when the current turn times out, or ``None``.
        lobby_deadline: absolute UTC timestamp when an unstarted lobby expires; in the result
            phase, when the seats that did not answer Play again are freed.
        selections: per seat, the ranks selected on the hand keyboard (sorted).
        hint_index: per seat, how many times Hint was pressed since the last state change.
        result_due: the last deal's result is stored (settled with the table) but not
            yet posted: posting it is retried (after a restart too) until it succeeded once.
        ready: in the result phase, per seat, the seat answered "Play again" (再来一局; bot seats
            are always ready): the next deal starts once every human seat is ready
            (:mod:`bot.game.again`); empty when Play again is not offered (a match's
            table, a lobby, a running deal). Its deadline is ``lobby_deadline``.
    """

    deal_id: int | None = None
    first_bidder: int | None = None
    redeals: int = 0
    last_winner: int | None = None
    deadline: float | None = None
    lobby_deadline: float | None = None
    selections: list[list[int]] = field(default_factory=list)
    hint_index: list[int] = field(default_factory=list)
    result_due: bool = False
    ready: list[bool] = field(default_factory=list)


@dataclass
class TableMessages:
    """The messages that show a table and its hands, and what they show now.

    Attributes:
        message_id: the group message showing the lobby, then the table.
        message_photo: the table message is a photo (a text message cannot become one).
        hand_message_ids: per seat, the private message with that seat's hand and buttons
            (a seat's ephemeral message in the group when ``Seat.in_group``).
        hand_photos: per seat, that hand message is a photo.
        turn_notices: per seat, the pending private "Your turn" message (edits do not notify).
        autoplay_notices: per seat, the private "timed out, on auto-play" message whose Take
            back button is live: it goes once the seat is back in its player's hands, left,
            the deal was dealt again or ended.
        leave_prompts: per seat, the group message of that seat's pending /leave confirmation;
            only that message's buttons can make the seat leave (a forged "yes" finds none).
        join_link: the lobby shows the deep-link button (someone could not be written to).
        result_message_id: the posted result's message (``None`` until it was sent), to take
            its Play again keyboard away once answered.
        view_message_ids, view_photos: a tournament table's per seat: the private message
            showing the table (the audience's message of a group's table) and whether it is a
            photo.
        watchers: a tournament table's members who watch it (观战) from their private chats:
            user id → the message there that shows the table (``None`` until it was sent) and
            whether it is a photo; edited as the seats' own views are, never showing a hand.
        notice: a line shown on the table message until the next change (not stored).
        rendered: per message (``"table"`` or a seat), the last look drawn, to skip edits that
            change nothing (not stored: after a restart every message is drawn again).
        pictured: per message (``"table"`` or a seat), the input of the picture it shows now,
            so that a change of caption alone edits only the caption (not stored).
    """

    message_id: int | None = None
    message_photo: bool = False
    hand_message_ids: list[int | None] = field(default_factory=list)
    hand_photos: list[bool] = field(default_factory=list)
    turn_notices: list[int | None] = field(default_factory=list)
    autoplay_notices: list[int | None] = field(default_factory=list)
    leave_prompts: list[int | None] = field(default_factory=list)
    join_link: bool = False
    result_message_id: int | None = None
    view_message_ids: list[int | None] = field(default_factory=list)
    view_photos: list[bool] = field(default_factory=list)
    watchers: dict[int, tuple[int | None, bool]] = field(default_factory=dict)
    notice: str | None = field(default=None, repr=False, compare=False)
    rendered: dict[int | str, str] = field(default_factory=dict, repr=False, compare=False)
    pictured: dict[int | str, object] = field(default_factory=dict, repr=False, compare=False)


@dataclass
class Competition:
    """The competition a table plays for, if any (all ``None``: single deals).

    Attributes:
        match_options: a match's table: the options chosen in its lobby
            (``engine.match.MatchOptions.to_dict()``); ``None``: single deals.
        match_id: the store's id of the running match this table plays, once it started.
        challenge_id, challenge_deal: a duplicate challenge's deal played at this
            private table: the challenge's id and the deal's number (1-based); such a table has
            its own key (:func:`challenge_key`) and does not keep its player from a group's.
        tournament: a group tournament's table (RULES.md §10.1): ``{"id", "stage", "number",
            "deal"}`` (the tournament, its stage, the table's number in the stage from 1, the
            deal's number at the table); such a table has its own key (:func:`tournament_key`),
            the table's ``chat_id`` is the group's, and every seat sees the table in its private
            chat (``TableMessages.view_message_ids``).
    """

    match_options: dict[str, Any] | None = None
    match_id: int | None = None
    challenge_id: int | None = None
    challenge_deal: int | None = None
    tournament: dict[str, int] | None = None

    @property
    def tournament_id(self) -> int | None:
        """The tournament this table belongs to (:attr:`tournament`), if any."""
        return None if self.tournament is None else self.tournament["id"]


@dataclass
class Table:
    """A group's table: who sits where and in which phase, in four parts: its rules and
    options (:class:`TableOptions`), the deals' progress (:class:`DealProgress`), the messages
    that show it (:class:`TableMessages`) and the competition it plays for
    (:class:`Competition`).

    Attributes:
        chat_id, thread_id: the table's audience: the group chat and forum topic (``None``
            outside topics), or the player's private chat for a ``private`` table.
        lang: the group's language: every group message of this table; private messages and
            pop-ups use the player's own (:meth:`seat_lang`).
        title: the group's title, to name the table in private chats.
        token: current token carried by every button (changes per lobby and per deal).
        phase: ``"lobby"``, ``"deal"`` or ``"result"`` (deal over, "Play again" offered).
        opener_id: the user who opened the lobby (may start and close it, with group admins).
        private: a table in a player's private chat: a practice table (one human, two bot
            seats, no beans) or a challenge's deal (:attr:`practice`).
        seats: up to ``options.seat_count`` :class:`Seat` in seat order (turn order,
            RULES.md §1.2).
        options, progress, messages, competition: the parts, see their classes.
        state: the engine state of the deal (not part of the dict; stored as the deal's JSON).
    """

    chat_id: int
    thread_id: int | None
    lang: str
    title: str = ""
    token: str = field(default_factory=new_token)
    phase: Phase = LOBBY
    opener_id: int | None = None
    private: bool = False
    seats: list[Seat] = field(default_factory=list)
    options: TableOptions = field(default_factory=TableOptions)
    progress: DealProgress = field(default_factory=DealProgress)
    messages: TableMessages = field(default_factory=TableMessages)
    competition: Competition = field(default_factory=Competition)
    state: DealState | None = field(default=None, repr=False, compare=False)

    @property
    def plays_for_beans(self) -> bool:
        """Its deals move beans: a group deal outside a match (a practice, match or challenge
        deal plays for points only, RULES.md §8, §10)."""
        return (not self.private and self.competition.match_id is None
                and self.competition.tournament is None)

    @property
    def practice(self) -> bool:
        """A practice table (``/practice``): private, outside a challenge; nothing is at stake,
        leaving costs nothing (README)."""
        return self.private and self.competition.challenge_id is None

    @property
    def key(self) -> str:
        """The table key, see :func:`table_key` (:func:`challenge_key` for a challenge's)."""
        if self.competition.challenge_id is not None:
            return challenge_key(self.chat_id)
        tournament = self.competition.tournament
        if tournament is not None:
            return tournament_key(tournament["id"], tournament["stage"], tournament["number"])
        return table_key(self.chat_id, self.thread_id)

    def seat_of(self, user_id: int) -> int | None:
        """Seat index of a human player, or ``None`` if they do not sit here."""
        for i, seat in enumerate(self.seats):
            if seat.user_id == user_id and not seat.is_bot:
                return i
        return None

    def seat_lang(self, seat: int) -> str:
        """The language of a seat's private messages (hand, notices): the player's own, else
        the table's."""
        return self.seats[seat].lang or self.lang

    def humans(self) -> Iterator[tuple[int, Seat]]:
        """``(index, seat)`` of every human seat."""
        return ((i, s) for i, s in enumerate(self.seats) if not s.is_bot)

    def is_full(self, seats: int | None = None) -> bool:
        """Every seat taken (``seats``: default ``options.seat_count``)."""
        return len(self.seats) >= (self.options.seat_count if seats is None else seats)

    def reset_messages(self) -> None:
        """Forget the hand messages and turn notices of the last deal (a new deal starts)."""
        n = len(self.seats)
        messages = self.messages
        messages.hand_message_ids = [None] * n
        messages.hand_photos = [False] * n
        messages.turn_notices = [None] * n
        messages.autoplay_notices = [None] * n
        messages.rendered.clear()
        messages.pictured.clear()

    def set_leave_prompt(self, seat: int, message_id: int | None) -> None:
        """Remember (or, with ``None``, forget) the seat's pending /leave confirmation."""
        self.messages.leave_prompts = _padded(self.messages.leave_prompts, len(self.seats), None)
        self.messages.leave_prompts[seat] = message_id

    def offer_again(self, deadline: float) -> None:
        """Offer Play again after the deal ended (:mod:`bot.game.again`): every
        human seat is to answer by ``deadline`` (a UTC timestamp); bot seats are ready."""
        self.progress.ready = [seat.is_bot for seat in self.seats]
        self.progress.lobby_deadline = deadline
        self.messages.result_message_id = None

    def again_offered(self) -> bool:
        """The table waits for its players' answers to Play again under a result (its seats
        are still taken)."""
        return self.phase == RESULT and bool(self.progress.ready)

    def waiting(self) -> list[int]:
        """The human seats whose answer to Play again is still awaited: seated, not left, not
        ready (none when Play again is not offered)."""
        ready = self.progress.ready
        return [i for i, seat in self.humans()
                if not seat.left and i < len(ready) and not ready[i]]

    def reset_turn_memory(self) -> None:
        """Forget every seat's selection and hint position (the state changed)."""
        self.progress.selections = [[] for _ in self.seats]
        self.progress.hint_index = [0 for _ in self.seats]

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict of everything but the engine state: one flat dict, the parts'
        fields beside the table's own (the shape written before the parts existed, so that a
        table stored by either reads back, :meth:`from_dict`).

        Shape: ``{"v": 1, "chat_id", "thread_id", "lang", "title", "token", "phase", "opener_id",
        "seats": [{"user_id", "name", "is_bot", "left", "blocked", "lang", "welcoming"?,
        "in_group"?}, ...], "seat_count",
        "preset", "stake",
        "play_timeout", "bid_timeout", "autoplay_mode", "bot_level", "pictures", "card_counter",
        "auto_pass", "hands", "message_id", "message_photo", "hand_message_ids": [...],
        "hand_photos": [...],
        "turn_notices": [...], "autoplay_notices": [...], "leave_prompts": [...], "join_link",
        "deal_id", "first_bidder",
        "redeals", "last_winner", "deadline", "lobby_deadline",
        "selections": [[rank, ...], ...],
        "hint_index": [...], "private", "match_options", "match_id", "result_due",
        "ready": [bool, ...], "result_message_id", "challenge_id", "challenge_deal",
        "tournament"?, "view_message_ids"?, "view_photos"?, "watchers"?}``, meaning
        what the attributes of the table and its parts do (the last four only for a
        tournament's table).
        Dicts stored before pictures existed lack ``pictures`` … ``turn_notices``; they read as
        text messages and no pending notice; dicts stored before ``autoplay_notices`` as no
        auto-play notice with a live button. Dicts stored before ``leave_prompts`` read as no
        pending /leave confirmation; dicts stored before ``private`` read as a group's table,
        dicts stored before ``seat_count`` as a three-seat table, dicts stored before
        ``match_options`` as a table of single deals, dicts stored before ``card_counter`` with the
        counter on (its default), dicts stored before ``auto_pass`` with it on (its default),
        dicts stored before ``result_due`` as a result already posted, dicts stored before
        ``ready`` as no Play again pending, dicts stored before ``challenge_id`` as no
        challenge's, dicts stored before ``last_winner`` as no winner known.
        """
        options, progress = self.options, self.progress
        messages, competition = self.messages, self.competition
        return {
            "v": DICT_VERSION,
            "chat_id": self.chat_id,
            "thread_id": self.thread_id,
            "lang": self.lang,
            "title": self.title,
            "token": self.token,
            "phase": self.phase,
            "opener_id": self.opener_id,
            "seats": [s.to_dict() for s in self.seats],
            "seat_count": options.seat_count,
            "preset": options.preset,
            "stake": options.stake,
            "play_timeout": options.play_timeout,
            "bid_timeout": options.bid_timeout,
            "autoplay_mode": options.autoplay_mode,
            "bot_level": options.bot_level,
            "pictures": options.pictures,
            "card_counter": options.card_counter,
            "auto_pass": options.auto_pass,
            "hands": options.hands,
            "message_id": messages.message_id,
            "message_photo": messages.message_photo,
            "hand_message_ids": list(messages.hand_message_ids),
            "hand_photos": list(messages.hand_photos),
            "turn_notices": list(messages.turn_notices),
            "autoplay_notices": list(messages.autoplay_notices),
            "leave_prompts": list(messages.leave_prompts),
            "join_link": messages.join_link,
            "deal_id": progress.deal_id,
            "first_bidder": progress.first_bidder,
            "redeals": progress.redeals,
            "last_winner": progress.last_winner,
            "deadline": progress.deadline,
            "lobby_deadline": progress.lobby_deadline,
            "selections": [list(s) for s in progress.selections],
            "hint_index": list(progress.hint_index),
            "private": self.private,
            "match_options": competition.match_options,
            "match_id": competition.match_id,
            "result_due": progress.result_due,
            "ready": list(progress.ready),
            "result_message_id": messages.result_message_id,
            "challenge_id": competition.challenge_id,
            "challenge_deal": competition.challenge_deal,
            **({"tournament": dict(competition.tournament),
                "view_message_ids": messages.view_message_ids,
                "view_photos": messages.view_photos,
                "watchers": [[user_id, message_id, photo] for user_id, (message_id, photo)
                             in messages.watchers.items()]}
               if competition.tournament is not None else {}),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Table:
        """Inverse of :meth:`to_dict`.

        Raises:
            ValueError: an unknown dict version or phase, or a missing field.
        """
        if data.get("v") != DICT_VERSION:
            raise ValueError(f"unknown table dict version {data.get('v')!r}")
        if data.get("phase") not in PHASES:
            raise ValueError(f"unknown table phase {data.get('phase')!r}")
        try:
            hands = len(data["hand_message_ids"])
            return cls(
                chat_id=int(data["chat_id"]),
                thread_id=data["thread_id"],
                lang=data["lang"],
                title=data["title"],
                token=data["token"],
                phase=Phase(data["phase"]),
                opener_id=data["opener_id"],
                private=bool(data.get("private", False)),
                seats=[Seat.from_dict(s) for s in data["seats"]],
                options=TableOptions(
                    seat_count=int(data.get("seat_count", 3)),
                    preset=data["preset"],
                    stake=int(data["stake"]),
                    play_timeout=float(data["play_timeout"]),
                    bid_timeout=float(data["bid_timeout"]),
                    autoplay_mode=data["autoplay_mode"],
                    bot_level=data.get("bot_level", "normal"),
                    pictures=bool(data.get("pictures", True)),
                    card_counter=bool(data.get("card_counter", True)),
                    auto_pass=bool(data.get("auto_pass", True)),
                    hands=str(data.get("hands", "private")),
                ),
                progress=DealProgress(
                    deal_id=data["deal_id"],
                    first_bidder=data["first_bidder"],
                    redeals=int(data["redeals"]),
                    last_winner=data.get("last_winner"),
                    deadline=data["deadline"],
                    lobby_deadline=data["lobby_deadline"],
                    selections=[list(s) for s in data["selections"]],
                    hint_index=list(data["hint_index"]),
                    result_due=bool(data.get("result_due", False)),
                    ready=[bool(r) for r in data.get("ready", [])],
                ),
                messages=TableMessages(
                    message_id=data["message_id"],
                    message_photo=bool(data.get("message_photo", False)),
                    hand_message_ids=list(data["hand_message_ids"]),
                    hand_photos=_padded([bool(p) for p in data.get("hand_photos", [])],
                                        hands, False),
                    turn_notices=_padded(list(data.get("turn_notices", [])), hands, None),
                    autoplay_notices=_padded(list(data.get("autoplay_notices", [])), hands, None),
                    leave_prompts=_padded(list(data.get("leave_prompts", [])), hands, None),
                    join_link=bool(data["join_link"]),
                    result_message_id=data.get("result_message_id"),
                    view_message_ids=list(data.get("view_message_ids", [])),
                    view_photos=[bool(p) for p in data.get("view_photos", [])],
                    watchers={int(w[0]): (w[1], bool(w[2])) for w in data.get("watchers", [])},
                ),
                competition=Competition(
                    match_options=data.get("match_options"),
                    match_id=data.get("match_id"),
                    challenge_id=data.get("challenge_id"),
                    challenge_deal=data.get("challenge_deal"),
                    tournament=data.get("tournament"),
                ),
            )
        except KeyError as exc:
            raise ValueError(f"table dict lacks {exc.args[0]!r}") from None


def _padded(values: list[T], n: int, fill: T) -> list[T]:
    """``values`` made at least ``n`` long with ``fill`` (older dicts lack the list)."""
    return values + [fill] * (n - len(values))


class TableGuard(Protocol):
    """Serializes a table's actions across processes (:mod:`bot.telegram.workers.guard`)."""

    def hold(self, key: str) -> AbstractAsyncContextManager[None]:
        """Entered inside the table's ``asyncio.Lock``: waits until no other process acts on
        table ``key``, holds it for the block and first brings the registry's copy of the
        table up to date with the stored one (:meth:`Tables.refresh`)."""
        ...


@dataclass(frozen=True, slots=True)
class StoredLobby:
    """A lobby as every worker sees it (:meth:`SeatClaims.lobby_seats`): its stored seats' user
    ids (``None``: a bot), the users a Join answered as seated promises a seat there, and the
    users whose Leave is on its way (registered before its table's lock, or a Join of theirs
    withdrawn by a Leave)."""

    seats: list[int | None]
    claimed: set[int]
    leaving: set[int]


class SeatClaims(Protocol):
    """Seats being taken and given up, shared by every worker process
    (:mod:`bot.telegram.workers.shared`): a Start answered on one worker counts the seats a Join on
    another has promised and the Leaves on their way (:meth:`bot.game.lobby.Lobby.start_check`);
    a player is being seated at one table at a time, whichever worker seats them
    (:meth:`claim_seat`), and a Leave withdraws a Join of theirs that another worker has not
    seated yet (:meth:`withdraw_seat`)."""

    async def claim_seat(self, key: str, user_id: int) -> str | None:
        """``user_id`` is about to be seated at lobby ``key`` (a Join answered as seated, or
        another way to a seat): claims the player (one claim per player among the workers)
        and a seat there until :meth:`release_seat` (or until the claim runs out by itself if
        this process dies). ``None`` when claimed; else another worker's claim on the player
        holds: the key of the table it is for (``""`` when unknown)."""
        ...

    async def release_seat(self, key: str, user_id: int) -> None:
        """The seat claimed by :meth:`claim_seat` is stored, or was refused: the claims go, and
        a withdrawal of that Join (:meth:`withdraw_seat`) with them."""
        ...

    async def withdraw_seat(self, key: str, user_id: int) -> bool:
        """A Leave of ``user_id``, who does not sit at lobby ``key``: when a claim on a seat
        there holds (any worker's), it is withdrawn (:meth:`seat_withdrawn`) and ``True``;
        ``False`` when no Join of theirs is on its way."""
        ...

    async def seat_withdrawn(self, key: str, user_id: int) -> bool:
        """A Leave withdrew the claim on a seat at lobby ``key`` of ``user_id``: its Join must
        not seat them."""
        ...

    async def claim_leave(self, key: str, user_id: int) -> None:
        """A Leave of ``user_id`` at lobby ``key`` is on its way (before its table's lock):
        every worker's Start counts the seat as given up, until :meth:`release_leave`."""
        ...

    async def release_leave(self, key: str, user_id: int) -> None:
        """The Leave's block ended."""
        ...

    async def lobby_seats(self, key: str, token: str) -> StoredLobby | None:
        """The stored lobby ``key`` with token ``token``, with the claims on its seats; ``None``
        when the stored table is not that lobby (gone, or dealing)."""
        ...

    async def table_of(self, user_id: int, besides: str) -> Table | None:
        """The stored lobby or running deal other than table ``besides`` where ``user_id``
        sits (:func:`sits_at`), if any."""
        ...


class _GuardedLock:
    """The table's ``asyncio.Lock`` and then its :class:`TableGuard`, as one context."""

    def __init__(self, lock: asyncio.Lock, guard: TableGuard, key: str) -> None:
        self._lock = lock
        self._guard = guard
        self._key = key
        self._held: list[AbstractAsyncContextManager[None]] = []

    async def __aenter__(self) -> None:
        await self._lock.acquire()
        try:
            held = self._guard.hold(self._key)
            await held.__aenter__()
        except BaseException:
            self._lock.release()
            raise
        self._held.append(held)

    async def __aexit__(self, *exc: object) -> None:
        held = self._held.pop()
        try:
            await held.__aexit__(*exc)  # type: ignore[arg-type]
        finally:
            self._lock.release()


class Tables:
    """All tables of this process, by key and by token, with one lock per table key.

    ``guard``: with several worker processes, the :class:`TableGuard` each lock also takes
    (``None``, the default: this process is the only one).
    """

    def __init__(self, guard: TableGuard | None = None) -> None:
        self._by_key: dict[str, Table] = {}
        self._by_token: dict[str, str] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self.guard = guard

    def __len__(self) -> int:
        return len(self._by_key)

    def __iter__(self) -> Iterator[Table]:
        return iter(list(self._by_key.values()))

    def lock(self, key: str) -> AbstractAsyncContextManager[Any]:
        """The lock of table ``key`` (created on first use; also guards opening a table): its
        ``asyncio.Lock``, followed by the :attr:`guard` when there is one."""
        lock = self.local_lock(key)
        if self.guard is None:
            return lock
        return _GuardedLock(lock, self.guard, key)

    def local_lock(self, key: str) -> asyncio.Lock:
        """The ``asyncio.Lock`` of table ``key`` in this process alone."""
        lock = self._locks.get(key)
        if lock is None:
            lock = self._locks[key] = asyncio.Lock()
        return lock

    def refresh(self, key: str, fresh: Table | None) -> None:
        """Replace this process's copy of table ``key`` by the stored ``fresh`` one (``None``:
        the table is gone), with its local lock held. A table already known keeps its
        identity (whoever holds a reference to the table sees the new values; its parts are
        the fresh ones, so a part is read through the table, not kept across an await); what
        is not stored (``messages.rendered``, ``messages.pictured``, ``messages.notice``)
        starts afresh, so every message is drawn again where it differs."""
        old = self._by_key.get(key)
        if fresh is None:
            if old is not None:
                self.remove(old)
            return
        if old is None:
            self.add(fresh)
            return
        self._by_token.pop(old.token, None)
        old.__dict__.update(fresh.__dict__)
        self._by_token[old.token] = key

    def get(self, key: str) -> Table | None:
        return self._by_key.get(key)

    def by_token(self, token: str) -> Table | None:
        """The table whose *current* token is ``token``, else ``None`` (an old or forged token)."""
        key = self._by_token.get(token)
        table = self._by_key.get(key) if key is not None else None
        return table if table is not None and table.token == token else None

    def add(self, table: Table) -> None:
        """Register ``table`` (replacing a table with the same key)."""
        old = self._by_key.get(table.key)
        if old is not None:
            self._by_token.pop(old.token, None)
        self._by_key[table.key] = table
        self._by_token[table.token] = table.key

    def retoken(self, table: Table) -> str:
        """Give ``table`` a fresh token; buttons drawn with the old one become stale."""
        self._by_token.pop(table.token, None)
        table.token = new_token()
        self._by_token[table.token] = table.key
        return table.token

    def remove(self, table: Table) -> None:
        """Forget ``table`` (its lock stays, so waiters still hold a valid lock)."""
        if self._by_key.get(table.key) is table:
            del self._by_key[table.key]
        self._by_token.pop(table.token, None)

    def table_of(self, user_id: int) -> Table | None:
        """The lobby or running deal where the human ``user_id`` sits (and has not left); a
        challenge deal does not count (it never keeps its player from a group's table)."""
        for table in self._by_key.values():
            if sits_at(table, user_id):
                return table
        return None


def sits_at(table: Table, user_id: int) -> bool:
    """The human ``user_id`` sits at lobby or running deal ``table`` (and has not left it): a
    player sits at one such table at a time (:meth:`Tables.table_of`); a challenge deal does
    not count."""
    if table.phase == RESULT or table.competition.challenge_id is not None:
        return False
    seat = table.seat_of(user_id)
    return seat is not None and not table.seats[seat].left
