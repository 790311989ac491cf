"""The daily challenge: where a group's ``daily_challenge`` setting is on, a
duplicate challenge with the default options opens by itself every day of the group's time
zone (:meth:`bot.features.challenge.driver.Challenges.open_daily`).

A repeating JobQueue job looks every :data:`CHECK_INTERVAL` seconds (and :data:`FIRST_CHECK`
seconds after a start); the store's unique key on (group, day) opens each day's challenge at
most once, across restarts and several workers.
"""

from __future__ import annotations

import logging

from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes

from bot.telegram.handlers.common import game, store

log = logging.getLogger(__name__)

JOB_NAME = "daily_challenge"
#: Seconds between two looks; a day's challenge opens at most this late after midnight.
CHECK_INTERVAL = 300.0
#: Seconds after a start before the first look.
FIRST_CHECK = 15.0


async def open_daily_challenges(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Job: open today's challenge in every group that wants one and has none open."""
    app = context.application
    for chat_id in await store(app).daily_challenge_groups():
        try:
            title = (await app.bot.get_chat(chat_id)).title or ""
        except TelegramError as exc:
            log.info("daily challenge: group %s is out of reach: %s", chat_id, exc)
            continue
        await game(app).challenges.open_daily(chat_id, title)


def register(app: Application) -> None:
    """Schedule the repeating job on the application's JobQueue."""
    assert app.job_queue is not None, "python-telegram-bot[job-queue] is required"
    app.job_queue.run_repeating(open_daily_challenges, interval=CHECK_INTERVAL,
                                first=FIRST_CHECK, name=JOB_NAME)
