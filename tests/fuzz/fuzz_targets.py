"""Coverage-guided fuzz targets (atheris, issue 21 item 13b): one per parser of untrusted
text. Each input must come back without an exception other than the function's documented
clean error, within a bound of CPU time (`LIMIT`).

    python tests/fuzz/fuzz_targets.py TARGET WORKDIR SEEDDIR [libFuzzer flags]

`tests/fuzz/run.py` runs every target this way; the check functions (`CHECKS`) are plain
Python, so the tests run them on the seed corpus without atheris. atheris cannot kill a
hang, so an ITIMER_PROF alarm (this process has one thread) raises `TooSlow` inside it.
With FUZZ_KEEP_GOING=1 a failing input is saved to FUZZ_CRASHES (one file per distinct
file:line) and the fuzzing goes on; without it the first failure stops the run (libFuzzer
saves the input). FUZZ_STATS names a JSON file kept up to date with the inputs tried, the
worst CPU time of one input, and the failures.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import sys
import tempfile
import time
import traceback
from collections.abc import Callable

LIMIT = float(os.environ.get("FUZZ_LIMIT", "1.0"))  # seconds of CPU for one input
MAX_CONFIG = 10_000  # characters (variants.md, "Untrusted text and numbers")
THIRTY_DAYS = 30 * 86400
HOST = "hosty"
BOT = "forumbot"


class TooSlow(Exception):
    """One input took more than LIMIT seconds of CPU."""


def text_of(data: bytes) -> str:
    return data.decode("utf-8", "replace")


def check_config(data: bytes) -> None:
    from forumbot.gameconfig import parse_config

    text = text_of(data)
    config, problems = parse_config(text, HOST, BOT)
    assert (config is None) == bool(problems), "a config with problems, or none without any"
    for p in problems:  # every problem names its key and says something of bounded length
        assert p.key and p.message and len(str(p.key)) + len(str(p.message)) < 1000, p
    if config is not None:  # the bounds of variants.md, "Untrusted text and numbers"
        assert len(text) <= MAX_CONFIG, f"a config of {len(text)} characters was taken"
        assert config.seed is None or 0 <= config.seed < 2**63, config.seed
        assert len(config.aliases) <= 64, len(config.aliases)
        assert len(config.title) <= 300, len(config.title)
        for name, value in vars(config.deadlines).items():
            if isinstance(value, int) and not isinstance(value, bool):
                assert 0 <= value <= THIRTY_DAYS, (name, value)
        for name in config.players + config.cohosts + config.spectators:
            assert re.fullmatch(r"[A-Za-z0-9_-]{1,40}", name), name


_SETTINGS_DIR = tempfile.mkdtemp(prefix="fuzz-settings-")


def check_settings(data: bytes) -> None:
    from forumbot.settings import SettingsError, forum_problems, load_settings

    path = os.path.join(_SETTINGS_DIR, "settings.ini")
    with open(path, "wb") as f:
        f.write(data)
    try:
        s = load_settings(path)
    except SettingsError as e:
        assert str(e), "an empty error"
        return
    forum_problems(s)


def check_comment(data: bytes) -> None:
    from forumbot.parsing import parse_comment

    for p in parse_comment(text_of(data)):
        assert p.verb, p


def check_pm(data: bytes) -> None:
    from forumbot.parsing import game_tags, parse_pm

    text = text_of(data)
    for p in parse_pm(text):
        assert p.verb, p
    game_tags(text)


CHECKS: dict[str, Callable[[bytes], None]] = {
    "config": check_config, "settings": check_settings, "comment": check_comment, "pm": check_pm,
}


class Stats:
    def __init__(self, path: str | None, crashes: str | None, keep_going: bool):
        self.path, self.crashes, self.keep_going = path, crashes, keep_going
        self.inputs = 0
        self.worst = 0.0
        self.worst_len = 0
        self.found: dict[str, str] = {}  # file:line (or "slow") -> the saved input's file

    def save(self) -> None:
        if self.path:
            with open(self.path, "w") as f:
                json.dump({"inputs": self.inputs, "worst": self.worst, "worst_len": self.worst_len,
                           "found": self.found}, f)

    def failed(self, data: bytes, e: BaseException) -> None:
        frames = traceback.extract_tb(e.__traceback__)
        ours = [f for f in frames if "/forumbot/" in f.filename or "/adapters/" in f.filename] or frames
        where = "slow" if isinstance(e, TooSlow) else f"{type(e).__name__} {ours[-1].filename}:{ours[-1].lineno}"
        if where in self.found:
            return
        name = f"crash-{hashlib.sha1(data).hexdigest()[:16]}"
        if self.crashes:
            os.makedirs(self.crashes, exist_ok=True)
            with open(os.path.join(self.crashes, name), "wb") as f:
                f.write(data)
            with open(os.path.join(self.crashes, name + ".txt"), "w") as f:
                f.write(f"{where}\n{len(data)} bytes\n\n" + "".join(traceback.format_exception(e)))
        self.found[where] = name
        print(f"FOUND {where} ({len(data)} bytes): {name}", file=sys.stderr, flush=True)
        self.save()


def _alarm(signum, frame):
    raise TooSlow(f"more than {LIMIT}s of CPU")


def harness(check: Callable[[bytes], None], stats: Stats) -> Callable[[bytes], None]:
    signal.signal(signal.SIGPROF, _alarm)

    def one(data: bytes) -> None:
        stats.inputs += 1
        start = time.process_time()
        signal.setitimer(signal.ITIMER_PROF, LIMIT)
        try:
            check(data)
        except BaseException as e:  # noqa: B036 - TooSlow and every escape are the finding
            signal.setitimer(signal.ITIMER_PROF, 0)
            if isinstance(e, KeyboardInterrupt) or not stats.keep_going:
                stats.failed(data, e)
                raise
            stats.failed(data, e)
        finally:
            signal.setitimer(signal.ITIMER_PROF, 0)
            took = time.process_time() - start
            if took > stats.worst:
                stats.worst, stats.worst_len = took, len(data)
                stats.save()
            elif stats.inputs % 2000 == 0:
                stats.save()
    return one


def main() -> None:
    import atheris  # noqa: I001 - only the fuzz process needs it

    target = sys.argv[1]
    with atheris.instrument_imports(include=["forumbot", "adapters", "yaml"]):
        import forumbot.gameconfig  # noqa: F401
        import forumbot.parsing  # noqa: F401
        import forumbot.settings  # noqa: F401
    stats = Stats(os.environ.get("FUZZ_STATS"), os.environ.get("FUZZ_CRASHES"),
                  os.environ.get("FUZZ_KEEP_GOING") == "1")
    atheris.Setup([sys.argv[0]] + sys.argv[2:], harness(CHECKS[target], stats))
    atheris.Fuzz()


if __name__ == "__main__":
    main()
