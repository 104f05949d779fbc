"""Writing (README, Writing safely): remember, update, forget; atomic, staged, refusing bad
input."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, aide, aide_ok, git, remember, uuids

from git_aide.core import memory

UNKNOWN = {"id": 12345, "zeta": {"nested": [1, 2.5, None]}, "alpha": "kept"}


def staged_paths(repo: Path) -> set[str]:
    return set(git(repo, "diff", "--cached", "--name-only").split())


def test_remember_writes_canonical_file_and_stages_it(repo: Path) -> None:
    doc = remember(repo, "raw GraphQL queries 404 in prod", "--why", "incident 42",
                   "--tag", "api", "--label", "graphql")
    assert doc["created"] is True and doc["staged"] is True and doc["warnings"] == []
    path = repo / doc["path"]
    data = path.read_bytes()
    record = json.loads(data)
    assert list(record) == list(memory.KNOWN_KEYS)
    assert record["layer"] == "technical" and record["source"] == "conversation"
    assert data == memory.canonical(record)
    assert data.endswith(b"}\n") and not data.endswith(b"\n\n")
    assert doc["path"] in staged_paths(repo)
    assert memory.TIME_RE.match(record["created_at"])
    assert record["created_at"] == record["updated_at"]


def test_round_trip_of_long_text_and_unknown_keys(repo: Path) -> None:
    text = ('quote " backslash \\ newline \n tab \t emoji 🧠🚀 ü ' * 200)[:3990] + "\nend."
    assert len(text) <= 4000
    doc = remember(repo, text)
    path = repo / doc["path"]
    record = json.loads(path.read_text(encoding="utf-8"))
    assert record["what"] == text
    assert "\\u" not in path.read_text(encoding="utf-8")  # characters as they are
    # an aide-memory file with unknown keys, rewritten by update: the keys survive
    record.update(UNKNOWN)
    path.write_bytes(memory.canonical(record))
    assert memory.canonical(memory.parse(path.read_bytes())) == path.read_bytes()
    aide_ok(repo, "update", doc["uuid"][:8], "--tag", "kept-keys")
    after = json.loads(path.read_text(encoding="utf-8"))
    for key, value in UNKNOWN.items():
        assert after[key] == value
    assert after["what"] == text
    assert after["tags"] == ["kept-keys"]
    assert after["updated_at"] >= after["created_at"]
    keys = list(after)
    assert keys[: len(memory.KNOWN_KEYS)] == list(memory.KNOWN_KEYS)
    assert keys[len(memory.KNOWN_KEYS):] == sorted(UNKNOWN)


def test_noop_rewrite_is_byte_identical(repo: Path) -> None:
    doc = remember(repo, "stable bytes", "--tag", "a")
    path = repo / doc["path"]
    before = path.read_bytes()
    aide_ok(repo, "update", doc["uuid"], "--tag", "a")  # nothing changes
    assert path.read_bytes() == before
    assert memory.canonical(memory.parse(before)) == before


def test_duplicate_returns_the_existing_memory(repo: Path) -> None:
    first = remember(repo, "use pnpm", "--layer", "preferences")
    again = remember(repo, "use pnpm", "--layer", "preferences")
    assert again["uuid"] == first["uuid"] and again["created"] is False
    other = remember(repo, "use pnpm", "--layer", "guidelines")
    assert other["uuid"] != first["uuid"]
    assert len(list((repo / ".aide/memories").rglob("*.json"))) == 2


def test_personal_memory_is_recalled_ignored_and_never_staged(repo: Path) -> None:
    doc = remember(repo, "I like terse answers", "--personal")
    assert doc["staged"] is False
    assert doc["path"].startswith(".aide/memories/preferences/personal/")
    assert uuids(aide_ok(repo, "recall", "--json")) == [doc["uuid"]]
    git(repo, "check-ignore", "-q", doc["path"])
    git(repo, "add", "-A")
    assert doc["path"] not in staged_paths(repo)
    aide_ok(repo, "update", doc["uuid"], "--what", "I like very terse answers")
    assert doc["path"] not in staged_paths(repo)
    r = aide(repo, "remember", "x", "--personal", "--layer", "technical")
    assert r.returncode == 2


def test_personal_memory_is_ignored_even_before_init(tmp_path: Path) -> None:
    from helpers import make_repo

    repo = make_repo(tmp_path / "r", init=False)
    doc = remember(repo, "private", "--personal")
    git(repo, "add", "-A")
    assert doc["path"] not in staged_paths(repo)


def test_update_moves_layers_and_stages_the_move(repo: Path) -> None:
    doc = remember(repo, "billing is event-sourced")
    git(repo, "commit", "-qm", "one")
    r = aide_ok(repo, "update", doc["uuid"][:6], "--layer", "area_context", "--scope",
                "src/billing/**", "--json").json()
    assert r["path"] == f".aide/memories/area_context/{doc['uuid']}.json"
    assert r["staged"] is True
    assert not (repo / doc["path"]).exists()
    status = git(repo, "diff", "--cached", "--name-status", "--no-renames")
    assert f"D\t{doc['path']}" in status
    assert f"A\t{r['path']}" in status
    shown = aide_ok(repo, "show", doc["uuid"], "--json").json()["memory"]
    assert shown["layer"] == "area_context" and shown["scope"] == "src/billing/**"


def test_update_fields(repo: Path) -> None:
    doc = remember(repo, "old words", "--tag", "x", "--tag", "y", "--why", "because")
    aide_ok(repo, "update", doc["uuid"], "--what", "new words", "--untag", "x", "--tag", "z",
            "--why", "", "--label", "lbl")
    m = aide_ok(repo, "show", doc["uuid"], "--json").json()["memory"]
    assert (m["what"], m["tags"], m["why"], m["context_label"]) == \
        ("new words", ["y", "z"], None, "lbl")
    assert aide(repo, "update", doc["uuid"]).returncode == 2  # nothing to change


def test_forget_removes_and_stages(repo: Path) -> None:
    a = remember(repo, "first")
    b = remember(repo, "second")
    git(repo, "commit", "-qm", "two")
    r = aide_ok(repo, "forget", a["uuid"], b["uuid"][:5], "--json").json()
    assert set(r["forgotten"]) == {a["uuid"], b["uuid"]} and r["staged"] is True
    assert git(repo, "status", "--porcelain").count("D  ") == 2
    assert uuids(aide_ok(repo, "recall", "--json")) == []


def test_no_stage_leaves_the_index_alone(repo: Path) -> None:
    doc = remember(repo, "not staged", "--no-stage")
    assert doc["staged"] is False
    assert staged_paths(repo) == set()
    aide_ok(repo, "forget", doc["uuid"], "--no-stage")
    assert not (repo / doc["path"]).exists()


def test_locked_index_writes_but_does_not_stage(repo: Path) -> None:
    git(repo, "config", "aide.indexLockTimeout", "0.5")
    lock = repo / ".git" / "index.lock"
    lock.write_text("")
    try:
        r = aide(repo, "remember", "written while locked", "--json")
    finally:
        lock.unlink()
    assert r.returncode == 0, r.stderr
    doc = r.json()
    assert doc["staged"] is False
    assert (repo / doc["path"]).exists()
    assert doc["warnings"] and "not staged" in doc["warnings"][0]


def test_fifty_writers_at_once(repo: Path) -> None:
    # Fifty writers queue for longer than this in all on a busy machine; each still gets
    # its turn, since the wait is for one holder, not for the whole queue.
    git(repo, "config", "aide.writeLockTimeout", "5")
    procs = [subprocess.Popen([*AIDE, "remember", f"parallel memory {i}", "--json"], cwd=repo,
                              env=BASE_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(50)]
    docs = []
    for p in procs:
        out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
        docs.append(json.loads(out))
    assert len({d["uuid"] for d in docs}) == 50
    assert all(d["staged"] for d in docs)
    files = list((repo / ".aide/memories/technical").glob("*.json"))
    assert len(files) == 50
    staged = git(repo, "ls-files", "--", ".aide/memories").split()
    assert len(staged) == 50
    git(repo, "fsck", "--no-progress")
    git(repo, "commit", "-qm", "fifty")
    assert len(uuids(aide_ok(repo, "recall", "--rev", "HEAD", "--json", "--limit", "99"))) == 50


def test_killed_writer_leaves_old_file_and_no_memory_from_the_temporary(repo: Path) -> None:
    doc = remember(repo, "the old content")
    path = repo / doc["path"]
    old = path.read_bytes()
    code = ("import sys; from git_aide.core.files import write_atomic; "
            "write_atomic(sys.argv[1], b'{' * 400_000_000)")
    p = subprocess.Popen([sys.executable, "-c", code, str(path)], env=BASE_ENV)
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        tmps = list(path.parent.glob(".*.tmp"))
        if tmps and tmps[0].stat().st_size > 0:
            break
        time.sleep(0.01)
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert path.read_bytes() == old
    r = aide(repo, "recall", "--json")
    assert r.returncode == 0
    assert [m["what"] for m in r.json()["memories"]] == ["the old content"]


@pytest.mark.parametrize(("args", "code", "needle"), [
    (["remember", ""], 1, "empty"),
    (["remember", "   \n\t "], 1, "empty"),
    (["remember", "x" * 4001], 1, "4000"),
    (["remember", "x", "--layer", "nope"], 2, "nope"),
    (["remember", "x", "--layer", "area_context"], 1, "needs a scope"),
    (["remember", "token ghp_" + "a1B2" * 9], 1, "secret"),
    (["remember", "key -----BEGIN RSA PRIVATE KEY-----"], 1, "secret"),
    (["remember", "db at postgres://admin:hunter22@db.internal/x"], 1, "secret"),
    (["remember", "x", "--why", "AKIAIOSFODNN7EXAMPLE"], 1, "secret"),
    (["show", "abc"], 1, "at least 4"),
    (["show", "ffffffff"], 1, "no memory"),
    (["forget", "ffffffff"], 1, "no memory"),
    (["update", "ffffffff", "--what", "x"], 1, "no memory"),
    (["recall", "--limit", "-1"], 2, "limit"),
    (["frobnicate"], 2, "frobnicate"),
])
def test_bad_input(repo: Path, args: list[str], code: int, needle: str) -> None:
    remember(repo, "an existing memory that must survive")
    before = {p: p.read_bytes() for p in (repo / ".aide").rglob("*.json")}
    r = aide(repo, *args)
    assert r.returncode == code, (args, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("git-aide: error: "), r.stderr
    assert needle in lines[0]
    assert {p: p.read_bytes() for p in (repo / ".aide").rglob("*.json")} == before


def test_a_commit_id_is_not_a_secret(repo: Path) -> None:
    sha = "9fceb02d0ae598e95dc970b74767f19372d61af8"
    assert remember(repo, f"the regression came in with {sha}")["created"]


def test_ambiguous_prefix_lists_candidates(repo: Path) -> None:
    tech = repo / ".aide/memories/technical"
    base = json.loads((repo / remember(repo, "seed")["path"]).read_text())
    for u in ("abcd1111-1111-4111-8111-111111111111", "abcd2222-2222-4222-8222-222222222222"):
        (tech / f"{u}.json").write_bytes(memory.canonical(dict(base, uuid=u)))
    r = aide(repo, "show", "abcd")
    assert r.returncode == 1
    assert "ambiguous" in r.stderr and "abcd1111" in r.stderr and "abcd2222" in r.stderr
    assert aide_ok(repo, "show", "abcd1", "--json").json()["memory"]["uuid"].startswith("abcd1")


# -- the write gate (issue 41.1) -----------------------------------------------------------

TRACE = """Traceback (most recent call last):
  File "/app/billing/worker.py", line 41, in run
    invoice = load_invoice(job.invoice_id)
  File "/app/billing/store.py", line 12, in load_invoice
    return INVOICES[invoice_id]
