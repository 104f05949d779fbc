"""`git aide log`, `git aide diff` and the textconv diff driver (README, Reviewing memories in
a pull request),
on real histories built here: adds, changes, a forget, a layer move, a merge."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, aide, aide_ok, git, make_repo, remember

#: git must find `git-aide` for the textconv and the merge driver.
PATH_ENV = {"PATH": os.path.dirname(AIDE[0]) + os.pathsep + os.environ.get("PATH", "")} \
    if len(AIDE) == 1 else {}


def commit(repo: Path, message: str, n: int) -> str:
    """Commit what is staged at a fixed, increasing date; return the commit id."""
    date = f"2025-01-01T00:{n:02d}:00Z"
    git(repo, "commit", "-qm", message, env={"GIT_AUTHOR_DATE": date,
                                             "GIT_COMMITTER_DATE": date})
    return git(repo, "rev-parse", "HEAD").strip()


@pytest.fixture(scope="module")
def hist(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A history: add A and B; change A; move B to another layer; on a branch add C;
    on main forget A; merge the branch (--no-ff). Returns the repo, uuids and commits."""
    repo = make_repo(tmp_path_factory.mktemp("hist") / "repo")
    a = remember(repo, "Use pgbouncer in transaction mode", "--why", "the pool runs out",
                 "--scope", "src/db/**", "--tag", "db")["uuid"]
    b = remember(repo, "Review every migration", "--layer", "guidelines")["uuid"]
    c1 = commit(repo, "first memories", 1)
    aide_ok(repo, "update", a, "--what", "Use pgbouncer in session mode", "--tag", "perf",
            "--untag", "db")
    c2 = commit(repo, "change A", 2)
    aide_ok(repo, "update", b, "--layer", "technical")
    c3 = commit(repo, "move B", 3)
    git(repo, "checkout", "-q", "-b", "feature")
    c = remember(repo, "Sessions expire after 15 minutes", "--layer", "area_context",
                 "--scope", "src/auth/**")["uuid"]
    c4 = commit(repo, "add C", 4)
    git(repo, "checkout", "-q", "main")
    aide_ok(repo, "forget", a)
    c5 = commit(repo, "forget A", 5)
    git(repo, "tag", "before-merge")
    date = "2025-01-01T00:06:00Z"
    git(repo, "merge", "-q", "--no-ff", "-m", "merge feature", "feature",
        env={"GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date})
    merge = git(repo, "rev-parse", "HEAD").strip()
    return {"repo": repo, "a": a, "b": b, "c": c, "c1": c1, "c2": c2, "c3": c3, "c4": c4,
            "c5": c5, "merge": merge}


def changes(doc: dict[str, Any]) -> list[tuple[str, str, str]]:
    """(subject, change, uuid) of every change of a log document, in order."""
    return [(c["subject"], ch["change"], ch["uuid"]) for c in doc["commits"]
            for ch in c["changes"]]


def test_log_lists_each_change_newest_first_with_merges_against_first_parent(hist):
    doc = aide_ok(hist["repo"], "log", "--json").json()
    a, b, c = hist["a"], hist["b"], hist["c"]
    assert changes(doc) == [
        ("merge feature", "added", c),  # what the merge brought to main
        ("forget A", "forgotten", a),
        ("add C", "added", c),
        ("move B", "moved", b),
        ("change A", "changed", a),
        ("first memories", "added", a),
        ("first memories", "added", b),
    ]
    first = doc["commits"][0]
    assert first["commit"] == hist["merge"]
    assert (first["author"], first["email"]) == ("Ada Tester", "ada@example.com")
    assert first["date"].startswith("2025-01-01T00:06:00")
    by_subject = {c["subject"]: c for c in doc["commits"]}
    changed = by_subject["change A"]["changes"][0]
    assert {"what", "tags"} <= set(changed["fields"]) and "why" not in changed["fields"]
    assert changed["memory"]["what"] == "Use pgbouncer in session mode"
    moved = by_subject["move B"]["changes"][0]
    assert "layer" in moved["fields"]
    assert moved["memory"]["path"] == f".aide/memories/technical/{b}.json"
    gone = by_subject["forget A"]["changes"][0]["memory"]
    assert gone["what"] == "Use pgbouncer in session mode"  # the memory before it went


def test_log_uuid_follows_a_memory_across_a_move_and_after_it_was_forgotten(hist):
    repo = hist["repo"]
    doc = aide_ok(repo, "log", "--uuid", hist["b"][:6], "--json").json()
    assert [(s, ch) for s, ch, _u in changes(doc)] == [("move B", "moved"),
                                                       ("first memories", "added")]
    doc = aide_ok(repo, "log", "--uuid", hist["a"], "--json").json()
    assert [ch for _s, ch, _u in changes(doc)] == ["forgotten", "changed", "added"]
    r = aide(repo, "log", "--uuid", "ffffffff")
    assert r.returncode == 1 and r.stderr.startswith("git-aide: error: no memory with id")
    assert "Traceback" not in r.stderr


def test_log_ranges_reverse_limit_and_paths(hist):
    repo = hist["repo"]
    doc = aide_ok(repo, "log", f"{hist['c2']}..before-merge", "--json").json()
    assert [c["subject"] for c in doc["commits"]] == ["forget A", "move B"]
    doc = aide_ok(repo, "log", "--reverse", "--limit", "2", "--json").json()
    assert [c["subject"] for c in doc["commits"]] == ["forget A", "merge feature"]
    # A is scoped to src/db/**, B is project-wide (relevant everywhere), C is src/auth/**.
    doc = aide_ok(repo, "log", "--json", "--", "src/db/pool.py").json()
    seen = {u for _s, _c, u in changes(doc)}
    assert seen == {hist["a"], hist["b"]}
    doc = aide_ok(repo, "log", "--all", "--json", "--", "src/auth/").json()
    assert hist["c"] in {u for _s, _c, u in changes(doc)}
    assert hist["a"] not in {u for _s, _c, u in changes(doc)}
    r = aide(repo, "log", "no-such-branch")
    assert r.returncode == 1 and "git-aide: error:" in r.stderr and "Traceback" not in r.stderr


def test_log_text_reads_like_git_log(hist):
    r = aide_ok(hist["repo"], "log", "-n", "1")
    assert r.stdout.startswith(f"commit {hist['merge']}\n")
    assert "merge feature" in r.stdout and "added" in r.stdout and hist["c"][:8] in r.stdout
    assert "\x1b[" not in r.stdout  # no colour in a pipe


def test_diff_between_commits_and_ranges(hist):
    repo = hist["repo"]
    doc = aide_ok(repo, "diff", hist["c1"], "HEAD", "--json").json()
    assert doc["from"] == {"kind": "rev", "rev": hist["c1"], "commit": hist["c1"]}
    assert doc["to"]["commit"] == hist["merge"]
    assert [m["uuid"] for m in doc["added"]] == [hist["c"]]
    assert [m["uuid"] for m in doc["forgotten"]] == [hist["a"]]
    (moved,) = doc["changed"]
    assert moved["uuid"] == hist["b"] and "layer" in moved["fields"]
    assert moved["before"]["layer"] == "guidelines" and moved["after"]["layer"] == "technical"
    same = aide_ok(repo, "diff", f"{hist['c1']}..HEAD", "--json").json()
    assert same["added"] == doc["added"] and same["changed"] == doc["changed"]
    # A...B: from the merge base, what the branch adds; A..B: everything between the tips.
    three = aide_ok(repo, "diff", "before-merge...feature", "--json").json()
    assert three["from"]["commit"] == hist["c3"]
    assert [m["uuid"] for m in three["added"]] == [hist["c"]]
    assert three["forgotten"] == [] and three["changed"] == []
    two = aide_ok(repo, "diff", "before-merge..feature", "--json").json()
    assert {m["uuid"] for m in two["added"]} == {hist["a"], hist["c"]}


def test_diff_exit_code_stat_markdown_and_word_diff(hist):
    repo = hist["repo"]
    assert aide(repo, "diff", "HEAD", "HEAD", "--exit-code").returncode == 0
    r = aide(repo, "diff", hist["c1"], hist["c2"], "--exit-code")
    assert r.returncode == 1 and "Traceback" not in r.stderr
    text = aide_ok(repo, "diff", hist["c1"], hist["c2"]).stdout
    assert "what: Use pgbouncer in [-transaction-]{+session+} mode" in text
    assert "{++perf+}" in text and "[--db-]" in text and "\x1b[" not in text
    stat = aide_ok(repo, "diff", "--stat", hist["c1"], "HEAD").stdout
    assert "area_context  1 added, 0 changed, 0 forgotten" in stat
    assert "technical     0 added, 1 changed, 1 forgotten" in stat
    md = aide_ok(repo, "diff", "--format", "markdown", hist["c1"], "HEAD").stdout
    assert md.startswith("## Memory changes\n")
    assert "### area_context" in md and "### technical" in md
    assert "**added**" in md and "**forgotten**" in md and "moved from `guidelines`" in md
    doc = aide_ok(repo, "diff", "--json", hist["c1"], "HEAD").json()
    from git_aide.render import review

    assert review.markdown(doc) == md
    r = aide(repo, "diff", "--stat", "--json")
    assert r.returncode == 2 and r.stderr.startswith("git-aide: error:")


def test_diff_paths_keep_relevant_memories_on_either_side(hist):
    repo = hist["repo"]
    doc = aide_ok(repo, "diff", hist["c1"], "HEAD", "--json", "--", "src/auth/login.py").json()
    assert [m["uuid"] for m in doc["added"]] == [hist["c"]]
    assert doc["forgotten"] == []  # A is about src/db
    doc = aide_ok(repo, "diff", hist["c1"], "HEAD", "--json", "--", "src/db/").json()
    assert [m["uuid"] for m in doc["forgotten"]] == [hist["a"]] and doc["added"] == []


def test_diff_worktree_index_and_personal(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    # No commit yet: HEAD is taken as empty, log is empty, and nothing breaks.
    assert aide_ok(repo, "log", "--json").json() == {"commits": []}
    assert aide_ok(repo, "diff", "--json").json()["added"] == []
    d = remember(repo, "Deploys go through the staging cluster")["uuid"]
    remember(repo, "I like short answers", "--personal")
    doc = aide_ok(repo, "diff", "--json").json()
    assert [m["uuid"] for m in doc["added"]] == [d]  # the personal memory never shows
    assert doc["from"] == {"kind": "rev", "rev": "HEAD", "commit": None}
    assert doc["to"]["kind"] == "worktree"
    assert aide(repo, "diff", "--exit-code").returncode == 1
    r = aide(repo, "log", "HEAD")
    assert r.returncode == 1 and r.stderr.startswith("git-aide: error:")
    assert "Traceback" not in r.stderr
    commit(repo, "one", 1)
    assert aide_ok(repo, "diff", "--exit-code").stdout.strip() == "No memory changes."
    aide_ok(repo, "update", d, "--what", "Deploys go through the canary cluster", "--no-stage")
    staged = aide_ok(repo, "diff", "--cached", "--json").json()
    assert staged["to"]["kind"] == "index" and staged["changed"] == []
    (ch,) = aide_ok(repo, "diff", "--json").json()["changed"]
    assert ch["before"]["what"].endswith("staging cluster")
    assert ch["after"]["what"].endswith("canary cluster")
    e = remember(repo, "Never print tokens", "--layer", "guidelines", "--no-stage")["uuid"]
    doc = aide_ok(repo, "diff", "HEAD", "--json").json()
    assert [m["uuid"] for m in doc["added"]] == [e]  # untracked, read from the disk
    doc = aide_ok(repo, "log", "--json").json()
    assert [c["subject"] for c in doc["commits"]] == ["one"]
    assert all(ch["uuid"] == d for c in doc["commits"] for ch in c["changes"])


def test_bare_clone_log_and_diff(hist, tmp_path: Path):
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(hist["repo"]), str(bare))
    doc = aide_ok(bare, "log", "--json").json()
    assert len(doc["commits"]) == 6
    doc = aide_ok(bare, "diff", hist["c1"], "main", "--json").json()
    assert [m["uuid"] for m in doc["added"]] == [hist["c"]]
    r = aide(bare, "diff")
    assert r.returncode == 1 and "bare" in r.stderr and "Traceback" not in r.stderr


def test_textconv_makes_git_diff_log_and_show_readable(hist):
    repo = hist["repo"]
    env = PATH_ENV
    for args in (("diff", hist["c1"], hist["c2"]), ("log", "-p", "-1", hist["c2"]),
                 ("show", hist["c2"])):
        out = git(repo, *args, env=env)
        assert "-  Use pgbouncer in transaction mode" in out, args
        assert "+  Use pgbouncer in session mode" in out, args
        assert "-tags:" in out and "+tags:" in out
        assert '"what":' not in out  # no JSON punctuation
    shown = git(repo, "show", hist["c1"], env=env)
    assert "+layer:" in shown and "+scope:" in shown and "+why:" in shown


def test_textconv_prints_a_file_it_cannot_read_as_it_is(tmp_path: Path):
    odd = tmp_path / "odd.json"
    for data in (b'{"not": "a memory"\n', b"\xff\xfe binary \x00 bytes", b'["list"]',
                 b'{"what": 3}'):
        odd.write_bytes(data)
        proc = subprocess.run([*AIDE, "textconv", str(odd)], capture_output=True,
                              env=BASE_ENV, cwd=tmp_path)
        # As it is, but for its control characters (a NUL too), escaped as everywhere.
        assert proc.returncode == 0 and proc.stdout == data.replace(b"\x00", b"\\u0000")
    r = aide(tmp_path, "textconv", str(tmp_path / "missing.json"))
    assert r.returncode == 1 and r.stderr.startswith("git-aide: error:")


def test_init_upgrades_an_older_attribute_line_and_uninstall_removes_textconv(tmp_path: Path):
    repo = make_repo(tmp_path / "repo", init=False)
    (repo / ".gitattributes").write_text("*.png binary\n.aide/memories/**/*.json merge=aide\n")
    aide_ok(repo, "init", "--no-hooks")
    assert (repo / ".gitattributes").read_text() == (
        "*.png binary\n.aide/memories/**/*.json merge=aide diff=aide\n")
    assert git(repo, "config", "diff.aide.textconv").strip() == "git-aide textconv"
    again = aide_ok(repo, "init", "--no-hooks").stdout
    assert "nothing changed" in again
    checks = aide(repo, "doctor", "--json").json()["checks"]
    assert {"check": "textconv", "ok": True} in [
        {"check": c["check"], "ok": c["ok"]} for c in checks]
    assert "ok: memory files use diff=aide" in aide(repo, "doctor").stdout
    git(repo, "config", "--unset", "diff.aide.textconv")
    r = aide(repo, "doctor")
    assert "problem: the textconv diff driver is not configured" in r.stdout
    aide_ok(repo, "init", "--no-hooks")
    done = aide_ok(repo, "init", "--uninstall").stdout
    assert "removed git config diff.aide.textconv" in done
    assert git(repo, "config", "--get", "diff.aide.textconv", check=False) == ""


def test_textconv_starts_without_click_or_orjson(tmp_path: Path):
    f = tmp_path / "m.json"
    f.write_text('{"uuid": "x", "layer": "technical", "what": "hello"}\n')
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "textconv",
                           str(f)], capture_output=True, text=True, env=BASE_ENV)
    assert proc.returncode == 0 and "what:\n  hello" in proc.stdout
    mods = {line.rsplit("|", 1)[1].strip().split(".")[0]
            for line in proc.stderr.splitlines() if line.startswith("import time:")}
    assert not mods & {"click", "orjson", "pygit2", "rich", "subprocess"}


