"""Deploying: deploy/install.sh into a temporary root (no root privileges needed), the
systemd unit it installs, the Dockerfile and compose.yaml (images cannot be pulled here:
every path they name exists, compose.yaml parses and names the settings the bot reads),
and `run` as a service: SIGTERM finishes the cycle under way and logs "stopped", a failed
cycle is logged as an error and the next one waits longer."""
from __future__ import annotations

import configparser
import logging
import os
import re
import signal
import subprocess
import sys
import time
import zipfile
from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def wheel(folder: Path) -> Path:
    """forumbot as a wheel, made here (no network, no build backend): what pip installs."""
    from forumbot import __version__

    name = f"forumbot-{__version__}"
    path = folder / f"{name}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as z:
        record = []
        for pkg in ("forumbot", "adapters"):
            for f in sorted((ROOT / pkg).rglob("*.py")):
                z.write(f, f.relative_to(ROOT).as_posix())
                record.append(f.relative_to(ROOT).as_posix())
        meta = {"METADATA": f"Metadata-Version: 2.1\nName: forumbot\nVersion: {__version__}\n",
                "WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
                "entry_points.txt": "[console_scripts]\nforumbot = forumbot.cli.main:main\n"}
        for file, text in meta.items():
            z.writestr(f"{name}.dist-info/{file}", text)
            record.append(f"{name}.dist-info/{file}")
        record.append(f"{name}.dist-info/RECORD")
        z.writestr(f"{name}.dist-info/RECORD", "".join(f"{r},,\n" for r in record))
    return path


def install(tmp_path: Path, **env) -> subprocess.CompletedProcess:
    dest = tmp_path / "root"
    environ = dict(os.environ, DESTDIR=str(dest), PYTHON=sys.executable, VENV_ARGS="--without-pip",
                   PACKAGE=str(wheel(tmp_path)), PIP_ARGS="--no-deps --no-index")
    environ.update(env)
    return subprocess.run(["sh", str(DEPLOY / "install.sh")], env=environ, capture_output=True,
                          text=True, timeout=120)


