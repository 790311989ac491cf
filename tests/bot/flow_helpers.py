"""Helpers for the game-flow tests: drive the real bot through the fake Bot API like players do.

A :class:`Players` object knows the group, the users, and (through a mirror ``DealState`` the test
keeps by applying the same actions) what each seat holds, so a test can press exactly the buttons
a player would press.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from bot.core.i18n import t
from bot.telegram.services import App
from engine import SCORE, Action, DealState, apply, new_deal
from engine.cards import cards_to_ranks
from tests.fakebot import Call, Chat, FakeBotApi, FakeMessage, User
from tests.fakebot.server import WAIT

LANG = "en"
HAND_PREFIX = t("hand.title", LANG, n=0).split("(")[0] + "("  # "Your cards ("


def join_answers(lang: str = LANG) -> tuple[str, str]:
    """What an accepted Join is answered in ``lang``: "You are seated" when the bot wrote to the
    player privately before, "Taking your seat…" while it does not know yet whether it can
    (its welcome tells; a new user of a test, whose chat the test opened, gets this one)."""
    return t("pop.joined", lang), t("pop.seating", lang)


def hand_message(api: FakeBotApi, user: User) -> FakeMessage:
    """The user's private hand message (the newest bot message that shows a hand, as text or as
    a picture's caption)."""
    for message in reversed(api.messages_in(user)):
        if message.content.startswith(HAND_PREFIX):
            return message
    raise LookupError(f"no hand message for {user.first_name}")


async def table_picture(api: FakeBotApi, group: Chat, timeout: float = WAIT) -> FakeMessage:
    """Wait until the group's table is a picture (the lobby's text message replaced: sent as a
    photo, the lobby deleted) and return that message."""
    def shown() -> FakeMessage | None:
        messages = api.messages_in(group)
        return messages[0] if len(messages) == 1 and messages[0].photo else None

    return await api.wait_for(shown, timeout)


def button_data(
    message: FakeMessage, *, label: str | None = None, suffix: str | None = None
) -> str:
    """The callback data of the button labelled ``label``, or whose data ends in ``suffix``."""
    for button in message.buttons:
        if label is not None and button.text == label:
            return button.callback_data
        if suffix is not None and button.callback_data and button.callback_data.endswith(suffix):
            return button.callback_data
    labels = [(b.text, b.callback_data) for b in message.buttons]
    raise LookupError(f"no button {label or suffix!r}; buttons: {labels}")


def cannot_follow(state: DealState, seat: int) -> bool:
    """``seat`` is to follow with nothing that beats the play to beat: at a table with
    ``auto_pass`` (自动要不起, on by default) the bot passes for it and prompts nobody
    (``bot.presentation.views.passes_itself``)."""
    view = state.view(seat)
    return view.phase == "playing" and seat in view.to_act and not view.leading \
        and not view.legal_plays()


def after_bot_passes(state: DealState) -> DealState:
    """``state`` once the bot has passed for every seat in turn that cannot follow
    (:func:`cannot_follow`, at a table with ``auto_pass``): the state whose seats to act get the
    next prompt."""
    while state.to_act and cannot_follow(state, state.to_act[0]):
        state = apply(state, Action("pass", state.to_act[0]))
    return state


async def served(api: FakeBotApi, app: App, user: User, version: int) -> None:
    """Wait until the table where ``user`` sits is at state ``version`` and its lock is free
    again: what that state asked for (prompts, notices, timers, the store) is done; the
    outbox's background edits may still go."""
    tables = app.bot_data.tables

    def done() -> bool:
        table = tables.table_of(user.id)
        return table is not None and table.state is not None \
            and table.state.version == version and not tables.local_lock(table.key).locked()

    await api.wait_for(done)


async def with_button(api: FakeBotApi, find: Callable[[], FakeMessage], *,
                      suffix: str | None = None, label: str | None = None) -> FakeMessage:
    """The message ``find`` returns (it raises ``LookupError`` while there is none) once it
    shows the button (``suffix`` of its data or ``label``): the prompt of a turn may follow the
    answer to the press before it."""
    def shown() -> FakeMessage | None:
        try:
            message = find()
            button_data(message, label=label, suffix=suffix)
        except LookupError:
            return None
        return message
    return await api.wait_for(shown)


