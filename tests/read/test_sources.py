"""Where a read comes from (README, A tour): worktree, index, any revision."""

from __future__ import annotations

import hashlib
from pathlib import Path

from helpers import aide, aide_ok, git, remember, uuids


def snapshot_of_git_state(repo: Path) -> tuple[str, str]:
    """What a read must never change: `git status` and the index file's bytes."""
    status = git(repo, "status", "--porcelain", "--ignored")
    index = hashlib.sha1((repo / ".git" / "index").read_bytes()).hexdigest()
    return status, index


def test_historical_recall_touches_nothing(repo: Path) -> None:
    a = remember(repo, "memory A, from the past")["uuid"]
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "A")
    aide_ok(repo, "forget", a)
    b = remember(repo, "memory B, of today")["uuid"]
    git(repo, "commit", "-qm", "B")
    before = snapshot_of_git_state(repo)
    old = aide_ok(repo, "recall", "--rev", "HEAD~1", "--json").json()
    assert [m["uuid"] for m in old["memories"]] == [a]
    assert old["source"]["kind"] == "rev"
    assert old["source"]["rev"] == "HEAD~1"
    assert old["source"]["commit"] == git(repo, "rev-parse", "HEAD~1").strip()
    assert uuids(aide_ok(repo, "recall", "--json")) == [b]
    assert snapshot_of_git_state(repo) == before


def test_rev_accepts_any_commit_ish(repo: Path) -> None:
    a = remember(repo, "tagged memory")["uuid"]
    git(repo, "commit", "-qm", "one")
    git(repo, "tag", "-a", "v1.2", "-m", "release")
    git(repo, "checkout", "-qb", "feature")
    for rev in ("v1.2", "main", "feature", git(repo, "rev-parse", "HEAD").strip()[:10], "HEAD"):
        assert uuids(aide_ok(repo, "recall", "--rev", rev, "--json")) == [a], rev


def test_rev_naming_no_commit(repo: Path) -> None:
    for rev in ("no-such-branch", "HEAD~5", "--all", "HEAD^{tree}"):
        r = aide(repo, "recall", "--rev", rev)
        assert r.returncode == 1, (rev, r.stderr)
        assert "names no commit" in r.stderr
        assert len(r.stderr.strip().splitlines()) == 1


def test_cached_sees_staged_not_unstaged(repo: Path) -> None:
    r = remember(repo, "staged text")
    path = repo / r["path"]
    doc = aide_ok(repo, "recall", "--cached", "--json").json()
    assert doc["source"]["kind"] == "index"
    assert [m["what"] for m in doc["memories"]] == ["staged text"]
    path.write_text(path.read_text().replace("staged text", "unstaged edit"))
    assert [m["what"] for m in aide_ok(repo, "recall", "--cached", "--json").json()["memories"]] \
        == ["staged text"]
    assert [m["what"] for m in aide_ok(repo, "recall", "--json").json()["memories"]] \
        == ["unstaged edit"]
    assert aide_ok(repo, "recall", "--staged", "--json").json()["memories"][0]["what"] \
        == "staged text"


def test_cached_honours_git_index_file(repo: Path) -> None:
    remember(repo, "in the real index")
    other = repo / ".git" / "other-index"
    env = {"GIT_INDEX_FILE": str(other)}
    git(repo, "read-tree", "--empty", env=env)
    assert uuids(aide_ok(repo, "recall", "--cached", "--json", env=env)) == []
    assert len(uuids(aide_ok(repo, "recall", "--cached", "--json"))) == 1


def test_cached_and_rev_together_is_a_usage_error(repo: Path) -> None:
    r = aide(repo, "recall", "--cached", "--rev", "HEAD")
    assert r.returncode == 2
    assert r.stderr.startswith("git-aide: error:")


def test_empty_repository(repo: Path) -> None:
    assert uuids(aide_ok(repo, "recall", "--json")) == []
    assert uuids(aide_ok(repo, "recall", "--cached", "--json")) == []
    u = remember(repo, "first memory before the first commit")["uuid"]
    assert uuids(aide_ok(repo, "recall", "--json")) == [u]
    assert aide(repo, "recall", "--rev", "HEAD").returncode == 1


