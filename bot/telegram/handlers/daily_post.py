"""The end-of-day post: yesterday's top 3 of each group that played, in the group's
time zone, where the group's ``daily_post`` setting is on.

A repeating JobQueue job asks the store every :data:`CHECK_INTERVAL` seconds (and
:data:`FIRST_CHECK` seconds after a start, so a day that ended while the bot was down is posted
too) which groups are due (``store.daily_posts_due``). A post is claimed with
``store.mark_posted`` before it is sent, so it is sent at most once, across restarts and
several workers; a send that fails is logged and not retried.
"""

from __future__ import annotations

import logging

from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes

from bot.features.economy.views import daily_post_text
from bot.telegram.handlers.common import group_language, store

log = logging.getLogger(__name__)

JOB_NAME = "daily_post"
#: Seconds between two looks for due posts; a post comes at most this late after midnight.
CHECK_INTERVAL = 300.0
#: Seconds after a start before the first look.
FIRST_CHECK = 10.0
TOP_N = 3


async def post_daily_tops(context: ContextTypes.DEFAULT_TYPE) -> None:
    """Job: send each due group its top 3 of yesterday (net beans won), once."""
    app = context.application
    st = store(app)
    for chat_id, day in await st.daily_posts_due():
        if not await st.mark_posted(chat_id, day):
            continue
        rows = await st.leaderboard(chat_id, "yesterday", limit=TOP_N)
        if not rows:
            continue
        lang = group_language(app, await st.get_group_settings(chat_id))
        try:
            await app.bot.send_message(chat_id, daily_post_text(day, rows, lang))
        except TelegramError as exc:
            log.info("daily top post to %s failed: %s", chat_id, exc)


def register(app: Application) -> None:
    """Schedule the repeating job on the application's JobQueue."""
    assert app.job_queue is not None, "python-telegram-bot[job-queue] is required"
    app.job_queue.run_repeating(post_daily_tops, interval=CHECK_INTERVAL, first=FIRST_CHECK,
                                name=JOB_NAME)
