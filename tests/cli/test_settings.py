"""The INI settings of commands.md."""
import pytest

from forumbot.settings import SettingsError, load_settings


def test_no_settings_means_the_local_forum_and_sqlite(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    s = load_settings()
    assert (s.forum, s.database_url) == ("local", "sqlite:///forumbot.db")


def test_every_setting(tmp_path):
    f = tmp_path / "s.ini"
    f.write_text("[bot]\nforum = reddit\npoll_interval = 90s\nhosts = u/Alice, bob\n"
                 "[database]\nurl = postgresql://u@h/db\n"
                 "[reddit]\nclient_id = id\nclient_secret = sec\nusername = thebot\npassword = pw\n"
                 "user_agent = ua ; a comment\noauth_url = http://127.0.0.1:1\nreddit_url = http://127.0.0.1:1\n")
    s = load_settings(str(f))
    assert (s.forum, s.poll_interval, s.hosts) == ("reddit", 90, {"Alice", "bob"})
    assert s.database_url == "postgresql://u@h/db" and s.bot_name == "thebot"
    assert s.reddit["user_agent"] == "ua" and s.reddit["oauth_url"] == "http://127.0.0.1:1"


def test_the_environment_names_the_file(tmp_path, monkeypatch):
    f = tmp_path / "env.ini"
    f.write_text("[bot]\nforum = local\npoll_interval = 5m\n")
    monkeypatch.setenv("FORUMBOT_SETTINGS", str(f))
    assert load_settings().poll_interval == 300


@pytest.mark.parametrize("text", ["[bot]\nforum = myspace\n", "[bot]\npoll_interval = often\n"])
def test_bad_settings_are_refused(tmp_path, text):
    f = tmp_path / "bad.ini"
    f.write_text(text)
    with pytest.raises(SettingsError):
        load_settings(str(f))
    with pytest.raises(SettingsError):
        load_settings(str(tmp_path / "missing.ini"))


def test_a_forum_is_found_through_the_adapter_registry(tmp_path, monkeypatch):
    """A new forum is a module and a row in adapters.ADAPTERS: the settings, their checks
    and make_forum know it without a line of their own."""
    import adapters
    from adapters.local import LocalForum
    from forumbot.settings import SettingsError, forum_problems, load_settings, make_forum

    class Made(LocalForum):
        @classmethod
        def from_settings(cls, s, **kw):
            forum = cls(":memory:", bot_name=s["login"])
            forum.site = s["site"]
            return forum

    monkeypatch.setitem(adapters.ADAPTERS, "elsewhere", adapters.Adapter(
        "elsewhere", "builtins:object", needs={"site": "the forum's address", "login": "the bot"},
        guide="Hosting elsewhere", bot_name_key="login", writes_per_minute=7))
    monkeypatch.setattr(adapters.Adapter, "load", lambda self: Made)
    p = tmp_path / "s.ini"
    p.write_text("[bot]\nforum = elsewhere\n[elsewhere]\nsite = https://x.example\n")
    s = load_settings(str(p))
    assert s.writes_per_minute == 7 and forum_problems(s) == ["login"]
    with pytest.raises(SettingsError, match=r"fill in \[elsewhere\] login .*Hosting elsewhere"):
        make_forum(s)
    p.write_text("[bot]\nforum = elsewhere\n[elsewhere]\nsite = https://x.example\nlogin = gm\n")
    s = load_settings(str(p))
    forum = make_forum(s)
    assert s.bot_name == "gm" and forum.bot_name == "gm" and forum.site == "https://x.example"
    p.write_text("[bot]\nforum = nowhere\n")
    with pytest.raises(SettingsError, match="must be local, reddit, discourse or elsewhere"):
        load_settings(str(p))


def test_hosts_may_be_written_as_each_forum_mentions_them(tmp_path):
    p = tmp_path / "s.ini"
    p.write_text("[bot]\nforum = local\nhosts = u/alice, @bob, carol\n")
    assert load_settings(str(p)).hosts == {"alice", "bob", "carol"}


# --- percent signs, outage_grace, a file that is not INI ---------------------------------


def test_a_percent_in_a_setting_is_taken_as_written(tmp_path):
    f = tmp_path / "s.ini"
    f.write_text("[reddit]\nusername = thebot\npassword = ab%cd\nuser_agent = bot 100%\n")
    s = load_settings(str(f))
    assert s.reddit["password"] == "ab%cd" and s.reddit["user_agent"] == "bot 100%"


def test_outage_grace(tmp_path):
    f = tmp_path / "s.ini"
    f.write_text("[bot]\nforum = local\n")
    assert load_settings(str(f)).outage_grace == 3600
    f.write_text("[bot]\noutage_grace = 30m\n")
    assert load_settings(str(f)).outage_grace == 1800
    f.write_text("[bot]\noutage_grace =\n")
    assert load_settings(str(f)).outage_grace == 3600
    for bad in ("soon", "none", "0s"):
        f.write_text(f"[bot]\noutage_grace = {bad}\n")
        with pytest.raises(SettingsError, match="outage_grace"):
            load_settings(str(f))


def test_the_example_settings_document_outage_grace():
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "settings.example.ini"
    assert "outage_grace" in path.read_text()
    assert load_settings(str(path)).outage_grace == 3600


@pytest.mark.parametrize("text", ["no section header here\n", "[bot]\nforum = local\nforum = reddit\n",
                                  "[bot]\n[bot]\n"])
def test_a_broken_settings_file_is_a_settings_error(tmp_path, text):
    f = tmp_path / "s.ini"
    f.write_text(text)
    with pytest.raises(SettingsError):
        load_settings(str(f))