HISTORY_ARGVS = [
    ["log", "--json"], ["log"], ["log", "-n", "2", "--reverse"], ["log", "--limit=1", "--json"],
    ["log", "--all", "--json", "--", "src/auth/"], ["log", "--uuid", "nope"],
    ["log", "no-such-rev"], ["diff", "--json"], ["diff", "HEAD~2", "HEAD"],
    ["diff", "--stat", "HEAD~3..HEAD"], ["diff", "--format", "markdown", "HEAD~3...feature"],
    ["diff", "--format=markdown", "HEAD~3", "HEAD", "--", "src/db/"],
    ["diff", "--exit-code", "HEAD~1", "HEAD"], ["diff", "--cached", "--exit-code"],
    ["diff", "--stat", "--json"], ["diff", "a", "b", "c"],
]


@pytest.mark.parametrize("argv", HISTORY_ARGVS, ids=[" ".join(a) for a in HISTORY_ARGVS])
def test_history_same_answer_with_and_without_click(hist, argv):
    fast = aide(hist["repo"], *argv)
    slow = aide(hist["repo"], *argv, env={"GIT_AIDE_NO_FASTPATH": "1"})
    assert (fast.returncode, fast.stdout, fast.stderr) == \
        (slow.returncode, slow.stdout, slow.stderr)
    assert "Traceback" not in fast.stderr


