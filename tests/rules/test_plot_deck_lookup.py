"""plot_deck.find_card reads each card's folded names once (not a regex over every card on
each card command) and answers exactly as the scan over the deck did."""
import random
import re

import pytest

from forumbot.rules.modules import plot_deck
from forumbot.rules.modules.plot_deck import CARDS, find_card


def scan(text):
    """The lookup as it was: every card's names folded again on each call."""
    def fold(t):
        return re.sub(r"[^a-z]", "", t.casefold().replace("'", ""))
    want = fold(text)
    if len(want) < 3:
        return None
    for c in CARDS:
        if want in (fold(c.name), fold(c.key)):
            return c
    hits = [c for c in CARDS if fold(c.name).startswith(want) or fold(c.key).startswith(want)
            or fold(c.name).removeprefix("the").startswith(want)
            or fold(c.name).removeprefix("inthe").startswith(want)
            or fold(c.name).removeprefix("keepinga").startswith(want)]
    return hits[0] if len(hits) == 1 else None


def typed_texts():
    """Names, keys and every beginning of them, as players might type them, and noise."""
    rng = random.Random(26)
    out = {"", "x", "no", "the", "in the", "open", "o'", "Keeping a", "STRONG!", "zzz", "  spot light ",
           "Chicago-Proxy", "close_eye", "opinionmaker", "take responsibility now"}
    for c in CARDS:
        for word in (c.name, c.key, c.name.upper(), c.name.replace(" ", "-"), "the " + c.name):
            out.update(word[:i] for i in range(len(word) + 1))
    letters = "abcdefghijklmnopqrstuvwxyz -'"
    out.update("".join(rng.choice(letters) for _ in range(rng.randint(1, 9))) for _ in range(2000))
    return sorted(out)


def test_find_card_answers_as_the_scan_did():
    texts = typed_texts()
    assert len(texts) > 2000
    wrong = [(t, find_card(t), scan(t)) for t in texts if find_card(t) is not scan(t)]
    assert not wrong, wrong[:5]
    # and the inputs reach every kind of answer: a card by its name, by a beginning, none
    answers = [find_card(t) for t in texts]
    assert {c for c in answers if c is not None} == set(CARDS) and None in answers


@pytest.mark.parametrize("card", CARDS, ids=lambda c: c.key)
def test_a_card_is_found_by_its_name_and_key_without_folding_every_card(card, monkeypatch):
    folded = []
    real = plot_deck._fold
    monkeypatch.setattr(plot_deck, "_fold", lambda t: folded.append(t) or real(t))
    assert find_card(card.name) is card and find_card(card.key) is card
    assert find_card(card.name.lower()) is card
    assert len(folded) <= 1  # the typed text alone, once (the names were folded at import)
