"""The HTTP forums' shared base (adapters/http_forum.py) on answers no fake forum gives: a
rate limit whose wait is not a number of seconds (a string, null, a negative, an endless or
a huge one), on Discourse (`extras.wait_seconds`, then `Retry-After`) and on XenForo
(`Retry-After`, and the flood check's `params.count`); a Retry-After that is an HTTP date. No traceback, a wait from 0 to an
hour, and writes go out again once it has passed."""
from __future__ import annotations

import json
import math

import pytest
import responses

from adapters.base import TransientError
from adapters.discourse import DiscourseForum
from adapters.retries import DEFAULT_WAIT, LONGEST_WAIT, wait_seconds
from adapters.xenforo import XenForoForum
from adapters.xenforo_http import FLOOD

URL = "https://forum.example.org"
# what a forum might put where a number of seconds belongs
ODD = ["soon", None, -5, -0.5, 1e308, "1e400", "nan", "-inf", True, [], {"s": 3}, 10**30, "99999999"]


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def discourse(clock):
    return DiscourseForum(URL, "key", "forumbot", read_attempts=2, backoff=0, max_wait=0, monotonic=clock)


def xenforo(clock):
    return XenForoForum(URL, "key", "forumbot", read_attempts=2, backoff=0, max_wait=0, monotonic=clock)


def discourse_429(wait):
    body = {"errors": ["You've performed this action too many times."], "error_type": "rate_limit",
            "extras": {"wait_seconds": wait}}
    return dict(status=429, body=json.dumps(body), content_type="application/json")  # (NaN, Infinity as Ruby's)


def discourse_429_header(wait):
    return dict(status=429, json={"errors": ["Slow down"]}, headers={"Retry-After": str(wait)})


def xenforo_429(wait):
    return dict(status=429, json={"errors": [{"code": "too_many", "message": "Slow down"}]},
                headers={"Retry-After": str(wait)})


def xenforo_flood(wait):
    return dict(status=400, json={"errors": [{"code": FLOOD, "message": "Please wait.", "params": {"count": wait}}]})


FORUMS = {  # forum: (its adapter, a read's path, a write, the answers that ask to wait)
    "discourse": (discourse, "/session/current.json", lambda f: f._write("POST", "/posts.json", {"raw": "x"}),
                  {"POST": f"{URL}/posts.json"}, (discourse_429, discourse_429_header)),
    "xenforo": (xenforo, "/api/me", lambda f: f._write("/posts", {"message": "x"}),
                {"POST": f"{URL}/api/posts"}, (xenforo_429, xenforo_flood)),
}
CASES = [pytest.param(forum, i, wait, id=f"{forum}-{FORUMS[forum][4][i].__name__}-{wait!r}")
         for forum in FORUMS for i in range(2) for wait in ODD]


@pytest.mark.parametrize("forum,answer,wait", CASES)
def test_a_wait_that_is_no_number_of_seconds_is_a_sane_bounded_one(forum, answer, wait):
    make, read_path, write, writes, answers = FORUMS[forum]
    clock = Clock()
    f = make(clock)
    with responses.RequestsMock() as rs:
        rs.add(responses.GET, URL + read_path, **answers[answer](wait))
        rs.add(responses.POST, writes["POST"], **answers[answer](wait))
        with pytest.raises(TransientError) as e:
            f._get(read_path.removeprefix("/api"))  # tried twice, waiting in between: no traceback
        assert e.value.retry_after is not None and 0 <= e.value.retry_after <= LONGEST_WAIT
        n = len(rs.calls)
        with pytest.raises(TransientError) as e:  # a write while the wait runs is not sent
            write(f)
        assert len(rs.calls) == n and f.requests_left() == 0
        assert 0 < e.value.retry_after <= LONGEST_WAIT
        clock.now += LONGEST_WAIT + 1  # an hour at the most: then writes go out again
        assert f.requests_left() != 0
        rs.replace(responses.POST, writes["POST"], json={"id": 1, "topic_id": 2, "post_number": 3,
                                                          "success": True, "post": {"post_id": 1}})
        write(f)
        assert len(rs.calls) == n + 1


