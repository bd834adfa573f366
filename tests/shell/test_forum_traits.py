"""What a forum's own ways change in the cycle: every word the shell writes in the forum's
markup (BBCode: a host's reply, HELP, refusals, the pointer to HELP), no status edits where
the bot may not edit, and the config's own thread where the bot may not open one."""
from __future__ import annotations

from forumbot import store
from forumbot.render import render_refusal
from forumbot.render import replies as words
from forumbot.render import signups as signup_words
from forumbot.render.markup import BBCode
from forumbot.rules.commands import Refusal


def test_the_shells_words_are_in_the_forums_markup():
    m = BBCode()
    for text in (words.no_command(m), render_refusal(Refusal(words.several_games(["G1", "G2"])), None, m),
                 words.pause_form("G1", "UTC", m),
                 words.extend_form("G1", "6h", m), words.record_needs("G1", m), words.replace_needs("G1", m),
                 words.config_problems([("preset", "unknown")], 20, m), words.signups_open_note("G1", "x", m),
                 signup_words.not_started("G1", m), signup_words.welcome("G1", 1, 5, m),
                 signup_words.too_few("G1", 1, 5, m), signup_words.close_form("G1", m)):
        assert "**" not in text and "`" not in text, text
    assert "[b]JOIN[/b]" in signup_words.not_started("G1", m)
    assert words.no_command() == ("I found no command in your message. PM me HELP for the commands, "
                                  "or `new game` as the subject to start a game.")


def test_a_bbcode_forum_gets_its_markup_in_a_hosts_reply(db, bot, clock):
    from adapters.base import Markup

    b = bot("local")
    b.forum.markup = Markup.BBCODE
    t = b.table(5)
    t.pm("host", f"EXTEND {t.game.tag} soon")
    t.cycle()
    reply = [b for b in t.people.pms_to("host") if "EXTEND needs a duration" in b][-1]
    assert "[font=monospace]EXTEND G1 6h[/font]" in reply and "`" not in reply


def test_a_bbcode_forum_gets_its_markup_in_help_refusals_and_the_pointer(db, bot, clock):
    """Every answer the shell writes takes the forum's markup: HELP (to a player and to a
    stranger), a player's refusal, the pointer to HELP. None shows Markdown's asterisks."""
    from adapters.base import Markup

    b = bot("local")
    b.forum.markup = Markup.BBCODE
    t = b.table(5)
    player = next(p for p in t.players if p != t.state.leader)
    t.pm(player, f"HELP {t.game.tag}")
    t.pm("stranger", "HELP")
    t.say(player, f"**PROPOSE: {player}, {t.players[0]}**")  # not the leader: refused
    t.cycle()
    clock.advance(days=2)
    t.pm("someone", "hello there, what is this?")
    t.cycle()
    texts = t.people.pms_to(player) + t.people.pms_to("stranger") + t.people.pms_to("someone")
    texts += [b for b in t.people.thread(t.game.thread) if b.startswith(f"@{player}:")]
    assert len(texts) >= 4 and any(x.startswith(f"@{player}: ") for x in texts), texts
    assert not [x for x in texts if "**" in x], [x for x in texts if "**" in x]
    assert any("[b]" in x for x in t.people.pms_to("stranger")), t.people.pms_to("stranger")


def test_a_forum_that_takes_no_edits_gets_no_status_edits(db, bot, clock):
    """Traits.edits: where the bot may not edit its posts, it never tries; the game goes on."""
    from dataclasses import replace


    b = bot("local")
    b.forum.traits = replace(b.forum.traits, edits=False)
    t = b.table(5)
    t.propose()
    t.vote_all(True)
    t.cycle()
    assert t.state.phase == "mission"
    assert not store.Outbox.select().where(store.Outbox.kind == "edit").exists()


def test_a_forum_where_the_bot_opens_no_threads_needs_the_configs_thread(db, bot, clock):
    """Traits.new_threads: a config without `thread:` is refused with the reason, and changes
    nothing; with an existing thread named, the game starts there."""
    from dataclasses import replace

    from tests.fakes.table import NAMES

    b = bot("local")
    forum, people = b.forum, b.people
    forum.traits = replace(forum.traits, new_threads=False)
    players = "players: [" + ", ".join(NAMES[:5]) + "]\n"
    people.pm("host", "new game", "preset: resistance\n" + players)
    mod = b.moderator()
    mod.cycle()
    assert store.Game.select().count() == 0
    assert "does not let the bot open a thread" in people.pms_to("host")[-1]
    tid = forum.create_thread("host", "Our game", "The host's own thread for the game.")
    people.pm("host", "new game", f"preset: resistance\nthread: {tid}\n" + players)
    mod.cycle()
    game = store.Game.get()
    assert game.thread == tid and not forum.threads()[1:]  # no thread of the bot's own
