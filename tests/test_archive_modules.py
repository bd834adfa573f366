"""The archive page with the modules beyond the seeds (issue 24, item 9), and `forumbot demo
... --html FILE`, which writes the finished demo game's page: who held Excalibur on each
mission and whom it was used on (never the order), the lovers' double shot at the reveal,
and the winner's headline in English for every preset's side names."""
from __future__ import annotations

import re

from forumbot.cli.main import main
from tests.test_archive import mission_block, page_leaks, page_lines


def demo_page(tmp_path, capsys, *args: str) -> tuple[str, str]:
    path = tmp_path / "demo.html"
    assert main(["demo", *args, "--html", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.rstrip().endswith(f"The game's archive page: {path}")
    return path.read_text(), out


def test_the_demo_writes_its_archive_page_with_excalibur_and_the_double_shot(tmp_path, capsys):
    html, out = demo_page(tmp_path, capsys, "--preset", "avalon", "--players", "8", "--seed", "10",
                          "--with", "excalibur", "--with", "lovers")
    text = "\n".join(page_lines(html))
    used = re.findall(r"(\w+) uses Excalibur on \*\*(\w+)\*\*\.", out)  # what the thread said
    assert used
    for holder, target in used:
        assert f"{holder} held Excalibur and used it on {target}." in text
    assert text.count("held Excalibur and") == out.count("uses Excalibur on") + out.count("Excalibur is not used on")
    first = mission_block(html, 1)
    assert "held Excalibur and" in first
    assert not re.search(r"Excalibur[^\n.]*(SUPPORT|SABOTAGE)", text)  # the order stays secret
    shot = re.search(r"The Assassin, (\w+), names \*\*(\w+)\*\* and \*\*(\w+)\*\* as Tristan and Isolde", out)
    assert shot, "seed 10: the Assassin takes the double shot"
    a, x, y = shot.groups()
    assert f"{a}, the Assassin, named {x} and {y} as Tristan and Isolde:" in text


def test_the_excalibur_moments_link_no_name_to_a_side(tmp_path, capsys):
    """The moments are public: nothing in them links a name to a side (the page's oracle)."""
    html, out = demo_page(tmp_path, capsys, "--preset", "avalon", "--players", "6", "--seed", "5",
                          "--with", "excalibur")
    names = ["alice", "bob", "carol", "dave", "erin", "frank"]
    excalibur = [line for line in page_lines(html) if "Excalibur" in line]
    assert excalibur and page_leaks("\n".join(excalibur), names) == []


def test_the_demo_page_headline_reads_as_english(tmp_path, capsys):
    html, out = demo_page(tmp_path, capsys, "--preset", "avalon-2020", "--players", "8", "--seed", "2")
    winner = "Good" if "winner: resistance" in out else "Evil"
    assert f"{winner} wins" in html and f"{winner} win<" not in html and f"{winner} win," not in html


def test_demo_html_to_stdout_and_a_path_it_cannot_write(tmp_path, capsys):
    assert main(["demo", "--players", "5", "--seed", "3", "--html", "-"]) == 0
    out = capsys.readouterr().out
    assert "<html" in out and "The game's archive page" not in out
    bad = tmp_path / "no" / "such" / "dir" / "page.html"
    assert main(["demo", "--players", "5", "--seed", "3", "--html", str(bad)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"export: cannot write {bad}") and "Traceback" not in err
    assert main(["demo", "--players", "11", "--html", str(tmp_path / "x.html")]) == 2  # refused: nothing written
    assert not (tmp_path / "x.html").exists()
