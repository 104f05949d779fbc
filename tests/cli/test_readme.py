"""README.md as a newcomer reads it: short, its shell blocks running as written, in
order, in an empty folder with a home of its own, and its links (and the man page's)
leading to pages that exist. The long story lives in docs/: the checks of what moved
there (the settings table) are here too."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest
from helpers import BASE_ENV, ROOT, git

from git_aide.core.settings import KEYS

README = ROOT / "README.md"
DOCS = ROOT / "docs"
#: The line before a block that the tour test does not run, with the reason in brackets.
SKIP = re.compile(r"<!-- tour: skip \([^)]+\) -->")
FENCE = re.compile(r"^```([a-z]*)\n(.*?)^```$", re.M | re.S)
#: What on stderr means a block did not run clean.
NOISE = re.compile(r"warning|error|fatal|notice|traceback|git-aide:", re.I)


def shell_blocks() -> list[tuple[str, bool]]:
    """README's shell blocks in order, each with whether the tour test runs it."""
    text = README.read_text(encoding="utf-8")
    found = []
    for m in FENCE.finditer(text):
        if m.group(1) not in ("sh", "bash", "console", "shell"):
            continue
        assert m.group(1) == "sh", "README's shell blocks are ```sh (the tour test runs them)"
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        found.append((m.group(2), not SKIP.fullmatch(before)))
    return found


def test_readme_is_short() -> None:
    assert len(README.read_bytes()) < 25_000


@pytest.mark.quick
def test_readme_blocks_run_clean_in_order(tmp_path: Path) -> None:
    """Every block not marked to skip runs in one shell, in order, from an empty folder,
    with a new home: each exits 0 and says nothing on stderr, and what `init` wrote is
    committed by the end (the working tree is clean)."""
    blocks = [code for code, runs in shell_blocks() if runs]
    assert len(blocks) >= 5
    home, work, logs = tmp_path / "home", tmp_path / "work", tmp_path / "logs"
    for folder in (home, work, logs):
        folder.mkdir()
    script = ["set -euo pipefail"]
    for i, code in enumerate(blocks):
        script += [f'exec >"{logs}/{i}.out" 2>"{logs}/{i}.err"', code, f': > "{logs}/{i}.done"']
    env = {**BASE_ENV, "HOME": str(home), "XDG_CONFIG_HOME": str(home / ".config"),
           "XDG_CACHE_HOME": str(home / ".cache")}
    env.pop("GIT_CONFIG_GLOBAL")  # the new home's (there is none), as a newcomer's
    proc = subprocess.run(["bash", "-c", "\n".join(script)], cwd=work, env=env,
                          capture_output=True, text=True, timeout=300)
    for i, code in enumerate(blocks):
        out, err = ((logs / f"{i}.{kind}").read_text() if (logs / f"{i}.{kind}").exists()
                    else "" for kind in ("out", "err"))
        assert (logs / f"{i}.done").exists(), \
            f"README block {i + 1} failed (exit {proc.returncode}):\n{code}\n{out}\n{err}"
        assert not NOISE.search(err), f"README block {i + 1} said on stderr:\n{code}\n{err}"
    tops = list(work.iterdir())
    assert len(tops) == 1, tops  # the tour's repository
    assert git(tops[0], "status", "--porcelain") == ""


def test_every_skipped_block_is_one_a_test_cannot_run() -> None:
    """A block is skipped for a reason (installing, your repository, an agent, the tests
    themselves), and most of README's commands are run."""
    skipped = [code for code, runs in shell_blocks() if not runs]
    assert len(skipped) <= 5
    assert all("remember" not in code and "recall" not in code for code in skipped)


def test_ci_runs_the_suite_as_readme_says() -> None:
    """`.ci/run` runs the command README gives for the whole suite."""
    (whole,) = [line.split("&& ")[-1] for code, _ in shell_blocks()
                for line in code.splitlines() if "pytest -n auto" in line]
    assert whole in (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()


def _anchors(page: Path) -> set[str]:
    """The anchors of a markdown page's headings, as GitHub spells them."""
    heads = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.M)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-") for h in heads}


@pytest.mark.parametrize("page", [README, *sorted(DOCS.glob("*.md"))], ids=lambda p: p.name)
def test_links_lead_to_pages_and_headings_that_exist(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue
        file, _, anchor = target.partition("#")
        dest = (page.parent / file).resolve() if file else page
        assert dest.exists(), f"{page.name}: {target}"
        if anchor and dest.suffix == ".md":
            assert anchor in _anchors(dest), f"{page.name}: {target}"


def test_readme_and_the_man_page_lead_to_every_docs_page() -> None:
    readme = README.read_text(encoding="utf-8")
    man = (ROOT / "man" / "git-aide.1").read_text(encoding="utf-8")
    see_also = man.split(".SH SEE ALSO", 1)[1]
    for page in DOCS.glob("*.md"):
        assert f"(docs/{page.name})" in readme, page.name
        assert f"docs/{page.name}" in see_also, page.name


def test_the_settings_page_names_every_key() -> None:
    """The settings table moved from README to docs/configuration.md: every key is a row."""
    page = (DOCS / "configuration.md").read_text(encoding="utf-8")
    for key in KEYS:
        assert f"| `{key.name}` |" in page, key.name
