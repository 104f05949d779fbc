"""The hooks: install as a marked block, uninstall byte for byte, and what they do in git."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
from helpers import BASE_ENV, ROOT, SECRET_EXAMPLES, aide_ok, git, make_repo, put, remember
from helpers import valid_record as record

from git_aide.app.hooks import BEGIN, END, HOOKS, ORIG_SUFFIX

USER_HOOK = b"""#!/bin/sh
# the user's own hook: leaves a mark, then hands over with exec
echo "$0 $*" >> "$(git rev-parse --git-dir)/user-hook-ran"
exec true
"""


def run_git(cwd: Path, *args: str, env: dict[str, str] | None = None
            ) -> subprocess.CompletedProcess[str]:
    """Run git and return the finished process, whatever its exit status."""
    return subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**BASE_ENV, **(env or {})})


def hooks_of(repo: Path) -> Path:
    """The repository's default hooks folder."""
    return repo / ".git" / "hooks"


def snapshot(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file of a folder (no samples) with its bytes and mode."""
    if not folder.exists():
        return {}
    return {p.name: (p.read_bytes(), p.lstat().st_mode) for p in sorted(folder.iterdir())
            if not p.name.endswith(".sample")}


def test_fresh_install_and_idempotence(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    before = snapshot(hooks_of(repo))
    assert set(before) == set(HOOKS)
    for name in HOOKS:
        text, mode = before[name]
        assert text.startswith(b"#!/bin/sh\n" + BEGIN.encode())
        assert text.count(BEGIN.encode()) == 1 and text.endswith(END.encode() + b"\n")
        assert mode & stat.S_IXUSR
    r = aide_ok(repo, "init")
    assert "nothing changed" in r.stdout
    assert snapshot(hooks_of(repo)) == before


def test_no_hooks_flag(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=False)
    assert snapshot(hooks_of(repo)) == {}


def test_user_hook_keeps_working_and_comes_back_byte_for_byte(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", init=False)
    hook = hooks_of(repo) / "pre-commit"
    hook.write_bytes(USER_HOOK)
    hook.chmod(0o750)
    aide_ok(repo, "init")
    aide_ok(repo, "init")
    text = hook.read_bytes()
    assert text.count(BEGIN.encode()) == 1
    assert text.startswith(b"#!/bin/sh\n" + BEGIN.encode())  # ours first: `exec` cannot skip it
    assert hook.stat().st_mode & 0o777 == 0o750
    remember(repo, "use pnpm")
    run = run_git(repo, "commit", "-q", "-m", "good")
    assert run.returncode == 0, run.stderr
    assert (repo / ".git" / "user-hook-ran").exists()
    rel = put(repo, record(what=""))
    git(repo, "add", rel)
    run = run_git(repo, "commit", "-q", "-m", "bad")
    assert run.returncode == 1 and f"{rel}: what: empty" in run.stderr
    r = aide_ok(repo, "init", "--uninstall")
    assert "pre-commit" in r.stdout
    assert hook.read_bytes() == USER_HOOK
    assert hook.stat().st_mode & 0o777 == 0o750
    assert set(snapshot(hooks_of(repo))) == {"pre-commit"}  # ours deleted, theirs kept
    assert aide_ok(repo, "init", "--uninstall").stdout.strip().startswith("git-aide is not")


@pytest.mark.parametrize("content", [b"#!/bin/bash", b"echo no shebang, run by sh\n",
                                     b"#!/usr/bin/env bash\nset -eu\nexit 0\n"])
def test_odd_shell_hooks_round_trip(tmp_path: Path, content: bytes) -> None:
    repo = make_repo(tmp_path / "r", init=False)
    hook = hooks_of(repo) / "post-merge"
    hook.write_bytes(content)
    hook.chmod(0o755)
    aide_ok(repo, "init")
    assert hook.read_bytes().count(BEGIN.encode()) == 1
    assert subprocess.run(["sh", "-n", str(hook)]).returncode == 0
    aide_ok(repo, "init", "--uninstall")
    assert hook.read_bytes() == content


def test_non_shell_hook_is_chained(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", init=False)
    hook = hooks_of(repo) / "pre-commit"
    original = b"#!/usr/bin/env python3\nimport pathlib\npathlib.Path('.git/py-ran').touch()\n"
    hook.write_bytes(original)
    hook.chmod(0o755)
    aide_ok(repo, "init")
    assert (hooks_of(repo) / ("pre-commit" + ORIG_SUFFIX)).read_bytes() == original
    remember(repo, "use pnpm")
    run = run_git(repo, "commit", "-q", "-m", "good")
    assert run.returncode == 0, run.stderr
    assert (repo / ".git" / "py-ran").exists()
    aide_ok(repo, "init")
    assert not (hooks_of(repo) / ("pre-commit" + ORIG_SUFFIX + ORIG_SUFFIX)).exists()
    aide_ok(repo, "init", "--uninstall")
    assert hook.read_bytes() == original
    assert not (hooks_of(repo) / ("pre-commit" + ORIG_SUFFIX)).exists()


def test_disabled_user_hook_is_left_alone(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", init=False)
    hook = hooks_of(repo) / "pre-commit"
    hook.write_bytes(USER_HOOK)
    hook.chmod(0o644)
    r = aide_ok(repo, "init")
    assert "not executable" in r.stdout
    assert hook.read_bytes() == USER_HOOK


def test_core_hooks_path_is_honoured(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", init=False)
    git(repo, "config", "core.hooksPath", "tools/hooks")
    aide_ok(repo, "init")
    assert set(snapshot(repo / "tools" / "hooks")) == set(HOOKS)
    assert snapshot(hooks_of(repo)) == {}
    rel = put(repo, record(what=""))
    git(repo, "add", rel)
    assert run_git(repo, "commit", "-q", "-m", "bad").returncode == 1
    aide_ok(repo, "init", "--uninstall")
    assert snapshot(repo / "tools" / "hooks") == {}


def test_husky_and_lefthook_get_advice_not_files(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "husky", init=False)
    (repo / ".husky" / "_").mkdir(parents=True)
    git(repo, "config", "core.hooksPath", ".husky/_")
    r = aide_ok(repo, "init")
    assert "add `git aide validate --staged` to .husky/pre-commit" in r.stdout
    assert [p.name for p in (repo / ".husky").rglob("*")] == ["_"]
    assert snapshot(hooks_of(repo)) == {}
    repo = make_repo(tmp_path / "lefthook", init=False)
    (repo / "lefthook.yml").write_text("pre-push:\n  commands: {}\n")
    r = aide_ok(repo, "init")
    assert "lefthook" in r.stdout and "run: git aide validate --staged" in r.stdout
    assert snapshot(hooks_of(repo)) == {}


def test_commit_all_broken_is_blocked_and_good_passes(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    w = remember(repo, "use pnpm")
    git(repo, "commit", "-q", "-m", "one")
    path = repo / w["path"]
    good = path.read_text()
    path.write_text(good.replace('"use pnpm"', '"   "'))
    run = run_git(repo, "commit", "-a", "-q", "-m", "broken")
    assert run.returncode == 1
    assert f"{w['path']}: what: empty" in run.stderr
    assert git(repo, "rev-list", "--count", "HEAD").strip() == "1"
    path.write_text(good.replace('"use pnpm"', '"use pnpm 9"'))
    run = run_git(repo, "commit", "-a", "-q", "-m", "fine")
    assert run.returncode == 0, run.stderr


def test_commit_paths_is_checked_on_what_it_commits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    (repo / "README").write_text("hi\n")
    git(repo, "add", "README")
    git(repo, "commit", "-q", "-m", "base")
    staged_bad = put(repo, record(what=""))
    git(repo, "add", staged_bad)  # staged, but `git commit README` leaves it out
    (repo / "README").write_text("hello\n")
    run = run_git(repo, "commit", "-q", "-m", "readme only", "README")
    assert run.returncode == 0, run.stderr
    unstaged_bad = put(repo, record(layer="nope"))
    git(repo, "add", "-N", unstaged_bad)
    run = run_git(repo, "commit", "-q", "-m", "the bad one", unstaged_bad)
    assert run.returncode == 1 and unstaged_bad in run.stderr and staged_bad not in run.stderr


def test_staged_personal_memory_and_secret_are_blocked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    personal = put(repo, record(layer="preferences", shared=False))
    git(repo, "add", "-f", personal)
    run = run_git(repo, "commit", "-q", "-m", "private")
    assert run.returncode == 1 and "personal memory is staged" in run.stderr
    git(repo, "rm", "-q", "--cached", personal)
    secret = put(repo, record(why=SECRET_EXAMPLES["AWS access key id"]))
    git(repo, "add", secret)
    run = run_git(repo, "commit", "-q", "-m", "secret")
    assert run.returncode == 1 and "looks like a secret (AWS access key id)" in run.stderr


def _path_without_git_aide(tmp_path: Path) -> str:
    gitbin = os.path.dirname(shutil.which("git") or "/usr/bin/git")
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "git").symlink_to(os.path.join(gitbin, "git"))
    return f"{folder}:/bin:/usr/bin" if not shutil.which(
        "git-aide", path="/bin:/usr/bin") else ""


def test_missing_git_aide_warns_once_and_git_goes_on(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    path = _path_without_git_aide(tmp_path)
    if not path:
        pytest.skip("git-aide is installed in /usr/bin")
    put(repo, record(what=""))
    git(repo, "add", "-A")
    run = run_git(repo, "commit", "-q", "-m", "unchecked", env={"PATH": path})
    assert run.returncode == 0
    assert run.stderr.splitlines() == [
        "git-aide: not installed, so the memories were not validated (install it from a "
        "checkout of git-aide with 'pip install .' and put it on PATH)"]
    run = run_git(repo, "checkout", "-q", "-b", "other", env={"PATH": path})
    assert run.returncode == 0 and len(run.stderr.splitlines()) == 1


def test_post_hooks_never_fail_git(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    fake = tmp_path / "fake"
    fake.mkdir()
    (fake / "git-aide").write_text("#!/bin/sh\necho boom; echo BOOM >&2; exit 3\n")
    (fake / "git-aide").chmod(0o755)
    env = {"PATH": f"{fake}:{BASE_ENV['PATH']}"}
    remember(repo, "use pnpm")
    git(repo, "commit", "-q", "-m", "one")
    # --no-verify: the fake fails, and pre-commit rightly refuses a failing validation
    steps = [("checkout", "-q", "-b", "side"), ("commit", "-qn", "--allow-empty", "-m", "s"),
             ("checkout", "-q", "main"), ("commit", "-qn", "--allow-empty", "-m", "m"),
             ("merge", "-q", "--no-edit", "side"),
             ("commit", "-qn", "--amend", "--allow-empty", "-m", "amended"),
             ("rebase", "-q", "side")]
    for step in steps:
        run = run_git(repo, *step, env=env)
        assert run.returncode == 0, (step, run.stderr)
        assert "boom" not in run.stdout + run.stderr.lower(), step
    # with the real git-aide, even a damaged cache does not stop them
    cache = repo / ".git" / "aide"
    shutil.rmtree(cache, ignore_errors=True)
    cache.write_text("not a folder")
    for step in [("checkout", "-q", "-b", "side2"), ("commit", "-q", "--allow-empty", "-m", "t"),
                 ("checkout", "-q", "main"), ("merge", "-q", "--no-edit", "side2"),
                 ("commit", "-q", "--amend", "--allow-empty", "-m", "again")]:
        run = run_git(repo, *step)
        assert run.returncode == 0, (step, run.stderr)
        assert run.stdout == "", step


def test_post_rewrite_keeps_stdin_for_the_user_hook(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", init=False)
    hook = hooks_of(repo) / "post-rewrite"
    hook.write_text('#!/bin/sh\ncat > "$(git rev-parse --git-dir)/rewritten"\n')
    hook.chmod(0o755)
    aide_ok(repo, "init")
    git(repo, "commit", "-q", "--allow-empty", "-m", "one")
    git(repo, "commit", "-q", "--amend", "--allow-empty", "-m", "two")
    assert len((repo / ".git" / "rewritten").read_text().split()) == 2


def test_pre_commit_framework_manifest() -> None:
    root = ROOT
    text = (root / ".pre-commit-hooks.yaml").read_text()
    for line in ("- id: git-aide-validate", "entry: git-aide validate --staged",
                 "language: python", "pass_filenames: false", r"files: ^\.aide/memories/"):
        assert line in text
    for name in HOOKS:
        assert os.access(root / "githooks" / name, os.X_OK)
        assert (root / "githooks" / name).read_text().startswith("#!/bin/sh")
