"""A cron `run --once` must set poll_interval to the cron's cadence (the variants ruling):
doctor finds the cadence in the crontabs and systemd timers where docs/operating.md tells
operators to install one, and warns when poll_interval is left at its default and differs."""
from __future__ import annotations

import pytest

from forumbot import store
from forumbot.cli import cadence
from forumbot.cli.main import main

USER_CRONTAB = """# m h dom mon dow command
MAILTO=ops@example.org
*/5 * * * * cd /srv/bot && /opt/forumbot/.venv/bin/forumbot run --once
* * * * * /opt/forumbot/.venv/bin/forumbot run --once --settings /srv/other/settings.ini
@reboot /opt/forumbot/.venv/bin/forumbot run
"""


def test_the_cadence_of_a_users_crontab():
    found = cadence.crontab_schedules(USER_CRONTAB, "your crontab", system=False, settings="/srv/bot/settings.ini")
    assert [s.seconds for s in found] == [300]  # (the other bot's line and `run` are not this bot's)
    assert found[0].where.startswith("your crontab: */5 * * * *")


@pytest.mark.parametrize("fields, seconds", [
    ("*/5 * * * *", 300), ("0,20,40 * * * *", 1200), ("0,10,40 * * * *", 1800), ("* * * * *", 60),
    ("17 * * * *", 3600), ("0 */6 * * *", 6 * 3600), ("@hourly", 3600), ("*/5 * * * 1-5", None),
    ("0 9 * * *", 86400), ("*/5 9-17 * * *", None)])
def test_cron_fields(fields, seconds):
    assert cadence.cron_seconds(fields.split()) == seconds


@pytest.mark.parametrize("on, seconds", [
    ("OnUnitActiveSec=5min", 300), ("OnUnitActiveSec=1h 30min", 5400), ("OnCalendar=*:0/10", 600),
    ("OnCalendar=*-*-* *:00/2:00", 120), ("OnCalendar=minutely", 60), ("OnCalendar=Mon *:0/5", None)])
def test_a_systemd_timer(tmp_path, on, seconds):
    (tmp_path / "forumbot-once.timer").write_text(f"[Unit]\nDescription=poll\n[Timer]\n{on}\n")
    (tmp_path / "forumbot-once.service").write_text(
        "[Service]\nType=oneshot\nEnvironment=FORUMBOT_SETTINGS=/etc/forumbot/settings.ini\n"
        "ExecStart=/opt/forumbot/.venv/bin/forumbot run --once\n")
    found = cadence.timer_schedules(str(tmp_path / "forumbot-once.timer"), "/etc/forumbot/settings.ini")
    assert [s.seconds for s in found] == ([seconds] if seconds else [])
    assert cadence.timer_schedules(str(tmp_path / "forumbot-once.timer"), "/srv/other.ini") == []


@pytest.fixture
def system(tmp_path, monkeypatch):
    """A system in a folder: its /etc/cron.d, and no user crontab."""
    root = tmp_path / "root"
    (root / "etc" / "cron.d").mkdir(parents=True)
    monkeypatch.setattr(cadence, "ROOT", str(root))
    monkeypatch.setattr(cadence, "user_crontab", lambda: "")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FORUMBOT_SETTINGS", raising=False)
    yield root
    store.close()


def doctor_lines(capsys, settings) -> list[str]:
    main(["doctor", "--settings", str(settings)])
    out = capsys.readouterr().out
    assert "Traceback" not in out
    return [line for line in out.splitlines() if "  poll_interval:" in line]


@pytest.mark.parametrize("poll, expected", [
    ("", "warn  poll_interval: left at its default 30s, but "),
    ("poll_interval = 5m\n", "ok    poll_interval: 5m, the cadence of "),
    ("poll_interval = 2m\n", None),  # (set on purpose: the operator's choice)
])
def test_doctor_compares_poll_interval_with_the_cron(system, tmp_path, capsys, poll, expected):
    settings = tmp_path / "settings.ini"
    settings.write_text(f"[bot]\nforum = local\n{poll}")
    settings.chmod(0o600)
    (system / "etc" / "cron.d" / "forumbot").write_text(
        f"*/5 * * * * forumbot cd {tmp_path} && FORUMBOT_SETTINGS={settings} /opt/forumbot/.venv/bin/forumbot run --once\n")
    lines = doctor_lines(capsys, settings)
    if expected is None:
        assert lines == []
    else:
        assert len(lines) == 1 and lines[0].startswith(expected), lines
        assert "cron.d/forumbot: */5 * * * *" in lines[0]
    if poll == "":
        assert "set [bot] poll_interval = 5m" in lines[0]


def test_no_cron_no_line(system, tmp_path, capsys):
    settings = tmp_path / "settings.ini"
    settings.write_text("[bot]\nforum = local\n")
    settings.chmod(0o600)
    assert doctor_lines(capsys, settings) == []
