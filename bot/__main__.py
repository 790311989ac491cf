"""`python -m bot` or `ddz-bot`: run the bot.

Reads `Settings` from the environment and `.env`; a bad setting, or a token Telegram rejects,
prints one line to stderr and exits with status 2; a Bot API server that cannot be reached at
start-up exits with status 1. Runs long polling, or a webhook server on
WEBHOOK_LISTEN:WEBHOOK_PORT when WEBHOOK_URL is set, until SIGINT/SIGTERM (exit status 0): PTB's
own with SQLite, the webhook workers of :mod:`bot.telegram.workers.run` (``WORKERS`` processes) with
a PostgreSQL DATABASE_URL.
"""

from __future__ import annotations

import logging
import sys
from typing import NoReturn

from telegram.error import InvalidToken, NetworkError

from bot.core.settings import Settings, SettingsError
from bot.telegram.app import build_application
from bot.telegram.workers.run import run_worker, run_workers

LOG_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Lowest level each library logger may log at, whatever LOG_LEVEL says: below these, PTB logs
# request parameters and updates (message texts, callback data, so hands), aiosqlite logs SQL
# parameters (deal states, so hands) and httpx logs request URLs, which contain the bot token.
LIBRARY_LOG_FLOORS = {
    "telegram": logging.INFO,
    "aiosqlite": logging.INFO,
    "httpx": logging.WARNING,
    "httpcore": logging.WARNING,
    "apscheduler": logging.WARNING,
}


# PTB logs its start-up retry loop's failure with a traceback before re-raising it; `main` then
# prints the one-line reason, so the traceback is left out.
START_UP_FAILURE_PREFIX = "Network Retry Loop (Bootstrap"


class PrivacyFilter(logging.Filter):
    """Keeps the bot token out of every log line and start-up tracebacks off stderr."""

    def __init__(self, token: str) -> None:
        super().__init__()
        self.token = token

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if message.startswith(START_UP_FAILURE_PREFIX):
            record.exc_info = None
            record.exc_text = None
        elif record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if self.token:
            message = message.replace(self.token, "<BOT_TOKEN>")
            if record.exc_text:
                record.exc_text = record.exc_text.replace(self.token, "<BOT_TOKEN>")
        record.msg, record.args = message, ()
        return True


def configure_logging(level: str, token: str = "") -> None:
    """Log to stderr at `level` (a `logging` level name), keeping library loggers quiet.

    Every handler of the root logger gets a :class:`PrivacyFilter` for `token`.
    """
    logging.basicConfig(format=LOG_FORMAT)
    root = logging.getLogger()
    root.setLevel(level)
    for handler in root.handlers:
        handler.addFilter(PrivacyFilter(token))
    for name, floor in LIBRARY_LOG_FLOORS.items():
        logging.getLogger(name).setLevel(max(floor, root.level))


def main() -> None:
    """Entry point of `python -m bot` and the `ddz-bot` console script."""
    try:
        settings = Settings.from_env()
    except SettingsError as error:
        _exit(str(error), 2)
    configure_logging(settings.log_level, settings.bot_token)
    application = build_application(settings)
    try:
        if settings.shared_workers:
            if settings.workers > 1:
                run_workers(application, settings)
            else:
                run_worker(application, settings)
        elif settings.webhook_url:
            application.run_webhook(
                listen=settings.webhook_listen,
                port=settings.webhook_port,
                url_path=settings.webhook_path,
                webhook_url=settings.webhook_url,
                secret_token=settings.webhook_secret,
            )
        else:
            application.run_polling()
    except InvalidToken:
        _exit("Telegram rejected BOT_TOKEN: copy it again from @BotFather", 2)
    except NetworkError as error:
        _exit(f"cannot reach the Bot API at {settings.bot_api_base_url}: {error}", 1)


def _exit(message: str, status: int) -> NoReturn:
    print(f"ddz-bot: {message}", file=sys.stderr)
    raise SystemExit(status)


if __name__ == "__main__":
    main()
