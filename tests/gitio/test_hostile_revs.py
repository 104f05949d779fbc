"""Revisions no git could take: every `--rev` read, `diff` and `log` refuse them with
one clear line instead of hanging or answering for another revision, and no git process
git-aide starts can deadlock on what it is sent."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, Result, aide_ok, git, remember, uuids

#: Longer than this, a command hangs: the test fails instead of waiting forever.
TIMEOUT = 20
HUGE = "a" * 66_000
#: The longest revision taken, in bytes (spawn.MAX_REVISION).
MAX_REVISION = 4096


def run(cwd: Path, *args: str) -> Result:
    """git-aide as a real process, failing the test if it does not finish in time."""
    try:
        proc = subprocess.run([*AIDE, *args], cwd=cwd, capture_output=True, text=True,
                              env=BASE_ENV, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        pytest.fail(f"git-aide {args[0]} with a hostile revision hung")
    return Result(proc.returncode, proc.stdout, proc.stderr)


def commands(rev: str) -> list[list[str]]:
    """Every command that reads a revision, given `rev`."""
    return [["recall", "--rev", rev, "src/a.py"], ["recall", "--json", "--rev", rev],
            ["show", "0000", "--rev", rev], ["list", "--rev", rev],
            ["search", "tokens", "--rev", rev], ["validate", "--rev", rev],
            ["stats", "--rev", rev], ["audit", "--rev", rev], ["map", "--rev", rev],
            ["diff", rev],
            ["diff", "HEAD", rev], ["diff", f"HEAD..{rev}"], ["diff", f"HEAD...{rev}"],
            ["log", rev], ["log", f"HEAD..{rev}"]]


def refused(r: Result, *words: str) -> None:
    """One line on stderr, saying why, and nothing on stdout."""
    assert r.returncode == 1, r.stderr[:300]
    lines = r.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("git-aide: error: "), r.stderr[:300]
    assert "names no commit" in lines[0], lines[0]
    for w in words:
        assert w in lines[0], lines[0]
    assert len(lines[0]) < 300 and "Traceback" not in r.stderr
    assert r.stdout == ""


@pytest.fixture
def committed(repo: Path) -> Path:
    """A repository with one committed memory."""
    remember(repo, "auth tokens rotate hourly", "--scope", "src/**")
    git(repo, "commit", "-qm", "memories")
    return repo


def test_a_huge_revision_is_refused_not_hung(committed: Path) -> None:
    for argv in commands(HUGE):
        refused(run(committed, *argv), "bytes long", f"at most {MAX_REVISION} bytes")


def test_a_revision_with_a_control_character_is_refused(committed: Path) -> None:
    """A newline would make two questions of one on git's stdin (the answer to the
    second, HEAD, passed off as the first's): no control character gets through."""
    for rev, what in (("HEAD\nHEAD", "newline"), ("HEAD\x1b[2J", "U+001B"),
                      ("HEAD\t", "tab"), ("HEAD\r", "carriage return")):
        for argv in commands(rev):
            refused(run(committed, *argv), what)


def test_the_longest_revision_still_reads(committed: Path) -> None:
    """The bound refuses no name git could have: a revision of exactly the most bytes
    is asked of git, and read."""
    u = uuids(aide_ok(committed, "recall", "--json", "--rev", "HEAD"))
    longest = "HEAD" + "~0" * ((MAX_REVISION - 4) // 2)
    assert len(longest) == MAX_REVISION
    assert uuids(aide_ok(committed, "recall", "--json", "--rev", longest)) == u
    assert uuids(aide_ok(committed, "list", "--json", "--rev", longest)) == u
    assert aide_ok(committed, "diff", "--json", longest, "HEAD").json()["added"] == []
    refused(run(committed, "recall", "--rev", longest + "~"), f"{MAX_REVISION + 1} bytes")


def test_git_is_never_deadlocked_by_what_it_is_sent(committed: Path) -> None:
    """However much a caller sends git on stdin, while git answers on stdout (and
    stderr) as it reads, both sides get through: a megabyte of questions to
    `cat-file --batch-check`, each answered, in a process bounded in time."""
    script = textwrap.dedent("""
        from git_aide.gitio.spawn import spawn

        n = 40_000
        asked = b"".join(b"HEAD~0:.aide/memories/%d-no-such-file\\n" % i for i in range(n))
        rc, out, err = spawn("cat-file", "--batch-check", input=asked).wait()
        assert rc == 0, err
        lines = out.splitlines()
        assert len(lines) == n and all(x.endswith(b" missing") for x in lines), lines[:3]
        # and git's stderr is served too, when git says more there than a pipe holds
        missing = [f"no-such-file-{i}" for i in range(3000)]
        rc, out, err = spawn("ls-files", "--error-unmatch", "--", *missing).wait()
        assert rc != 0 and err.count(b"did not match") == len(missing), err[-300:]
        print("ok")
    """)
    try:
        proc = subprocess.run([sys.executable, "-c", script], cwd=committed, env=BASE_ENV,
                              capture_output=True, text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail("git and git-aide deadlocked on their pipes")
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr[-2000:]
