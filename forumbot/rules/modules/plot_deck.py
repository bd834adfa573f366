"""The Plot Card deck of resistance-plot (avalon uses the same deck and rules): one row a
card. Adding a card means a row here and its effect in plot.py."""
from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class PlotCard:
    key: str
    name: str
    kind: str  # one-use (kept until played) | permanent | immediate (resolved when given)
    window: str | None  # round_start | approved | after_result: when a kept card is played
    small: int  # copies with 7 players or fewer
    large: int  # copies with 8 players or more


CARDS: tuple[PlotCard, ...] = (
    PlotCard("strong-leader", "Strong Leader", "one-use", "round_start", 2, 2),
    PlotCard("close-eye", "Keeping a Close Eye on You", "one-use", "after_result", 2, 2),
    PlotCard("no-confidence", "No Confidence", "one-use", "approved", 1, 3),
    PlotCard("opinion-maker", "Opinion Maker", "permanent", None, 1, 2),
    PlotCard("take-responsibility", "Take Responsibility", "immediate", None, 1, 1),
    PlotCard("overheard", "Overheard Conversation", "immediate", None, 0, 2),
    PlotCard("establish-confidence", "Establish Confidence", "immediate", None, 0, 1),
    PlotCard("open-up", "Open Up", "immediate", None, 0, 1),
    PlotCard("spotlight", "In the Spotlight", "one-use", "approved", 0, 1),
    PlotCard("chicago-proxy", "Chicago Proxy", "one-use", "vote", 0, 0),
)
BY_KEY = {c.key: c for c in CARDS}

# avalon-2020's fixed deck of 15 (8 players): Chicago Proxy in place of Opinion Maker.
AVALON_2020 = {"close-eye": 2, "establish-confidence": 1, "strong-leader": 2, "overheard": 2,
               "no-confidence": 3, "spotlight": 1, "open-up": 1, "take-responsibility": 1,
               "chicago-proxy": 2}

# Cards drawn at the start of each round (the seed's counts, not the official ones).
DRAW = {5: 1, 6: 1, 7: 2, 8: 2, 9: 3, 10: 3}


def deck_for(players: int, preset: str = "resistance-plot") -> list[str]:
    if preset == "avalon-2020":
        return [k for k, n in AVALON_2020.items() for _ in range(n)]
    return [c.key for c in CARDS for _ in range(c.large if players >= 8 else c.small)]


def _fold(text: str) -> str:
    return _NOT_A_LETTER.sub("", text.casefold().replace("'", ""))


_NOT_A_LETTER = re.compile(r"[^a-z]")
# Each card's folded forms, read once: a typed name that folds to one of the first two is
# the card; a unique card with a form that begins with it is too. (The first card wins a
# tie, as the scan over CARDS did.)
_FORMS = [(c, (n := _fold(c.name)), _fold(c.key), n.removeprefix("the"), n.removeprefix("inthe"),
           n.removeprefix("keepinga")) for c in CARDS]
_EXACT: dict[str, PlotCard] = {}
for _c, _name, _key, *_ in _FORMS:
    _EXACT.setdefault(_name, _c)
    _EXACT.setdefault(_key, _c)


def find_card(text: str) -> PlotCard | None:
    """A card from what a player typed: its name, case and punctuation aside; a unique
    beginning of 3 letters or more also works ("strong", "no conf", "spotlight")."""
    hit = _TYPED.get(text)  # (a card's own name or key, as the bot and the random player write it)
    if hit is not None:
        return hit
    want = _fold(text)
    if len(want) < 3:
        return None
    hit = _EXACT.get(want)
    if hit is not None:
        return hit
    hits = [f[0] for f in _FORMS if any(form.startswith(want) for form in f[1:])]
    return hits[0] if len(hits) == 1 else None


_TYPED: dict[str, PlotCard] = {}
_TYPED.update((t, hit) for c in CARDS for t in (c.name, c.key) if (hit := find_card(t)) is not None)
