"""Usernames in the store (QA5 defect 7): /give @user and /audit @user find a username's holder
on every worker and after a restart; one holder per username (the latest), one username per
user (the latest), a removed username forgotten. Both backends."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest

from bot.store import Store, UsernameOwner, open_store, username_key


@pytest.fixture
async def other(database, clock) -> AsyncIterator[Store]:
    """A second worker's store on the test's database."""
    opened = await open_store(database, clock=clock)
    yield opened
    await opened.close()


async def test_a_username_is_found_in_any_case_by_another_worker_and_after_reopening(
    store, other, database, clock
):
    assert await store.username_owner("bobby") is None
    await store.remember_username(7, "BobBy", "Bob")
    for name in ("bobby", "@BOBBY", "BobBy"):
        assert await other.username_owner(name) == UsernameOwner(7, "Bob")
    assert await other.username_owner("bob") is None
    assert await other.username_owner("@") is None
    await store.close()
    reopened = await open_store(database, clock=clock)
    try:
        assert await reopened.username_owner("bobby") == UsernameOwner(7, "Bob")
    finally:
        await reopened.close()


async def test_a_username_that_moves_belongs_to_its_latest_holder(store, other):
    await store.remember_username(7, "bobby", "Bob")
    await other.remember_username(8, "bobby", "Cat")  # Bob freed it, Cat took it
    assert await store.username_owner("bobby") == UsernameOwner(8, "Cat")
    await store.remember_username(7, "bobby", "Bob")  # and back
    assert await other.username_owner("bobby") == UsernameOwner(7, "Bob")


async def test_a_changed_or_removed_username_is_forgotten(store, raw):
    await store.remember_username(7, "bobby", "Bob")
    await store.remember_username(7, "bob_new", "Bobby B")
    assert await store.username_owner("bobby") is None
    assert await store.username_owner("bob_new") == UsernameOwner(7, "Bobby B")
    await store.remember_username(7, None, "Bobby B")
    assert await store.username_owner("bob_new") is None
    await store.remember_username(7, "", "Bobby B")  # no username, again: nothing to forget
    await store.remember_username(8, "cat", "Cat")
    assert await raw.fetch("SELECT username, user_id, name FROM usernames") == [("cat", 8, "Cat")]


async def test_names_are_cleaned_as_player_names(store):
    await store.remember_username(7, "bobby", "\u202eBob")  # a bidirectional override
    assert await store.username_owner("bobby") == UsernameOwner(7, "Bob")
    await store.remember_username(9, "empty", "\u202e")
    assert await store.username_owner("empty") == UsernameOwner(9, "9")


async def test_workers_recording_the_same_username_at_once_leave_one_holder(store, other):
    await asyncio.gather(*(
        (store if user_id % 2 else other).remember_username(user_id, "popular", f"u{user_id}")
        for user_id in range(1, 9)
    ))
    owner = await store.username_owner("popular")
    assert owner is not None and owner.name == f"u{owner.user_id}"
    await asyncio.gather(*(
        (store if n % 2 else other).remember_username(5, f"five_{n}", "u5") for n in range(6)
    ))
    held = [n for n in range(6) if await store.username_owner(f"five_{n}") is not None]
    assert len(held) == 1


def test_username_key():
    assert [username_key(u) for u in ("@Bob_W", "bob", " @X ", "", "@", None)] == [
        "bob_w", "bob", "x", None, None, None]
