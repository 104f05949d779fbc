"""`git aide doctor`: a fresh clone lacks the driver and the hooks; after init, nothing."""

from __future__ import annotations

from pathlib import Path

from helpers import aide, aide_ok, git, make_repo, remember


def problem_lines(r_stdout: str) -> list[str]:
    """The `problem:` lines of doctor's output."""
    return [line for line in r_stdout.splitlines() if line.startswith("problem: ")]


def test_fresh_clone_then_init(tmp_path: Path) -> None:
    origin = make_repo(tmp_path / "origin")
    remember(origin, "use pnpm")
    git(origin, "add", "-A")
    git(origin, "commit", "-q", "-m", "memories")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    r = aide(clone, "doctor")
    assert r.returncode == 1
    problems = problem_lines(r.stdout)
    assert any("merge driver is not configured" in p and p.endswith("fix: git aide init")
               for p in problems)
    assert any("textconv diff driver is not configured" in p
               and p.endswith("fix: git aide init") for p in problems)
    for hook in ("pre-commit", "post-checkout", "post-merge", "post-rewrite"):
        assert any(f"the {hook} hook" in p and "is not installed" in p for p in problems)
    # what the clone does have: the attribute and the ignore line came with the commit
    assert "ok: memory files use merge=aide" in r.stdout
    assert "ok: memory files use diff=aide" in r.stdout
    assert "ok: .aide/memories/preferences/personal/ is ignored" in r.stdout
    assert r.stderr.startswith("git-aide: error: 6 problems")
    aide_ok(clone, "init")
    r = aide_ok(clone, "doctor")
    assert problem_lines(r.stdout) == []
    assert "ok: hooks installed" in r.stdout


def test_fresh_repo_after_init_is_healthy(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    r = aide_ok(repo, "doctor", "--json")
    doc = r.json()
    assert doc["ok"] is True
    assert {c["check"] for c in doc["checks"]} >= {
        "git", "driver", "attributes", "hooks", "cache", "personal"}
    assert all(set(c) == {"check", "ok", "message", "fix"} for c in doc["checks"])
    assert any(c["check"] == "cache" and "not built yet" in c["message"] for c in doc["checks"])
    remember(repo, "use pnpm")
    aide_ok(repo, "list")
    assert "ok: cache healthy" in aide_ok(repo, "doctor").stdout


def test_each_problem_names_its_fix(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", hooks=True)
    (repo / ".git" / "hooks" / "pre-commit").chmod(0o644)
    with open(repo / ".gitattributes", "a") as f:
        f.write(".aide/memories/technical/*.json merge=text\n")
    (repo / ".gitignore").write_text("")
    (repo / ".aide" / "memories" / "preferences" / "personal" / ".gitignore").unlink()
    (repo / ".git" / "aide").write_text("not a folder")
    git(repo, "config", "merge.aide.driver", "no-such-program merge-driver %O %A %B")
    r = aide(repo, "doctor")
    assert r.returncode == 1
    text = "\n".join(problem_lines(r.stdout))
    assert "pre-commit is not executable" in text and "fix: chmod +x .git/hooks/pre-commit" in text
    assert "merge attribute of memory files is 'text'" in text
    assert "personal/ is not ignored" in text
    assert "not a folder git-aide can read and write; fix: rm -rf" in text
    assert "runs no-such-program, which is not on PATH" in text
    # advice that works: no package index serves git-aide
    assert "pip install git-aide" not in r.stdout and "from a checkout of it" in text
    assert len(problem_lines(r.stdout)) == 5
