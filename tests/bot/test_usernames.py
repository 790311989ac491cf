"""bot.store.usernames.UsernameBook (QA5 defect 7): the store is written when a user's username or
name changed since this process last stored it, not on every update."""

from __future__ import annotations

from typing import cast

import pytest

from bot.store import Store
from bot.store.usernames import UsernameBook


class RecordingStore:
    """Records ``remember_username`` calls; fails on demand."""

    def __init__(self) -> None:
        self.calls: list[tuple[int, str | None, str]] = []
        self.fail = False

    async def remember_username(self, user_id: int, username: str | None, name: str) -> None:
        if self.fail:
            raise OSError("database is down")
        self.calls.append((user_id, username, name))


async def test_only_changes_are_written():
    recording = RecordingStore()
    store = cast(Store, recording)
    book = UsernameBook()
    assert await book.note(store, 7, "Bobby", "Bob") is True
    assert await book.note(store, 7, "bobby", "Bob") is False  # the same username, any case
    assert await book.note(store, 7, "bob_new", "Bob") is True
    assert await book.note(store, 7, "bob_new", "Bob S") is True  # a new display name
    assert await book.note(store, 7, None, "Bob S") is True  # the username removed
    assert await book.note(store, 7, None, "Bob S") is False
    assert await book.note(store, 8, None, "Cat") is True  # first seen: an old row may exist
    assert recording.calls == [(7, "Bobby", "Bob"), (7, "bob_new", "Bob"),
                               (7, "bob_new", "Bob S"), (7, None, "Bob S"), (8, None, "Cat")]


async def test_a_failed_write_is_tried_again_with_the_next_update():
    recording = RecordingStore()
    store = cast(Store, recording)
    book = UsernameBook()
    recording.fail = True
    with pytest.raises(OSError):
        await book.note(store, 7, "bobby", "Bob")
    recording.fail = False
    assert await book.note(store, 7, "bobby", "Bob") is True
    assert recording.calls == [(7, "bobby", "Bob")]


async def test_the_least_recently_seen_users_are_forgotten_first():
    recording = RecordingStore()
    store = cast(Store, recording)
    book = UsernameBook(limit=2)
    await book.note(store, 1, "a", "A")
    await book.note(store, 2, "b", "B")
    assert await book.note(store, 1, "a", "A") is False  # 1 is now the most recent
    await book.note(store, 3, "c", "C")  # forgets 2
    assert len(book) == 2
    assert await book.note(store, 1, "a", "A") is False
    assert await book.note(store, 2, "b", "B") is True