KeyError: 'inv_2041'"""

DIFF = """diff --git a/src/pool.py b/src/pool.py
index 3b18e51..a9c2f70 100644
--- a/src/pool.py
+++ b/src/pool.py
@@ -1,3 +1,3 @@
-POOL_SIZE = 10
+POOL_SIZE = 25
 TIMEOUT = 30"""


def test_remember_refuses_pasted_output_in_one_line_and_force_keeps_it(repo: Path) -> None:
    from helpers import error_line

    line = error_line(aide(repo, "remember", TRACE))
    assert "looks like a Python traceback" in line and "--force" in line
    assert not list((repo / ".aide" / "memories").rglob("*.json"))
    assert git(repo, "status", "--porcelain", "--", ".aide/memories") == ""
    kept = remember(repo, TRACE, "--force")
    assert kept["created"] and kept["uuid"] in git(repo, "diff", "--cached", "--name-only")


def test_update_with_new_text_goes_through_the_gate(repo: Path) -> None:
    from helpers import error_line

    uuid = remember(repo, "The pool size is 25 connections per worker")["uuid"]
    before = next((repo / ".aide" / "memories").rglob("*.json")).read_bytes()
    assert "looks like a diff" in error_line(aide(repo, "update", uuid[:8], "--what", DIFF))
    assert next((repo / ".aide" / "memories").rglob("*.json")).read_bytes() == before
    aide_ok(repo, "update", uuid[:8], "--why", "measured under load")  # no new text: no gate
    aide_ok(repo, "update", uuid[:8], "--what", DIFF, "--force")
    assert aide_ok(repo, "show", uuid[:8], "--json").json()["memory"]["what"] == DIFF


def test_an_agent_is_told_to_pass_force(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mcp")
    from helpers import in_this_process

    from git_aide.agents.mcp import server

    in_this_process(repo, monkeypatch)
    mem = server.ServerState()
    text, _doc, failed = server.call(mem, "aide_remember", {"what": DIFF, "layer": "technical"})
    assert failed and "looks like a diff" in text and "force=true" in text
    assert not list((repo / ".aide" / "memories").rglob("*.json"))
    text, doc, failed = server.call(mem, "aide_remember",
                                    {"what": DIFF, "layer": "technical", "force": True})
    assert not failed and doc["created"], text


def test_import_leaves_out_a_pasted_trace(repo: Path) -> None:
    rules = repo / "AGENTS.md"
    rules.write_text("# Rules\n\n- Use pnpm, not npm.\n\n## Crash\n\n```\n" + TRACE + "\n```\n")
    r = aide(repo, "import", "AGENTS.md", "--json")
    assert r.returncode == 1  # as for any item refused
    assert "AGENTS.md:5: not imported: this looks like a Python traceback" in r.stderr
    assert "--force" not in r.stderr  # import has none
    assert [m["what"] for m in r.json()["imported"]] == ["Use pnpm, not npm."]
