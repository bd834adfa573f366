"""The rule presets as tables. See ../shared/spec/variants.md, "Defaults per preset". With them
the config's `deadlines:` and `missed:` sections, whose defaults a preset sets: each key declared
once (config_sections reads a key by its kind)."""
from __future__ import annotations

from dataclasses import Field, dataclass, field, fields
from typing import Any

MIN_PLAYERS = 5
MAX_PLAYERS = 10

# Official spy counts per player count.
SPIES: dict[int, int] = {5: 2, 6: 2, 7: 3, 8: 3, 9: 3, 10: 4}

# Official team sizes per player count, missions 1..5.
TEAM_SIZES: dict[int, tuple[int, int, int, int, int]] = {
    5: (2, 3, 2, 3, 3),
    6: (2, 3, 4, 3, 4),
    7: (2, 3, 3, 4, 4),
    8: (3, 4, 4, 5, 5),
    9: (3, 4, 4, 5, 5),
    10: (3, 4, 4, 5, 5),
}

MISSIONS_TO_WIN = 3
REJECTIONS_TO_LOSE = 5

HOUR = 3600


# How the host writes a key of the `deadlines:` or `missed:` section (config_sections reads
# each kind, with its words for a problem).
DURATION = "duration"  # 90s, 30m, 12h, 2d or none: seconds, None = no deadline
FLAG = "flag"  # true or false
TIME_OF_DAY = "time of day"  # "21:00"
COUNT = "count"  # a whole number, 0 = never
CHOICE = "choice"  # one of the words it lists


def section_key(kind: str, default: Any, choices: tuple[str, ...] = ()) -> Any:
    """A section's key, declared once: how the host writes it and its default, which a preset
    may change (Preset.deadlines, Preset.missed: PRESETS below)."""
    return field(default=default, metadata={"kind": kind, "choices": choices})


@dataclass(frozen=True)
class Deadlines:
    """The config's `deadlines:` section, one key a field. Durations in seconds (None = no deadline)."""

    proposal: int | None = section_key(DURATION, 24 * HOUR)
    team_vote: int | None = section_key(DURATION, 24 * HOUR)
    mission: int | None = section_key(DURATION, 24 * HOUR)
    choice: int | None = section_key(DURATION, 24 * HOUR)
    card_window: int | None = section_key(DURATION, None)
    remind_before: int | None = section_key(DURATION, 2 * HOUR)
    signup: int | None = section_key(DURATION, 48 * HOUR)
    close_early: bool = section_key(FLAG, True)
    align_to: str | None = section_key(TIME_OF_DAY, None)  # "21:00": every deadline rounds up to this time of day
    close_grace: int | None = section_key(DURATION, None)  # with close_early: wait this long after the last vote


@dataclass(frozen=True)
class Missed:
    """The config's `missed:` section: what a missed vote or order does."""

    team_vote: str = section_key(CHOICE, "abstain", ("approve", "reject", "abstain"))
    mission: str = section_key(CHOICE, "by-side", ("support", "sabotage", "by-side"))
    disqualify_after: int = section_key(COUNT, 0)
    orders_count: bool = False  # (the preset's, not a key): missed mission orders count toward disqualification
    notify_host_after: int = section_key(COUNT, 0)  # PM the host after this many misses in a row
    allow_abstain: bool = section_key(FLAG, True)  # false: ABSTAIN is refused


def section_keys(section: type) -> dict[str, Field]:
    """A section's keys (Deadlines or Missed): the fields declared with `section_key`, by name."""
    return {f.name: f for f in fields(section) if "kind" in f.metadata}


@dataclass(frozen=True)
class Preset:
    name: str
    seed_file: str
    title: str
    available: bool  # whether the engine runs it yet
    spies_know_each_other: bool = True
    team_votes: str = "any"  # any | pm
    two_fail_from: int = 7  # the 4th mission needs two sabotages from this many players
    resistance_role: str = "resistance"
    spy_role: str = "spy"
    resistance_name: str = "the Resistance"
    spies_name: str = "the Spies"
    missed_proposal_counts_as_rejection: bool = False
    abstain_counts_as: str | None = None  # avalon-2020: an explicit ABSTAIN is an APPROVE
    has_plot_deck: bool = False
    spies_know_roles: bool = False  # avalon-2020: evil PMs name the others with their roles
    optional_roles: frozenset[str] = frozenset()
    spies_override: dict[int, int] = field(default_factory=dict)  # so-say-we-all: 9 -> 4
    # Per-mission modifiers (variants.md): mission numbers each rule applies to.
    pm_vote_missions: frozenset[int] = frozenset()  # team votes by PM only
    public_order_missions: frozenset[int] = frozenset()  # the leader designates a public order
    hidden_count_missions: frozenset[int] = frozenset()  # only success or failure is shown
    critical_votes: bool = False  # one CRITICAL vote a player a game, counted double
    commander: bool = False  # the Mission Commander; a mission's first leader follows him
    quest_cards_shown: bool = False  # avalon-2020: the result lists the cards, shuffled, no names
    fixed_roster: tuple[tuple[str, ...], tuple[str, ...]] | None = None  # (good, evil)
    deadlines: Deadlines = field(default_factory=Deadlines)  # the config's defaults
    missed: Missed = field(default_factory=Missed)
    # config keys that only some presets accept
    allowed_keys: frozenset[str] = frozenset()
    summary: str = ""


