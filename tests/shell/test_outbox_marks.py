"""The bot knows its own markers (issue 21, item 5): every marker token carries a check only
its database can make, so a restored database can tell that the forum holds posts of its
own that it does not know; another database's markers (a fresh start on the same account)
and a player's do not pass; items made before the check keep the token they went out with.
The check of the forum costs its requests once per process, and only when something is to
be posted."""
from __future__ import annotations

import re
from datetime import datetime, timezone

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.base import Outgoing
from forumbot import markers, store
from forumbot.markers import our_token
from forumbot.shell.moderator import Moderator
from tests.fakes.bots import make_bot

NOW = datetime(2026, 11, 29, 20, 0, tzinfo=timezone.utc)


def test_this_databases_tokens_pass_the_check_and_another_databases_do_not(tmp_path):
    store.connect(f"sqlite:///{tmp_path}/a.db")
    keys = [f"G{g}:{n}:post" for g in range(1, 5) for n in range(100)]
    mine = [markers.marker_token(k) for k in keys]
    assert all(our_token(t) for t in mine)
    store.close()
    store.connect(f"sqlite:///{tmp_path}/b.db")
    try:
        assert sum(our_token(t) for t in mine) <= 2  # once in 65,536 each, by chance
        assert not any(our_token(t) for t in ("", "xyz", "0" * 16, mine[0][:15], mine[0].upper(), mine[0] + "0"))
    finally:
        store.close()


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=70))
def test_no_text_passes_for_a_token_unless_it_was_made_here(text):
    store.connect("sqlite:///:memory:")
    try:
        assert not our_token(text) or text == markers.marker_token(text)  # (a forgery: 1 in 65,536)
    finally:
        store.close()


def test_items_made_before_the_check_keep_the_token_they_went_out_with(tmp_path):
    import hashlib
    import hmac

    url = f"sqlite:///{tmp_path}/old.db"
    store.connect(url)
    store.enqueue(Outgoing(key="G1:1:opening", kind="comment", body="x", thread="t"), None, NOW, 1)
    store.Info.delete().where(store.Info.name == "checked_from").execute()  # a database of the version before
    store.close()
    store.connect(url)  # the upgrade
    store.enqueue(Outgoing(key="G1:2:post", kind="comment", body="x", thread="t"), None, NOW, 1)
    try:
        old, new = (store.Outbox.get(store.Outbox.key == k) for k in ("G1:1:opening", "G1:2:post"))
        plain = hmac.new(markers.secret().encode(), old.key.encode(), hashlib.sha256).hexdigest()[:16]
        assert markers.item_token(old) == plain  # as it went out before the upgrade
        assert markers.item_token(new) == markers.marker_token(new.key) and our_token(markers.item_token(new))
        store.close()
        store.connect(url)
        assert markers.item_token(old) == plain
    finally:
        store.close()


def _reddit_game(fake, clock):
    return make_bot("reddit", clock, fake=fake).table(5)


def test_a_fresh_database_on_the_same_account_is_not_taken_for_behind(tmp_path, clock, fake_reddit):
    store.connect(f"sqlite:///{tmp_path}/first.db")
    _reddit_game(fake_reddit, clock)
    store.close()
    store.connect(f"sqlite:///{tmp_path}/second.db")  # the operator starts over, same account
    try:
        t = _reddit_game(fake_reddit, clock)
        assert t.mod.delivery.reconcile.checked and not t.mod.delivery.reconcile.behind
        assert t.game.thread  # its own game went out, nothing of the first adopted
    finally:
        store.close()


