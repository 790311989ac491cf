"""Players whose hands are ephemeral messages in the group (the group setting ``hands`` =
``group``): the hand of a user is the newest ephemeral message they see in the group; with a
bot that is not an admin of the group, a hand that is not there yet is brought by pressing
🂠 My cards on the table message."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.core.i18n import t
from tests.bot.flow_helpers import LANG, Players, button_data
from tests.fakebot import FakeBotApi, User
from tests.fakebot.ephemeral import EphemeralMessage
from tests.fakebot.models import Call, FakeMessage

#: Seconds a test waits for a hand pushed by an admin bot, or edited after a press.
PATIENCE = 5.0


@dataclass
class GroupPlayers(Players):
    """:class:`~tests.bot.flow_helpers.Players` whose hands are in the group (module
    docstring). ``admin``: the bot is an admin of the group (it pushes each hand)."""

    admin: bool = False

    async def open_group_table(self, store, opener: User, others: Sequence[User], *,
                               private: Sequence[User] = ()) -> FakeMessage:
        """Only the users in ``private`` open the bot's private chat; the group shows hands
        in the group (its ``hands`` setting); ``opener`` opens the table, the others Join."""
        await store.update_group_settings(self.group.id, hands="group")
        if self.admin:
            self.api.ephemeral.set_bot_admin(self.group)
        return await self.open_table(opener, others, private=private)

    def hand(self, user: User) -> EphemeralMessage:
        """The newest ephemeral message ``user`` sees in the group (LookupError: none)."""
        message = self.api.ephemeral.last_seen_by(user, self.group)
        if message is None:
            raise LookupError(f"{user.first_name} sees no hand")
        return message

    async def press(self, user: User, message: FakeMessage, data: str) -> Call:
        if isinstance(message, EphemeralMessage):
            query = self.api.ephemeral.press(user, message, data)
        else:
            query = self.api.press(user, message, data)
        answer = await self.api.wait_settled(query)
        self.answers.append(answer)
        return answer

    async def my_cards(self, user: User) -> Call:
        """``user`` presses 🂠 My cards on the table message."""
        return await self.click(user, self.table_message(), t("btn.my_cards", LANG))

    async def prompt(self, user: User, *, suffix: str | None = None,
                     label: str | None = None) -> FakeMessage:
        """The user's hand once it shows the button; when it is not there (a bot that is not
        an admin sends a hand only for a press of its player), My cards brings it."""
        def shown() -> FakeMessage | None:
            try:
                message = self.hand(user)
                button_data(message, label=label, suffix=suffix)
            except LookupError:
                return None
            return message
        if shown() is None and not self.admin:
            try:
                return await self.api.wait_for(shown, 0.5)
            except TimeoutError:
                await self.my_cards(user)
        return await self.api.wait_for(shown, PATIENCE)


def assert_hands_only_to_their_players(api: FakeBotApi, seats: dict[int, User]) -> None:
    """Every ephemeral call named a receiver, and each receiver is a seated player; every
    hand text an ephemeral call carried went to the player whose cards it lists (no hand in
    any other member's view)."""
    calls = api.ephemeral.calls()
    assert calls, "no ephemeral call was made"
    users = {user.id for user in seats.values()}
    for call in calls:
        assert call.receiver_id in users, call
