"""The exported rules files kept in step with the memories (agents/rules/exportsync.py):
aide.export.auto refreshes and stages them on every write, and `export --check --staged`
(the pre-commit hook, with aide.export.check) refuses a commit whose files are stale."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from helpers import BASE_ENV, ROOT, McpServer, aide, aide_ok, git, make_repo, remember

BLOCK_START = "<!-- git-aide:begin -->"


def exported(tmp_path: Path, hooks: bool = False) -> Path:
    """A repository whose CLAUDE.md (a person's text, then a block) is committed."""
    repo = make_repo(tmp_path / "r", hooks=hooks)
    (repo / "CLAUDE.md").write_text("# Project\n\nUse pnpm.\n")
    remember(repo, "Write commit messages in the imperative", "--layer", "guidelines")
    aide_ok(repo, "export", "--agent", "claude")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    return repo


def staged(repo: Path, path: str) -> str:
    return git(repo, "show", f":{path}")


def test_a_write_refreshes_and_stages_the_block_alone(tmp_path: Path) -> None:
    repo = exported(tmp_path)
    git(repo, "config", "aide.export.auto", "true")
    with (repo / "CLAUDE.md").open("a") as f:
        f.write("A line of the author's, not staged.\n")
    r = aide_ok(repo, "remember", "The staging database resets nightly", "--priority", "always")
    assert r.stdout.splitlines()[1] == "updated CLAUDE.md (staged)"
    assert "The staging database resets nightly" in staged(repo, "CLAUDE.md")
    # The block is staged, the author's line is not, and it is still in the file.
    assert "not staged" not in staged(repo, "CLAUDE.md")
    assert "A line of the author's, not staged." in (repo / "CLAUDE.md").read_text()
    assert aide(repo, "export", "--check").returncode == 0
    assert aide(repo, "export", "--check", "--staged").returncode == 0
    # update and forget too (and --json names the file)
    uuid = remember(repo, "Deploys need a ticket", "--priority", "always")["uuid"]
    doc = aide_ok(repo, "update", uuid, "--what", "Deploys need a change ticket",
                  "--json").json()
    assert doc["exported"] == [{"path": "CLAUDE.md", "state": "updated", "staged": True}]
    assert "Deploys need a change ticket" in staged(repo, "CLAUDE.md")
    aide_ok(repo, "forget", uuid)
    assert "Deploys need" not in staged(repo, "CLAUDE.md")
    # --no-stage: the file is refreshed, the index left alone.
    before = staged(repo, "CLAUDE.md")
    aide_ok(repo, "remember", "Releases are tagged", "--priority", "always", "--no-stage")
    assert staged(repo, "CLAUDE.md") == before
    assert "Releases are tagged" in (repo / "CLAUDE.md").read_text()


def test_off_or_never_exported_nothing_is_touched(tmp_path: Path) -> None:
    repo = exported(tmp_path)
    # Off (the default): the block goes stale, and the write imports nothing of export.
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "remember",
                           "Reviews take a day", "--layer", "guidelines"], cwd=repo,
                          env=BASE_ENV, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert "git_aide.agents.rules.export" not in proc.stderr
    assert "Reviews take a day" not in (repo / "CLAUDE.md").read_text()
    assert aide(repo, "export", "--check").returncode == 1
    # On, in a repository never exported: no rules file is made.
    other = make_repo(tmp_path / "other")
    git(other, "config", "aide.export.auto", "true")
    remember(other, "Tabs in Makefiles", "--layer", "guidelines")
    assert sorted(p.name for p in other.iterdir()) == [".aide", ".git", ".gitattributes",
                                                       ".gitignore"]
    # A personal memory is never exported: nothing is refreshed for it.
    git(repo, "config", "aide.export.auto", "true")
    aide_ok(repo, "export")
    r = aide_ok(repo, "remember", "I like short names", "--personal")
    assert len(r.stdout.splitlines()) == 1


