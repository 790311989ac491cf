"""Settings from the environment and `.env` (issue 3: settings and start-up)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.core.settings import Settings, SettingsError, file_url_for

TOKEN = "123456789:AAH-fake-token-for-the-tests-only_01"


def settings(**env: str) -> Settings:
    return Settings.from_env({"BOT_TOKEN": TOKEN, **env})


def test_defaults() -> None:
    s = settings()
    assert s.bot_token == TOKEN
    assert s.database_path == Path("data/ddz.sqlite3")
    assert s.bot_api_base_url == "https://api.telegram.org/bot"
    assert s.bot_api_file_url == "https://api.telegram.org/file/bot"
    assert s.default_language == "zh-Hans"
    assert s.log_level == "INFO"
    assert (s.play_timeout, s.bid_timeout, s.lobby_timeout) == (30.0, 15.0, 300.0)
    assert (s.bot_move_delay, s.table_edit_interval) == (1.0, 1.0)
    assert s.group_rate_limit == 20
    assert (s.webhook_url, s.webhook_secret, s.webhook_port) == (None, None, 8443)
    assert (s.database_url, s.database) == (None, Path("data/ddz.sqlite3"))


def test_every_variable_is_read() -> None:
    s = settings(
        DATABASE_PATH="/srv/ddz/db.sqlite3",
        BOT_API_BASE_URL="http://localhost:8081/bot",
        DEFAULT_LANGUAGE="en",
        LOG_LEVEL="debug",
        PLAY_TIMEOUT="20",
        BID_TIMEOUT="10.5",
        LOBBY_TIMEOUT="120",
        BOT_MOVE_DELAY="0",
        TABLE_EDIT_INTERVAL="2",
        GROUP_RATE_LIMIT="15",
        WEBHOOK_URL="https://ddz.example.org/telegram/hook",
        WEBHOOK_SECRET="s3cret_token-1",
        WEBHOOK_PORT="8080",
    )
    assert s.database_path == Path("/srv/ddz/db.sqlite3")
    assert s.bot_api_file_url == "http://localhost:8081/file/bot"
    assert (s.default_language, s.log_level) == ("en", "DEBUG")
    assert (s.play_timeout, s.bid_timeout, s.lobby_timeout) == (20.0, 10.5, 120.0)
    assert (s.bot_move_delay, s.table_edit_interval, s.group_rate_limit) == (0.0, 2.0, 15)
    assert s.webhook_url == "https://ddz.example.org/telegram/hook"
    assert (s.webhook_secret, s.webhook_port, s.webhook_path) == (
        "s3cret_token-1",
        8080,
        "telegram/hook",
    )


def test_webhook_workers_need_both_the_webhook_and_postgresql() -> None:
    hook = {"WEBHOOK_URL": "https://x.org/tg", "WEBHOOK_SECRET": "hush-hush"}
    assert not settings(**hook).shared_workers
    assert not settings(DATABASE_URL="postgresql://db/ddz").shared_workers
    s = settings(**hook, DATABASE_URL="postgresql://db/ddz", WORKERS="4", WORKER_LEASE="5",
                 WEBHOOK_LISTEN="127.0.0.1", WORKER_NAME="eu-1")
    assert s.shared_workers
    assert (s.workers, s.worker_lease, s.webhook_listen, s.worker_name) == (
        4, 5.0, "127.0.0.1", "eu-1")
    default = settings()
    assert (default.workers, default.worker_lease, default.webhook_listen) == (
        1, 10.0, "0.0.0.0")


def test_file_url_can_be_given_and_is_derived_otherwise() -> None:
    assert (
        settings(BOT_API_FILE_URL="http://files.local/f/").bot_api_file_url
        == "http://files.local/f/"
    )
    assert file_url_for("http://127.0.0.1:9000/bot") == "http://127.0.0.1:9000/file/bot"


@pytest.mark.parametrize(
    ("code", "language"),
    [("zh-Hans", "zh-Hans"), ("zh-hant", "zh-Hant"), ("zh_TW", "zh-Hant"), ("EN", "en")],
)
def test_language_spellings(code: str, language: str) -> None:
    assert settings(DEFAULT_LANGUAGE=code).default_language == language


def test_empty_values_count_as_unset() -> None:
    assert settings(PLAY_TIMEOUT="", DEFAULT_LANGUAGE=" ").play_timeout == 30.0


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"BOT_TOKEN": "   "}, "BOT_TOKEN is not set"),
        ({"BOT_TOKEN": "123456789"}, "BOT_TOKEN is malformed"),
        ({"BOT_TOKEN": "abc:AAH-fake-token-for-the-tests-only_01"}, "BOT_TOKEN is malformed"),
        ({"BOT_TOKEN": "123:short"}, "BOT_TOKEN is malformed"),
        ({"BOT_TOKEN": TOKEN + " x"}, "BOT_TOKEN is malformed"),
        ({"PLAY_TIMEOUT": "soon"}, "PLAY_TIMEOUT must be a number of seconds"),
        ({"BID_TIMEOUT": "0"}, "BID_TIMEOUT must be between 1 and 86400"),
        ({"LOBBY_TIMEOUT": "nan"}, "LOBBY_TIMEOUT must be between"),
        ({"BOT_MOVE_DELAY": "-1"}, "BOT_MOVE_DELAY must be between 0 and 86400"),
        ({"WEBHOOK_PORT": "http"}, "WEBHOOK_PORT must be a whole number"),
        ({"WEBHOOK_PORT": "70000"}, "WEBHOOK_PORT must be between 1 and 65535"),
        ({"GROUP_RATE_LIMIT": "0"}, "GROUP_RATE_LIMIT must be between 1 and 1000"),
        ({"DEFAULT_LANGUAGE": "fr"}, "DEFAULT_LANGUAGE must be one of zh-Hans, zh-Hant, en"),
        ({"LOG_LEVEL": "LOUD"}, "LOG_LEVEL must be one of DEBUG"),
        ({"BOT_API_BASE_URL": "api.telegram.org/bot"}, "BOT_API_BASE_URL must start with http"),
        ({"WEBHOOK_URL": "http://x.org/hook", "WEBHOOK_SECRET": "s"}, "WEBHOOK_URL must start"),
        ({"WEBHOOK_URL": "https://x.org/hook"}, "WEBHOOK_SECRET must be set"),
        ({"WEBHOOK_URL": "https://x.org/h", "WEBHOOK_SECRET": "a b"}, "WEBHOOK_SECRET may only"),
        ({"DATABASE_URL": "mysql://db/ddz"}, "DATABASE_URL must be a postgresql:// URL"),
        ({"DATABASE_URL": "data/ddz.sqlite3"}, "DATABASE_URL must be a postgresql:// URL"),
        ({"WORKERS": "2"}, "WORKERS above 1 needs WEBHOOK_URL and a postgresql://"),
        ({"WORKERS": "2", "DATABASE_URL": "postgresql://db/ddz"}, "WORKERS above 1 needs"),
        ({"WORKERS": "0"}, "WORKERS must be between 1 and 64"),
        ({"WORKER_LEASE": "0.1"}, "WORKER_LEASE must be between 0.5 and 86400"),
    ],
)
def test_bad_values_give_one_line_errors(env: dict[str, str], message: str) -> None:
    with pytest.raises(SettingsError) as error:
        Settings.from_env({"BOT_TOKEN": TOKEN, **env})
    assert str(error.value).startswith(message)
    assert "\n" not in str(error.value)
    assert TOKEN not in str(error.value)


def test_missing_token() -> None:
    with pytest.raises(SettingsError, match="^BOT_TOKEN is not set"):
        Settings.from_env({"PLAY_TIMEOUT": "20"})


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
def test_a_postgresql_url_selects_the_postgresql_store(scheme: str) -> None:
    url = f"{scheme}://ddz:pw@db.internal:5432/ddz"
    s = settings(DATABASE_URL=url, DATABASE_PATH="/srv/ddz/db.sqlite3")
    assert (s.database_url, s.database) == (url, url)
    assert s.database_path == Path("/srv/ddz/db.sqlite3")  # kept, but not opened


def test_repr_hides_the_token_secret_and_database_url() -> None:
    s = settings(WEBHOOK_URL="https://x.org/h", WEBHOOK_SECRET="hush-hush",
                 DATABASE_URL="postgresql://ddz:pw-hush@db/ddz")
    assert TOKEN not in repr(s) and "hush-hush" not in repr(s) and "pw-hush" not in repr(s)
    assert "play_timeout=30.0" in repr(s)


def test_dotenv_file_is_read_and_environment_wins(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "environ", {"PLAY_TIMEOUT": "12"})
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"# a comment\nBOT_TOKEN={TOKEN}\nPLAY_TIMEOUT=45\nBID_TIMEOUT=9\n")
    s = Settings.from_env(dotenv_path=dotenv)
    assert (s.bot_token, s.play_timeout, s.bid_timeout) == (TOKEN, 12.0, 9.0)


def test_dotenv_is_found_from_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(os, "environ", {})
    (tmp_path / ".env").write_text(f"BOT_TOKEN={TOKEN}\nDEFAULT_LANGUAGE=en\n")
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    assert Settings.from_env().default_language == "en"


def test_env_example_lists_every_setting() -> None:
    example = Path(__file__).resolve().parents[2] / ".env.example"
    names = {
        line.split("=", 1)[0]
        for line in example.read_text().splitlines()
        if line and not line.startswith("#")
    }
    read = {
        "BOT_TOKEN",
        "DATABASE_PATH",
        "DATABASE_URL",
        "BOT_API_BASE_URL",
        "BOT_API_FILE_URL",
        "DEFAULT_LANGUAGE",
        "LOG_LEVEL",
        "PLAY_TIMEOUT",
        "BID_TIMEOUT",
        "LOBBY_TIMEOUT",
        "BOT_MOVE_DELAY",
        "TABLE_EDIT_INTERVAL",
        "GROUP_RATE_LIMIT",
        "TURN_NOTICE_DELAY",
        "AI_WORKERS",
        "DEFAULT_HANDS",
        "EPHEMERAL_FLOOD",
        "EPHEMERAL_RATE_LIMIT",
        "WEBHOOK_URL",
        "WEBHOOK_SECRET",
        "WEBHOOK_PORT",
        "WEBHOOK_LISTEN",
        "WORKERS",
        "WORKER_LEASE",
        "WORKER_NAME",
    }
    root = Path(__file__).resolve().parents[2]
    settings_source = (root / "bot" / "core" / "settings.py").read_text()
    assert names == read
    assert all(f'"{name}"' in settings_source for name in names)
    lines = example.read_text().splitlines()
    for index, line in enumerate(lines):
        if line and not line.startswith("#"):
            above = index - 1
            while lines[above] and not lines[above].startswith("#"):
                above -= 1  # settings grouped under one comment
            assert lines[above].startswith("#"), f"{line} has no comment"


def test_hands_and_ephemeral_flood_settings():
    """Where hands go by default, and how ephemeral messages count in a group's flood budget:
    read, checked, and their defaults."""
    token = "123456:" + "A" * 35
    default = Settings.from_env({"BOT_TOKEN": token})
    assert (default.default_hands, default.ephemeral_flood, default.ephemeral_rate_limit) == (
        "group", "own", 180)
    chosen = Settings.from_env({"BOT_TOKEN": token, "DEFAULT_HANDS": "Private",
                                "EPHEMERAL_FLOOD": "group", "EPHEMERAL_RATE_LIMIT": "40"})
    assert (chosen.default_hands, chosen.ephemeral_flood, chosen.ephemeral_rate_limit) == (
        "private", "group", 40)
    with pytest.raises(SettingsError, match="DEFAULT_HANDS"):
        Settings.from_env({"BOT_TOKEN": token, "DEFAULT_HANDS": "dm"})
    with pytest.raises(SettingsError, match="EPHEMERAL_FLOOD"):
        Settings.from_env({"BOT_TOKEN": token, "EPHEMERAL_FLOOD": "never"})
