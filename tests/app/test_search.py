"""Full-text search (README, How recall and search rank) and the cache that serves every source
(section 5)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers import (
    AIDE,
    BASE_ENV,
    aide,
    aide_ok,
    commit_memories,
    git,
    make_repo,
    put,
    remember,
    uuids,
    valid_record,
)

from git_aide.read.load import RACY_SECONDS


@pytest.fixture
def plain(tmp_path: Path) -> Path:
    """A repository set up without hooks: nothing but the commands keeps the cache fresh."""
    repo = make_repo(tmp_path / "plain", init=False)
    aide_ok(repo, "init", "--no-hooks")
    return repo


def found(repo: Path, query: str, *extra: str) -> list[str]:
    return uuids(aide_ok(repo, "search", query, "--json", *extra))


def test_search_by_what_why_and_tag_case_insensitive_only_matches(repo: Path) -> None:
    a = remember(repo, "Billing is event-sourced", "--why", "Audit trail for finance")["uuid"]
    b = remember(repo, "Raw GraphQL queries 404 in prod", "--tag", "Incident")["uuid"]
    remember(repo, "Use pnpm for installs")
    assert found(repo, "billing") == [a]
    assert found(repo, "AUDIT") == [a]
    assert found(repo, "incident") == [b]
    assert found(repo, "graphql") == [b]
    assert found(repo, "nothing-like-this") == []
    doc = aide_ok(repo, "search", "graphql", "--json").json()
    assert doc["source"]["kind"] == "worktree"
    assert doc["memories"][0]["score"] > 0


def test_best_match_first(repo: Path) -> None:
    weak = remember(repo, "the cache layer is fine", "--why", "deploy notes")["uuid"]
    strong = remember(repo, "deploy deploy: every deploy goes through the deploy queue")["uuid"]
    assert found(repo, "deploy") == [strong, weak]


def test_fragment_fallback(repo: Path) -> None:
    u = remember(repo, "Always use query parameterization in SQL")["uuid"]
    assert found(repo, "eterizat") == [u]


def test_fragments_are_found_in_a_large_store_whatever_the_bytes_spell(repo: Path) -> None:
    # Only the memories whose files spell a fragment are read for it (app/search.py);
    # a text that holds it only once lowered (the Kelvin sign lowers to "k"), or only
    # once a JSON escape is read, is still found, with its plain neighbours.
    plain = remember(repo, "Always use query parameterization in SQL")["uuid"]
    for i in range(30):
        remember(repo, f"unrelated note number {i} about the build")
    kelvin = remember(repo, "Kubernetes rollouts go region by region")
    escaped = remember(repo, "mtls everywhere: handshakes in the mesh")
    number = remember(repo, "Budget cap for the batch job")
    for doc, old, new in ((kelvin, "Kubernetes", "\u212aubernetes"),
                          (escaped, "handshakes", "han\\u0064shakes"),
                          (number, '"why": null', '"why": 1e5')):
        path = repo / doc["path"]
        path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    # Once git's index is old enough to be trusted by its stat, the view is saved and
    # searched (read/load.py): the path under test.
    time.sleep(RACY_SECONDS + 0.2)
    aide_ok(repo, "index")
    aide_ok(repo, "list")
    assert "\u212a".encode() in (repo / kelvin["path"]).read_bytes()
    assert found(repo, "eterizat") == [plain]
    assert found(repo, "kube") == [kelvin["uuid"]]
    assert found(repo, "ndsha") == [escaped["uuid"]]
    # A number is read as its JSON text ("100000.0"), which the bytes do not spell.
    assert found(repo, "0000") == [number["uuid"]]
    assert sorted(found(repo, "ubern eterizat")) == sorted([plain, kelvin["uuid"]])


def test_update_and_forget_move_the_answers(repo: Path) -> None:
    u = remember(repo, "the queue is backed by redis")["uuid"]
    git(repo, "commit", "-qm", "one")
    assert found(repo, "redis") == [u]
    aide_ok(repo, "update", u, "--what", "the queue is backed by postgres")
    assert found(repo, "redis") == []
    assert found(repo, "postgres") == [u]
    aide_ok(repo, "forget", u)
    assert found(repo, "postgres") == []
    assert found(repo, "redis", "--rev", "HEAD") == [u]
    assert found(repo, "postgres", "--cached") == []


@pytest.mark.parametrize("query", ["", "   ", '"quoted"', "key*", "(x)", "a OR b", "NOT x",
                                   "col:value", '"', "x" * 10_000, "AND", "*", "what:billing",
                                   "[a-z]", "~", "^2"])
def test_any_query_text_is_safe(repo: Path, query: str) -> None:
    remember(repo, "billing is event-sourced; key value stores are not")
    r = aide(repo, "search", query, "--json")
    assert "Traceback" not in r.stderr
    if not query.strip():  # nothing to look for: the caller's mistake
        assert r.returncode == 2 and r.stdout == "", r.stderr
    else:
        assert r.returncode == 0, r.stderr
        json.loads(r.stdout)
    r = aide(repo, "recall", "--query", query, "--json")
    assert r.returncode == 0, r.stderr


def test_search_filters_and_limit(repo: Path) -> None:
    g = remember(repo, "deploy on fridays is forbidden", "--layer", "guidelines")["uuid"]
    for i in range(3):
        remember(repo, f"deploy fact {i}")
    assert found(repo, "deploy", "--layer", "guidelines") == [g]
    assert len(found(repo, "deploy", "--limit", "2")) == 2


def test_recall_query_uses_search_relevance(repo: Path) -> None:
    a = remember(repo, "tokens rotate hourly", "--scope", "src/auth/**")["uuid"]
    b = remember(repo, "sessions live in redis", "--scope", "src/auth/**")["uuid"]
    assert uuids(aide_ok(repo, "recall", "src/auth/x.ts", "--query", "redis", "--json")) \
        == [b, a]
    scores = [m["score"] for m in aide_ok(repo, "recall", "src/auth/x.ts", "--query",
                                          "redis", "--json").json()["memories"]]
    assert scores[0] > 0 and scores[1] == 0


def test_git_operations_without_hooks(plain: Path) -> None:
    base = remember(plain, "base memory about caching")["uuid"]
    git(plain, "commit", "-qm", "base")
    # a branch that brings new memories by a merge
    git(plain, "checkout", "-qb", "feature")
    feat = remember(plain, "feature memory about caching")["uuid"]
    git(plain, "commit", "-qm", "feature")
    git(plain, "checkout", "-q", "main")
    assert found(plain, "caching") == [base]
    git(plain, "merge", "-q", "--no-edit", "feature")
    assert set(found(plain, "caching")) == {base, feat}
    assert set(uuids(aide_ok(plain, "recall", "--json"))) == {base, feat}
    # reset --hard back: the feature memory is gone again
    git(plain, "reset", "-q", "--hard", "HEAD~1")
    assert found(plain, "caching") == [base]
    # stash takes an uncommitted memory away and brings it back
    tmp = remember(plain, "stashed memory about caching")["uuid"]
    git(plain, "stash", "-q")
    assert found(plain, "caching") == [base]
    assert uuids(aide_ok(plain, "recall", "--json")) == [base]
    git(plain, "stash", "pop", "-q")
    assert set(found(plain, "caching")) == {base, tmp}
    # checkout of another branch
    git(plain, "stash", "-q")
    git(plain, "checkout", "-q", "feature")
    assert set(found(plain, "caching")) == {base, feat}
    assert set(uuids(aide_ok(plain, "recall", "--json"))) == {base, feat}


def test_two_linked_worktrees_share_one_cache(repo: Path, tmp_path: Path) -> None:
    shared = remember(repo, "shared memory about logging")["uuid"]
    git(repo, "commit", "-qm", "one")
    other = tmp_path / "other"
    git(repo, "worktree", "add", "-q", "-b", "other", str(other))
    mine = remember(repo, "main-only memory about logging")["uuid"]
    theirs = remember(other, "other-only memory about logging")["uuid"]
    assert set(found(repo, "logging")) == {shared, mine}
    assert set(found(other, "logging")) == {shared, theirs}
    assert (repo / ".git" / "aide").is_dir()
    assert not (repo / ".git" / "worktrees" / "other" / "aide").exists()


def test_four_indexers_at_once(repo: Path) -> None:
    made = {remember(repo, f"concurrent memory number {i} about kafka")["uuid"]
            for i in range(12)}
    aide_ok(repo, "index", "--rebuild")
    import shutil
    shutil.rmtree(repo / ".git" / "aide")
    procs = [subprocess.Popen([*AIDE, *args], cwd=repo, env=BASE_ENV, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
             for args in (["index"], ["index"], ["search", "kafka", "--json", "--limit", "50"],
                          ["index"])]
    for p in procs:
        out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
        assert "Traceback" not in err
    assert set(found(repo, "kafka", "--limit", "50")) == made


def test_remember_while_searching(repo: Path) -> None:
    for i in range(5):
        remember(repo, f"seed memory {i} about grpc")
    searches = [subprocess.Popen([*AIDE, "search", "grpc", "--json", "--limit", "50"], cwd=repo,
                                 env=BASE_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 text=True) for _ in range(3)]
    writers = [subprocess.Popen([*AIDE, "remember", f"new memory {i} about grpc", "--json"],
                                cwd=repo, env=BASE_ENV, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True) for i in range(5)]
    for p in searches + writers:
        _out, err = p.communicate(timeout=120)
        assert p.returncode == 0, err
    assert len(found(repo, "grpc", "--limit", "50")) == 10


@pytest.mark.quick
def test_stats_figures(repo: Path) -> None:
    a = remember(repo, "first fact")["uuid"]
    remember(repo, "second fact", "--source", "import")
    remember(repo, "a rule", "--layer", "guidelines")
    remember(repo, "mine", "--personal")
    for _ in range(3):  # limit 1 recalls the newest technical memory, not `a`
        aide_ok(repo, "recall", "--layer", "technical", "--limit", "1")
    doc = aide_ok(repo, "stats", "--json").json()
    assert doc["total"] == 4
    assert doc["by_layer"] == {"guidelines": 1, "preferences": 1, "technical": 2}
    assert doc["by_source"] == {"conversation": 3, "import": 1}
    assert doc["by_contributor"] == {"Ada Tester": 4}
    top = doc["most_recalled"]
    assert top[0]["recalls"] == 3 and top[0]["uuid"] != a
    assert doc["never_recalled_older_than_30_days"] == []
    # an old memory nobody recalled
    path = next((repo / ".aide/memories/guidelines").glob("*.json"))
    rec = json.loads(path.read_text())
    rec["created_at"] = rec["updated_at"] = "2020-01-01T00:00:00.000Z"
    path.write_text(json.dumps(rec, indent=2, ensure_ascii=False) + "\n")
    stale = aide_ok(repo, "stats", "--json").json()["never_recalled_older_than_30_days"]
    assert [s["uuid"] for s in stale] == [rec["uuid"]]
    assert "4 memories" in aide_ok(repo, "stats").stdout
    assert not (repo / ".aide" / "stats").exists()
    assert "recall" not in path.read_text()


def test_cache_is_rebuilt_after_damage(repo: Path) -> None:
    made = {remember(repo, f"memory {i} about tracing")["uuid"] for i in range(4)}
    git(repo, "commit", "-qm", "x")
    aide_ok(repo, "search", "tracing")
    aide_ok(repo, "recall", "--rev", "HEAD")
    cache = repo / ".git" / "aide"
    files = [p for p in cache.rglob("*") if p.is_file() and p.name not in ("lock",)]
    assert files
    for damage in ("truncate", "random", "delete"):
        for p in files:
            if not p.exists():
                continue
            if damage == "truncate":
                p.write_bytes(p.read_bytes()[: max(1, p.stat().st_size // 3)])
            elif damage == "random":
                p.write_bytes(os.urandom(max(64, p.stat().st_size)))
        if damage == "delete":
            import shutil
            shutil.rmtree(cache)
        for args in (["search", "tracing", "--json"], ["recall", "--json"],
                     ["recall", "--rev", "HEAD", "--json"]):
            r = aide(repo, *args)
            assert r.returncode == 0, (damage, args, r.stderr)
            assert set(uuids(r)) == made, (damage, args)
            assert "Traceback" not in r.stderr
            notices = [line for line in r.stderr.splitlines() if line]
            assert len(notices) <= 1, notices
        files = [p for p in cache.rglob("*") if p.is_file() and p.name not in ("lock",)]
    r = aide(repo, "search", "tracing", "--json")
    assert r.stderr == ""  # healthy again: nothing to say


def test_damage_is_reported_once(repo: Path) -> None:
    remember(repo, "memory about metrics")
    aide_ok(repo, "search", "metrics")
    for p in (repo / ".git" / "aide").rglob("*"):
        if p.is_file() and p.name != "lock":
            p.write_bytes(b"\x00garbage" * 10)
    r = aide_ok(repo, "search", "metrics", "--json")
    assert len(uuids(r)) == 1
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("git-aide: notice: "), r.stderr


@pytest.mark.quick
def test_index_command(repo: Path) -> None:
    remember(repo, "indexed memory")
    r = aide_ok(repo, "index")
    assert "Indexed" in r.stdout
    assert aide_ok(repo, "index", "--quiet").stdout == ""
    assert aide_ok(repo, "index", "--rebuild").returncode == 0
    assert found(repo, "indexed") != []


def test_index_reads_each_source_once_and_every_version(repo: Path) -> None:
    """`index` indexes a memory's version in HEAD, in the index and in the working tree
    when they differ, and each blob once when they are the same (a fresh clone)."""
    rec = valid_record(what="quokka habitat notes")
    put(repo, rec)
    commit_memories(repo, "a memory")
    r = aide_ok(repo, "index")
    assert r.stdout.startswith("Indexed 1 new memories; 1 in the cache"), r.stdout
    put(repo, {**rec, "what": "wombat burrow notes"})
    git(repo, "add", "-A", ".aide")
    put(repo, {**rec, "what": "numbat termite notes"})
    shutil.rmtree(repo / ".git" / "aide")
    r = aide_ok(repo, "index")
    assert r.stdout.startswith("Indexed 3 new memories; 3 in the cache"), r.stdout
    assert aide_ok(repo, "index").stdout.startswith("Indexed 0 new memories")
    assert found(repo, "quokka", "--rev", "HEAD") == [rec["uuid"]]
    assert found(repo, "wombat", "--cached") == [rec["uuid"]]
    assert found(repo, "numbat") == [rec["uuid"]]
    assert found(repo, "wombat") == found(repo, "quokka") == []
    assert aide_ok(repo, "index").stdout.startswith("Indexed 0 new memories")


def test_the_scores_shown_are_the_order_of_the_list(repo: Path) -> None:
    """A memory superseded by a newer one follows every current match, and the score
    `search --json` shows for it is below theirs (as the order says)."""
    older = remember(repo, "flux capacitor flux setting: flux is 1.21 gigawatts of flux")
    newer = remember(repo, "flux capacitor flux setting: flux is now 2.1 gigawatts")
    other = remember(repo, "the release notes mention flux once")
    doc = aide_ok(repo, "search", "flux", "--json").json()
    got = [m["uuid"] for m in doc["memories"]]
    assert got.index(older["uuid"]) > max(got.index(newer["uuid"]), got.index(other["uuid"]))
    scores = [m["score"] for m in doc["memories"]]
    assert scores == sorted(scores, reverse=True), scores


def test_best_matches_changed_in_the_working_tree_are_replaced_by_the_next(repo: Path) -> None:
    # The view names the blobs the index scores; files the working tree changed since
    # are left out, and the search widens to find as many others as were asked for
    # (app/search.relevance_in), unless enough remain among the best it cut.
    from helpers import write_memory

    strong = [write_memory(repo, f"alpha alpha alpha zone{i} cluster{i}") for i in range(60)]
    weak = [write_memory(repo, f"the rollout of service {i} waits for the alpha gate, "
                               "then for the review of the change and the canary's figures")
            for i in range(40)]
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "memories")
    time.sleep(RACY_SECONDS + 0.2)
    aide_ok(repo, "index")
    aide_ok(repo, "list")  # the view saved
    for r in strong[5:]:
        p = next((repo / ".aide" / "memories").rglob(f"{r['uuid']}.json"))
        p.write_text(p.read_text().replace("alpha alpha alpha", "beta"))
    got = aide_ok(repo, "search", "alpha", "--limit", "20", "--json").json()["memories"]
    assert len(got) == 20
    ids = [m["uuid"] for m in got]
    assert set(ids[:5]) == {r["uuid"] for r in strong[:5]}
    assert set(ids[5:]) <= {r["uuid"] for r in weak}
    few = aide_ok(repo, "search", "alpha", "--limit", "3", "--json").json()["memories"]
    assert {m["uuid"] for m in few} <= {r["uuid"] for r in strong[:5]} and len(few) == 3
