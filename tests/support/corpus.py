"""The bad-input corpus (tests/corpus/*.yaml): hostile and malformed inputs as data files,
each with the phase it is sent in and what the bot must do with it; and a table brought to
that phase."""
import pathlib

CORPUS = sorted((pathlib.Path(__file__).parents[1] / "corpus").glob("*.yaml"))


def at_phase(t, phase):
    """The table `t` brought to `phase` ("proposal", "team_vote" or "mission") by alice and bob."""
    if phase in ("team_vote", "mission"):
        t.propose(["alice", "bob"])
    if phase == "mission":
        t.vote_all(True)
    assert t.state.phase == phase
