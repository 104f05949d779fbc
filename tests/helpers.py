"""What the tests share: real git repositories in temporary folders, git and git-aide run
as real processes, and the few ways of writing and committing files that tests repeat.

The one helpers module: test files import from here; conftest.py holds the fixtures."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: The test suite's folder (its data/ and fixtures/) and the checkout's top.
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: The environment every test process gets: a fixed identity, no user or system config,
#: and this interpreter's scripts first on PATH (agents, hooks and the merge driver run
#: `git-aide` by name, as they would for a user), whether or not the venv is activated.
BASE_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "NO_COLOR"))},
    "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Ada Tester",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Tester",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_TERMINAL_PROMPT": "0",
}


def _aide_command() -> list[str]:
    script = Path(sys.executable).parent / "git-aide"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "git_aide"]


AIDE = _aide_command()
#: The cache folder of this interpreter, relative to a repository's top (the cache keeps
#: one folder per Python version: see Repo.cache_dir).
CACHE = f".git/aide/{sys.implementation.cache_tag}"


@dataclass
class Result:
    """What a finished process left behind."""

    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout parsed as one JSON document."""
        return json.loads(self.stdout)


def git(cwd: Path | str, *args: str, check: bool = True, env: dict[str, str] | None = None,
        input: str | None = None) -> str:
    """Run git; return its stdout; fail the test with git's stderr when it fails."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**BASE_ENV, **(env or {})}, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def aide(cwd: Path | str, *args: str, env: dict[str, str] | None = None,
         input: str | None = None) -> Result:
    """Run git-aide as a real process."""
    proc = subprocess.run([*AIDE, *args], cwd=cwd, capture_output=True, text=True,
                          env={**BASE_ENV, **(env or {})}, input=input)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def aide_ok(cwd: Path | str, *args: str, env: dict[str, str] | None = None) -> Result:
    """Run git-aide and insist that it succeeded without a traceback."""
    r = aide(cwd, *args, env=env)
    assert r.returncode == 0, f"git-aide {' '.join(args)} -> {r.returncode}: {r.stderr}"
    assert "Traceback" not in r.stderr
    return r


def make_repo(path: Path, init: bool = True, hooks: bool = False) -> Path:
    """A new repository with an identity and `git aide init` run in it (hooks only if asked)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Ada Tester")
    git(path, "config", "user.email", "ada@example.com")
    git(path, "config", "commit.gpgsign", "false")
    if init:
        # Hooks make every commit start git-aide: only the tests of hooks pay for that.
        aide_ok(path, "init", *([] if hooks else ["--no-hooks"]))
    return path


def remember(cwd: Path, what: str, *args: str) -> dict[str, Any]:
    """`git aide remember --json`, returning its document."""
    return aide_ok(cwd, "remember", what, *args, "--json").json()


def uuids(result: Result) -> list[str]:
    """The uuids of a recall/search/list JSON document, in order."""
    return [m["uuid"] for m in result.json()["memories"]]


Remember = Callable[..., dict[str, Any]]


def write(repo: Path, rel: str, text: str) -> Path:
    """A file of the working tree, its folders made; returns its path."""
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def code_file(repo: Path, rel: str) -> Path:
    """A file of code of twenty lines, named in its own first line."""
    return write(repo, rel, f"// {rel}\n" + "".join(f"line {i} of {rel}\n" for i in range(20)))


def commit(repo: Path, message: str = "memories", date: str | None = None) -> str:
    """Stage everything and commit it (at `date`, when given); returns the commit id."""
    env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else None
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()
