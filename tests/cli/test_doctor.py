"""`forumbot doctor` against the fake Reddit (real praw and prawcore over HTTP): the login
(a wrong password, 2FA, a revoked refresh token, a wrong app), each subreddit (missing,
private, restricted, banned from, link-only), private messages, the database and its lock;
and `run --once`, which exits non-zero when the forum cannot be read at all."""
from __future__ import annotations

import pathlib
import re
import socket

import pytest

from forumbot import botlock, store
from forumbot.cli.main import main


@pytest.fixture(autouse=True)
def _no_store_left_open():
    yield
    store.close()


@pytest.fixture
def no_sleep(monkeypatch):
    """prawcore and tenacity wait between retries; these tests need not."""
    import time

    monkeypatch.setattr(time, "sleep", lambda s: None)


def settings(tmp_path, url: str, auth: str = "password = pw", sub: str = "games",
             username: str = "forumbot", db: str | None = None) -> str:
    """Settings for the fake Reddit; without `db`, the database of a bot that has run here
    (doctor only reads: it says that a missing one is made by `run --once`)."""
    if db is None:
        store.connect(f"sqlite:///{tmp_path}/bot.db")
        store.close()
    path = tmp_path / "settings.ini"
    path.write_text(
        "[bot]\nforum = reddit\n"
        f"[database]\nurl = {db or f'sqlite:///{tmp_path}/bot.db'}\n"
        f"[reddit]\nclient_id = id\nclient_secret = secret\nusername = {username}\n{auth}\n"
        f"user_agent = forumbot tests by u/tester\noauth_url = {url}\nreddit_url = {url}\n"
        f"subreddit = {sub}\n")
    return str(path)


def doctor(capsys, path) -> tuple[int, dict[str, str]]:
    """The exit code and each check's line, by name (the last line of each name)."""
    code = main(["doctor", "--settings", path])
    out = capsys.readouterr()
    assert "Traceback" not in out.out + out.err
    lines = {}
    for line in out.out.splitlines():
        if "  " in line and ": " in line:
            mark, rest = line.split("  ", 1)
            name, _, detail = rest.strip().partition(": ")
            lines[name] = f"{mark.strip()} {detail}"
    return code, lines


def test_everything_in_order(fake_reddit, tmp_path, capsys):
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url))
    assert code == 0, lines
    for name in ("settings", "bot lock", "database", "login", "subreddit r/games", "private messages"):
        assert lines[name].startswith("ok "), (name, lines)
    assert "u/forumbot" in lines["login"]
    assert not any(m == "POST" and "access_token" not in p for m, p in fake_reddit.requests)  # nothing posted


LOGINS = {  # fake.login, the auth line, what the line must say
    "wrong password": ("bad_password", "password = wrong", "username and password"),
    "2FA, a password alone": ("bad_otp", "password = pw", "two-factor authentication"),
    "revoked refresh token": ("revoked", "refresh_token = old", "revoked"),
    "wrong app": ("bad_client", "password = pw", "client_id and client_secret"),
    "not a script app": ("not_script", "password = pw", 'type "script"'),
}


@pytest.mark.parametrize("case", list(LOGINS))
def test_a_login_that_fails_says_why(case, fake_reddit, tmp_path, capsys):
    fake_reddit.login, auth, words = LOGINS[case]
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url, auth=auth))
    assert code == 1
    assert lines["login"].startswith("FAIL ") and words in lines["login"], lines["login"]
    assert lines["subreddit r/games"].startswith("skip ")
    assert lines["private messages"].startswith("skip ")
    assert lines["database"].startswith("ok ")  # the rest is still checked


def test_an_account_with_2fa_logs_in_with_a_refresh_token(fake_reddit, tmp_path, capsys):
    fake_reddit.login = "bad_otp"
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url, auth="refresh_token = good"))
    assert code == 0 and "with a refresh token" in lines["login"], lines


def test_credentials_of_another_account(fake_reddit, tmp_path, capsys):
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url, username="someone_else"))
    assert code == 1 and "u/forumbot" in lines["login"] and "someone_else" in lines["login"]


def test_an_unreachable_reddit(tmp_path, capsys, no_sleep):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    code, lines = doctor(capsys, settings(tmp_path, f"http://127.0.0.1:{port}"))
    assert code == 1 and "cannot reach" in lines["login"] and "Connection refused" in lines["login"]


SUBREDDITS = {  # how the fake is set, what the line must say
    "missing": (lambda f: setattr(f, "missing_subs", {"games"}), "does not exist"),
    "private": (lambda f: setattr(f, "forbidden_subs", {"games": "private"}), "private"),
    "restricted": (lambda f: f.about.update(games={"subreddit_type": "restricted"}), "approve u/forumbot"),
    "banned from": (lambda f: f.about.update(games={"user_is_banned": True}), "banned from"),
    "link posts only": (lambda f: f.about.update(games={"submission_type": "link"}), "link posts"),
}


@pytest.mark.parametrize("case", list(SUBREDDITS))
def test_a_subreddit_the_bot_cannot_post_in(case, fake_reddit, tmp_path, capsys):
    setup, words = SUBREDDITS[case]
    setup(fake_reddit)
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url))
    assert code == 1
    assert lines["subreddit r/games"].startswith("FAIL ") and words in lines["subreddit r/games"], lines
    assert lines["login"].startswith("ok ") and lines["private messages"].startswith("ok ")


