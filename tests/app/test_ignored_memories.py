"""A repository whose ignore rules hide the memories (issue 36, item 17): browser-use's
.gitignore holds `*.json`. Shared memories are meant to be committed whatever it
ignores: every command that stages them stages them anyway (`git add --force`, those
exact paths), says so once with the line that stops it, and `init` and `doctor` name the
rule and the fix (gitio/staging.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import MEM, McpServer, aide, aide_ok, git, make_repo, remember

#: The memory file a check-ignore stands for.
PROBES = [f"{MEM}/{f}/0b5e4a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b.json"
          for f in ("technical", "area_context", "guidelines", "preferences/shared")]


def ignoring(tmp_path: Path, *patterns: str) -> Path:
    """A repository whose committed .gitignore holds `patterns`, then `git aide init`."""
    repo = make_repo(tmp_path / "repo", init=False)
    (repo / ".gitignore").write_text("".join(p + "\n" for p in patterns))
    (repo / "package.json").write_text("{}\n")
    git(repo, "add", "--force", ".gitignore")
    git(repo, "commit", "-qm", "ignore json")
    aide_ok(repo, "init", "--no-hooks")
    return repo


def staged(repo: Path) -> set[str]:
    return set(git(repo, "diff", "--cached", "--name-only", "--no-renames").split())


def hidden(repo: Path, paths: list[str]) -> list[str]:
    """Which of `paths` git's ignore rules hide (tracked or not)."""
    out = git(repo, "check-ignore", "--no-index", "--stdin", check=False,
              input="".join(p + "\n" for p in paths))
    return out.split()


def notices(stderr: str) -> list[str]:
    return [x for x in stderr.splitlines() if ".gitignore" in x]


def test_remember_stages_a_memory_json_is_ignored_for(tmp_path: Path) -> None:
    repo = ignoring(tmp_path, "*.json")
    r = aide(repo, "remember", "use pnpm, not npm", "--json")
    assert r.returncode == 0, r.stderr
    doc = r.json()
    assert doc["staged"] is True
    assert doc["path"] in staged(repo)
    said = notices(r.stderr)
    assert len(said) == 1, r.stderr
    assert ".gitignore:1: *.json ignores " + doc["path"] in said[0]
    assert "staged anyway" in said[0] and "`!.aide/**/*.json`" in said[0]
    # Nothing else was forced in: the file .gitignore means stays out.
    assert "package.json" not in staged(repo)


def test_the_fix_line_the_note_gives_makes_memories_tracked_again(tmp_path: Path) -> None:
    repo = ignoring(tmp_path, "*.json")
    assert hidden(repo, PROBES) == PROBES
    with (repo / ".gitignore").open("a") as f:
        f.write("!.aide/**/*.json\n")
    assert hidden(repo, PROBES) == []
    # Personal memories stay ignored, and other json files too.
    assert hidden(repo, [f"{MEM}/preferences/personal/x.json", "package.json"]) == [
        f"{MEM}/preferences/personal/x.json", "package.json"]
    r = aide_ok(repo, "remember", "no note now")
    assert notices(r.stderr) == []
    assert "ok: shared memory files are not ignored" in aide(repo, "doctor").stdout


def test_a_hidden_aide_folder_needs_its_own_line(tmp_path: Path) -> None:
    """`.*` hides the .aide folder itself: no pattern about its files reaches inside."""
    repo = ignoring(tmp_path, ".*", "*.json")
    r = aide(repo, "remember", "behind a dot folder", "--json")
    assert r.returncode == 0, r.stderr
    assert r.json()["path"] in staged(repo)
    said = notices(r.stderr)
    assert len(said) == 1 and "`!.aide/` and `!.aide/**/*.json`" in said[0], r.stderr
    with (repo / ".gitignore").open("a") as f:
        f.write("!.aide/\n!.aide/**/*.json\n")
    assert hidden(repo, PROBES) == []
    assert hidden(repo, [f"{MEM}/preferences/personal/x.json"]) != []


def test_personal_memories_are_never_forced_in(tmp_path: Path) -> None:
    repo = ignoring(tmp_path, "*.json")
    r = aide(repo, "remember", "my own preference", "--personal", "--json")
    assert r.returncode == 0, r.stderr
    assert not any(p.startswith(f"{MEM}/preferences/personal/") for p in staged(repo))
    assert hidden(repo, [r.json()["path"]]) == [r.json()["path"]]
    assert notices(r.stderr) == []


def test_update_forget_and_import_stage_the_same(tmp_path: Path) -> None:
    repo = ignoring(tmp_path, "*.json")
    doc = remember(repo, "moves to another layer")
    git(repo, "commit", "-qm", "memories")
    moved = aide(repo, "update", doc["uuid"], "--layer", "guidelines", "--json")
    assert moved.returncode == 0, moved.stderr
    new_path = moved.json()["path"]
    assert {new_path, doc["path"]} <= staged(repo)  # the new file added, the old removed
    assert len(notices(moved.stderr)) == 1
    git(repo, "commit", "-qm", "moved")
    # A tracked file is not hidden: changing it needs no note.
    changed = aide(repo, "update", doc["uuid"], "--what", "changed text")
    assert changed.returncode == 0 and notices(changed.stderr) == [], changed.stderr
    assert new_path in staged(repo)
    gone = aide(repo, "forget", doc["uuid"])
    assert gone.returncode == 0, gone.stderr
    assert new_path not in git(repo, "ls-files", "--", MEM)

    (repo / "CLAUDE.md").write_text("# Rules\n\n- Always run the linter before pushing.\n"
                                    "- Prefer small pull requests over large ones.\n")
    imp = aide(repo, "import", "CLAUDE.md", "--json")
    assert imp.returncode == 0, imp.stderr
    paths = [m["path"] for m in imp.json()["imported"]]
    assert len(paths) == 2 and set(paths) <= staged(repo)
    assert len(notices(imp.stderr)) == 1, imp.stderr


def test_the_mcp_servers_remember_stages_the_same(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    repo = ignoring(tmp_path, "*.json")
    srv = McpServer(repo)
    try:
        srv.initialize()
        srv.notify("notifications/initialized")
        res = srv.request(2, "tools/call", {"name": "aide_remember", "arguments": {
            "what": "remembered through the server", "layer": "technical"}})["result"]
    finally:
        _code, err = srv.close()
    assert not res.get("isError"), res
    path = res["structuredContent"]["path"]
    assert path in staged(repo)
    assert res["structuredContent"].get("staged", True) is True
    assert any("staged anyway" in line for line in err.splitlines()), err


def test_doctor_and_init_name_the_rule_and_the_fix(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", init=False)
    (repo / ".gitignore").write_text("node_modules/\n*.json\n")
    r = aide(repo, "init", "--no-hooks")
    assert r.returncode == 0, r.stderr
    said = [x for x in r.stderr.splitlines() if "*.json" in x]
    assert len(said) == 1, r.stderr
    assert ".gitignore:2: *.json ignores the shared memory files" in said[0]
    assert "fix: add `!.aide/**/*.json` at the end of .gitignore" in said[0]
    doc = json.loads(aide(repo, "doctor", "--json").stdout)
    found = [c for c in doc["checks"] if c["check"] == "ignore"]
    assert found and found[0]["ok"] is False
    assert found[0]["fix"] == "add `!.aide/**/*.json` at the end of .gitignore"
    text = aide(repo, "doctor").stdout
    assert "problem: .gitignore:2: *.json ignores the shared memory files" in text
