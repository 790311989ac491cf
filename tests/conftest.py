"""Shared fixtures: the fake Bot API server and the real bot running against it.

See `tests/fakebot/__init__.py` for the whole fixture and helper API.
"""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from telegram import Bot, Update
from telegram.error import TelegramError
from telegram.ext import Application, ContextTypes, TypeHandler

from bot.core.settings import Settings
from bot.telegram.app import build_application
from bot.telegram.outlet.http import AiohttpRequest
from tests.databases import PostgresServer
from tests.fakebot import FakeBotApi

# getUpdates long-poll timeout of the test bot, in seconds. Injected updates wake a pending poll
# at once, and stopping the bot cancels it, so this only bounds idle polling.
POLL_TIMEOUT = 2
# The handler group of the test hook that marks an update handled: after every other group.
HANDLED_GROUP = 10**6


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the whole session (started on first use, 2-5 s)."""
    server = PostgresServer()
    yield server
    server.stop()


@pytest.fixture
async def fake_api() -> AsyncIterator[FakeBotApi]:
    """A fake Bot API server on 127.0.0.1 (random free port), stopped after the test."""
    api = FakeBotApi()
    await api.start()
    yield api
    await api.stop()


@pytest.fixture
async def bot(fake_api: FakeBotApi) -> AsyncIterator[Bot]:
    """A PTB ``Bot`` on the fake Bot API over the bot's own HTTP client
    (:class:`~bot.telegram.outlet.http.AiohttpRequest`), initialized, shut down after the test."""
    client = Bot(fake_api.token, base_url=fake_api.base_url, request=AiohttpRequest(),
                 get_updates_request=AiohttpRequest(1))
    await client.initialize()
    yield client
    await client.shutdown()


@pytest.fixture
def bot_settings(fake_api: FakeBotApi, tmp_path: Path) -> Settings:
    """Settings of the test bot: the fake server, a database in tmp_path, near-zero delays.

    Override this fixture in a sub-folder's conftest.py to change settings for its tests.
    """
    return Settings(
        bot_token=fake_api.token,
        database_path=tmp_path / "ddz.sqlite3",
        bot_api_base_url=fake_api.base_url,
        default_language="en",
        log_level="DEBUG",
        play_timeout=30.0,
        bid_timeout=15.0,
        lobby_timeout=300.0,
        bot_move_delay=0.01,
        table_edit_interval=0.0,
        group_rate_limit=1000,
        turn_notice_delay=0.0,
        default_hands="private",  # the tests of hands in the group choose "group" themselves
        ephemeral_rate_limit=1000,
    )


class BotRunner:
    """Runs the real Application (`build_application`) against the fake server.

    `start()` does what `Application.run_polling` does (initialize, post_init, start polling,
    start); `stop()` undoes it (stop polling, stop, shutdown, post_shutdown); `restart()` stops
    and starts a new Application on the same settings and database file.

    `on_build` functions are called with each new Application before it starts (to add test
    handlers). Exceptions other than Telegram's answers (`TelegramError`: blocked, not
    modified, ...) raised by handlers and jobs are programming errors: they are collected in
    `errors`, and the `bot_runner` fixture fails the test if there are any, unless
    `allow_errors` is set.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.application: Application | None = None
        self.on_build: list[Callable[[Application], None]] = []
        self.errors: list[BaseException] = []
        self.allow_errors = False
        self.api: FakeBotApi | None = None

    @property
    def app(self) -> Application:
        """The running Application (AssertionError if not started)."""
        assert self.application is not None, "the bot is not running"
        return self.application

    async def start(self, **overrides: object) -> Application:
        """Build and start a new Application; `overrides` replace Settings fields first."""
        assert self.application is None, "the bot is already running"
        if overrides:
            self.settings = dataclasses.replace(self.settings, **overrides)
        application = build_application(self.settings)
        application.add_error_handler(self._collect_error)
        if self.api is not None:
            application.add_handler(TypeHandler(Update, self._handled), group=HANDLED_GROUP)
        for hook in self.on_build:
            hook(application)
        await application.initialize()
        try:
            if application.post_init is not None:
                await application.post_init(application)
            assert application.updater is not None
            await application.updater.start_polling(poll_interval=0, timeout=POLL_TIMEOUT)
            await application.start()
        except BaseException:
            await _shutdown(application)
            raise
        self.application = application
        return application

    async def stop(self) -> None:
        """Stop and shut down the running Application (no-op if none is running)."""
        application, self.application = self.application, None
        if application is None:
            return
        if application.updater is not None and application.updater.running:
            await application.updater.stop()
        if application.running:
            await application.stop()
            if application.post_stop is not None:
                await application.post_stop(application)
        await _shutdown(application)

    async def restart(self, **overrides: object) -> Application:
        """Stop the Application and start a new one on the same database file."""
        await self.stop()
        return await self.start(**overrides)

    async def _handled(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        """Runs after every other handler of an update: tells the fake server it was handled
        (``FakeBotApi.wait_settled``)."""
        assert self.api is not None
        outlet = getattr(context.application.bot_data, "outlet", None)
        if outlet is not None:  # what the update asked the outbox to show, shown
            await outlet.caught_up()
        query = update.callback_query
        self.api.mark_handled(update.update_id, query.id if query is not None else None)

    async def _collect_error(self, update: object, context: ContextTypes.DEFAULT_TYPE) -> None:
        if not isinstance(context.error, TelegramError):
            self.errors.append(context.error)


async def _shutdown(application: Application) -> None:
    await application.shutdown()
    if application.post_shutdown is not None:
        await application.post_shutdown(application)


@pytest.fixture
async def bot_runner(bot_settings: Settings, fake_api: FakeBotApi) -> AsyncIterator[BotRunner]:
    """A BotRunner that is not started yet (call `await bot_runner.start()`); stopped after."""
    runner = BotRunner(bot_settings)
    runner.api = fake_api
    yield runner
    await runner.stop()
    if runner.errors and not runner.allow_errors:
        pytest.fail(f"handlers raised: {runner.errors!r}")


@pytest.fixture
async def running_bot(bot_runner: BotRunner) -> BotRunner:
    """The real bot, started and polling the fake server; stopped after the test."""
    await bot_runner.start()
    return bot_runner
