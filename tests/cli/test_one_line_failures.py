"""One line per failure (issue 25, item 10): with Reddit unreachable, `run --once` and
`doctor` say in one line of their own which host did not answer; prawcore's and urllib3's
"Retrying due to ConnectionError(MaxRetryError(..." warnings stay out of the log (they are
DEBUG lines, shown with log_level = debug)."""
from __future__ import annotations

import logging
import socket

import prawcore
import pytest
import requests

from adapters.reddit_errors import failed_host, one_line
from forumbot import store
from forumbot.cli.main import main
from tests.cli.test_doctor import doctor, settings


@pytest.fixture(autouse=True)
def _no_store_left_open():
    yield
    store.close()


@pytest.fixture
def no_sleep(monkeypatch):
    """prawcore and tenacity wait between retries; these tests need not."""
    import time

    monkeypatch.setattr(time, "sleep", lambda s: None)


def closed_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def settings_for(tmp_path, login_url: str, api_url: str, level: str = "info") -> str:
    """Settings whose login (the token endpoint, reddit_url) and API (oauth_url) may be at
    two different places."""
    path = settings(tmp_path, api_url)
    text = open(path).read().replace(f"reddit_url = {api_url}", f"reddit_url = {login_url}")
    text = text.replace("[bot]\n", f"[bot]\nlog_level = {level}\n")
    with open(path, "w") as f:
        f.write(text)
    return path


def test_run_once_says_once_which_host_did_not_answer(tmp_path, capsys, no_sleep):
    port = closed_port()
    url = f"http://127.0.0.1:{port}"
    assert main(["run", "--once", "--settings", settings_for(tmp_path, url, url)]) == 1
    err = capsys.readouterr().err
    lines = err.splitlines()
    assert not [x for x in lines if "Retrying" in x], err  # (prawcore logged six of them)
    assert "MaxRetryError" not in err and "HTTPConnectionPool" not in err, err
    verdict = [x for x in lines if x.startswith("run:")]
    assert verdict == [f"run: the cycle did not get through: fetch: inbox: cannot connect to "
                       f"127.0.0.1:{port} (Connection refused) (`forumbot doctor` checks the settings)"]
    assert all(len(x) < 200 for x in lines), err
    assert "Traceback" not in err
    assert [x for x in lines if "cannot connect" in x] == verdict, err  # one line, not the log's too


def test_run_once_writes_the_other_errors_of_its_cycle(capsys):
    """What the verdict does not say still reaches the log, after the cycle, in its order."""
    from forumbot.logs import configure_logging, held_back

    configure_logging("info")
    log = logging.getLogger("forumbot")
    with held_back() as held:
        log.error("fetch failed: inbox: cannot connect to oauth.reddit.com (timed out)")
        log.error("inbound c1 from alice set aside: too long")
        log.info("a line that waits for nothing")
        held.drop("inbox: cannot connect to oauth.reddit.com (timed out)")
        assert "set aside" not in capsys.readouterr().err  # (held until the cycle is over)
    err = capsys.readouterr().err
    assert "fetch failed" not in err and err.count("ERROR inbound c1 from alice set aside") == 1, err


def test_the_retries_are_there_at_debug_level(tmp_path, capsys, no_sleep):
    port = closed_port()
    url = f"http://127.0.0.1:{port}"
    try:
        assert main(["run", "--once", "--settings", settings_for(tmp_path, url, url, "debug")]) == 1
    finally:
        logging.getLogger().setLevel(logging.INFO)
    err = capsys.readouterr().err
    assert [x for x in err.splitlines() if "DEBUG Retrying due to" in x], err
    assert not [x for x in err.splitlines() if "WARNING Retrying" in x], err


def test_doctor_names_the_login_host_that_failed(fake_reddit, tmp_path, capsys, no_sleep):
    """The login goes to reddit_url (www.reddit.com); the API to oauth_url (oauth.reddit.com):
    the line names the one that did not answer."""
    port = closed_port()
    code, lines = doctor(capsys, settings_for(tmp_path, f"http://127.0.0.1:{port}", fake_reddit.url))
    assert code == 1
    assert lines["login"] == f"FAIL cannot reach 127.0.0.1:{port}: Connection refused"


def test_doctor_names_the_api_host_that_failed(fake_reddit, tmp_path, capsys, no_sleep):
    port = closed_port()
    code, lines = doctor(capsys, settings_for(tmp_path, fake_reddit.url, f"http://127.0.0.1:{port}"))
    assert code == 1
    assert lines["login"] == f"FAIL cannot reach 127.0.0.1:{port}: Connection refused"


def refused(url: str) -> prawcore.RequestException:
    original = requests.ConnectionError(
        "HTTPSConnectionPool(host='www.reddit.com', port=443): Max retries exceeded with url: "
        "/api/v1/access_token (Caused by NewConnectionError('<urllib3.connection.HTTPSConnection "
        "object at 0x7f>: Failed to establish a new connection: [Errno 111] Connection refused'))")
    return prawcore.RequestException(original, ("post", url), {})


def test_the_host_as_people_know_it():
    assert failed_host(refused("https://www.reddit.com/api/v1/access_token")) == "www.reddit.com"
    assert failed_host(refused("https://oauth.reddit.com:8443/message/unread/")) == "oauth.reddit.com:8443"
    assert failed_host(refused("")) == "www.reddit.com"  # (from urllib3's words)
    assert one_line(refused("https://www.reddit.com/api/v1/access_token")) == (
        "cannot connect to www.reddit.com (Connection refused)")