def test_wait_seconds_believes_a_number_from_0_to_an_hour():
    assert wait_seconds(7) == 7 and wait_seconds("12.5") == 12.5 and wait_seconds(0) == 0
    assert wait_seconds(None, "30") == 30  # the next source, where the first says no number
    assert wait_seconds(86400) == LONGEST_WAIT
    for odd in ODD:
        got = wait_seconds(odd)
        assert math.isfinite(got) and 0 <= got <= LONGEST_WAIT, odd
    assert wait_seconds("soon", None, -1, float("nan")) == DEFAULT_WAIT


def test_a_discourse_post_time_that_is_no_time_is_now():
    from datetime import datetime, timezone

    from adapters.discourse_http import _utc

    assert _utc("2026-12-03T06:00:00.000Z") == datetime(2026, 12, 3, 6, tzinfo=timezone.utc)
    before = datetime.now(timezone.utc)
    for odd in (None, "", "yesterday", 12, "2026-13-45T99:00:00Z", ["x"]):
        assert _utc(odd) >= before, odd


def test_a_retry_after_date_is_the_seconds_until_it_from_the_answers_date_or_the_bots_clock():
    from adapters.retries import header_wait, http_date

    date = "Fri, 31 Dec 1999 23:58:59 GMT"
    for until in ("Fri, 31 Dec 1999 23:59:59 GMT", "Friday, 31-Dec-99 23:59:59 GMT", "Fri Dec 31 23:59:59 1999"):
        assert header_wait(until, date) == 60  # RFC 9110's three forms, from the answer's Date
        assert header_wait(until, None, now=http_date(date) - 30) == 90  # no Date: the bot's clock
        assert header_wait(until, "no date", now=http_date(date) + 30) == 30
        assert header_wait(until, "Fri, 01 Jan 2000 00:00:00 GMT") == 0  # already past: no wait
        assert header_wait(until, "Fri, 31 Dec 1999 20:00:00 GMT") == LONGEST_WAIT  # 4 hours: cut to one
    assert header_wait("120", date) == "120" and wait_seconds(header_wait("-1", date)) == DEFAULT_WAIT
    for odd in ("soon", "", None, 5, "Fri, 31 Dec 99999 23:59:59 GMT", "Sun, 00 Foo 2026 00:00:00 GMT"):
        assert header_wait(odd, date) is None, odd


@pytest.mark.parametrize("forum", ["discourse", "xenforo"])
def test_a_429_whose_retry_after_is_a_date_waits_until_then(forum):
    make, read_path, write, writes, answers = FORUMS[forum]
    clock = Clock()
    f = make(clock)
    headers = {"Retry-After": "Fri, 31 Dec 1999 23:59:59 GMT", "Date": "Fri, 31 Dec 1999 23:57:59 GMT"}
    with responses.RequestsMock() as rs:
        rs.add(responses.POST, writes["POST"], status=429, json={"errors": ["Slow down"]}, headers=headers)
        with pytest.raises(TransientError) as e:
            write(f)
    assert e.value.retry_after == 120
    clock.now += 119
    assert f.requests_left() == 0
    clock.now += 2
    assert f.requests_left() != 0


def test_a_reads_wait_is_the_forums_own_where_it_gives_a_number():
    from types import SimpleNamespace

    from adapters.retries import read_wait

    wait = read_wait(backoff=0, max_wait=30)
    after = lambda said: SimpleNamespace(attempt_number=1, outcome=SimpleNamespace(  # noqa: E731
        exception=lambda: TransientError("429", said)))
    assert wait(after(7)) == 7 and wait(after("12")) == 12 and wait(after("120")) == 30  # (prawcore's is a str)
    assert wait(after("soon")) == 0 and wait(after(None)) == 0  # no number: the backoff (0 here)