def test_history_options_click_owns_are_left_to_it():
    from git_aide.cli.argv import parse as parse_history

    for argv in (["log", "-h"], ["diff", "--format", "html"], ["log", "--limit", "x"],
                 ["diff", "--frobnicate"], ["log", "-n"]):
        assert parse_history(argv) is None
    assert parse_history(["diff", "A...B", "--json", "--", "src/"]) == (
        "diff", {"as_json": True, "revs": ["A...B"], "paths": ["src/"]})


def test_a_cold_cache_and_a_warm_one_give_the_same_history(hist, tmp_path: Path):
    repo = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(hist["repo"]), str(repo))
    warm_log = aide_ok(hist["repo"], "log", "--all", "--json").stdout
    warm_diff = aide_ok(hist["repo"], "diff", hist["c1"], "HEAD", "--json").stdout
    # A fresh clone has no cache; --uuid first, so that its narrowed read is not kept.
    assert aide_ok(repo, "log", "--uuid", hist["a"], "--json").json()["commits"]
    assert aide_ok(repo, "diff", hist["c1"], "HEAD", "--json").stdout == warm_diff
    assert aide_ok(repo, "log", "--all", "--json").stdout == warm_log
    assert aide_ok(repo, "log", "--all", "--json").stdout == warm_log


