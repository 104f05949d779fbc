"""The benchmark's generator builds a valid, deterministic repository (nothing is timed)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from helpers import ROOT

from git_aide.core import memory

sys.path.insert(0, str(ROOT / "bench"))

import generate  # noqa: E402


def _git(repo: Path, *args: str) -> str:
    """git's stdout in `repo`."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True,
                          check=True).stdout


def test_generator_small(tmp_path: Path) -> None:
    """50 memories, 300 files, 10 commits: valid files, the history and the facts promised."""
    repo = tmp_path / "r"
    meta = generate.generate(str(repo), 50, files=300, commits=10, seed=3)
    assert meta == generate.read_meta(str(repo))
    mem_paths = _git(repo, "ls-files", memory.MEMORIES_DIR).split()
    assert len(mem_paths) == meta["memories"] == 50
    all_files = _git(repo, "ls-files").split()
    assert len(all_files) - len(mem_paths) == 300 + 3  # + README, .gitignore, .gitattributes
    assert meta["deep_file"] in all_files
    assert _git(repo, "status", "--porcelain") == ""
    assert _git(repo, "ls-tree", "-r", "--name-only", "HEAD~10", memory.MEMORIES_DIR).split()
    layers = set()
    for p in mem_paths:
        data = (repo / p).read_bytes()
        record = memory.parse(data)
        assert memory.check_path(record, p) is None
        assert memory.canonical(record) == data
        assert 60 <= len(record["what"]) <= 300
        assert 1 <= len(record["tags"]) <= 3
        layers.add(record["layer"])
    assert layers == set(memory.LAYERS)
    hits = _git(repo, "grep", "-i", "-l", meta["word"], "--", memory.MEMORIES_DIR)
    assert hits.strip()

    again = tmp_path / "again"
    generate.generate(str(again), 50, files=300, commits=10, seed=3)
    assert _git(again, "rev-parse", "HEAD") == _git(repo, "rev-parse", "HEAD")

    sha = generate.make_branch(str(repo), "more", 20, seed=9)
    added = _git(repo, "diff", "--name-only", "HEAD", sha).split()
    assert len(added) == 20 and all(p.startswith(memory.MEMORIES_DIR) for p in added)
