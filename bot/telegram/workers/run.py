"""Running webhook workers: ``ddz-bot`` with ``WEBHOOK_URL`` and a PostgreSQL
``DATABASE_URL`` set.

:func:`run_worker` runs one worker: the Application's start-up (``post_init`` opens the store and
builds the worker, :func:`bot.telegram.workers.wiring.start_worker`), ``setWebhook`` with the secret
token, the webhook server on ``WEBHOOK_LISTEN``:``WEBHOOK_PORT`` at the path of ``WEBHOOK_URL``,
until SIGTERM or SIGINT, then the Application's shut-down. With ``WORKERS=N`` above 1,
:func:`run_workers` starts N-1 more processes the same way (``WORKERS=1`` in their environment),
all listening on the same port (``SO_REUSEPORT``: the kernel spreads Telegram's connections),
restarts one that dies, and stops them all on SIGTERM. Processes started separately behind a
reverse proxy work the same way: each needs only the same settings and a port of its own.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import logging
import os
import signal
import subprocess
import sys
import time

from telegram import Update

from bot.core.settings import Settings
from bot.telegram.services import App, bot_data
from bot.telegram.workers.webhook import WebhookServer

log = logging.getLogger(__name__)

#: Seconds a stopping supervisor waits for its workers before it kills them.
STOP_SECONDS = 15.0
#: A worker that dies sooner than this after its start is restarted only after a pause.
RESTART_PAUSE = 2.0


def run_worker(application: App, settings: Settings) -> None:
    """Run one webhook worker until SIGTERM/SIGINT (see the module docstring)."""
    asyncio.run(_serve(application, settings))


async def _serve(application: App, settings: Settings) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(signum, stop.set)
    loop.add_signal_handler(signal.SIGUSR1, _log_tasks)
    await application.initialize()
    if application.post_init is not None:
        await application.post_init(application)
    await application.start()
    assert settings.webhook_url is not None and settings.webhook_secret is not None
    server = WebhookServer(application, bot_data(application).worker.shared,
                           settings.webhook_secret, settings.webhook_path,
                           settings.worker_lease)
    try:
        await server.start(settings.webhook_listen, settings.webhook_port,
                           reuse_port=settings.workers > 1 or "DDZ_WORKER_CHILD" in os.environ)
        await application.bot.set_webhook(
            settings.webhook_url, secret_token=settings.webhook_secret,
            allowed_updates=Update.ALL_TYPES,
        )
        log.info("worker %s serving webhook updates on %s:%s",
                 bot_data(application).worker.shared.worker, settings.webhook_listen,
                 server.port)
        await stop.wait()
    finally:
        await server.stop()
        if application.running:
            await application.stop()
        if application.post_stop is not None:
            await application.post_stop(application)
        await application.shutdown()
        if application.post_shutdown is not None:
            await application.post_shutdown(application)


def _log_tasks() -> None:
    """SIGUSR1: log where every task of the worker waits (for a worker that seems stuck)."""
    for task in asyncio.all_tasks():
        stream = io.StringIO()
        task.print_stack(limit=12, file=stream)
        log.warning("task %s:\n%s", task.get_name(), stream.getvalue())


def run_workers(application: App, settings: Settings) -> None:
    """``WORKERS=N``: start N-1 more worker processes, run one here, restart children that
    die, stop them all when this one stops."""
    children: dict[int, tuple[subprocess.Popen[bytes], float]] = {}
    stopping = False

    def spawn(index: int) -> None:
        env = {**os.environ, "WORKERS": "1", "DDZ_WORKER_CHILD": str(index)}
        process = subprocess.Popen([sys.executable, "-m", "bot"], env=env)
        children[index] = (process, time.monotonic())

    for index in range(1, settings.workers):
        spawn(index)

    async def supervise() -> None:
        while not stopping:
            await asyncio.sleep(1.0)
            for index, (process, started) in list(children.items()):
                if process.poll() is not None and not stopping:
                    log.warning("worker %d exited with %s; starting it again", index,
                                process.returncode)
                    if time.monotonic() - started < RESTART_PAUSE:
                        await asyncio.sleep(RESTART_PAUSE)
                    spawn(index)

    async def serve() -> None:
        task = asyncio.get_running_loop().create_task(supervise())
        try:
            await _serve(application, settings)
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    try:
        asyncio.run(serve())
    finally:
        stopping = True
        for process, _ in children.values():
            with contextlib.suppress(ProcessLookupError):
                process.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_SECONDS
        for process, _ in children.values():
            try:
                process.wait(max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                process.kill()
