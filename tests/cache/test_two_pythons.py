"""Two Python versions on one repository (a 3.10 venv beside a 3.12 one, or a worktree
with each): the cache's files are marshal'd, a format promised only within one version, so
each interpreter keeps its own folder under `.git/aide/`, and neither throws the other's
cache away. Needs a second CPython on the machine; skipped (with the reason) otherwise."""

from __future__ import annotations

import glob
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BASE_ENV, CACHE, ROOT, aide_ok, git, remember

ROOT = ROOT


def other_python() -> str | None:
    """A CPython 3.10+ of another minor version than this one, if the machine has one."""
    mine = f"{sys.version_info[0]}.{sys.version_info[1]}"
    found = [shutil.which(f"python3.{n}") for n in range(10, 15)]
    found += sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.1[0-9]*/bin/python3")))
    for exe in filter(None, found):
        proc = subprocess.run([exe, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
                              capture_output=True, text=True)
        version = proc.stdout.strip()
        if proc.returncode == 0 and version != mine and version >= "3.10":
            return exe
    return None


@pytest.fixture(scope="module")
def other(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """git-aide installed (with its dependencies) for another Python: its executable."""
    exe = other_python()
    if exe is None:
        pytest.skip("no second CPython 3.10+ on this machine")
    venv = tmp_path_factory.mktemp("other-python") / "venv"
    subprocess.run([exe, "-m", "venv", str(venv)], check=True)
    proc = subprocess.run([str(venv / "bin" / "pip"), "install", "-q",
                           "--disable-pip-version-check", str(ROOT)],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        pytest.skip(f"could not install git-aide for {exe}: {proc.stderr.strip()[-300:]}")
    return venv / "bin" / "git-aide"


def run(exe: Path, repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(exe), *args], cwd=repo, capture_output=True, text=True,
                          env=BASE_ENV)


def snapshot(folder: Path) -> dict[str, int]:
    """Each cache file of one interpreter and its modification time."""
    return {str(p.relative_to(folder)): p.stat().st_mtime_ns
            for p in folder.rglob("*") if p.is_file()}


def test_two_pythons_keep_a_cache_each_and_both_answer_right(repo: Path, other: Path) -> None:
    ids = {remember(repo, f"memory {i} about retries", "--scope", f"src/m{i}/**")["uuid"]
           for i in range(4)}
    git(repo, "commit", "-qm", "seed")
    late = remember(repo, "a staged memory about retries")["uuid"]
    want = ids | {late}
    asks = (["search", "retries", "--json"], ["recall", "--json"],
            ["recall", "src/m1/x.py", "--json"], ["recall", "--rev", "HEAD", "--json"])
    mine = [aide_ok(repo, *a).stdout for a in asks]
    for _ in range(2):  # warm both
        for a in asks:
            aide_ok(repo, *a)
            r = run(other, repo, *a)
            assert r.returncode == 0, r.stderr
    ours = repo / CACHE
    assert ours.is_dir()
    # Beside the interpreters' folders: the usage counts, shared by every Python.
    theirs = [p for p in (repo / ".git" / "aide").iterdir()
              if p.is_dir() and p != ours and p.name != "usage"]
    assert len(theirs) == 1, theirs  # the other interpreter's own folder
    theirs_folder = theirs[0]
    before = snapshot(ours)
    for a, answer in zip(asks, mine, strict=True):
        r = run(other, repo, *a)
        assert r.returncode == 0 and "notice" not in r.stderr, (a, r.stderr)
        assert r.stdout == answer, a
    assert snapshot(ours) == before  # the other Python neither rewrote nor removed ours
    before = snapshot(theirs_folder)
    for a, answer in zip(asks, mine, strict=True):
        r2 = aide_ok(repo, *a)
        assert r2.stdout == answer and "notice" not in r2.stderr, a
    assert snapshot(theirs_folder) == before
    assert set(m["uuid"] for m in json.loads(mine[1])["memories"]) == want
