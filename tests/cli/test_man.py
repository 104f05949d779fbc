"""The man page: every command of the synopsis has its own tagged entry, and no
markdown leaks into the roff."""

from __future__ import annotations

import re

from helpers import ROOT

PAGE = ROOT / "man" / "git-aide.1"


def test_every_synopsis_command_has_a_tagged_entry() -> None:
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    synopsis = {m.group(1) for line in lines
                if (m := re.match(r"\\fBgit aide ([a-z][a-z\\-]*)\\fR", line))}
    assert len(synopsis) > 20
    tagged = {m.group(1) for before, line in zip(lines, lines[1:], strict=False)
              if before == ".TP"
              and (m := re.match(r"(?:\.B |\\fB)([a-z\\-]+)(?:\\fR|$)", line))}
    assert synopsis <= tagged, synopsis - tagged


def test_no_markdown_in_the_roff() -> None:
    text = PAGE.read_text(encoding="utf-8")
    assert "`" not in text
    assert not re.search(r"\*\*[A-Za-z]", text.replace("/**", ""))
