"""Helpers for the four-player end-to-end tests (RULES.md §11): a group set to ``players`` 4, its
users in one language, and a mirror ``DealState`` of the ``four`` preset the test keeps by
applying the same actions, so that a test presses exactly the buttons a player would press."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bot.core.i18n import t
from engine import FOUR, Action, DealState, apply, new_deal
from tests.bot.flow_helpers import button_data, call_text, cannot_follow, with_button
from tests.fakebot import Call, Chat, FakeBotApi, FakeMessage, User

#: Telegram's ``language_code`` of a test user per catalogue language.
USER_CODES = {"en": "en", "zh-Hans": "zh-hans", "zh-Hant": "zh-hant"}


def hand_prefix(lang: str) -> str:
    """The first characters of every hand message in ``lang`` ("Your cards (" / "你的手牌（")."""
    title = t("hand.title", lang, n=0)
    return title[: title.index("0")]


@dataclass
class FourTable:
    """The users of one four-seat group table, in ``lang``, and the test's mirror of the deal."""

    api: FakeBotApi
    group: Chat
    users: list[User]
    lang: str
    state: DealState | None = None
    answers: list[Call] = field(default_factory=list)
    #: The table passes a seat that cannot follow by itself (the group setting, on by default).
    auto_pass: bool = True

    @classmethod
    async def open(cls, api: FakeBotApi, app, title: str, names: Sequence[str], lang: str,
                   **settings: object) -> FourTable:
        """A new group with ``players`` 4 in ``lang`` (and ``settings``, :attr:`auto_pass`
        following its own), its users with their private chats open."""
        group = api.new_group(title)
        await app.bot_data.store.update_group_settings(
            group.id, **{"players": 4, "language": lang, **settings})
        users = [api.new_user(name, language_code=USER_CODES[lang]) for name in names]
        for user in users:
            api.open_private_chat(user)
        return cls(api, group, users, lang, auto_pass=bool(settings.get("auto_pass", True)))

    async def command(self, user: User, text: str) -> None:
        self.api.send_text(user, self.group, text)
        await self.api.wait_for("sendMessage", chat_id=self.group)

    async def press(self, user: User, message: FakeMessage, data: str) -> Call:
        query = self.api.press(user, message, data)
        answer = await self.api.wait_settled(query)
        self.answers.append(answer)
        return answer

    async def click(self, user: User, message: FakeMessage, key: str, **kwargs: object) -> Call:
        """Press the button labelled with catalogue text ``key``."""
        return await self.press(user, message,
                                button_data(message, label=t(key, self.lang, **kwargs)))

    def lobby(self) -> FakeMessage:
        """The group's newest message with a keyboard (the lobby)."""
        return next(m for m in reversed(self.api.messages_in(self.group)) if m.buttons)

    def hand(self, user: User) -> FakeMessage:
        """The user's private hand message (text, or a picture's caption)."""
        prefix = hand_prefix(self.lang)
        for message in reversed(self.api.messages_in(user)):
            if message.content.startswith(prefix):
                return message
        raise LookupError(f"no hand message for {user.first_name}")

    def deal(self, seed: int, first_bidder: int) -> None:
        """Start the mirror of the deal the bot dealt with these test hooks."""
        self.state = new_deal(FOUR, seed=seed, first_bidder=first_bidder)

    async def tap(self, seat: int, ranks: Sequence[int]) -> None:
        """The seat's player taps the rank buttons that select ``ranks`` (one tap per card)."""
        user = self.users[seat]
        for rank in ranks:
            message = self.hand(user)
            answer = await self.press(user, message, button_data(message, suffix=f":r{rank}"))
            assert answer.params.get("text") is None, answer

    async def forge_play(self, seat: int, ranks: Sequence[int]) -> Call:
        """The seat's player sends the select presses of ``ranks`` and Play although the
        keyboard shows none of them (data forged from the prompt's token and version); the
        answer to Play."""
        user = self.users[seat]
        _, token, version, _ = button_data(self.hand(user), suffix=":pass").split(":")
        for rank in ranks:
            await self.press(user, self.hand(user), f"S:{token}:{version}:r{rank}")
        return await self.press(user, self.hand(user), f"S:{token}:{version}:play")

    async def clear(self, seat: int) -> Call:
        """The seat's player empties the selection (the Clear press, also when the keyboard
        shows only 要不起)."""
        user = self.users[seat]
        _, token, version, _ = button_data(self.hand(user), suffix=":pass").split(":")
        return await self.press(user, self.hand(user), f"S:{token}:{version}:clear")

    async def act(self, action: Action) -> Call | None:
        """The seat's player presses what ``action`` needs, once the prompt shows it: a bidding
        button, Pass, or the cards' rank buttons then Play; the mirror follows. The pass of a
        seat that cannot follow is the bot's at a table with :attr:`auto_pass` (自动要不起):
        nothing is pressed, ``None``."""
        assert self.state is not None
        user = self.users[action.seat]
        if action.kind == "pass" and self.passes_itself(action.seat):
            self.state = apply(self.state, action)
            return None
        if action.kind == "play":
            await self.prompt(user, label=t("btn.play", self.lang))
            await self.tap(action.seat, sorted(action.cards or ()))
            answer = await self.click(user, self.hand(user), "btn.play")
        else:
            payload = f"{action.kind}{action.value}" if action.kind == "bid" else action.kind
            message = await self.prompt(user, suffix=f":{payload}")
            answer = await self.press(user, message, button_data(message, suffix=f":{payload}"))
        assert answer.params.get("text") is None, (action, answer)
        self.state = apply(self.state, action)
        return answer

    def passes_itself(self, seat: int) -> bool:
        """In the mirror, the bot passes for ``seat`` (:func:`cannot_follow`, at a table with
        :attr:`auto_pass`)."""
        assert self.state is not None
        return self.auto_pass and cannot_follow(self.state, seat)

    async def prompt(self, user: User, *, suffix: str | None = None,
                     label: str | None = None) -> FakeMessage:
        """The user's hand message once it shows the button (:func:`with_button`)."""
        return await with_button(self.api, lambda: self.hand(user), suffix=suffix, label=label)

    def group_texts(self) -> list[str]:
        """Every text or caption the bot sent to or drew in the group (each edit counted)."""
        return [call_text(c) for c in self.api.calls
                if c.params.get("chat_id") == self.group.id and call_text(c)]

    def private_hand_lines(self) -> set[str]:
        """The card lines of every hand message the users were sent (their hands as text)."""
        ids = {u.id for u in self.users}
        prefix = hand_prefix(self.lang)
        lines = set()
        for call in self.api.calls:
            if call.params.get("chat_id") in ids and call_text(call).startswith(prefix):
                text = call_text(call).splitlines()
                if len(text) > 1 and text[1]:
                    lines.add(text[1])
        return lines

    def assert_no_hand_in_group(self) -> None:
        """No hand's card line ever appeared in a group message (a hand is private)."""
        lines = self.private_hand_lines()
        assert lines
        for text in self.group_texts():
            for line in lines:
                assert line not in text.splitlines(), (line, text)