def test_an_approved_submitter_may_post_in_a_restricted_subreddit(fake_reddit, tmp_path, capsys):
    fake_reddit.about["games"] = {"subreddit_type": "restricted", "user_is_contributor": True}
    assert doctor(capsys, settings(tmp_path, fake_reddit.url))[0] == 0


def test_the_subreddits_of_running_games_are_checked_too(fake_reddit, tmp_path, capsys):
    path = settings(tmp_path, fake_reddit.url)
    store.connect(f"sqlite:///{tmp_path}/bot.db")
    from datetime import datetime

    store.Game.create(forum="reddit", host="h", preset="resistance", config="{}", seed=1,
                      status="running", thread="oldgames:abc", created_at=datetime(2026, 1, 1))
    store.close()
    fake_reddit.missing_subs = {"oldgames"}
    code, lines = doctor(capsys, path)
    assert code == 1 and lines["subreddit r/oldgames"].startswith("FAIL ")
    assert lines["subreddit r/games"].startswith("ok ")


def test_a_refresh_token_without_the_pm_scope(fake_reddit, tmp_path, capsys):
    fake_reddit.scope = "identity read submit edit history"
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url, auth="refresh_token = rt"))
    assert code == 1 and "privatemessages" in lines["private messages"]
    assert lines["private messages"].startswith("FAIL ")


def test_pm_endpoints_that_refuse_the_account(fake_reddit, tmp_path, capsys):
    fake_reddit.sent_listing = 403
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url))
    assert code == 1 and lines["private messages"].startswith("FAIL ")


def test_another_bot_holds_the_database(fake_reddit, tmp_path, capsys):
    url = f"sqlite:///{tmp_path}/bot.db"
    with botlock.acquire(url):
        code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url, db=url))
    assert code == 1
    assert lines["bot lock"].startswith("FAIL ") and "another bot is working" in lines["bot lock"]
    assert doctor(capsys, settings(tmp_path, fake_reddit.url, db=url))[0] == 0  # and let go


def test_a_database_that_does_not_open(fake_reddit, tmp_path, capsys):
    (tmp_path / "adir").mkdir()  # a folder where the database file should be
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url, db=f"sqlite:///{tmp_path}/adir"))
    assert code == 1 and lines["database"].startswith("FAIL ")


def test_the_local_forum_needs_no_account(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    assert main(["run", "--once"]) == 0  # (it makes the database and the forum)
    code, lines = doctor(capsys, None)
    assert code == 0 and lines["local forum"].startswith("ok ")


def test_the_example_settings_unchanged(tmp_path, capsys):
    from pathlib import Path

    example = Path(__file__).resolve().parents[2] / "settings.example.ini"
    text = example.read_text().replace("url = sqlite:///forumbot.db", f"url = sqlite:///{tmp_path}/bot.db")
    (tmp_path / "s.ini").write_text(text)
    code, lines = doctor(capsys, str(tmp_path / "s.ini"))
    assert code == 1 and "fill in [reddit] client_id" in lines["settings"]
    assert lines["reddit"].startswith("skip ")


# --- run --once when the forum cannot be read ------------------------------------------------------


def test_run_once_with_a_wrong_password_exits_non_zero(fake_reddit, tmp_path, capsys):
    fake_reddit.login = "bad_password"
    assert main(["run", "--once", "--settings", settings(tmp_path, fake_reddit.url)]) == 1
    err = capsys.readouterr().err
    assert "run: the cycle did not get through: fetch:" in err and "invalid_grant" in err
    assert "Traceback" not in err
    fake_reddit.login = "ok"
    assert main(["run", "--once", "--settings", settings(tmp_path, fake_reddit.url)]) == 0


def test_run_once_with_reddit_unreachable_exits_non_zero(tmp_path, capsys, no_sleep):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    assert main(["run", "--once", "--settings", settings(tmp_path, f"http://127.0.0.1:{port}")]) == 1
    err = capsys.readouterr().err
    assert f"fetch: inbox: cannot connect to 127.0.0.1:{port} (Connection refused)" in err
    assert "Traceback" not in err


# --- doctor: Reddit's approval is a likely cause of a refused login --------------------------


@pytest.mark.parametrize(("login", "status"), [("bad_client", 401), ("locked", 403)])
def test_doctor_names_reddits_approval_when_reddit_refuses_the_login(login, status, fake_reddit, tmp_path,
                                                                      capsys, monkeypatch):
    """A new app Reddit has not approved yet is refused like a wrong id and secret (401); an
    automated account Reddit wants registered, like a locked one (403). The login line says
    so, and names the section of the operator's guide that tells what to ask for."""
    if login == "locked":
        real = fake_reddit.route

        def route(method, path, q, form):
            if path == "/api/v1/me":
                return 403, {"message": "Forbidden", "error": 403}
            return real(method, path, q, form)

        monkeypatch.setattr(fake_reddit, "route", route)
    else:
        fake_reddit.login = login
    code, lines = doctor(capsys, settings(tmp_path, fake_reddit.url))
    assert code == 1
    line = lines["login"]
    assert line.startswith("FAIL ") and f"({status})" in line, line
    assert "approved" in line and "Reddit in 2026: ask for approval first" in line, line
    guide = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "operating.md").read_text()
    assert re.search(r"^## Reddit in 2026: ask for approval first$", guide, re.M)
