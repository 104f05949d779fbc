"""audit (README, Keeping memories true): orphaned, moved, duplicate and stale, on real
histories."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from helpers import aide, aide_ok, code_file, commit, git, make_repo, remember

from git_aide.core import memory


def findings(repo: Path, *args: str) -> list[dict[str, Any]]:
    return aide_ok(repo, "audit", "--json", *args).json()["findings"]


def kinds(repo: Path, *args: str) -> dict[str, str]:
    """uuid -> kind."""
    return {f["uuid"]: f["kind"] for f in findings(repo, *args)}


def backdate(repo: Path, doc: dict[str, Any], when: str = "2020-01-01T00:00:00.000Z") -> None:
    """Make a memory look old (as if written long ago), keeping its file canonical."""
    path = repo / doc["path"]
    record = json.loads(path.read_text())
    record["created_at"] = record["updated_at"] = when
    path.write_bytes(memory.canonical(record))


def test_directory_moved_with_git_mv_gets_the_scope_rewritten(repo: Path) -> None:
    for name in ("login.ts", "tokens.ts", "session.ts"):
        code_file(repo, f"src/auth/{name}")
    doc = remember(repo, "Tokens rotate hourly", "--layer", "area_context",
                   "--scope", "src/auth/**")
    commit(repo, "auth")
    git(repo, "mv", "src/auth", "src/identity")
    commit(repo, "rename auth to identity")

    [f] = findings(repo)
    assert f["uuid"] == doc["uuid"] and f["kind"] == "moved"
    assert f["suggestion"] == {"scope": "src/identity/**"}
    r = aide_ok(repo, "audit")
    # The summary first, then a line per finding.
    head, lines = r.stdout.split("\n\n", 1)
    assert head == "1 finding in 1 memory: 1 moved"  # one finding: no areas, no oldest
    assert lines.startswith(f"{doc['uuid'][:8]} moved: ")
    assert "src/auth/** -> src/identity/**" in r.stdout

    before = json.loads((repo / doc["path"]).read_text())
    fixed = aide_ok(repo, "audit", "--fix")
    assert f"fixed {doc['uuid'][:8]}: scope src/auth/** -> src/identity/** (staged)" in fixed.stdout
    after = json.loads((repo / doc["path"]).read_text())
    assert after["scope"] == "src/identity/**"
    assert after["updated_at"] > before["updated_at"]
    assert doc["path"] in git(repo, "diff", "--cached", "--name-only")
    assert findings(repo) == []
    # The memory is recalled for the code in its new place.
    assert [m["uuid"] for m in aide_ok(repo, "recall", "src/identity/login.ts", "--json")
            .json()["memories"]] == [doc["uuid"]]


def test_file_moved_into_another_folder(repo: Path) -> None:
    code_file(repo, "src/util.py")
    code_file(repo, "src/main.py")
    doc = remember(repo, "util must stay free of imports from main", "--layer", "area_context",
                   "--scope", "src/util.py")
    commit(repo, "util")
    (repo / "lib").mkdir()
    git(repo, "mv", "src/util.py", "lib/util.py")
    commit(repo, "move util")
    [f] = findings(repo)
    assert (f["uuid"], f["kind"], f["suggestion"]) == (doc["uuid"], "moved",
                                                      {"scope": "lib/util.py"})


def test_rename_with_edits_that_git_still_detects(repo: Path) -> None:
    for name in ("a.go", "b.go"):
        code_file(repo, f"pkg/store/{name}")
    doc = remember(repo, "store writes go through the WAL", "--layer", "area_context",
                   "--scope", "pkg/store/*.go")
    commit(repo, "store")
    for name in ("a.go", "b.go"):
        (repo / "pkg/storage").mkdir(exist_ok=True)
        text = (repo / f"pkg/store/{name}").read_text() + "// one more line\n"
        (repo / f"pkg/store/{name}").unlink()
        (repo / f"pkg/storage/{name}").write_text(text)
    commit(repo, "rename store to storage and edit")
    [f] = findings(repo)
    assert f["kind"] == "moved" and f["uuid"] == doc["uuid"]
    assert f["suggestion"] == {"scope": "pkg/storage/*.go"}


def test_deleted_directory_and_a_scope_that_never_matched_are_orphaned(repo: Path) -> None:
    code_file(repo, "legacy/old.c")
    code_file(repo, "src/keep.c")
    gone = remember(repo, "legacy code is frozen", "--layer", "area_context",
                    "--scope", "legacy/**")
    never = remember(repo, "typo in the scope", "--layer", "area_context",
                     "--scope", "srcc/**")
    alive = remember(repo, "keep.c is hot", "--layer", "area_context", "--scope", "src/**")
    commit(repo, "code")
    git(repo, "rm", "-q", "-r", "legacy")
    commit(repo, "drop legacy")
    got = kinds(repo)
    assert got == {gone["uuid"]: "orphaned", never["uuid"]: "orphaned"}
    assert alive["uuid"] not in got
    # At the commit before the removal, only the typo was orphaned.
    assert kinds(repo, "--rev", "HEAD~1") == {never["uuid"]: "orphaned"}
    # A folder that exists on disk (empty, so git does not track it) is a place the
    # scope still names: not orphaned in the working tree, still orphaned in HEAD.
    (repo / "srcc").mkdir()
    assert never["uuid"] not in kinds(repo)
    assert never["uuid"] in kinds(repo, "--rev", "HEAD")


def test_duplicates_within_a_layer_name_the_older_one(repo: Path) -> None:
    code_file(repo, "src/api/users.py")
    old = remember(repo, "The users endpoint paginates with a cursor, never an offset",
                   "--layer", "area_context", "--scope", "src/api/**")
    backdate(repo, old, "2024-01-01T00:00:00.000Z")
    new = remember(repo, "The users endpoint paginates with a cursor and never an offset",
                   "--layer", "area_context", "--scope", "src/api/users.py")
    assert new["warnings"] and old["uuid"] in new["warnings"][0]
    other_layer = remember(repo, "The users endpoint paginates with a cursor, never an "
                           "offset", "--layer", "technical")
    elsewhere = remember(repo, "The users endpoint paginates with a cursor, never an offset",
                         "--layer", "area_context", "--scope", "docs/**")
    commit(repo, "memories")
    dups = [f for f in findings(repo) if f["kind"] == "duplicate"]
    assert len(dups) == 1
    assert dups[0]["uuid"] == old["uuid"] and dups[0]["other"] == new["uuid"]
    assert other_layer["uuid"] not in {dups[0]["uuid"], dups[0]["other"]}
    assert elsewhere["uuid"] not in {dups[0]["uuid"], dups[0]["other"]}


def test_remember_warns_about_a_near_duplicate_and_still_writes(repo: Path) -> None:
    first = remember(repo, "Retry uploads three times with exponential backoff")
    r = aide_ok(repo, "remember", "Retry uploads three times with an exponential backoff")
    assert f"near duplicate of {first['uuid']}" in r.stderr
    assert r.stdout.startswith("Remembered ")
    assert len(list((repo / ".aide/memories/technical").glob("*.json"))) == 2
    unrelated = remember(repo, "Thumbnails are generated lazily")
    assert unrelated["warnings"] == []


def test_stale_when_the_code_under_it_churned_since_it_was_written(repo: Path) -> None:
    code_file(repo, "src/billing/ledger.py")
    code_file(repo, "src/other.py")
    doc = remember(repo, "the ledger is append-only", "--layer", "area_context",
                   "--scope", "src/billing/**")
    quiet = remember(repo, "other.py is generated", "--layer", "area_context",
                     "--scope", "src/other.py")
    backdate(repo, doc)
    backdate(repo, quiet)
    commit(repo, "memories")
    for i in range(9):
        (repo / "src/billing/ledger.py").write_text(f"version {i}\n")
        commit(repo, f"ledger {i}")
    assert kinds(repo) == {}  # 9 commits: not yet
    (repo / "src/billing/ledger.py").write_text("version 9\n")
    commit(repo, "ledger 9")
    [f] = findings(repo)
    assert (f["uuid"], f["kind"]) == (doc["uuid"], "stale")
    assert "10 commits" in f["message"]
    git(repo, "config", "aide.audit.churnCommits", "11")
    assert findings(repo) == []
    git(repo, "config", "aide.audit.churnCommits", "10")
    # A fresh memory is not stale however much the code changed.
    aide_ok(repo, "update", doc["uuid"][:8], "--why", "re-read 2026")
    assert findings(repo) == []


def test_paths_strict_json_and_bad_usage(repo: Path) -> None:
    gone = remember(repo, "the worker pool is fixed", "--layer", "area_context",
                    "--scope", "worker/**")
    other = remember(repo, "the queue is FIFO", "--layer", "area_context", "--scope", "queue/**")
    commit(repo, "memories")
    assert set(kinds(repo)) == {gone["uuid"], other["uuid"]}
    assert set(kinds(repo, "--", "worker/pool.py")) == {gone["uuid"]}
    r = aide(repo, "audit", "--strict")
    assert r.returncode == 1 and "2 findings" in r.stderr and "Traceback" not in r.stderr
    doc = aide_ok(repo, "audit", "--json", "--cached").json()
    assert doc["source"] == {"kind": "index", "rev": None, "commit": None}
    r = aide(repo, "audit", "--fix", "--rev", "HEAD")
    assert r.returncode == 2 and r.stderr.startswith("git-aide: error:")
    r = aide(repo, "audit", "--rev", "no-such-rev")
    assert r.returncode == 1 and "names no commit" in r.stderr


def test_bare_clone_and_empty_repository(repo: Path, tmp_path: Path) -> None:
    code_file(repo, "src/auth/a.ts")
    code_file(repo, "src/auth/b.ts")
    doc = remember(repo, "auth is stateless", "--layer", "area_context", "--scope", "src/auth/**")
    commit(repo, "auth")
    git(repo, "mv", "src/auth", "src/identity")
    commit(repo, "move")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    assert kinds(bare, "--rev", "HEAD") == {doc["uuid"]: "moved"}
    assert kinds(bare, "--rev", "HEAD~1") == {}
    empty = make_repo(tmp_path / "empty")
    assert aide_ok(empty, "audit").stdout.startswith("No findings")
    remember(empty, "not committed yet", "--layer", "area_context", "--scope", "x/**")
    assert list(kinds(empty).values()) == ["orphaned"]


def test_hooks_never_block_and_doctor_mentions_audit(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "hooked", hooks=True)
    code_file(repo, "app.py")
    remember(repo, "the old module is special", "--layer", "area_context",
             "--scope", "oldmodule/**")
    commit(repo, "orphaned from the start")  # the pre-commit hook lets it through
    r = aide_ok(repo, "doctor")
    notes = [line for line in r.stdout.splitlines() if "audit" in line]
    assert notes == ["note: 1 memory with a scope that matches no file any more: "
                     "`git aide audit` lists them"]


def test_bad_settings_are_one_line_errors_naming_the_key(repo: Path) -> None:
    code_file(repo, "src/billing/ledger.py")
    doc = remember(repo, "the ledger is append-only", "--layer", "area_context",
                   "--scope", "src/billing/**")
    backdate(repo, doc)
    commit(repo, "ledger")
    for key, value in (("duplicateThreshold", "nan"), ("duplicateThreshold", "1.5"),
                       ("duplicateThreshold", "abc"), ("churnCommits", "-1"),
                       ("staleDays", "-3")):
        git(repo, "config", f"aide.audit.{key}", value)
        r = aide(repo, "audit")
        assert r.returncode == 1, (key, value, r.stderr)
        assert r.stderr.startswith(f"git-aide: error: git config aide.audit.{key} is "
                                   f"'{value}'") and "internal error" not in r.stderr
        git(repo, "config", "--unset", f"aide.audit.{key}")
    # A number of days too large for a date is no crash: nothing is that old.
    git(repo, "config", "aide.audit.churnCommits", "0")
    git(repo, "config", "aide.audit.staleDays", "99999999999999")
    assert findings(repo) == []


def test_threshold_zero_turns_the_duplicate_check_off(repo: Path) -> None:
    git(repo, "config", "aide.audit.duplicateThreshold", "0")
    remember(repo, "Retry uploads three times")
    assert remember(repo, "Thumbnails are generated lazily")["warnings"] == []
    assert remember(repo, "Retry uploads three times please")["warnings"] == []
    assert findings(repo) == []


def test_code_deleted_on_disk_or_leaving_only_ignored_files_is_orphaned(repo: Path) -> None:
    code_file(repo, "legacy/old.py")
    code_file(repo, "tools/gen.py")
    code_file(repo, "keep.py")
    (repo / ".gitignore").write_text("__pycache__/\ndist/\n")
    legacy = remember(repo, "legacy code is frozen", "--layer", "area_context",
                      "--scope", "legacy/**")
    tools = remember(repo, "the generators run in CI", "--layer", "area_context",
                     "--scope", "tools/**")
    dist = remember(repo, "dist is built by make, never edited", "--layer", "area_context",
                    "--scope", "dist/**")
    commit(repo, "code")
    (repo / "dist").mkdir()
    (repo / "dist/app.js").write_text("built\n")
    # Deleted from disk, not yet from the index: gone in the working tree only.
    (repo / "tools/gen.py").unlink()
    assert kinds(repo) == {tools["uuid"]: "orphaned"}
    assert tools["uuid"] not in kinds(repo, "--cached")
    # Removed with git, but Python left its ignored cache behind in the folder.
    (repo / "legacy/__pycache__").mkdir()
    (repo / "legacy/__pycache__/old.cpython-311.pyc").write_text("x")
    git(repo, "rm", "-q", "-r", "legacy", "tools")
    commit(repo, "drop legacy and tools")
    assert kinds(repo) == {legacy["uuid"]: "orphaned", tools["uuid"]: "orphaned"}
    # A folder of ignored files that were never tracked is still a place it names.
    assert dist["uuid"] not in kinds(repo)


def test_a_memory_moved_to_another_layer_after_the_rename_is_still_moved(repo: Path) -> None:
    code_file(repo, "src/auth/login.ts")
    code_file(repo, "src/auth/tokens.ts")
    doc = remember(repo, "Tokens rotate hourly", "--layer", "area_context",
                   "--scope", "src/auth/**")
    commit(repo, "auth")
    git(repo, "mv", "src/auth", "src/identity")
    commit(repo, "rename auth to identity")
    aide_ok(repo, "update", doc["uuid"][:8], "--layer", "technical")
    commit(repo, "it is more than area context")
    [f] = findings(repo)
    assert f["kind"] == "moved" and f["suggestion"] == {"scope": "src/identity/**"}
    assert f["path"].startswith(".aide/memories/technical/")


def test_no_findings_counts_the_memories_it_audited(repo: Path) -> None:
    code_file(repo, "src/a.py")
    code_file(repo, "lib/b.py")
    remember(repo, "a is the entry point", "--layer", "area_context", "--scope", "src/**")
    assert aide_ok(repo, "audit").stdout == "No findings in 1 memory.\n"
    remember(repo, "b has no dependencies", "--layer", "area_context", "--scope", "lib/**")
    assert aide_ok(repo, "audit").stdout == "No findings in 2 memories.\n"
    assert aide_ok(repo, "audit", "--", "lib").stdout == "No findings in 1 memory.\n"


def test_files_moved_into_and_out_of_the_root_and_renamed_twice(repo: Path) -> None:
    code_file(repo, "top.md")
    code_file(repo, "docs/guide.md")
    code_file(repo, "src/a/foo.ts")
    code_file(repo, "src/a/keep.ts")
    top = remember(repo, "top.md is the landing page", "--layer", "area_context",
                   "--scope", "top.md")
    guide = remember(repo, "the guide is translated", "--layer", "area_context",
                     "--scope", "docs/guide.md")
    foo = remember(repo, "foo is generated", "--layer", "area_context",
                   "--scope", "src/a/foo.ts")
    folder = remember(repo, "the a folder is typed strictly", "--layer", "area_context",
                      "--scope", "src/a/*.ts")
    commit(repo, "code")
    (repo / "site").mkdir()
    git(repo, "mv", "top.md", "site/top.md")
    git(repo, "mv", "docs/guide.md", "guide.md")
    git(repo, "mv", "src/a/foo.ts", "src/a/bar.ts")
    commit(repo, "move files")
    git(repo, "mv", "src/a", "src/b")
    commit(repo, "move the folder")
    got = {f["uuid"]: (f["kind"], f["suggestion"]) for f in findings(repo)}
    # foo.ts renamed twice is one file, not two.
    assert [f["message"] for f in findings(repo) if f["uuid"] == folder["uuid"]] == [
        "2 files it matched moved from src/a to src/b: scope src/a/*.ts -> src/b/*.ts"]
    del got[folder["uuid"]]
    assert got == {top["uuid"]: ("moved", {"scope": "site/top.md"}),
                   guide["uuid"]: ("moved", {"scope": "guide.md"}),
                   foo["uuid"]: ("moved", {"scope": "src/b/bar.ts"})}


def test_a_plain_mv_not_yet_added_is_moved_in_the_working_tree(repo: Path) -> None:
    code_file(repo, "src/auth/login.ts")
    code_file(repo, "src/auth/tokens.ts")
    doc = remember(repo, "Tokens rotate hourly", "--layer", "area_context",
                   "--scope", "src/auth/**")
    commit(repo, "auth")
    (repo / "src/auth").rename(repo / "src/identity")  # mv, not git mv
    status = git(repo, "status", "--porcelain")
    [f] = findings(repo)
    assert (f["uuid"], f["kind"], f["suggestion"]) == (doc["uuid"], "moved",
                                                      {"scope": "src/identity/**"})
    assert findings(repo, "--cached") == []  # the index has not seen the move
    assert git(repo, "status", "--porcelain") == status  # and audit left it alone


def test_brace_alternatives_that_moved_to_different_places(repo: Path) -> None:
    code_file(repo, "src/a/x.ts")
    code_file(repo, "docs/k.md")
    code_file(repo, "docs/l.md")
    doc = remember(repo, "x and the docs change together", "--layer", "area_context",
                   "--scope", "{src/a,docs}/**")
    commit(repo, "code")
    git(repo, "mv", "src", "code")
    git(repo, "mv", "docs", "documentation")
    commit(repo, "move both")
    [f] = findings(repo)
    assert (f["uuid"], f["kind"]) == (doc["uuid"], "moved")
    assert f["suggestion"] == {"scope": "{code/a/**,documentation/**}"}
    aide_ok(repo, "audit", "--fix")
    assert findings(repo) == []


def test_audit_advises_forget_only_when_the_two_say_the_same_words(repo: Path) -> None:
    """Different named things are different facts: "the trigger API endpoint is X" and
    "the batch trigger API endpoint is Y" are compared, not one of them forgotten."""
    old = remember(repo, "The trigger API endpoint is X")
    backdate(repo, old, "2024-01-01T00:00:00.000Z")
    new = remember(repo, "The batch trigger API endpoint is Y")
    same_old = remember(repo, "Deploys happen on Fridays, after the freeze", "--layer",
                        "guidelines")
    backdate(repo, same_old, "2024-01-01T00:00:00.000Z")
    remember(repo, "deploys happen on fridays after the freeze!", "--layer", "guidelines")
    commit(repo, "memories")
    by_uuid = {f["uuid"]: f for f in findings(repo) if f["kind"] == "duplicate"}
    assert by_uuid[old["uuid"]]["other"] == new["uuid"]
    lines = {line.split()[0]: line for line in
             aide_ok(repo, "audit").stdout.split("\n\n", 1)[1].splitlines()}
    different = lines[old["uuid"][:8]]
    assert "forget it" not in different and f"git aide show {new['uuid'][:8]}" in different
    assert "(forget it: `git aide forget " in lines[same_old["uuid"][:8]]


def test_the_summary_comes_first_counts_by_kind_area_and_age(repo: Path) -> None:
    code_file(repo, "app/main.py")
    fine = remember(repo, "main starts the server", "--layer", "area_context",
                    "--scope", "app/**")
    api = remember(repo, "the v0 API is frozen", "--layer", "area_context",
                   "--scope", "legacy/api/**")
    v1 = remember(repo, "v1 handlers are generated", "--layer", "area_context",
                  "--scope", "legacy/api/v1/*.py")
    old = remember(repo, "old is kept for the importer", "--layer", "area_context",
                   "--scope", "old/**")
    backdate(repo, v1, "2020-01-01T00:00:00.000Z")
    backdate(repo, old, "2021-06-01T00:00:00.000Z")
    commit(repo, "memories")
    r = aide_ok(repo, "audit")
    head, lines = r.stdout.split("\n\n", 1)
    assert head.splitlines() == [
        "3 findings in 4 memories: 3 orphaned",
        "areas with most findings:",
        "  2  legacy/api/  2 orphaned",
        "  1  old/         1 orphaned",
        "oldest first:",
        f"  {v1['uuid'][:8]}  2020-01-01  orphaned   legacy/api/",
        f"  {old['uuid'][:8]}  2021-06-01  orphaned   old/",
        f"  {api['uuid'][:8]}  {api_day(repo, api)}  orphaned   legacy/api/",
    ]
    assert len(lines.splitlines()) == 3 and fine["uuid"][:8] not in r.stdout
    summary = aide_ok(repo, "audit", "--json").json()["summary"]
    assert summary["findings"] == 3 and summary["audited"] == 4
    assert summary["by_kind"] == {"orphaned": 3}
    assert summary["areas"] == [
        {"area": "legacy/api", "findings": 2, "by_kind": {"orphaned": 2}},
        {"area": "old", "findings": 1, "by_kind": {"orphaned": 1}}]
    assert [o["uuid"] for o in summary["oldest"]] == [v1["uuid"], old["uuid"], api["uuid"]]
    assert summary["oldest"][0] == {"uuid": v1["uuid"], "kind": "orphaned",
                                    "area": "legacy/api",
                                    "updated_at": "2020-01-01T00:00:00.000Z"}
    [f] = [f for f in findings(repo) if f["uuid"] == old["uuid"]]
    assert (f["area"], f["updated_at"]) == ("old", "2021-06-01T00:00:00.000Z")
    r = aide(repo, "audit", "--strict")
    assert r.returncode == 1
    assert r.stderr == "git-aide: error: 3 findings (3 orphaned); see `git aide audit`\n"


def api_day(repo: Path, doc: dict[str, Any]) -> str:
    """The day a memory was last written."""
    return json.loads((repo / doc["path"]).read_text())["updated_at"][:10]
