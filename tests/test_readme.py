"""Every config in the README's "Hosting a game" section passes check-config."""
import pathlib
import re

import pytest

from forumbot.parsing import parse_config

README = (pathlib.Path(__file__).parent.parent / "README.md").read_text()
HOSTING = README[README.index("## Hosting a game"):README.index("## Playing")]
CONFIGS = re.findall(r"```yaml\n(.*?)```", HOSTING, re.S)


def test_there_is_a_config_for_every_preset():
    presets = {re.search(r"^preset: (\S+)", c, re.M).group(1) for c in CONFIGS}
    assert presets == {"resistance", "resistance-plot", "so-say-we-all", "avalon", "avalon-2020"}


@pytest.mark.parametrize("config", CONFIGS)
def test_readme_config_passes(config):
    cfg, problems = parse_config(config, "host")
    assert problems == []


def test_every_host_command_is_in_the_readme():
    from forumbot.moderator import HOST_COMMANDS

    for verb in HOST_COMMANDS:
        assert f"`{verb.upper()} G12" in HOSTING, verb


def test_every_player_command_is_in_the_readme():
    playing = README[README.index("## Playing"):README.index("## Running it")]
    for word in ("JOIN", "LEAVE", "PROPOSE", "APPROVE", "REJECT", "ABSTAIN", "CRITICAL", "SUPPORT",
                 "SABOTAGE", "GIVE", "PLAY", "PROXY", "TAKE", "CHOOSE", "PASS", "LADY", "ASSASSINATE",
                 "STATUS", "HELP"):
        assert word in playing, word
