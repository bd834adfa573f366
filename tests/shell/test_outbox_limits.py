"""Every text the bot writes fits the forum's limit (issue 21, item 3): a body past it is cut
at a line boundary with a line that says so, the bot's marker included; a title or subject
is cut with its game tag kept. And a permanent refusal of an answer to someone in no game is
logged with what it was."""
from __future__ import annotations

import logging
import re
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from adapters.base import Outgoing, Traits
from forumbot import store
from forumbot.render.markup import markup_for
from forumbot.shell.outbox.fit import MARK_ROOM, fit, size
from tests.fakes.cli_table import make_cli_table
from tests.fakes.table import NAMES

CUT = re.compile(r"\(\u2026 cut: ([\d,]+) more characters")
MD = markup_for("markdown")


def _forwarded_pm_to_the_host(forum_kind, tmp_path, monkeypatch, limit: int | None = None):
    """A player's PM with no command, passed on to the host (`forward_pms: true`): 1,250 short
    lines that each become a quoted code span, about 2.5 times as long as the PM."""
    url = f"sqlite:///{tmp_path}/bot.db"
    t, fake = make_cli_table(forum_kind, url, tmp_path, monkeypatch)
    if limit:
        fake.site["max_post_length"] = limit
        with open(t.settings, "a") as f:
            f.write(f"max_post_length = {limit}\n")
    try:
        t.start(extra="forward_pms: true\n")
        text = "\n".join(f"a.{n % 10}" for n in range(1250))[:4999]
        t.pm(NAMES[1], text)
        t.settle()
        return [p for p in t.people.pms_to("host") if "wrote to the bot" in p], len(text)
    finally:
        fake.stop()
        store.close()


def test_a_forwarded_pm_longer_than_reddit_takes_reaches_the_host_cut(tmp_path, monkeypatch):
    got, _ = _forwarded_pm_to_the_host("reddit", tmp_path, monkeypatch)
    assert len(got) == 1, "the forwarded PM was lost"
    body = got[0]
    assert len(body) <= 10000 and "[](#fb-" in body  # the marker is in, within the limit
    m = CUT.search(body)
    assert m and int(m.group(1).replace(",", "")) > 0
    assert re.fullmatch(r"[^\n]*\)\*\n\n\[\]\(#fb-[0-9a-f]{16}\)", body[m.start():])  # its last line, then the marker
    kept = body[:m.start()]
    assert kept.count("`") % 2 == 0  # cut at a line's end: no code span left open


def test_a_text_longer_than_the_discourse_site_takes_is_cut_to_its_setting(tmp_path, monkeypatch):
    got, _ = _forwarded_pm_to_the_host("discourse", tmp_path, monkeypatch, limit=6000)
    assert len(got) == 1, "the forwarded PM was lost"
    assert len(got[0]) <= 6000 and CUT.search(got[0]) and "<!-- fb:" in got[0]


def test_a_refused_answer_to_a_stranger_is_logged_with_what_it_was(db, bot, fake_reddit, caplog):
    mod = bot("reddit", fake=fake_reddit).moderator()
    fake_reddit.refuse_pms["zed"] = "NOT_WHITELISTED_BY_USER_MESSAGE"
    fake_reddit.pm_bot("zed", "hello", "what is this bot?")
    with caplog.at_level(logging.WARNING, logger="forumbot"):
        mod.cycle()
    failed = store.Outbox.get(store.Outbox.to == "zed")
    assert failed.state == "failed" and failed.game is None
    lines = [r.getMessage() for r in caplog.records if failed.key in r.getMessage()]
    assert lines and "zed" in lines[0] and "not_whitelisted" in lines[0].lower()
    assert repr(failed.body[:40])[1:-1] in lines[0]  # the start of what it was


TRAITS = [Traits(max_body=10000, max_title=300, max_subject=100), Traits(max_body=1000, max_title=20, max_subject=15)]
texts = st.text(st.characters(blacklist_categories=("Cs",)), max_size=3000) | st.builds(
    lambda line, n: "\n".join([line] * n), st.text(max_size=40) | st.sampled_from(["```", "~~~ x", "`a.1`"]),
    st.integers(0, 400))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(body=texts, title=st.text(max_size=400), subject=st.text(max_size=200), tag=st.integers(1, 99999),
       which=st.integers(0, 1))
def test_every_fitted_text_is_within_the_limits_and_says_what_was_cut(body, title, subject, tag, which):
    traits = TRAITS[which]
    title = f"{title} (G{tag})"
    out = fit(Outgoing(key="k", kind="pm", body=body, title=title, subject=subject), traits, MD)
    assert size(out.body) <= traits.max_body - MARK_ROOM
    assert size(out.title) <= traits.max_title and size(out.subject) <= traits.max_subject
    if out.body == body:
        assert size(body) <= traits.max_body - MARK_ROOM
    else:
        kept, line = out.body.rsplit("\n\n", 1)
        m = CUT.search(line)
        kept = kept.removesuffix("\n```")
        assert body.startswith(kept) and int(m.group(1).replace(",", "")) == len(body) - len(kept)
    if out.title != title:
        assert out.title.endswith(f"(G{tag})") or len(f" (G{tag})") >= traits.max_title


@pytest.mark.parametrize("subject", [
    "x" * 30 + " " * 40 + "(G12)",  # the tag's spaces alone are longer than the limit
    "\U0001F600" * 30 + " (G99999)",  # wide characters
    " " * 50 + "[G7]",
])
def test_a_subject_whose_tag_leaves_no_room_is_cut_in_bounded_time(subject):
    traits = Traits(max_body=1000, max_title=20, max_subject=8)
    started = time.process_time()
    out = fit(Outgoing(key="k", kind="pm", body="b", title=subject, subject=subject), traits, MD)
    assert time.process_time() - started < 0.5
    assert 0 < size(out.subject) <= 8 and 0 < size(out.title) <= 20
    assert out.subject.endswith("\u2026") or out.subject.endswith(")") or out.subject.endswith("]")


@pytest.mark.parametrize("markup, opening, closing", [("markdown", "```", "\n```"), ("bbcode", "[code]", "[/code]")])
def test_a_body_cut_inside_a_code_block_closes_it_in_the_forums_markup(markup, opening, closing):
    """The cut line after a cut code block is not shown as code: the block is closed first,
    as the forum's markup closes one (a Markdown fence; BBCode's [/code])."""
    from forumbot.render.markup import markup_for

    m = markup_for(markup)
    body = "intro\n" + opening + "\n" + "x = 1\n" * 400
    out = fit(Outgoing(key="k", kind="pm", body=body), Traits(max_body=1000), m)
    kept, line = out.body.rsplit("\n\n", 1)
    assert CUT.search(line) and kept.endswith(closing), kept[-40:]
    assert size(out.body) <= 1000 - MARK_ROOM
    whole = "intro\n" + opening + "\nx = 1\n" + ("[/code]" if markup == "bbcode" else "```") + "\n" + "talk\n" * 400
    kept = fit(Outgoing(key="k", kind="pm", body=whole), Traits(max_body=1000), m).body.rsplit("\n\n", 1)[0]
    assert not kept.endswith(closing)  # a block closed before the cut is left as it is