def test_linked_worktree_and_subdirectory(repo: Path, tmp_path: Path) -> None:
    main = remember(repo, "on main")["uuid"]
    git(repo, "commit", "-qm", "main")
    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", "-b", "side", str(linked))
    side = remember(linked, "on side")["uuid"]
    assert set(uuids(aide_ok(linked, "recall", "--json"))) == {main, side}
    assert uuids(aide_ok(repo, "recall", "--json")) == [main]
    (linked / "deep" / "er").mkdir(parents=True)
    assert set(uuids(aide_ok(linked / "deep" / "er", "recall", "--json"))) == {main, side}


def test_git_dir_and_work_tree_variables(repo: Path, tmp_path: Path) -> None:
    u = remember(repo, "through GIT_DIR")["uuid"]
    env = {"GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo)}
    assert uuids(aide_ok(tmp_path, "recall", "--json", env=env)) == [u]


def test_bare_repository(repo: Path, tmp_path: Path) -> None:
    u = remember(repo, "in a bare clone")["uuid"]
    git(repo, "commit", "-qm", "one")
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(repo), str(bare))
    assert uuids(aide_ok(bare, "recall", "--rev", "main", "--json")) == [u]
    for args in (["recall"], ["remember", "x"], ["recall", "--cached"]):
        r = aide(bare, *args)
        assert r.returncode == 1, args
        # a read is helped by --rev; a write by a clone
        helps = "git clone" if args[0] == "remember" else "--rev"
        assert "bare" in r.stderr and helps in r.stderr, r.stderr


def test_not_a_repository(tmp_path: Path) -> None:
    r = aide(tmp_path, "recall", env={"GIT_CEILING_DIRECTORIES": str(tmp_path.parent)})
    assert r.returncode == 128
    assert r.stderr.startswith("git-aide: error: ")
    assert "not a git repository" in r.stderr


def test_broken_files_are_skipped_with_one_warning_each(repo: Path) -> None:
    good = remember(repo, "still fine")["uuid"]
    tech = repo / ".aide/memories/technical"
    (tech / "not-json.json").write_text("{ nope")
    (tech / "list.json").write_text("[1, 2]")
    wrong = aide_ok(repo, "show", good, "--json").json()["memory"]
    (tech / "3f1e2d4c-1111-4222-8333-444455556666.json").write_text(
        (tech / f"{good}.json").read_text())  # a file name that is not its uuid
    bad_type = dict(wrong, uuid="0b2f6a1e-1111-4222-8333-444455556666", tags="oops")
    import json
    (tech / "0b2f6a1e-1111-4222-8333-444455556666.json").write_text(json.dumps(bad_type))
    missing = {k: v for k, v in wrong.items() if k not in ("what", "path")}
    missing["uuid"] = "1c2f6a1e-1111-4222-8333-444455556666"
    (tech / "1c2f6a1e-1111-4222-8333-444455556666.json").write_text(json.dumps(missing))
    (tech / f".{good}.json.123.tmp").write_text("{")
    r = aide(repo, "recall", "--json")
    assert r.returncode == 0
    # A field of an unexpected type leaves a memory live (read liberally: README, The memory file).
    live = {good, bad_type["uuid"]}
    assert set(uuids(r)) == live
    warnings = r.stderr.strip().splitlines()
    assert len(warnings) == 5, warnings
    assert all(w.startswith("git-aide: warning: .aide/memories/technical/") for w in warnings)
    assert "Traceback" not in r.stderr
    # committed, the broken files are skipped at that revision too
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "broken")
    r = aide(repo, "recall", "--rev", "HEAD", "--json")
    assert set(uuids(r)) == live
    assert len(r.stderr.strip().splitlines()) == 5


def test_cache_in_common_dir_not_worktree(repo: Path) -> None:
    remember(repo, "x")
    aide_ok(repo, "recall")
    assert (repo / ".git" / "aide").is_dir()
    status = git(repo, "status", "--porcelain", "--ignored")
    assert ".git/aide" not in status
    assert "aide/" not in [line[3:] for line in status.splitlines()]


def test_fresh_clone_without_init(repo: Path, tmp_path: Path) -> None:
    u = remember(repo, "shared with the team")["uuid"]
    git(repo, "commit", "-qm", "one")
    clone = tmp_path / "clone"
    git(tmp_path, "clone", "-q", str(repo), str(clone))
    assert uuids(aide_ok(clone, "recall", "--json")) == [u]