def test_the_forum_is_read_for_markers_once_per_process_and_only_to_post(db, bot, fake_reddit):
    b = bot("reddit", fake=fake_reddit)
    mod = b.moderator()

    def reads() -> int:
        return sum(1 for r in fake_reddit.requests if r[1].endswith(("/comments", "/submitted", "/message/sent"))
                   and r[1].startswith(("/user/", "/message/")))

    mod.cycle()  # nothing to post: no look at the bot's own posts
    assert reads() == 0 and not mod.delivery.reconcile.checked
    t = b.table(start=False)
    t.mod = mod
    t.start()
    assert reads() == 3  # the bot's comments, threads and sent PMs, once
    t.propose()
    t.vote_all(True)
    for _ in range(3):
        mod.cycle()
    assert reads() == 3
    b.moderator().cycle()  # a new process with nothing to post: nothing read
    assert reads() == 3
    # a new process with only a status edit to send: an edit adds no post, nothing read
    edits = store.Outbox.update(state="pending").where(store.Outbox.kind == "edit").execute()
    assert edits == 1
    later = b.moderator()
    later.cycle()
    assert store.Outbox.get(store.Outbox.kind == "edit").state == "posted"
    assert reads() == 3 and not later.delivery.reconcile.checked


def test_being_behind_ends_once_every_marker_is_accounted_for(tmp_path, clock, fake_reddit):
    """After a restore the first flush finds the database behind; the items made again are
    found, and once the last unaccounted marker is, posts go out without look-ups again."""
    import gc
    import shutil

    url, path = f"sqlite:///{tmp_path}/bot.db", tmp_path / "bot.db"
    store.connect(url)
    try:
        t = _reddit_game(fake_reddit, clock)
        t.propose()
        store.close()
        gc.collect()
        shutil.copyfile(path, tmp_path / "backup.db")
        store.connect(url)
        t.vote_all(True)
        t.cycle()
        store.close()
        gc.collect()
        shutil.copyfile(tmp_path / "backup.db", path)
        store.connect(url)
        t.mod = Moderator(t.forum, clock=clock)  # the bot started again on the restored database
        reconcile = t.mod.delivery.reconcile
        def lookups() -> int:
            return sum(1 for r in fake_reddit.requests if r[1].startswith("/user/") or r[1] == "/message/sent")

        before = lookups()
        t.cycle()  # (the votes read again; the same result and prompts made again)
        assert lookups() - before > 3  # its own posts read once (3), then each item looked for
        assert reconcile.checked and not reconcile.behind and reconcile.misses == 0
        marks = [m for text in fake_reddit.bot_posts() for m in re.findall(r"#fb-([0-9a-f]{16})", text)]
        assert len(marks) == len(set(marks))  # nothing twice
        assert store.Outbox.select().where(store.Outbox.state == "pending").count() == 0
        looked = lookups()
        t.orders()  # what follows goes out with no look-up
        assert lookups() == looked and t.state.missions
    finally:
        store.close()


def test_a_failed_read_of_the_bots_own_posts_is_tried_again_at_the_next_flushes(db):
    """The forum errs at the first flush of a restored database's process: the check is not
    given up at once (the next flushes read again, CHECK_TRIES in all), so one error cannot
    let the restored database post again what the forum holds."""
    from adapters.base import TransientError
    from forumbot.shell.outbox.reconcile import CHECK_TRIES, Reconcile

    lost = markers.marker_token("G1:result:1")  # a post of this database the outbox does not hold

    class Flaky:
        calls = 0

        def own_marks(self):
            self.calls += 1
            if self.calls < CHECK_TRIES:
                raise TransientError("503")
            return [lost]

    forum = Flaky()
    check = Reconcile(forum)  # type: ignore[arg-type]
    for _ in range(CHECK_TRIES - 1):
        check.check()
        assert not check.checked and not check.behind
    check.check()
    assert check.checked and check.behind and forum.calls == CHECK_TRIES
    check.check()
    assert forum.calls == CHECK_TRIES  # once read, never again in this process


def test_a_forum_that_never_shows_the_bots_posts_costs_at_most_check_tries_reads(db):
    from adapters.base import TransientError
    from forumbot.shell.outbox.reconcile import CHECK_TRIES, Reconcile

    class Down:
        calls = 0

        def own_marks(self):
            self.calls += 1
            raise TransientError("503")

    forum = Down()
    check = Reconcile(forum)  # type: ignore[arg-type]
    for _ in range(CHECK_TRIES + 5):
        check.check()
    assert forum.calls == CHECK_TRIES and check.checked and not check.behind