def test_an_untracked_file_is_refreshed_not_staged(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    remember(repo, "Tabs in Makefiles", "--layer", "guidelines")
    aide_ok(repo, "export", "--agent", "codex")
    git(repo, "config", "aide.export.auto", "true")
    r = aide_ok(repo, "remember", "Small pull requests", "--layer", "guidelines")
    assert "Small pull requests" in (repo / "AGENTS.md").read_text()
    assert "aide.export.auto: AGENTS.md refreshed, not staged: not tracked" in r.stderr
    assert git(repo, "ls-files", "AGENTS.md") == ""


def test_rule_folders_get_new_scopes_staged_when_theirs_are_tracked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    remember(repo, "Handlers return typed responses", "--scope", "src/api/**")
    aide_ok(repo, "export", "--agent", "cursor")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    git(repo, "config", "aide.export.auto", "true")
    uuid = remember(repo, "Jobs are idempotent", "--scope", "src/jobs/**")["uuid"]
    new = [p for p in git(repo, "diff", "--cached", "--name-only").split()
           if p.startswith(".cursor/rules/")]
    assert len(new) == 1 and "src-jobs" in new[0]
    aide_ok(repo, "forget", uuid)
    assert not (repo / new[0]).exists()
    assert git(repo, "diff", "--cached", "--name-only", "--", ".cursor") == ""


def test_the_mcp_server_refreshes_too(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    repo = exported(tmp_path)
    git(repo, "config", "aide.export.auto", "true")
    srv = McpServer(repo)
    try:
        srv.initialize()
        srv.notify("notifications/initialized")
        res = srv.request(2, "tools/call", {"name": "aide_remember", "arguments": {
            "what": "Run the linter before pushing", "layer": "guidelines"}})["result"]
    finally:
        srv.close()
    assert not res.get("isError"), res
    assert res["structuredContent"]["exported"] == [
        {"path": "CLAUDE.md", "state": "updated", "staged": True}]
    assert "Rules file updated CLAUDE.md (staged)." in res["content"][0]["text"]
    assert "Run the linter before pushing" in staged(repo, "CLAUDE.md")


def test_the_pre_commit_hook_refuses_stale_rules_files(tmp_path: Path) -> None:
    repo = exported(tmp_path, hooks=True)
    remember(repo, "The staging database resets nightly", "--priority", "always")
    # Not asked for: the commit goes through with a stale block.
    git(repo, "commit", "-qm", "not checked")
    git(repo, "config", "aide.export.check", "true")
    remember(repo, "Deploys need a ticket", "--priority", "always")
    proc = subprocess.run(["git", "commit", "-qm", "checked"], cwd=repo, env=BASE_ENV,
                          capture_output=True, text=True)
    # One line, which says how to fix it (git gives a hook's output on stderr).
    assert proc.returncode == 1
    assert proc.stderr == ("git-aide: error: 1 rules file out of date with the staged "
                           "memories; run `git aide export` and stage it (git add CLAUDE.md)\n")
    # Exported but not staged: still refused (the commit holds the index's file).
    aide_ok(repo, "export")
    assert subprocess.run(["git", "commit", "-qm", "checked"], cwd=repo, env=BASE_ENV,
                          capture_output=True).returncode == 1
    git(repo, "add", "CLAUDE.md")
    git(repo, "commit", "-qm", "checked")
    # An edit of the author's outside the block, staged or not, is no staleness.
    with (repo / "CLAUDE.md").open("a") as f:
        f.write("More of the author's words.\n")
    git(repo, "commit", "-qam", "words")
    assert git(repo, "status", "--porcelain") == ""


def test_the_pre_commit_framework_offers_the_check() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    assert "- id: git-aide-export-check\n" in text
    assert "  entry: git-aide export --check --staged\n" in text


def test_export_without_agents_uses_those_exported_to(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    remember(repo, "Tabs in Makefiles", "--layer", "guidelines")
    r = aide(repo, "export")
    assert r.returncode == 2 and "name the agents" in r.stderr
    assert aide_ok(repo, "export", "--check").stdout.startswith("No rules file holds")
    aide_ok(repo, "export", "--agent", "gemini", "--agent", "windsurf")
    remember(repo, "Small pull requests", "--layer", "guidelines")
    r = aide(repo, "export", "--check")
    assert r.returncode == 1
    assert sorted(r.stdout.split("\n")[:-1]) == [
        ".windsurf/rules/git-aide-always.md: out of date", "GEMINI.md: out of date"]
    assert "run `git aide export`" in r.stderr
    assert aide_ok(repo, "export").stdout.splitlines() == [
        "updated .windsurf/rules/git-aide-always.md", "updated GEMINI.md"]
