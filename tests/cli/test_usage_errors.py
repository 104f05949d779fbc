"""Usage errors are one line `git-aide: error: ...` pointing at the command's own -h;
`git aide` alone prints its usage as `git` alone does."""

from __future__ import annotations

import subprocess
from pathlib import Path

from helpers import aide, make_repo


def test_textconv_without_a_file_is_one_error_line(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    for args in ([], ["a", "b"]):
        r = aide(repo, "textconv", *args)
        assert r.returncode == 2
        assert r.stderr == "git-aide: error: usage: git aide textconv FILE\n"
    r = aide(repo, "textconv", "-h")
    assert r.returncode == 0 and "usage: git aide textconv FILE" in r.stderr


def test_no_command_prints_usage_like_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    r = aide(repo)
    assert r.returncode == 1
    assert "Usage: git aide" in r.stdout and "recall" in r.stdout
    assert "error" not in r.stderr


def test_an_option_without_its_value_points_at_the_command_help(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    for command, option in (("log", "--uuid"), ("search", "--limit"),
                            ("diff", "--format")):
        args = [command, "x", option] if command == "search" else [command, option]
        r = aide(repo, *args)
        assert r.returncode == 2, r.stderr
        lines = r.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("git-aide: error: ")
        assert lines[0].endswith(f"(see 'git aide {command} -h')"), lines


def test_an_empty_search_is_a_usage_error(tmp_path: Path) -> None:
    # "" or blanks would answer "No memories." as if the store had nothing on it.
    repo = make_repo(tmp_path / "r")
    aide(repo, "remember", "the queue retries three times")
    for query in ("", "   "):
        for extra in ([], ["--json"]):
            r = aide(repo, "search", query, *extra)
            assert r.returncode == 2, (query, r.stdout)
            assert r.stdout == ""
            assert r.stderr.splitlines() == [
                "git-aide: error: search needs words to look for; an empty query matches "
                "nothing"]


def test_a_bare_repository_says_what_works(tmp_path: Path) -> None:
    # A write needs a clone; only a read is helped by --rev.
    bare = tmp_path / "b.git"
    bare.mkdir()
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    for args in (["remember", "x"], ["forget", "abcd"], ["update", "abcd", "--what", "x"]):
        r = aide(bare, *args)
        assert r.returncode == 1
        assert "bare (run it in a clone that has one: git clone " in r.stderr, r.stderr
        assert "--rev" not in r.stderr
    r = aide(bare, "list")
    assert r.returncode == 1 and "(use --rev REV to read a commit)" in r.stderr