PRESETS: dict[str, Preset] = {
    "resistance": Preset(
        name="resistance",
        seed_file="003_7790778ac266b4b9.txt",
        title="The Resistance (official base game)",
        available=True,
        summary=(
            "Spies know each other; the Resistance does not. Each mission the leader proposes "
            "a team and everyone votes; a tie rejects. The team then PMs SUPPORT or SABOTAGE. "
            "One SABOTAGE fails a mission (two on mission 4 with 7 or more players). Three "
            "successes win for the Resistance; three failures, or five rejected teams in one "
            "mission, win for the Spies."
        ),
    ),
    "resistance-plot": Preset(
        name="resistance-plot",
        seed_file="000_644f4f6570a8fb9e.txt",
        title="The Resistance with Plot Cards",
        available=True,
        spies_know_each_other=False,
        team_votes="pm",
        two_fail_from=8,
        has_plot_deck=True,
        deadlines=Deadlines(card_window=4 * HOUR),
        allowed_keys=frozenset({"plot_cards"}),
        summary=(
            "The spies do NOT know each other. Team votes go by PM only and are revealed when "
            "the vote closes. One SABOTAGE fails a mission (two on mission 4 with 8 or more "
            "players). Three successes win for the Resistance; three failures, or five "
            "rejected teams in one mission, win for the Spies."
        ),
    ),
    "so-say-we-all": Preset(
        name="so-say-we-all",
        seed_file="001_c8f69908307e9ffd.txt",
        title="So Say We All (Battlestar variant)",
        available=True,
        two_fail_from=5,
        spies_override={9: 4},
        pm_vote_missions=frozenset({1}),
        public_order_missions=frozenset({2}),
        hidden_count_missions=frozenset({3}),
        critical_votes=True,
        commander=True,
        summary=(
            "Humans against Cylons, who know each other. Mission 1: team votes by PM only. "
            "Mission 2: the leader names one team member (PROPOSE: a, b; PUBLIC: b), who plays "
            "their order in the thread. Mission 3: only success or failure is shown. Mission 4: "
            "two SABOTAGEs fail it. Each player has one CRITICAL APPROVE or CRITICAL REJECT a "
            "game, counted double. A team member may send an order before the vote closes (no "
            "conditions: the bot takes unconditional orders only). The Mission Commander's "
            "successor: the leader of a successful mission, else the player after that leader; "
            "each mission's first leader is the player after the Commander."
        ),
        resistance_role="human",
        spy_role="cylon",
        resistance_name="the Humans",
        spies_name="the Cylons",
        deadlines=Deadlines(card_window=4 * HOUR),
        allowed_keys=frozenset({"mission_cards"}),
    ),
    "avalon": Preset(
        name="avalon",
        seed_file="002_7c14971a80fbaf55.txt",
        title="The Resistance: Avalon",
        available=True,
        resistance_role="servant",
        spy_role="minion",
        resistance_name="the Loyal Servants of Arthur",
        spies_name="the Minions of Mordred",
        has_plot_deck=True,
        optional_roles=frozenset({"percival", "morgana", "mordred", "oberon"}),
        deadlines=Deadlines(card_window=4 * HOUR),
        allowed_keys=frozenset({"roles", "lady_of_the_lake", "plot_cards"}),
        summary=(
            "Merlin knows the Minions of Mordred (not Mordred); the Minions know each other "
            "(not Oberon). After the third successful mission the Assassin names one player: "
            "if it is Merlin, the Minions win. One SABOTAGE fails a mission (two on mission 4 "
            "with 7 or more players). Three failures, or five rejected teams in one mission, "
            "win for the Minions."
        ),
    ),
    "avalon-2020": Preset(
        name="avalon-2020",
        seed_file="004_900a156b6c235967.txt",
        title="Avalon 2020 (8 players, Plot Cards)",
        available=True,
        resistance_role="servant",
        spy_role="minion",
        resistance_name="Good",
        spies_name="Evil",
        missed_proposal_counts_as_rejection=True,
        abstain_counts_as="approve",
        quest_cards_shown=True,
        has_plot_deck=True,
        spies_know_roles=True,
        fixed_roster=(("merlin", "percival", "servant", "servant", "servant"),
                      ("morgana", "assassin", "mordred")),
        summary=(
            "8 players: Merlin, Percival and 3 Loyal Servants against Morgana, the Assassin and "
            "Mordred. Team votes close exactly 12 hours after the proposal; absent votes and "
            "abstentions count as APPROVE. Missing quest votes count as SUCCESS. Missing two "
            "votes in a row disqualifies. Five leadership changes in one quest win for Evil; "
            "after three successes the Assassin may still win by naming Merlin."
        ),
        deadlines=Deadlines(team_vote=12 * HOUR, card_window=4 * HOUR, close_early=False),
        missed=Missed(team_vote="approve", mission="support", disqualify_after=2, orders_count=True),
        allowed_keys=frozenset({"plot_cards"}),
    ),
}


def spy_count(players: int, preset: "Preset | None" = None) -> int:
    if preset is not None and players in preset.spies_override:
        return preset.spies_override[players]
    return SPIES[players]


def team_size(players: int, mission: int) -> int:
    return TEAM_SIZES[players][mission - 1]


def fails_needed(preset: Preset, players: int, mission: int) -> int:
    """How many SABOTAGEs fail this mission."""
    return 2 if mission == 4 and players >= preset.two_fail_from else 1