@pytest.mark.skipif(not shutil.which("script"), reason="needs script(1) for a terminal")
def test_word_diff_in_colour_on_a_terminal_unless_no_color(hist):
    command = " ".join([*AIDE, "diff", hist["c1"], hist["c2"]])

    def on_a_terminal(extra: dict[str, str]) -> str:
        return subprocess.run(["script", "-qc", command, "/dev/null"], cwd=hist["repo"],
                              capture_output=True, text=True,
                              env={**BASE_ENV, "GIT_PAGER": "cat", **extra}).stdout

    coloured = on_a_terminal({})
    assert "\x1b[32msession\x1b[0m" in coloured and "[-transaction-]" not in coloured
    plain = on_a_terminal({"NO_COLOR": "1"})
    assert "\x1b[" not in plain and "[-transaction-]{+session+}" in plain


def test_plain_log_and_diff_start_without_click_or_pygit2(hist):
    repo = hist["repo"]
    for argv in (["log", "--json"], ["diff", hist["c1"], "HEAD", "--json"]):
        aide_ok(repo, *argv)  # warm: the trees' listings and answers are in the cache
        proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", *argv],
                              cwd=repo, capture_output=True, text=True, env=BASE_ENV)
        assert proc.returncode == 0, proc.stderr
        mods = {line.rsplit("|", 1)[1].strip().split(".")[0]
                for line in proc.stderr.splitlines() if line.startswith("import time:")}
        assert not mods & {"click", "pygit2", "rich", "whoosh", "orjson"}, argv


