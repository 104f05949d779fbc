"""Scope bounds (README, How recall and search rank): at most 64 alternatives, matching linear
in the path.

Issue 7, defects 10 and 11: a committed scope of `{a,b}` x30 (2^30 alternatives) or
`src/*a*a*...*b` (exponential backtracking) hung every read and `git commit`.
"""

from __future__ import annotations

import json
import random
import subprocess
import uuid as uuidlib
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, aide, git, make_repo

from git_aide.core import scope as scopes

MEM = ".aide/memories"
BRACE_BOMB = "src/" + "{a,b}" * 30
STAR_BOMB = "src/" + "*a" * 30 + "*b"
#: Long enough that a backtracking match of STAR_BOMB would never end.
LONG_PATH = "src/" + "a" * 60
#: A subprocess that hangs fails the test instead of the suite.
LIMIT = 20


def run(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run a command that must finish (a hang raises TimeoutExpired: the test fails)."""
    return subprocess.run(list(args), cwd=cwd, capture_output=True, text=True,
                          env=BASE_ENV, timeout=LIMIT)


def test_alternatives_are_counted_not_built() -> None:
    assert scopes.count_alternatives(BRACE_BOMB) > scopes.MAX_ALTERNATIVES
    assert scopes.count_alternatives("src/*.{ts,tsx}") == 2
    assert scopes.count_alternatives("{a,b}" * 6) == 64
    assert scopes.count_alternatives("{a,{b,c}}/{x,y}") == 6
    assert scopes.count_alternatives("{a}/{b") == 1
    assert scopes.check("{a,b}" * 6) is None
    message = scopes.check("{a,b}" * 7)
    assert message is not None and "64" in message
    message = scopes.check(BRACE_BOMB)
    assert message is not None and "64" in message
    assert scopes.check(STAR_BOMB) is None  # valid: it matches in linear time


def test_star_runs_match_in_linear_time() -> None:
    c = scopes.compile_scope(STAR_BOMB)
    assert not scopes.relevant(c, LONG_PATH, False)
    assert scopes.relevant(c, "src/" + "a" * 31 + "b", False)
    assert scopes.relevant(c, "src/" + "xa" * 30 + "yb/deeper/file.py", False)
    many = scopes.compile_scope("/".join(["**", "a"] * 15) + "/*.py")
    assert not scopes.relevant(many, "/".join(["a"] * 60) + "/x.txt", False)
    assert scopes.relevant(many, "/".join(["a"] * 16) + "/x.py", False)


def _random_glob(rng: random.Random) -> str:
    segs = []
    for _ in range(rng.randint(1, 4)):
        segs.append(rng.choice(["a", "b", "*", "**", "?", "*.py", "a*b", "[ab]", "[!a]*",
                                "x?", "*a*", "ab"]))
    glob = "/".join(segs)
    return glob + rng.choice(["", "", "/", "/**"])


def _random_path(rng: random.Random) -> str:
    return "/".join(rng.choice(["a", "b", "ab", "x.py", "aab", "xa", "ba.py", "c"])
                    for _ in range(rng.randint(1, 5)))


def test_matches_like_gitignore_patterns() -> None:
    from pathspec.patterns.gitignore.spec import GitIgnoreSpecPattern

    rng = random.Random(7)
    for _ in range(400):
        glob = _random_glob(rng)
        if not glob.replace("*", "").replace("/", ""):
            continue  # only stars: pathspec reads `*/` as never matching, gitignore not
        want = GitIgnoreSpecPattern(glob).regex
        (mine,) = scopes.compile_scope(glob).regexes
        if not mine:
            continue  # a plain path (`a/b/**`) is a prefix test, not a glob
        for _ in range(15):
            path = _random_path(rng)
            expected = want is not None and want.match(path) is not None
            assert (scopes._rx(mine).match(path) is not None) == expected, (glob, path)


def _commit_file(repo: Path, scope: str, what: str) -> str:
    u = str(uuidlib.uuid4())
    rec = {"uuid": u, "layer": "technical", "what": what, "why": None, "scope": scope,
           "context_label": None, "contributor": "Ada Tester", "tags": [],
           "source": "conversation", "shared": True, "priority": "normal",
           "generated_by": None, "derived_from": None,
           "created_at": "2024-05-01T10:00:00.000Z", "updated_at": "2024-05-01T10:00:00.000Z"}
    path = repo / MEM / "technical" / f"{u}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec, indent=2) + "\n")
    return u


@pytest.fixture
def bombed(tmp_path: Path) -> tuple[Path, str, str]:
    repo = make_repo(tmp_path / "r", hooks=True)
    brace = _commit_file(repo, BRACE_BOMB, "brace bomb memory")
    star = _commit_file(repo, STAR_BOMB, "star bomb memory")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "--no-verify", "-m", "hostile scopes")
    return repo, brace, star


def test_committed_hostile_scopes_never_hang(bombed: tuple[Path, str, str]) -> None:
    repo, brace, star = bombed
    listed = run(repo, *AIDE, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    got = {m["uuid"] for m in json.loads(listed.stdout)["memories"]}
    assert star in got and brace not in got  # the brace bomb is skipped with a warning
    assert f"{brace}.json: scope:" in listed.stderr and "64" in listed.stderr
    recalled = run(repo, *AIDE, "recall", LONG_PATH, "--json")
    assert recalled.returncode == 0, recalled.stderr
    assert star not in {m["uuid"] for m in json.loads(recalled.stdout)["memories"]}
    recalled = run(repo, *AIDE, "recall", "src/" + "a" * 30 + "b", "--json")
    assert star in {m["uuid"] for m in json.loads(recalled.stdout)["memories"]}
    searched = run(repo, *AIDE, "search", "bomb", "--json")
    assert searched.returncode == 0, searched.stderr
    assert {m["uuid"] for m in json.loads(searched.stdout)["memories"]} == {star}
    checked = run(repo, *AIDE, "validate", "--json")
    assert checked.returncode == 1
    bad = json.loads(checked.stdout)["problems"]
    assert [p["field"] for p in bad] == ["scope"] and brace in bad[0]["path"]
    # The pre-commit hook validates what is staged; it answers (and refuses) at once.
    (repo / "README").write_text("x\n")
    git(repo, "add", "README")
    committed = run(repo, "git", "commit", "-q", "-m", "more")
    assert committed.returncode != 0 and "64" in committed.stderr


def test_writing_commands_refuse_out_of_bounds_scopes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    r = aide(repo, "remember", "x", "--scope", BRACE_BOMB)
    assert r.returncode == 1 and "64" in r.stderr and "Traceback" not in r.stderr
    r = aide(repo, "remember", "star scopes are fine", "--scope", STAR_BOMB, "--json")
    assert r.returncode == 0, r.stderr
    u = json.loads(r.stdout)["uuid"]
    r = aide(repo, "update", u, "--scope", "{a,b,c,d,e,f,g,h,i}/{a,b,c,d,e,f,g,h}")
    assert r.returncode == 1 and "64" in r.stderr