def test_hand_edits_over_a_saved_view(repo: Path) -> None:
    """Files that differ from the index are laid over the index's saved view: each edit
    is seen, a file broken by hand is named and skipped, and fixed it comes back."""
    a = remember(repo, "the parser is hand-written", "--scope", "src/parse/**")
    b = remember(repo, "the lexer is generated", "--scope", "src/parse/**")
    git(repo, "commit", "-qm", "two")
    aide_ok(repo, "recall", "src/parse/x.py")  # the view of the clean state
    path = repo / a["path"]
    good = path.read_text()
    for word in ("first", "second"):
        path.write_text(good.replace("hand-written", f"hand-written ({word} edit)"))
        got = aide_ok(repo, "recall", "src/parse/x.py", "--json").json()["memories"]
        assert f"({word} edit)" in next(m["what"] for m in got if m["uuid"] == a["uuid"])
    path.write_text("{ not json")
    r = aide_ok(repo, "recall", "src/parse/x.py", "--json")
    assert uuids(r) == [b["uuid"]] and a["path"] in r.stderr
    path.write_text(good)
    r = aide_ok(repo, "recall", "src/parse/x.py", "--json")
    assert set(uuids(r)) == {a["uuid"], b["uuid"]} and r.stderr == ""
    (repo / b["path"]).unlink()  # deleted, not staged
    assert uuids(aide_ok(repo, "recall", "src/parse/x.py", "--json")) == [a["uuid"]]


def recall_counting(repo: Path, monkeypatch, passes: list[int],  # type: ignore[no-untyped-def]
                    field: str = "what"):
    """A recall of src/a.py asking "ledger", made in process in `repo`, answering each
    hit's `field`; `passes` gets an item each time its answer is worked out."""
    from git_aide.app import answers
    from git_aide.app.context import open_context
    from git_aide.app.queries import RecallQuery

    monkeypatch.chdir(repo)
    strong = answers._strong_matches  # looked for once per working out
    monkeypatch.setattr(answers, "_strong_matches",
                        lambda *a: passes.append(1) or strong(*a))

    def recall() -> list[str]:
        passes.clear()
        ctx = open_context()
        # loaded early, as recall loads it: worked out while git compares the tree
        here, cache, snap = ctx.repo, ctx.cache, ctx.snapshot(early=True)
        hits = answers.recall_hits(here, cache, snap,
                                   RecallQuery(["src/a.py"], question="ledger"), count=False)
        return [h.entry.read_what() if field == "what" else getattr(h.entry, field)
                for h in hits]

    return recall