@dataclass
class Players:
    """The users of one group table and the test's mirror of the deal."""

    api: FakeBotApi
    group: Chat
    users: list[User]
    state: DealState | None = None
    answers: list[Call] = field(default_factory=list)
    dealt: tuple = ()
    #: The table passes a seat that cannot follow by itself (the group setting, on by default).
    auto_pass: bool = True

    async def command(self, user: User, text: str, chat: Chat | User | None = None) -> None:
        """``user`` sends ``text`` (in the group unless ``chat`` is given); waits for a reply."""
        target = chat or self.group
        self.api.send_text(user, target, text)
        await self.api.wait_for("sendMessage", chat_id=target)

    async def press(self, user: User, message: FakeMessage, data: str) -> Call:
        """Press a button and wait for the bot's answer to it."""
        query = self.api.press(user, message, data)
        answer = await self.api.wait_settled(query)
        self.answers.append(answer)
        return answer

    async def click(self, user: User, message: FakeMessage, label: str) -> Call:
        """Press the button labelled ``label``."""
        return await self.press(user, message, button_data(message, label=label))

    def table_message(self) -> FakeMessage:
        """The group's newest table/lobby message (the last one with a keyboard or the last)."""
        messages = self.api.messages_in(self.group)
        for message in reversed(messages):
            if message.buttons:
                return message
        return messages[-1]

    async def open_table(self, opener: User, others: Sequence[User], *,
                         private: Sequence[User] | None = None) -> FakeMessage:
        """The users in ``private`` (default: every user) open the private chat, ``opener``
        sends /newgame, the others Join."""
        for user in self.users if private is None else private:
            self.api.open_private_chat(user)
        await self.command(opener, "/newgame")
        lobby = self.table_message()
        for user in others:
            answer = await self.click(user, lobby, t("btn.join", LANG))
            assert answer.params.get("text") in join_answers(), answer
        return lobby

    def seat_user(self, seat: int) -> User:
        return self.users[seat]

    async def act(self, action: Action) -> Call | None:
        """The seat's player presses what ``action`` needs on their hand message: a bidding or
        doubling button, Pass, or the cards' rank buttons then Play (once the prompt shows
        them). Updates the mirror. A pass of a seat that cannot follow is the bot's at a table
        with ``auto_pass`` (自动要不起, :attr:`auto_pass`): nothing is pressed, ``None``."""
        user = self.seat_user(action.seat)
        if action.kind == "pass" and self.passes_itself(action.seat):
            self.state = apply(self.state, action)
            return None
        if action.kind == "play":
            await self.prompt(user, label=t("btn.play", LANG))
            for rank in sorted(set(action.cards)):
                for _ in range(action.cards.count(rank)):
                    message = self.hand(user)
                    data = button_data(message, suffix=f":r{rank}")
                    answer = await self.press(user, message, data)
                    assert answer.params.get("text") is None, answer
            answer = await self.click(user, self.hand(user), t("btn.play", LANG))
        else:
            payload = f"{action.kind}{action.value}" if action.kind == "bid" else action.kind
            message = await self.prompt(user, suffix=f":{payload}")
            answer = await self.press(user, message, button_data(message, suffix=f":{payload}"))
        assert answer.params.get("text") is None, (action, answer)
        self.state = apply(self.state, action)
        return answer

    def hand(self, user: User) -> FakeMessage:
        """``user``'s hand message (in their private chat)."""
        return hand_message(self.api, user)

    def passes_itself(self, seat: int) -> bool:
        """In the mirror, the bot passes for ``seat`` (:func:`cannot_follow`, at a table with
        :attr:`auto_pass`)."""
        assert self.state is not None
        return self.auto_pass and cannot_follow(self.state, seat)

    async def bot_passes(self, app: App) -> DealState:
        """Wait until ``app``'s table is at the mirror's state once the bot has passed for the
        seats in turn that cannot follow (:func:`after_bot_passes`, at a table with
        :attr:`auto_pass`) and has shown it (its lock free again: prompts drawn, the table
        stored), and mirror those passes; the mirrored state."""
        assert self.state is not None
        if self.auto_pass:
            self.state = after_bot_passes(self.state)
        await served(self.api, app, self.users[0], self.state.version)
        return self.state

    async def prompt(self, user: User, *, suffix: str | None = None,
                     label: str | None = None) -> FakeMessage:
        """The user's hand message once it shows the button (:func:`with_button`)."""
        return await with_button(self.api, lambda: hand_message(self.api, user),
                                 suffix=suffix, label=label)

    def hand_ranks(self, seat: int) -> tuple[int, ...]:
        assert self.state is not None
        return cards_to_ranks(self.state.hands[seat])