def test_a_uuid_held_by_two_files_counts_once_as_every_read_counts_it(tmp_path: Path):
    repo = make_repo(tmp_path / "repo")
    u = remember(repo, "Deploys go through the staging cluster")["uuid"]
    commit(repo, "one", 1)
    mem = repo / ".aide" / "memories"
    tech = mem / "technical" / f"{u}.json"
    # A stray copy in another layer's folder, and the real one changed: the change shows.
    # (`update` refuses a uuid held by two files, so the copy comes after it.)
    original = tech.read_bytes()
    aide_ok(repo, "update", u, "--what", "Deploys go through the canary cluster", "--no-stage")
    (mem / "guidelines" / f"{u}.json").write_bytes(original)
    r = aide_ok(repo, "diff", "--json")
    (ch,) = r.json()["changed"]
    assert ch["after"]["what"].endswith("canary cluster") and r.json()["added"] == []
    assert f"guidelines/{u}.json: belongs at" in r.stderr
    # Two valid files of one uuid: the first path keeps it, as `list` does.
    record = json.loads(tech.read_text())
    record["layer"] = "guidelines"
    (mem / "guidelines" / f"{u}.json").write_text(json.dumps(record))
    r = aide_ok(repo, "diff", "--json")
    assert [m["path"] for m in r.json()["added"]] == []
    (ch,) = r.json()["changed"]
    assert ch["after"]["layer"] == "guidelines"
    assert f"technical/{u}.json: uuid already used by .aide/memories/guidelines/" in r.stderr
    listed = aide_ok(repo, "list", "--json").json()["memories"]
    assert [m["layer"] for m in listed] == ["guidelines"]


