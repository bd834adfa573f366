"""The secrecy oracle (tests/sweeps/test_secrecy.py and the sweeps built on it): the words
that name a side or a role, the public lines that put a player's name beside one before
the end post, the PMs that tell a player more than the rules allow, and the tables the
sweeps play."""
import re

from forumbot.rules.presets import MAX_PLAYERS, MIN_PLAYERS

ROLE_WORDS = (r"(spy|spies|resistance|role|sabotag\w*|traitor|loyal|evil|good|minions?|servants?|"
              r"cylons?|humans?|merlin|percival|morgana|mordred|oberon|assassin)")


def public_leaks(forum, names) -> list[str]:
    """Lines of public bot posts, before the end post, that put a name beside a side word."""
    thread = f"t{forum.threads()[0]['id']}"
    posts = [forum.threads()[0]["body"]] + [r["body"] for r in forum.thread_comments(thread)
                                           if r["author"] == forum.bot_name]
    end = next(i for i, p in enumerate(posts) if re.search(r"\bwins?, by", p))  # ("Good wins, by")
    leaks = []
    for post in posts[:end]:  # the end post reveals everything, as it should
        for line in post.split("\n"):
            if line.startswith("**Leader order**") or line.startswith("**Roles in play**"):
                continue  # the roster: names only; the roles in play: no names
            if "public order" in line or "your order is public" in line or line.startswith("In the Spotlight:"):
                continue  # a designated public order, In the Spotlight: reveals the rules make
            for n in names:
                near = rf"\b{n}\b[^.\n]{{0,30}}\b{ROLE_WORDS}\b|\b{ROLE_WORDS}\b[^.\n]{{0,30}}\b{n}\b"
                if re.search(near, line, re.I):
                    leaks.append(line)
    return leaks


def pm_leaks(forum, result) -> list[str]:
    """PMs that tell a player another player's side when the rules do not allow it."""
    sides = {p["name"]: p["side"] for p in result["players"]}
    leaks = []
    for me in sides:
        for r in forum.messages_to(me):
            if r["sender"] != forum.bot_name:
                continue
            for other in sides:
                if other == me:
                    continue
                if re.search(rf"\b{other}\b \(", r["body"]) and "Your role" in r["body"]:
                    allowed = expected_names(result, me)
                    if other not in allowed:
                        leaks.append(f"{me} learned about {other}: {r['body'][:80]}")
                if "Lady of the Lake shows you" in r["body"] and other in r["body"]:
                    if not lady_used(result, me, other):
                        leaks.append(f"{me} learned {other}'s side without the Lady")
    return leaks


EVIL = {"spy", "cylon", "minion", "assassin", "morgana", "mordred", "oberon"}


def expected_names(result, me) -> set[str]:
    """Whom a player's role PM may name (variants.md, knowledge)."""
    roles = {p["name"]: p["role"] for p in result["players"]}
    mine = roles[me]
    others = {n: r for n, r in roles.items() if n != me}
    if result["preset"] == "resistance-plot":
        return set()
    if mine in EVIL and mine != "oberon":
        return {n for n, r in others.items() if r in EVIL and r != "oberon"}
    if mine == "merlin":
        return {n for n, r in others.items() if r in EVIL and r != "mordred"}
    if mine == "percival":
        return {n for n, r in others.items() if r in ("merlin", "morgana")}
    return set()


def lady_used(result, holder, target) -> bool:
    name = {p["seat"]: p["name"] for p in result["players"]}  # (the log names seats by id)
    return any(e["type"] == "lady_used" and name[e["data"]["holder"]] == holder
               and name[e["data"]["target"]] == target for e in result["events"])


TABLES = [("resistance", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
TABLES += [("resistance-plot", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
TABLES += [("avalon", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]
TABLES += [("avalon-2020", 8)]
TABLES += [("so-say-we-all", n) for n in range(MIN_PLAYERS, MAX_PLAYERS + 1)]

