"""Issue 21, item 8: no password and no API key in anything the bot prints or logs, through
the CLI (`doctor`, `run --once`, `check-config`, `export`); and `doctor` warns about a
settings file that other users can read."""
from __future__ import annotations

import json
import logging
import os
import socket

import pytest

from forumbot import store
from forumbot.cli.main import main
from forumbot.masking import forget_secrets

SECRET = "S3cretPW"
PG_UP = "127.0.0.1", 5432


@pytest.fixture(autouse=True)
def _clean():
    yield
    store.close()
    forget_secrets()


@pytest.fixture
def no_sleep(monkeypatch):
    """prawcore waits between retries; these tests need not."""
    import time

    monkeypatch.setattr(time, "sleep", lambda s: None)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def postgres_up() -> bool:
    try:
        socket.create_connection(PG_UP, timeout=1).close()
        return True
    except OSError:
        return False


def settings_file(tmp_path, url: str, mode: int = 0o600, extra: str = "") -> str:
    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = local\n[database]\nurl = {url}\n[local]\npath = {tmp_path}/local.db\n{extra}")
    os.chmod(path, mode)
    return str(path)


def cli(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    out = capsys.readouterr()
    text = out.out + out.err
    assert "Traceback" not in text, text
    return code, text


DOWN = f"postgresql://u:{SECRET}@127.0.0.1:{{port}}/test"
MISSPELT = f"postgersql://u:{SECRET}@127.0.0.1:5432/test"


@pytest.mark.parametrize("url", [DOWN, MISSPELT, f"postgresql:/u:{SECRET}@127.0.0.1/test",
                                 f"postgresql://u:{SECRET}@127.0.0.1:notaport/test",
                                 f"postgresql://u@127.0.0.1:{{port}}/test?password={SECRET}",
                                 f"postgresql://u:{SECRET} ; the rest is a comment@127.0.0.1/test"],
                         ids=["server down", "misspelt scheme", "one slash", "bad port", "password in the query",
                              "cut off by a comment"])
@pytest.mark.parametrize("command", ["doctor", "run --once", "check-config", "export G1"])
def test_no_command_prints_the_database_password(url, command, tmp_path, capsys):
    path = settings_file(tmp_path, url.format(port=free_port()))
    config = tmp_path / "game.yaml"
    config.write_text("title: T\npreset: resistance\nplayers: [a, b, c, d, e]\n")
    argv = command.split() + ([str(config)] if command == "check-config" else []) + ["--settings", path]
    code, text = cli(capsys, *argv)
    assert SECRET not in text, text
    if command != "check-config" or "settings:" in text:  # (check-config opens no database)
        assert code != 0, text
    if command == "doctor":
        assert "***" in text, text  # the URL is still there to be checked


def test_doctor_shows_the_url_of_a_working_database_masked(tmp_path, capsys):
    if not postgres_up():
        pytest.skip("no PostgreSQL at 127.0.0.1:5432")
    # doctor only reads: the bot's tables are made first, in this worker's own database (the
    # shared one may be another run's, its tables dropped at any moment)
    name = (os.environ.get("FORUMBOT_TEST_DATABASE_URL") or "/test").rsplit("/", 1)[-1]
    store.connect(f"postgresql://postgres@127.0.0.1:5432/{name}").create_tables(store.MODELS)
    store.close()
    code, text = cli(capsys, "doctor", "--settings",
                     settings_file(tmp_path, f"postgresql://postgres:{SECRET}@127.0.0.1:5432/{name}"))
    assert code == 0, text
    lines = {line.split(":")[0].split("  ")[-1].strip(): line for line in text.splitlines()}
    assert f"database postgresql://postgres:***@127.0.0.1:5432/{name}" in lines["settings"], text
    assert f"postgresql://postgres:***@127.0.0.1:5432/{name} opens and is writable" in lines["database"], text
    assert SECRET not in text


@pytest.mark.parametrize("mode, warned", [(0o644, True), (0o640, True), (0o604, True), (0o600, False),
                                          (0o400, False)])
def test_doctor_warns_about_a_settings_file_others_can_read(mode, warned, tmp_path, capsys):
    path = settings_file(tmp_path, f"sqlite:///{tmp_path}/bot.db", mode=mode)
    code, text = cli(capsys, "doctor", "--settings", path)
    assert code == 0, text  # a warning, not a failure
    warning = [line for line in text.splitlines() if line.startswith("warn  settings file")]
    if warned:
        assert len(warning) == 1 and f"chmod 600 {path}" in warning[0], text
        assert f"{mode:04o}" in warning[0]
    else:
        assert not warning, text


REDDIT = f"""[bot]
forum = reddit
[database]
url = sqlite:///{{tmp}}/bot.db
[reddit]
client_id = theid
client_secret = ClientSecret{SECRET}
username = thebot
password = Account{SECRET}
user_agent = forumbot tests by u/tester
oauth_url = http://bot:Url{SECRET}@127.0.0.1:{{port}}
reddit_url = http://bot:Url{SECRET}@127.0.0.1:{{port}}
subreddit = games
"""


@pytest.mark.parametrize("command", ["doctor", "run --once"])
def test_reddit_secrets_and_urls_with_credentials_are_never_shown(command, tmp_path, capsys, no_sleep):
    """The forum cannot be reached: doctor says so, run --once logs its retries (prawcore
    logs each URL it tries) and says why the cycle failed; no secret in any of it."""
    path = tmp_path / "settings.ini"
    path.write_text(REDDIT.format(tmp=tmp_path, port=free_port()))
    os.chmod(path, 0o600)
    code, text = cli(capsys, *command.split(), "--settings", str(path))
    assert code != 0, text
    assert SECRET not in text, text
    # the one line names the host that failed, never the URL with its credentials (it was
    # prawcore's long retry line with the URL masked: issue 25 item 10 folds it into one line)
    assert "127.0.0.1" in text and "bot:" not in text, text


def test_a_discourse_url_with_credentials_is_refused_masked(tmp_path, capsys):
    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = discourse\n[database]\nurl = sqlite:///{tmp_path}/bot.db\n"
                    f"[discourse]\nurl = ftp://bot:{SECRET}@forum.example.org\napi_key = Key{SECRET}\n"
                    "api_username = bot\n")
    os.chmod(path, 0o600)
    for command in ("doctor", "run --once"):
        code, text = cli(capsys, *command.split(), "--settings", str(path))
        assert code != 0 and "not a web address" in text, text
        assert SECRET not in text, text


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_the_log_masks_credentials_whoever_logs_them(fmt, capsys):
    """The last line of defence: a log line (and its traceback) from any library."""
    from forumbot.logs import configure_logging
    from forumbot.masking import remember_secrets

    remember_secrets([f"ApiKey{SECRET}"])
    configure_logging("info", fmt)
    log = logging.getLogger("some.library")
    log.warning("GET %s failed", f"postgresql://u:{SECRET}@db.example/x")
    log.warning("sent the header Api-Key: ApiKey%s", SECRET)
    try:
        raise RuntimeError(f"invalid dsn: host=db user=u password={SECRET} dbname=x")
    except RuntimeError:
        log.exception("connect failed for redis://:%s@cache", SECRET)
    err = capsys.readouterr().err
    assert SECRET not in err, err
    assert "postgresql://u:***@db.example/x" in err and "Api-Key: ***" in err
    assert "password=***" in err and "RuntimeError" in err
    if fmt == "json":
        assert [json.loads(line)["level"] for line in err.splitlines()] == ["warning", "warning", "error"]


def test_secrets_of_the_settings_are_masked_in_every_later_log_line(tmp_path, capsys):
    """Once the bot has read its settings, a library that logs an API key or a password (a
    request's headers at debug level, say) shows *** instead."""
    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = discourse\n[database]\nurl = sqlite:///{tmp_path}/bot.db\n"
                    f"[discourse]\nurl = https://forum.example.org\napi_key = Key{SECRET}\napi_username = bot\n"
                    f"[reddit]\nclient_secret = Client{SECRET}\npassword = Pass-{SECRET}\n")
    config = tmp_path / "game.yaml"
    config.write_text("title: T\npreset: resistance\nplayers: [a, b, c, d, e]\n")
    code, _ = cli(capsys, "check-config", str(config), "--settings", str(path))
    assert code == 0
    log = logging.getLogger("somelibrary.client")  # (urllib3's retry warnings are DEBUG now)
    log.warning("headers: {'Api-Key': 'Key%s', 'Api-Username': 'bot'}", SECRET)
    log.warning("data: client_secret=Client%s&password=Pass-%s", SECRET, SECRET)
    err = capsys.readouterr().err
    assert SECRET not in err and err.count("***") == 3, err
