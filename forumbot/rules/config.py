"""A validated game configuration: what the host's `new game` message settles."""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from functools import cached_property
from typing import Any

from .presets import PRESETS, Deadlines, Missed, Preset


@dataclass(frozen=True)
class GameConfig:
    preset: str
    players: tuple[str, ...]  # the usernames dealt in: the seats' ids (state.Seat.id)
    host: str
    title: str = "The Resistance"
    leader_order: str = "random"  # random | listed
    seed: int | None = None
    team_votes: str = "any"
    thread: str = "new"
    subreddit: str | None = None
    category: str | None = None  # Discourse: where a new game topic goes
    aliases: dict[str, str] = field(default_factory=dict)
    # (always given, by make_config, parse_config and from_json: never None in a game)
    deadlines: Deadlines = None  # type: ignore[assignment]
    missed: Missed = None  # type: ignore[assignment]
    roles: tuple[str, ...] = ()  # optional special roles (avalon)
    lady_of_the_lake: bool = False
    plot_cards: bool = False
    mission_cards: bool = False
    min_players: int | None = None  # sign-ups (`players: signup`): the table's limits
    max_players: int | None = None
    intro: str = ""  # the host's words at the top of the opening post (Markdown)
    timezone: str | None = None  # IANA name: deadlines are shown (and aligned) in it too
    cohosts: tuple[str, ...] = ()  # may use every host command
    spectators: tuple[str, ...] = ()  # told every role at the start; cannot act
    forward_pms: bool = False  # a PM with no command goes on to the host
    reserves: tuple[str, ...] = ()  # offered to the host when a seat needs a replacement
    signup_thread: str | None = None  # sign-ups in this existing thread; the game gets its own
    options: dict[str, Any] = field(default_factory=dict)  # the rule modules' keys (plugin.ConfigKey)
    # the host's own words for commands ({"approve": ("yay", "aye")}): read as the command
    words: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def place(self, key: str) -> str | None:
        """Where a new game thread goes, by the forum's place key: `subreddit` on Reddit,
        `category` on Discourse (Traits.place_key)."""
        return {"subreddit": self.subreddit, "category": self.category}.get(key)

    def is_host(self, user: str) -> bool:
        folded = user.casefold()
        return folded == self.host.casefold() or folded in {c.casefold() for c in self.cohosts}

    @property
    def signup(self) -> bool:
        """Players sign up in the thread; `players` is empty until the game starts."""
        return not self.players

    @cached_property
    def rules(self) -> Preset:
        """The preset's rules (looked up once per config: the engine asks on most commands;
        cached_property writes the instance's dict, which a frozen dataclass allows)."""
        return PRESETS[self.preset]

    def to_json(self) -> dict:
        data = asdict(self)
        if not data["options"]:
            del data["options"]  # (the form stored before the rule modules had keys)
        if not data["words"]:
            del data["words"]  # (the form stored before the host could name words)
        else:
            data["words"] = {k: list(v) for k, v in data["words"].items()}
        return data

    @classmethod
    def from_json(cls, data: dict) -> "GameConfig":
        data = dict(data)
        data["players"] = tuple(data["players"])
        data["roles"] = tuple(data.get("roles", ()))
        for key in ("cohosts", "spectators", "reserves"):
            data[key] = tuple(data.get(key, ()))
        data["deadlines"] = Deadlines(**data["deadlines"])
        data["missed"] = Missed(**data["missed"])
        data["words"] = {str(k): tuple(v) for k, v in data.get("words", {}).items()}
        return cls(**data)


def default_deadlines(preset: Preset) -> Deadlines:
    return preset.deadlines


def default_missed(preset: Preset) -> Missed:
    return preset.missed