def test_install_sh_into_a_temporary_root(tmp_path):
    places = dict(PREFIX="/srv/fb", CONFDIR="/srv/fb/etc", STATEDIR="/srv/fb/state", BOTUSER="gm")
    r = install(tmp_path, **places)
    assert r.returncode == 0, r.stderr
    dest = tmp_path / "root"
    venv = dest / "srv/fb/.venv"
    assert (dest / "srv/fb/etc").is_dir() and (dest / "srv/fb/state").is_dir()
    assert oct((dest / "srv/fb/etc/settings.ini").stat().st_mode)[-3:] == "640"
    version = subprocess.run([str(venv / "bin/forumbot"), "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("forumbot "), version.stderr
    unit = (dest / "etc/systemd/system/forumbot.service").read_text()
    for line in ("User=gm", "Group=gm", "WorkingDirectory=/srv/fb/state",
                 "Environment=FORUMBOT_SETTINGS=/srv/fb/etc/settings.ini",
                 "ExecStart=/srv/fb/.venv/bin/forumbot run", "ReadWritePaths=/srv/fb/state"):
        assert line in unit.splitlines(), line
    body = unit.split("[Unit]")[1]
    assert "/opt/forumbot" not in body and "/var/lib/forumbot" not in body and "/etc/forumbot" not in body
    settings = configparser.ConfigParser(inline_comment_prefixes=(";",), interpolation=None)
    settings.read(dest / "srv/fb/etc/settings.ini")
    assert settings["database"]["url"] == "sqlite:////srv/fb/state/forumbot.db"
    assert settings["local"]["path"] == "/srv/fb/state/forumbot-local.db"
    assert "not making the user gm" in r.stdout and "forumbot doctor" in r.stdout  # the next steps
    # a second run (an upgrade) keeps the settings someone filled in
    (dest / "srv/fb/etc/settings.ini").write_text("[bot]\nforum = local\n")
    assert install(tmp_path, **places).returncode == 0
    assert (dest / "srv/fb/etc/settings.ini").read_text() == "[bot]\nforum = local\n"


def test_install_sh_refuses_an_old_python(tmp_path):
    r = install(tmp_path, PYTHON="/no/such/python")
    assert r.returncode != 0 and "older than 3.11" in r.stderr


def test_the_unit_restarts_and_stops_with_a_timeout():
    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.optionxform = str
    unit.read(DEPLOY / "forumbot.service")
    service = unit["Service"]
    assert service["Restart"] == "always" and int(service["RestartSec"]) > 0
    assert int(service["TimeoutStopSec"]) >= 60 and service["KillSignal"] == "SIGTERM"
    assert service["User"] == "forumbot" and service["ExecStart"].endswith("forumbot run")
    assert service["WorkingDirectory"] in service["ReadWritePaths"]
    assert unit["Install"]["WantedBy"] == "multi-user.target"


def test_the_dockerfile_names_only_what_the_repo_has():
    text = (DEPLOY / "Dockerfile").read_text()
    assert re.search(r"^FROM python:3\.1[1-9]-slim$", text, re.M)
    copies = re.findall(r"^COPY (.+) \S+$", text, re.M)
    assert copies
    for line in copies:
        for path in line.split():
            assert (ROOT / path).exists(), path  # the build context is the repo's root
    user = re.findall(r"^USER (\S+)$", text, re.M)
    assert user and user[-1] not in ("root", "0")
    assert "ENTRYPOINT [\"forumbot\"]" in text and 'CMD ["run"]' in text


def _default(value: str) -> str:
    """compose's ${VAR:-default}, with VAR unset."""
    return re.sub(r"\$\{\w+:-([^}]*)\}", r"\1", value)


def test_compose_parses_and_names_the_settings_the_bot_reads():
    from forumbot.settings import load_settings

    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    bot, db = compose["services"]["bot"], compose["services"]["db"]
    context = (DEPLOY / bot["build"]["context"]).resolve()
    assert context == ROOT and (context / bot["build"]["dockerfile"]).exists()
    where = bot["environment"]["FORUMBOT_SETTINGS"]
    mounts = {_default(v).rsplit(":", 2)[1]: _default(v).split(":")[0] for v in bot["volumes"]}
    assert where in mounts, mounts
    settings_file = (DEPLOY / mounts[where]).resolve()
    assert settings_file.exists(), settings_file
    s = load_settings(str(settings_file))
    assert s.forum == "reddit"
    for key in ("client_id", "client_secret", "username", "password", "user_agent"):
        assert key in settings_file.read_text()
    url = re.match(r"postgresql://(\w+):(\w+)@(\w+):5432/(\w+)$", s.database_url)
    assert url, s.database_url
    user, password, host, dbname = url.groups()
    assert host == "db" and user == db["environment"]["POSTGRES_USER"]
    assert dbname == db["environment"]["POSTGRES_DB"]
    assert password == "PASSWORD"  # a placeholder the operator replaces
    # no default password: compose stops with this message until POSTGRES_PASSWORD is set
    required = re.fullmatch(r"\$\{POSTGRES_PASSWORD:\?([^}]+)\}", db["environment"]["POSTGRES_PASSWORD"])
    assert required and "POSTGRES_PASSWORD" in required.group(1)
    assert bot["depends_on"]["db"]["condition"] == "service_healthy"
    assert "pg_isready" in " ".join(db["healthcheck"]["test"])
    volume = db["volumes"][0].split(":")[0]
    assert volume in compose["volumes"]
    assert db["image"].startswith("postgres:")


# --- run as a service ----------------------------------------------------------------------------

SLOW_CYCLE = """
import logging, sys, time
from forumbot.shell.moderator import CycleReport
from forumbot.shell.scheduler import run_forever
logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(message)s")
class Mod:
    def cycle(self):
        print("cycle start", flush=True)
        time.sleep(1.0)
        print("cycle end", flush=True)
        return CycleReport()
    def next_deadline(self):
        return None
run_forever(Mod(), 60)
print("exited", flush=True)
"""


def test_sigterm_finishes_the_cycle_under_way_then_logs_stopped():
    p = subprocess.Popen([sys.executable, "-c", SLOW_CYCLE], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    try:
        lines = []
        while "cycle start" not in lines:
            line = p.stdout.readline()
            assert line, p.stderr.read()
            lines.append(line.strip())
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    lines += [x.strip() for x in out.splitlines()]
    assert p.returncode == 0, err
    assert lines.index("cycle end") < lines.index("stopped") < lines.index("exited"), lines
    assert lines.count("cycle start") == 1


def test_forumbot_run_stops_on_sigterm(tmp_path):
    (tmp_path / "settings.ini").write_text("[bot]\nforum = local\npoll_interval = 1s\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("FORUMBOT_SETTINGS", None)
    p = subprocess.Popen([sys.executable, "-m", "forumbot", "run"], cwd=tmp_path, env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        seen = ""
        while "forumbot running" not in seen:
            line = p.stderr.readline()
            assert line, seen
            seen += line
        time.sleep(0.3)
        p.send_signal(signal.SIGTERM)
        _, err = p.communicate(timeout=20)
    finally:
        if p.poll() is None:
            p.kill()
    assert p.returncode == 0, err
    assert re.search(r"INFO stopped$", err, re.M), err
    assert "Running job" not in seen + err  # APScheduler's routine lines are DEBUG


class Failing:
    """A moderator whose forum is down: every cycle reports a failed fetch."""

    def __init__(self):
        from forumbot.shell.moderator import CycleReport

        self.report = CycleReport(errors=["fetch: inbox: invalid_grant error processing request"])
        self.due = None

    def cycle(self):
        return self.report

    def next_deadline(self):
        return self.due


def test_a_failed_cycle_is_an_error_and_the_next_try_waits_longer(caplog):
    from forumbot.shell.moderator import CycleReport
    from forumbot.shell.scheduler import MAX_BACKOFF, Runner, backoff

    assert [backoff(n, 30) for n in range(1, 8)] == [30, 60, 120, 240, 480, 900, 900]
    assert backoff(3, 3600) == 3600  # a poll interval above the cap stays as it is
    mod = Failing()
    runner = Runner(mod, 30)
    waits = []
    for _ in range(7):
        with caplog.at_level(logging.INFO, logger="forumbot"):
            before = datetime.now(timezone.utc)
            runner.tick()
        job = runner.sched.get_job("poll")
        waits.append(round((job.next_run_time - before).total_seconds()))
    assert waits == [30, 60, 120, 240, 480, MAX_BACKOFF, MAX_BACKOFF]
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 7 and "invalid_grant" in errors[-1].getMessage()
    assert "7 in a row" in errors[-1].getMessage()
    # a deadline waiting for the forum is tried with the same backoff, not every second
    mod.due = datetime.now(timezone.utc) - timedelta(hours=1)
    runner.tick()
    job = runner.sched.get_job("deadline")
    assert job.trigger.run_date > datetime.now(timezone.utc) + timedelta(seconds=MAX_BACKOFF - 5)
    mod.report = CycleReport()  # the forum is back
    runner.tick()
    assert runner.failures == 0


def test_a_cycle_that_raises_counts_as_failed(caplog):
    from forumbot.shell.scheduler import Runner

    class Broken(Failing):
        def cycle(self):
            raise RuntimeError("boom")

    runner = Runner(Broken(), 30)
    with caplog.at_level(logging.INFO, logger="forumbot"):
        runner.tick()
        runner.tick()
    assert runner.failures == 2
    assert any(r.levelno == logging.ERROR and r.exc_info for r in caplog.records)


@pytest.mark.parametrize("path", ["deploy/install.sh"])
def test_the_install_script_is_posix_sh(path):
    assert subprocess.run(["sh", "-n", str(ROOT / path)]).returncode == 0
    assert (ROOT / path).read_text().startswith("#!/bin/sh\n")
    assert os.access(ROOT / path, os.X_OK)


@pytest.mark.parametrize("args", [["--help"], ["-h"], ["--dry-run"], ["--dry-run", "--help"]])
def test_install_sh_help_and_dry_run_change_nothing(tmp_path, args):
    dest = tmp_path / "root"
    environ = dict(os.environ, DESTDIR=str(dest), PYTHON=sys.executable, PACKAGE="/no/such/wheel")
    r = subprocess.run(["sh", str(DEPLOY / "install.sh"), *args], env=environ, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert not dest.exists()  # no folder, no venv, no settings, no unit
    if {"--help", "-h"} & set(args):
        assert "--dry-run" in r.stdout and "DESTDIR" in r.stdout and "would run" not in r.stdout
    else:
        assert "nothing is changed" in r.stdout
        assert f"would run: install -d -m 0750 {dest}/etc/forumbot" in r.stdout
        assert f"would write: {dest}/etc/systemd/system/forumbot.service" in r.stdout


@pytest.mark.parametrize("args", [["--bogus"], ["install"], ["--dry-run", "-x"]])
def test_install_sh_refuses_an_unknown_argument_before_touching_anything(tmp_path, args):
    dest = tmp_path / "root"
    environ = dict(os.environ, DESTDIR=str(dest), PYTHON=sys.executable, PACKAGE="/no/such/wheel")
    r = subprocess.run(["sh", str(DEPLOY / "install.sh"), *args], env=environ, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert "unknown argument" in r.stderr and "--help" in r.stderr
    assert r.stderr.count("\n") == 1 and not dest.exists()


def test_the_build_context_leaves_out_secrets_databases_and_the_venv():
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    for pattern in (".git", ".venv", "*.db", "*.db-wal", "**/settings.ini"):
        assert pattern in ignored, pattern
    copies = " ".join(re.findall(r"^COPY (.+) \S+$", (DEPLOY / "Dockerfile").read_text(), re.M)).split()
    assert not set(copies) & set(ignored)  # what the image is built from is still sent


HEALTHY = re.compile(r'^HEALTHCHECK .*?CMD (\[.*\])$', re.M)


def _healthcheck(heartbeat: Path, now_offset: int = 0) -> int:
    """Runs the Dockerfile's healthcheck command, as Docker would, against `heartbeat`."""
    import json

    text = (DEPLOY / "Dockerfile").read_text().replace("\\\n", " ")
    cmd = json.loads(HEALTHY.search(text).group(1))
    return subprocess.run(cmd, env=dict(os.environ, FORUMBOT_HEARTBEAT=str(heartbeat))).returncode


def test_the_dockerfile_healthcheck_reads_the_heartbeat_the_bot_writes(tmp_path):
    from forumbot.shell.moderator import CycleReport
    from forumbot.shell.scheduler import GRACE, Runner

    text = (DEPLOY / "Dockerfile").read_text()
    assert "FORUMBOT_HEARTBEAT=/var/lib/forumbot/heartbeat" in text  # the bot's working directory
    heartbeat = tmp_path / "heartbeat"
    assert _healthcheck(heartbeat) != 0  # no cycle has finished yet
    heartbeat.write_text(f"{int(time.time()) - 5}\n")
    assert _healthcheck(heartbeat) != 0  # the next cycle is overdue: the loop hangs or died

    class Mod:
        forum = type("F", (), {"traits": type("T", (), {"listing_window": 500})()})()
        errors: list[str] = []

        def cycle(self):
            return CycleReport(errors=list(self.errors))

        def next_deadline(self):
            return None

    runner = Runner(Mod(), 30, heartbeat=str(heartbeat))
    try:
        runner.tick()
        due = int(heartbeat.read_text())
        assert abs(due - (time.time() + 30 + GRACE)) < 5
        assert _healthcheck(heartbeat) == 0
        Mod.errors = ["fetch: the forum is down"]  # a forum's outage: the bot waits longer, and stays healthy
        runner.tick()
        runner.tick()
        assert abs(int(heartbeat.read_text()) - (time.time() + 60 + GRACE)) < 5
        assert _healthcheck(heartbeat) == 0
    finally:
        runner.sched.shutdown(wait=False) if runner.sched.running else None


def test_a_heartbeat_that_cannot_be_written_is_logged_once_and_the_bot_goes_on(tmp_path, caplog):
    from forumbot.shell.moderator import CycleReport
    from forumbot.shell.scheduler import Runner

    class Mod:
        forum = type("F", (), {"traits": type("T", (), {"listing_window": 500})()})()

        def cycle(self):
            return CycleReport()

        def next_deadline(self):
            return None

    runner = Runner(Mod(), 30, heartbeat=str(tmp_path / "no" / "such" / "heartbeat"))
    with caplog.at_level(logging.ERROR, logger="forumbot"):
        runner.tick()
        runner.tick()
    said = [r for r in caplog.records if "heartbeat" in r.getMessage()]
    assert len(said) == 1 and runner.failures == 0


def test_a_licence_is_declared_and_the_recorded_answers_keep_theirs():
    import tomllib

    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"] == {"text": "MIT"}
    praw = (ROOT / "tests/fixtures/recorded/LICENSE-praw.txt").read_text()
    assert "Copyright (c) 2016, Bryce Boe" in praw and "Redistributions of source code" in praw
    assert "LICENSE-praw.txt" in (ROOT / "tests/fixtures/recorded/README.md").read_text()