def test_recall_is_worked_out_while_git_compares_and_again_only_for_changed_files(
        repo: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A recall answers from the saved state while `git status` runs; when a memory
    file differs from the index, the answer is worked out again with it, so that what
    it shows is what the working tree holds."""
    kept = remember(repo, "ledger rounding is banker's", "--scope", "src/**")
    gone = remember(repo, "ledger totals are cached", "--scope", "src/**")
    git(repo, "commit", "-qm", "memories")
    passes: list[int] = []
    recall = recall_counting(repo, monkeypatch, passes)

    staged = remember(repo, "ledger ids are ulids", "--scope", "src/**")  # staged only
    assert sorted(recall()) == ["ledger ids are ulids", "ledger rounding is banker's",
                                "ledger totals are cached"]
    assert len(passes) == 1  # nothing differs from the index: the early answer stands
    path = repo / staged["path"]
    path.write_text(path.read_text().replace("ulids", "uuids"))  # staged, then edited
    assert "ledger ids are uuids" in recall() and len(passes) == 2
    git(repo, "add", "-A")
    path = repo / kept["path"]
    path.write_text(path.read_text().replace("banker's", "half-even"))
    (repo / gone["path"]).unlink()
    remember(repo, "ledger exports are nightly", "--scope", "src/**", "--no-stage")
    assert sorted(recall()) == ["ledger exports are nightly", "ledger ids are uuids",
                                "ledger rounding is half-even"]
    assert len(passes) == 2


def test_a_file_that_differs_changes_no_other_answer(repo: Path) -> None:
    """Regression (review): a recall worked out twice (once before git answered, once
    after, since a file differs) counted a file name's mentions twice, so a name
    mentioned 30 times passed the 50 beyond which it is a common word, and its
    mentions vanished from the answer."""
    import json
    import time

    t = remember(repo, "billing runs nightly", "--scope", "src/billing/**")
    record = json.loads((repo / t["path"]).read_text())
    for i in range(30):
        note = dict(record, uuid=f"0000{i:04d}-0000-4000-8000-000000000000",
                    what=f"area note {i}: an invoice goes out monthly", scope=f"src/a{i}/**")
        (repo / f".aide/memories/technical/{note['uuid']}.json").write_text(
            json.dumps(note, indent=2) + "\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "notes")
    time.sleep(2.2)  # the view is kept
    ask = ("recall", "src/billing/invoice.py", "--limit", "100", "--json")
    aide_ok(repo, *ask)
    clean = uuids(aide_ok(repo, *ask))
    assert len(clean) == 31
    remember(repo, "css is compiled", "--scope", "web/**", "--no-stage")
    remember(repo, "I like tabs", "--personal", "--layer", "preferences", "--scope", "web/**")
    assert uuids(aide_ok(repo, *ask)) == clean


def test_a_personal_memory_is_laid_over_the_view_before_git_answers(
        repo: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A personal memory is never in the index, so it always differs from it: the files
    that differed last time (and have not changed since) are laid over the view before
    git answers, and the answer is worked out once; a change to one of them is seen."""
    import time

    remember(repo, "ledger rounding is banker's", "--scope", "src/**")
    git(repo, "commit", "-qm", "memory")
    mine = remember(repo, "I read ledger code slowly", "--personal", "--scope", "src/**")
    time.sleep(2.2)  # old enough for its stat data to be trusted
    aide_ok(repo, "recall", "src/a.py")  # notes what differs from the index
    passes: list[int] = []
    recall = recall_counting(repo, monkeypatch, passes)

    assert sorted(recall()) == ["I read ledger code slowly", "ledger rounding is banker's"]
    assert len(passes) == 1
    path = repo / mine["path"]
    path.write_text(path.read_text().replace("slowly", "twice"))
    assert sorted(recall()) == ["I read ledger code twice", "ledger rounding is banker's"]
    assert len(passes) == 2


def test_a_memory_deleted_by_hand_is_taken_off_the_view_before_git_answers(
        repo: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A memory file deleted in the working tree (not staged) differs from the index on
    every call: it is noted, and left out before git answers, so the answer is worked
    out once; brought back, it is seen again."""
    kept = remember(repo, "ledger rounding is banker's", "--scope", "src/**")
    gone = remember(repo, "ledger totals are cached", "--scope", "src/**")
    git(repo, "commit", "-qm", "memories")
    path = repo / gone["path"]
    text = path.read_text()
    path.unlink()
    aide_ok(repo, "recall", "src/a.py")  # notes what differs from the index
    passes: list[int] = []
    recall = recall_counting(repo, monkeypatch, passes, "uuid")

    assert recall() == [kept["uuid"]] and len(passes) == 1
    path.write_text(text)  # as it was: nothing differs from the index any more
    assert sorted(recall()) == sorted([kept["uuid"], gone["uuid"]]) and len(passes) == 1


def test_a_snapshot_loaded_early_answers_from_the_view_until_speculate_settles_it(
        repo: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """No query of a snapshot waits for `git status` or lays files over the view: one
    loaded early answers from the saved view until worktree.speculate() takes git's
    answer, works the answer out again with the file that differs, and settles it."""
    import time

    from git_aide.app.context import open_context
    from git_aide.read.worktree import speculate

    remember(repo, "ledger rounding is banker's", "--scope", "src/**")
    git(repo, "commit", "-qm", "memory")
    time.sleep(2.2)  # the index is old enough for its view to be kept
    aide_ok(repo, "recall", "src/a.py")
    remember(repo, "ledger ids are ulids", "--scope", "src/**", "--no-stage")
    monkeypatch.chdir(repo)
    snap = open_context().snapshot(early=True)
    pending = snap.pending
    assert pending is not None

    def whats() -> list[str]:
        return sorted(e.read_what() for e in snap.entries)

    assert whats() == ["ledger rounding is banker's"]  # the view alone
    assert snap.blob_ids() is not None and snap.warnings == []
    assert snap.pending is pending  # no query took git's answer
    assert speculate(snap, whats) == ["ledger ids are ulids", "ledger rounding is banker's"]
    assert snap.pending is None and whats() == ["ledger ids are ulids",
                                                "ledger rounding is banker's"]