RESULT_MARK = "🏁"
#: The calls that send or change a message's text or caption.
TEXT_METHODS = ("sendMessage", "editMessageText", "sendPhoto", "editMessageCaption",
                "editMessageMedia")
GROUP_METHODS = TEXT_METHODS


def call_text(call: Call) -> str:
    """The text or caption a call sends (a new picture's caption for ``editMessageMedia``)."""
    media = call.params.get("media")
    caption = media.get("caption") if isinstance(media, dict) else None
    return str(call.params.get("text") or call.params.get("caption") or caption or "")


async def result_message(
    api: FakeBotApi, group: Chat, timeout: float = 10.0, since: int = 0
) -> FakeMessage:
    """Wait for the result message in ``group`` (text, or a picture with a caption; the first
    one since call index ``since``) and return it."""
    call = await api.wait_for(
        lambda: next((c for c in api.calls[since:] if c.ok
                      and c.method in ("sendMessage", "sendPhoto")
                      and c.params.get("chat_id") == group.id
                      and call_text(c).startswith(RESULT_MARK)), None),
        timeout,
    )
    return api.message(group, call.result["message_id"])


def private_hand_texts(api: FakeBotApi, users: Sequence[User]) -> list[str]:
    """Every hand message text or caption the bot sent or drew in the users' private chats."""
    ids = {u.id for u in users}
    texts = []
    for call in api.calls:
        if call.method in TEXT_METHODS and call.params.get("chat_id") in ids:
            text = call_text(call)
            if text.startswith(HAND_PREFIX):
                texts.append(text)
    return texts


def group_texts(api: FakeBotApi, group: Chat) -> list[str]:
    """Every text or caption the bot sent to or drew in ``group`` (each edit counted)."""
    return [
        call_text(call)
        for call in api.calls
        if call.method in GROUP_METHODS and call.params.get("chat_id") == group.id
    ]


def assert_no_hand_in_group(api: FakeBotApi, group: Chat, users: Sequence[User]) -> None:
    """No private hand text, and no dealt hand's card line, ever appeared in a group message
    (issue 3: "a hand never appears in a group message")."""
    hands = private_hand_texts(api, users)
    assert hands, "no hand was ever sent"
    dealt = {text.splitlines()[1] for text in hands if len(text.splitlines()) > 1
             and text.splitlines()[0] in (t("hand.title", LANG, n=17),
                                          t("hand.title", LANG, n=20))}
    assert dealt
    for text in group_texts(api, group):
        for hand in hands:
            assert hand not in text
        for line in dealt:
            assert line not in text, (line, text)


async def start_seeded_deal(
    api: FakeBotApi, app, title: str, *, seed: int, first_bidder: int = 0,
    names: Sequence[str] = ("Ann", "Bob", "Cat"),
) -> Players:
    """Three new users at a new group's table whose deal has just started.

    The shuffle is fixed by ``seed`` and ``first_bidder`` bids first (the bot's test hooks);
    ``players.state`` mirrors the deal, ``players.lobby`` is the lobby message the first user
    opened and started, ``players.app`` the Application.
    """
    app.bot_data.game.deal_seed = seed
    app.bot_data.game.first_bidder = first_bidder
    users = [api.new_user(name) for name in names]
    players = Players(api, api.new_group(title), users)
    players.app = app
    players.lobby = await players.open_table(users[0], users[1:])
    await players.click(users[0], players.lobby, t("btn.start", LANG))
    players.state = new_deal(SCORE, seed=seed, first_bidder=first_bidder)
    return players


async def play_again(players: Players, result: FakeMessage,
                     users: Sequence[User] | None = None) -> list[Call]:
    """Every user (default: the table's) presses 再来一局 on the result, one after another;
    the answers (the last one's starts the next deal when every seat is ready)."""
    return [await players.click(user, result, t("btn.play_again", LANG))
            for user in (players.users if users is None else users)]


async def start_practice(api: FakeBotApi, app: App, seed: int, name: str = "Ann"
                         ) -> tuple[User, FakeMessage]:
    """A new user ``name`` sends /practice in their private chat, dealt from ``seed`` with
    seat 0 bidding first: the user and their first hand message."""
    app.bot_data.game.deal_seed = seed
    app.bot_data.game.first_bidder = 0
    user = api.new_user(name)
    api.send_text(user, user, "/practice")
    hand = await api.wait_for(lambda: next(
        (m for m in api.messages_in(user) if m.content.startswith(HAND_PREFIX)), None))
    return user, hand
