"""The INI settings of commands.md."""
import os

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
    with pytest.raises(SettingsError, match="must be local, reddit, discourse, xenforo or elsewhere"):
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


# --- misspelt settings are errors, naming the nearest known one (issue 25, item 5) ----------------

TYPOS = [
    ("[bot]\nforum = local\npol_interval = 30s\n", "[bot] pol_interval is not a setting (did you mean poll_interval?)"),
    ("[bot]\nforum = local\n[databse]\nurl = postgresql://fb:s3cr3tpw@db.example/fb\n",
     "[databse] is not a section (did you mean [database]?)"),
    ("[reddit]\nclientid = abc\nclient_secret = x\nusername = bot\npassword = pw\n",
     "[reddit] clientid is not a setting (did you mean client_id?)"),
    ("[discourse]\nurl = https://f.example\napi_key = k\napi_username = b\ncatgory = games\n",
     "[discourse] catgory is not a setting (did you mean category?)"),
    ("[Bot]\nforum = local\n", "[Bot] is not a section (did you mean [bot]?)"),
    ("[bot]\nforum = local\nzzz = 1\n", "[bot] zzz is not a setting ([bot] takes forum, poll_interval"),
    ("[DEFAULT]\npoll_interval = 5m\n[bot]\nforum = local\n", "[DEFAULT] poll_interval: the settings have no [DEFAULT]"),
]


@pytest.mark.parametrize("text,said", TYPOS)
def test_an_unknown_section_or_key_is_an_error_naming_the_nearest_known_one(tmp_path, text, said):
    path = tmp_path / "settings.ini"
    path.write_text(text)
    with pytest.raises(SettingsError) as e:
        load_settings(str(path))
    assert said in str(e.value)
    assert "s3cr3tpw" not in str(e.value) and "\n" not in str(e.value)


@pytest.mark.parametrize("command", [["doctor"], ["run", "--once"], ["check-config", "CONFIG"]])
def test_run_doctor_and_check_config_refuse_a_misspelt_setting(tmp_path, capsys, command):
    from forumbot.cli.main import main

    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = local\npol_interval = 30s\n[database]\nurl = sqlite:///{tmp_path}/bot.db\n"
                    f"[local]\npath = {tmp_path}/local.db\n")
    os.chmod(path, 0o600)
    config = tmp_path / "config.yaml"
    config.write_text("preset: resistance\nplayers: [a, b, c, d, e]\n")
    argv = [str(config) if a == "CONFIG" else a for a in command]
    code = main([argv[0], "--settings", str(path), *argv[1:]])
    out = capsys.readouterr()
    assert code != 0
    assert "pol_interval is not a setting (did you mean poll_interval?)" in out.out + out.err
    assert not (tmp_path / "bot.db").exists() and not (tmp_path / "local.db").exists()  # nothing was made


@pytest.mark.parametrize("written", ["0s", "0", "00m", "0h"])
def test_a_zero_poll_interval_must_be_more_than_0(tmp_path, written):
    path = tmp_path / "settings.ini"
    path.write_text(f"[bot]\nforum = local\npoll_interval = {written}\n")
    with pytest.raises(SettingsError, match=r"\[bot\] poll_interval = .*: must be more than 0"):
        load_settings(str(path))


def test_a_line_without_equals_names_its_line_and_does_not_show_it(tmp_path):
    path = tmp_path / "settings.ini"
    path.write_text("[bot]\nforum = local\n\n[reddit]\nclient_id = x\npassword hunter2secret\n")
    with pytest.raises(SettingsError) as e:
        load_settings(str(path))
    assert "line 6" in str(e.value) and "key = value" in str(e.value)
    assert "hunter2secret" not in str(e.value)
