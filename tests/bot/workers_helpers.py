"""Webhook workers in processes of their own for the end-to-end tests and bench/workers.py
(issue 16): ``python -m bot`` with a PostgreSQL ``DATABASE_URL`` and ``WEBHOOK_URL``, each on a
port of its own on 127.0.0.1, its log in a file."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from tests.fakebot import FakeMessage

ROOT = Path(__file__).resolve().parents[2]
SECRET = "test-secret_0123456789"
#: The public webhook URL the workers register (the reverse proxy's); they serve its path.
PUBLIC_URL = "https://ddz.example.org/telegram/hook"
_FIRED = re.compile(r"timer (\S+) #(\w+) fired")


def payloads(message: FakeMessage) -> dict[str, str]:
    """The callback data of ``message``'s buttons by their last part ("join", "bid3", …)."""
    return {b.callback_data.rsplit(":", 1)[-1]: b.callback_data
            for b in message.buttons if b.callback_data}


def free_port() -> int:
    """A TCP port free on 127.0.0.1 now."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class WorkerProcess:
    """One worker process (see the module docstring).

    Args:
        token, base_url: the fake Bot API's. database_url: the PostgreSQL database.
        workdir: where its log goes. name: its ``WORKER_NAME``.
        env: more settings (e.g. ``PLAY_TIMEOUT``); ``WORKER_LEASE`` defaults to 1 s here.
    """

    def __init__(self, token: str, base_url: str, database_url: str, workdir: Path, name: str,
                 env: dict[str, str] | None = None) -> None:
        self.name = name
        self.port = free_port()
        self.log_path = workdir / f"{name}.log"
        self.env = {key: os.environ[key] for key in ("PATH", "HOME", "LANG", "TMPDIR")
                    if key in os.environ}
        self.env.update({
            "BOT_TOKEN": token,
            "BOT_API_BASE_URL": base_url,
            "DATABASE_URL": database_url,
            "WEBHOOK_URL": PUBLIC_URL,
            "WEBHOOK_SECRET": SECRET,
            "WEBHOOK_LISTEN": "127.0.0.1",
            "WEBHOOK_PORT": str(self.port),
            "WORKER_NAME": name,
            "WORKER_LEASE": "2",
            "DEFAULT_LANGUAGE": "en",
            "DEFAULT_HANDS": "private",  # as every test bot (tests/conftest.py)
            "LOG_LEVEL": "INFO",
            "PTB_TIMEDELTA": "true",
            "PYTHONPATH": str(ROOT),
            **(env or {}),
        })
        self.process: asyncio.subprocess.Process | None = None

    @property
    def url(self) -> str:
        """Where the fake Bot API posts this worker's share of the updates."""
        return f"http://127.0.0.1:{self.port}/telegram/hook"

    async def start(self) -> None:
        with self.log_path.open("ab") as log:
            self.process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "bot", cwd=str(self.log_path.parent), env=self.env,
                stdout=log, stderr=log, stdin=asyncio.subprocess.DEVNULL)

    async def ready(self, timeout: float = 180.0) -> None:
        """Wait until it accepts connections on its port. Raises RuntimeError at once if it
        exited first, TimeoutError after ``timeout`` seconds: a bound for a worker that hangs
        only (a start under ``nice`` on a busy machine took over 60 s)."""
        deadline = time.monotonic() + timeout
        while True:
            assert self.process is not None
            if self.process.returncode is not None:
                raise RuntimeError(f"worker {self.name} exited: {self.log()[-3000:]}")
            try:
                _, writer = await asyncio.open_connection("127.0.0.1", self.port)
            except OSError:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"worker {self.name} did not start: {self.log()[-3000:]}"
                                       ) from None
                await asyncio.sleep(0.1)
                continue
            writer.close()
            await writer.wait_closed()
            return

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def cpu_seconds(self) -> float:
        """User + system CPU seconds the process has used so far (Linux /proc)."""
        fields = Path(f"/proc/{self.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    async def kill(self) -> None:
        """SIGKILL: the process dies at once, whatever it was doing."""
        assert self.process is not None
        self.process.send_signal(signal.SIGKILL)
        await self.process.wait()

    async def stop(self) -> int | None:
        """SIGTERM, SIGKILL after 15 s; the exit status."""
        if self.process is None or self.process.returncode is not None:
            return None if self.process is None else self.process.returncode
        self.process.send_signal(signal.SIGTERM)
        try:
            return await asyncio.wait_for(self.process.wait(), 15)
        except TimeoutError:
            self.process.kill()
            return await self.process.wait()

    async def dump_tasks(self) -> None:
        """SIGUSR1 to a running worker: it logs where each of its tasks waits
        (:func:`bot.telegram.workers.run._log_tasks`); returns once it had a moment to."""
        if self.process is not None and self.process.returncode is None:
            self.process.send_signal(signal.SIGUSR1)
            await asyncio.sleep(1.0)

    def log(self) -> str:
        return self.log_path.read_text(errors="replace") if self.log_path.exists() else ""

    def problems(self) -> list[str]:
        """Error lines and tracebacks of its log."""
        return [line for line in self.log().splitlines()
                if " ERROR " in line or " CRITICAL " in line or "Traceback" in line]

    def fired(self) -> Counter[tuple[str, str]]:
        """How often each timer (row name, schedule id) fired here."""
        return Counter((key, schedule) for key, schedule in _FIRED.findall(self.log()))


def keep_logs(workers: Iterable[WorkerProcess], label: str, *extra: tuple[str, str]) -> Path:
    """Copy the workers' logs (and ``extra`` (file name, text) pairs, e.g. the Bot API calls)
    to a folder pytest does not rotate away; its path. The folder is ``E2E_LOG_DIR`` (default
    the temporary directory's ``ddz-e2e-logs``) / ``label``-time-pid."""
    root = Path(os.environ.get("E2E_LOG_DIR") or Path(tempfile.gettempdir()) / "ddz-e2e-logs")
    kept = root / f"{label}-{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}"
    kept.mkdir(parents=True, exist_ok=True)
    for worker in workers:
        if worker.log_path.exists():
            shutil.copy(worker.log_path, kept / worker.log_path.name)
    for name, text in extra:
        (kept / name).write_text(text)
    return kept