def test_head_before_the_first_commit_is_empty(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "unborn")
    aide_ok(repo, "remember", "staged before any commit")
    for args in (["diff"], ["diff", "HEAD"]):
        r = aide_ok(repo, *args, "--json")
        assert len(r.json()["added"]) == 1, args
    assert aide_ok(repo, "diff", "--cached", "HEAD", "--json").json()["added"]
    assert aide_ok(repo, "log").stdout.strip() == "No memory changes."
    assert aide_ok(repo, "log", "--json").json() == {"commits": []}
    r = aide(repo, "diff", "main~1")
    assert r.returncode == 1 and "names no commit" in r.stderr


def test_log_warns_of_a_commit_that_adds_only_invalid_memories(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    aide_ok(repo, "remember", "a good one")
    git(repo, "commit", "-qm", "good")
    bad = repo / ".aide/memories/technical/0badbad0-0000-4000-8000-000000000000.json"
    bad.write_text('{"uuid": "nope"}\n')
    git(repo, "add", str(bad))
    git(repo, "commit", "-qm", "only a broken memory")
    r = aide_ok(repo, "log")
    assert "only a broken memory" not in r.stdout
    lines = [x for x in r.stderr.splitlines() if "0badbad0" in x]
    assert len(lines) == 1 and lines[0].startswith("git-aide: warning:"), r.stderr
    assert "0badbad0" in aide_ok(repo, "diff", "HEAD~1", "HEAD").stderr
    j = aide_ok(repo, "log", "--json")
    assert len(j.json()["commits"]) == 1 and "0badbad0" in j.stderr
    assert "0badbad0" in aide_ok(repo, "log").stderr  # from the cache too
