"""Bot settings read from the environment and an optional `.env` file.

Every setting has an environment variable (listed in `.env.example` at the repository root).
`Settings.from_env()` reads `os.environ` after loading `.env` with python-dotenv; values already
in the environment win over the file. A bad value raises `SettingsError` whose message is one
line naming the variable, so `python -m bot` can print it without a traceback.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from dotenv import find_dotenv, load_dotenv

from bot.core.i18n import LANGUAGES, match_language

TELEGRAM_API_URL = "https://api.telegram.org/bot"
#: Where a group's hands may be shown (``DEFAULT_HANDS``, the group setting ``hands``).
HANDS = ("group", "private")
#: How ephemeral messages count in a group's flood budget (``EPHEMERAL_FLOOD``).
EPHEMERAL_FLOOD = ("own", "group", "none")
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
# DATABASE_URL schemes that select the PostgreSQL store (asyncpg accepts both)
POSTGRES_SCHEMES = ("postgresql://", "postgres://")

# BotFather tokens: the bot's numeric id, a colon, then about 35 URL-safe characters.
_TOKEN_RE = re.compile(r"\d{1,20}:[A-Za-z0-9_-]{30,50}")
# Telegram accepts 1-256 characters A-Z, a-z, 0-9, _ and - as a webhook secret token.
_SECRET_RE = re.compile(r"[A-Za-z0-9_-]{1,256}")


class SettingsError(ValueError):
    """A setting is missing or malformed; `str(error)` is one line naming the variable."""


def file_url_for(base_url: str) -> str:
    """The Bot API file URL that goes with `base_url`.

    Telegram and self-hosted Bot API servers serve methods under `<server>/bot<token>/` and files
    under `<server>/file/bot<token>/`, so a base URL ending in `/bot` maps to `.../file/bot`.

    >>> file_url_for("https://api.telegram.org/bot")
    'https://api.telegram.org/file/bot'
    """
    if base_url.endswith("/bot"):
        return base_url[: -len("/bot")] + "/file/bot"
    return base_url.rstrip("/") + "/file/"


@dataclass(frozen=True)
class Settings:
    """Everything the bot reads at start-up (times in seconds).

    The store is PostgreSQL when `database_url` is set (a `postgresql://` URL, for several
    workers on one database), else the SQLite file `database_path`; `database` is the one to
    open (`bot.store.open_store`). `bot_api_file_url` is derived from `bot_api_base_url` unless
    given. Webhook mode is on when `webhook_url` is set; it then needs `webhook_secret`, and the
    bot listens on 0.0.0.0:`webhook_port` at the path of `webhook_url`. `group_rate_limit` is
    how many sends, edits and deletes the bot makes in one group in any sliding minute
    (Telegram allows about 20; `bot.telegram.outlet.limiter`). `table_edit_interval`: at least this
    many seconds between two edits of one table message. `turn_notice_delay`: a human to act who has
    not acted after this many seconds gets a notifying "your turn" message (0: at once).
    `ai_workers`: threads running the AI off the event loop. `default_hands`: where the hands
    of a group whose ``hands`` setting is left at the default are shown: ``"group"`` (ephemeral
    messages in the group, only their player sees them) or ``"private"`` (the private chat).
    `ephemeral_flood`: whether ephemeral sends and edits count in a group's flood window:
    ``"own"`` (a window of their own per group, `ephemeral_rate_limit` per minute, paused
    by its own 429s), ``"group"`` (the group's window, with its other messages) or ``"none"``
    (only the bot's overall rate). The token, the database URL (it
    may hold a password) and the webhook secret are left out of `repr`.

    Several workers (:mod:`bot.telegram.workers`): with both `webhook_url` and `database_url`
    set, the bot runs as a webhook worker on PostgreSQL (updates stored before they are
    answered, timers and flood budgets in the database, tables locked across processes),
    listening on `webhook_listen`:`webhook_port`; `workers` such processes share the port
    (each started the same way behind a reverse proxy works as well). `worker_lease`: seconds
    after which the updates and tables a worker that stopped answering was working on are
    taken over by another. `worker_name`: this worker's name in the database (default: host
    name and process id).
    """

    bot_token: str = field(repr=False)
    database_path: Path = Path("./data/ddz.sqlite3")
    database_url: str | None = field(default=None, repr=False)
    bot_api_base_url: str = TELEGRAM_API_URL
    bot_api_file_url: str = ""
    default_language: str = "zh-Hans"
    log_level: str = "INFO"
    play_timeout: float = 30.0
    bid_timeout: float = 15.0
    lobby_timeout: float = 300.0
    bot_move_delay: float = 1.0
    table_edit_interval: float = 1.0
    group_rate_limit: int = 20
    turn_notice_delay: float = 5.0
    ai_workers: int = 2
    default_hands: str = "group"
    ephemeral_flood: str = "own"
    ephemeral_rate_limit: int = 180
    webhook_url: str | None = None
    webhook_secret: str | None = field(default=None, repr=False)
    webhook_port: int = 8443
    webhook_listen: str = "0.0.0.0"
    workers: int = 1
    worker_lease: float = 10.0
    worker_name: str = ""

    def __post_init__(self) -> None:
        if not self.bot_api_file_url:
            object.__setattr__(self, "bot_api_file_url", file_url_for(self.bot_api_base_url))

    @property
    def database(self) -> str | Path:
        """What `bot.store.open_store` opens: the PostgreSQL URL if set, else the SQLite path."""
        return self.database_url or self.database_path

    @property
    def shared_workers(self) -> bool:
        """The bot runs as a webhook worker on PostgreSQL (:mod:`bot.telegram.workers`)."""
        return bool(self.webhook_url and self.database_url)

    @property
    def webhook_path(self) -> str:
        """The path part of `webhook_url` without the leading slash ("" for the root)."""
        return urlsplit(self.webhook_url or "").path.lstrip("/")

    @classmethod
    def from_env(
        cls, env: Mapping[str, str] | None = None, *,
        dotenv_path: str | os.PathLike[str] | None = None
    ) -> Settings:
        """Read settings from `env` (default: `os.environ` after loading `.env`).

        `dotenv_path` picks the `.env` file (default: the first `.env` found from the working
        directory upwards); it is only read when `env` is not given. Empty values count as
        unset.

        Raises:
            SettingsError: a required setting is missing or a value is malformed.
        """
        if env is None:
            load_dotenv(dotenv_path or find_dotenv(usecwd=True), override=False)
            env = os.environ
        values = {key: value.strip() for key, value in env.items() if value.strip()}

        token = values.get("BOT_TOKEN")
        if token is None:
            raise SettingsError("BOT_TOKEN is not set: put the token from @BotFather in .env")
        if not _TOKEN_RE.fullmatch(token):
            raise SettingsError("BOT_TOKEN is malformed: expected <digits>:<35 characters>")

        base_url = values.get("BOT_API_BASE_URL", TELEGRAM_API_URL)
        if not base_url.startswith(("http://", "https://")):
            raise SettingsError("BOT_API_BASE_URL must start with http:// or https://")

        language = match_language(values.get("DEFAULT_LANGUAGE", "zh-Hans"))
        if language is None:
            raise SettingsError(f"DEFAULT_LANGUAGE must be one of {', '.join(LANGUAGES)}")

        log_level = values.get("LOG_LEVEL", "INFO").upper()
        if log_level not in LOG_LEVELS:
            raise SettingsError(f"LOG_LEVEL must be one of {', '.join(LOG_LEVELS)}")

        database_url = values.get("DATABASE_URL")
        if database_url is not None and not database_url.startswith(POSTGRES_SCHEMES):
            raise SettingsError(
                "DATABASE_URL must be a postgresql:// URL (leave it empty to use DATABASE_PATH)"
            )

        webhook_url = values.get("WEBHOOK_URL")
        webhook_secret = values.get("WEBHOOK_SECRET")
        if webhook_url is not None:
            if not webhook_url.startswith("https://"):
                raise SettingsError("WEBHOOK_URL must start with https:// (Telegram requires it)")
            if webhook_secret is None:
                raise SettingsError("WEBHOOK_SECRET must be set when WEBHOOK_URL is set")
        if webhook_secret is not None and not _SECRET_RE.fullmatch(webhook_secret):
            raise SettingsError("WEBHOOK_SECRET may only use A-Z, a-z, 0-9, _ and - (1-256)")
        workers = _integer(values, "WORKERS", 1, 1, 64)
        if workers > 1 and (webhook_url is None or database_url is None):
            raise SettingsError("WORKERS above 1 needs WEBHOOK_URL and a postgresql:// "
                                "DATABASE_URL")

        default_hands = values.get("DEFAULT_HANDS", "group").lower()
        if default_hands not in HANDS:
            raise SettingsError(f"DEFAULT_HANDS must be one of {', '.join(HANDS)}")
        ephemeral_flood = values.get("EPHEMERAL_FLOOD", "own").lower()
        if ephemeral_flood not in EPHEMERAL_FLOOD:
            raise SettingsError(
                f"EPHEMERAL_FLOOD must be one of {', '.join(EPHEMERAL_FLOOD)}")

        return cls(
            bot_token=token,
            database_path=Path(values.get("DATABASE_PATH", "./data/ddz.sqlite3")),
            database_url=database_url,
            bot_api_base_url=base_url,
            bot_api_file_url=values.get("BOT_API_FILE_URL", ""),
            default_language=language,
            log_level=log_level,
            play_timeout=_seconds(values, "PLAY_TIMEOUT", 30.0, minimum=1.0),
            bid_timeout=_seconds(values, "BID_TIMEOUT", 15.0, minimum=1.0),
            lobby_timeout=_seconds(values, "LOBBY_TIMEOUT", 300.0, minimum=1.0),
            bot_move_delay=_seconds(values, "BOT_MOVE_DELAY", 1.0, minimum=0.0),
            table_edit_interval=_seconds(values, "TABLE_EDIT_INTERVAL", 1.0, minimum=0.0),
            group_rate_limit=_integer(values, "GROUP_RATE_LIMIT", 20, 1, 1000),
            turn_notice_delay=_seconds(values, "TURN_NOTICE_DELAY", 5.0, minimum=0.0),
            ai_workers=_integer(values, "AI_WORKERS", 2, 1, 64),
            default_hands=default_hands,
            ephemeral_flood=ephemeral_flood,
            ephemeral_rate_limit=_integer(values, "EPHEMERAL_RATE_LIMIT", 180, 1, 10000),
            webhook_url=webhook_url,
            webhook_secret=webhook_secret,
            webhook_port=_integer(values, "WEBHOOK_PORT", 8443, 1, 65535),
            webhook_listen=values.get("WEBHOOK_LISTEN", "0.0.0.0"),
            workers=workers,
            worker_lease=_seconds(values, "WORKER_LEASE", 10.0, minimum=0.5),
            worker_name=values.get("WORKER_NAME", ""),
        )


def _seconds(values: Mapping[str, str], name: str, default: float, *, minimum: float) -> float:
    raw = values.get(name)
    if raw is None:
        return default
    try:
        seconds = float(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a number of seconds, got {raw!r}") from None
    if not minimum <= seconds < 86400:
        raise SettingsError(f"{name} must be between {minimum:g} and 86400 seconds, got {raw}")
    return seconds


def _integer(values: Mapping[str, str], name: str, default: int, low: int, high: int) -> int:
    raw = values.get(name)
    if raw is None:
        return default
    try:
        number = int(raw)
    except ValueError:
        raise SettingsError(f"{name} must be a whole number, got {raw!r}") from None
    if not low <= number <= high:
        raise SettingsError(f"{name} must be between {low} and {high}, got {number}")
    return number
