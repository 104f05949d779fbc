"""`git aide diff --format markdown`: memory text is shown as written, never as markup."""

from __future__ import annotations

from pathlib import Path

from helpers import aide_ok, git, make_repo


def test_markdown_review_escapes_text_and_fences_code(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    git(repo, "commit", "-q", "--allow-empty", "-m", "start")
    aide_ok(repo, "remember", "use ~~strike~~ and a `tick` & <b>x</b>!", "--tag", "a`b")
    md = aide_ok(repo, "diff", "--format", "markdown").stdout
    assert "``a`b``" in md
    assert r"\~\~strike\~\~" in md and r"\`tick\`" in md and r"\&" in md and r"\<b\>" in md
    assert "a'b" not in md
