"""`git aide validate`: every check, every source, the JSON document, and the secret kinds."""

from __future__ import annotations

import json
import os
import uuid as uuidlib
from pathlib import Path
from typing import Any

from helpers import CACHE, SECRET_EXAMPLES, aide, aide_ok, git, put
from helpers import valid_record as record

from git_aide.core import secret_shapes, secrets

MEM = ".aide/memories"
#: Text that looks a little like a secret but is not one.
NOT_SECRETS = [
    "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "tree 4b825dc642cb6eb9a060e54bf8d69288fbee4904 is empty",
    "clone https://github.com/org/repo.git or git@github.com:org/repo.git",
    "see https://user@example.com/path (a user name, no password)",
    "the password is read from the PASSWORD environment variable",
]


def problems(repo: Path, *args: str, env: dict[str, str] | None = None) -> list[dict[str, Any]]:
    """The problems of `validate --json` (checking the exit status agrees)."""
    r = aide(repo, "validate", *args, "--json", env=env)
    doc = json.loads(r.stdout)
    assert set(doc) == {"ok", "problems"} | ({"warnings"} if "warnings" in doc else set())
    assert r.returncode == (0 if doc["ok"] else 1), r.stderr
    assert doc["ok"] == (not doc["problems"])
    return doc["problems"]


def test_clean_repo_passes(repo: Path) -> None:
    put(repo)
    git(repo, "add", "-A")
    r = aide_ok(repo, "validate")
    assert "no problems" in r.stdout
    assert aide_ok(repo, "validate", "--quiet").stdout == ""
    assert problems(repo) == [] and problems(repo, "--staged") == []
    assert problems(repo, "--all") == []


def test_json_document_shape_and_lines(repo: Path) -> None:
    rel = put(repo, record(what="   "))
    r = aide(repo, "validate", "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout) == {
        "ok": False, "problems": [{"path": rel, "field": "what", "message": "empty"}]}
    r = aide(repo, "validate")
    assert r.returncode == 1
    assert r.stdout.splitlines() == [f"{rel}: what: empty"]
    assert r.stderr.startswith("git-aide: error: 1 problem")


BROKEN: list[tuple[str, dict[str, Any], str | None, str]] = [
    ("missing field", {"contributor": None}, "contributor", "missing"),
    ("null what", {"what": None}, "what", "empty"),
    ("tags type", {"tags": "a,b"}, "tags", "list of strings"),
    ("duplicate tag", {"tags": ["a", "a"]}, "tags", "duplicate"),
    ("uuid format", {"uuid": "NOT-A-UUID"}, "uuid", "UUID"),
    ("unknown layer", {"layer": "gossip"}, "layer", "unknown layer"),
    ("time form", {"created_at": "2024-05-01 10:00:00"}, "created_at", "UTC time"),
    ("time order", {"created_at": "2024-06-01T00:00:00.000Z"}, "updated_at", "earlier"),
    ("absolute scope", {"scope": "/etc/**"}, "scope", "absolute"),
    ("scope climbs out", {"scope": "../x/**"}, "scope", "climbs out"),
    ("area without scope", {"layer": "area_context"}, "scope", "needs a scope"),
    ("bool type", {"shared": "yes"}, "shared", "true or false"),
]


def test_record_checks(repo: Path) -> None:
    where = {}
    for label, change, field, message in BROKEN:
        rec = record()
        rec.update(change)
        if label == "missing field":
            del rec["contributor"]
        where[put(repo, rec, folder="technical", name=record()["uuid"] + ".json")] = (
            label, field, message)
    doc = aide(repo, "validate", "--json").json()
    for rel, (label, field, message) in where.items():
        # A file that is still a memory (read liberally) gets a warning, not a problem.
        kind = "problems" if field in ("uuid", "layer", "what", "scope") else "warnings"
        mine = [p for p in doc[kind] if p["path"] == rel]
        assert any(p["field"] == field and message in p["message"] for p in mine), (label, mine)


def test_file_level_checks(repo: Path) -> None:
    good = record()

    def name() -> str:
        return str(uuidlib.uuid4()) + ".json"

    cases = {
        "json": put(repo, raw=b'{"uuid": ', name=name(), folder="technical"),
        "array": put(repo, raw=b"[]\n", name=name(), folder="technical"),
        "name": put(repo, record(), name=name(), folder="technical"),
        "folder": put(repo, record(), folder="guidelines"),
        "markers": put(repo, name=name(), folder="technical", raw=(
            b'{\n<<<<<<< ours\n  "what": "a"\n=======\n  "what": "b"\n>>>>>>> theirs\n}\n')),
        "size": put(repo, record(notes="x" * (16 * 1024))),
        "stray": put(repo, raw=b"hello\n", name="notes.txt", folder="technical"),
        "dup": put(repo, dict(good), folder="technical"),
        "dup2": put(repo, dict(good, layer="guidelines"), folder="guidelines"),
        "utf8": put(repo, name=name(), folder="technical",
                    raw=b'{"what": "\xff"}'),
    }
    os.symlink("elsewhere.json", repo / MEM / "technical" / "link.json")
    put(repo, raw=b"fine\n", name=".gitkeep", folder="technical")  # quiet: not a stray file
    found = problems(repo)
    by_path: dict[str, list[tuple[Any, str]]] = {}
    for p in found:
        by_path.setdefault(p["path"], []).append((p["field"], p["message"]))

    def has(key: str, field: str | None, text: str) -> bool:
        return any(f == field and text in m for f, m in by_path.get(cases[key], []))

    assert has("json", None, "not valid JSON")
    assert has("array", None, "not a JSON object")
    assert has("name", "uuid", "file name is not its uuid")
    assert has("folder", "layer", "belongs at")
    assert has("markers", None, "conflict markers")
    assert not has("markers", None, "not valid JSON")  # the cause, not its symptom
    assert has("size", None, "at most 16384")
    assert has("stray", None, "not a memory file")
    assert has("dup2", "uuid", "also used by " + cases["dup"])
    assert has("dup", "uuid", "also used by " + cases["dup2"])
    assert has("utf8", None, "not valid JSON")
    assert by_path[f"{MEM}/technical/link.json"] == [(None, "not a regular file")]
    assert f"{MEM}/technical/.gitkeep" not in by_path


def test_secret_kinds_are_each_flagged_and_commit_ids_are_not(repo: Path) -> None:
    # Every kind has an example in tests/core/test_secrets_table.py; these are a sample.
    assert {k for k, _ in secret_shapes.PATTERNS} >= set(SECRET_EXAMPLES) - \
        {"a value assigned to password"}  # assignments: see test_safety.py
    for kind, text in SECRET_EXAMPLES.items():
        assert secrets.find(text) == kind, kind
    for text in NOT_SECRETS:
        assert secrets.find(text) is None, text
    where = {put(repo, record(why=text)): kind for kind, text in SECRET_EXAMPLES.items()}
    where[put(repo, record(tags=["ok", SECRET_EXAMPLES["GitHub token"]]))] = "GitHub token"
    where[put(repo, record(extra={"deep": [SECRET_EXAMPLES["npm token"]]}))] = "npm token"
    for text in NOT_SECRETS:
        put(repo, record(what=text))
    found = problems(repo)
    assert {p["path"] for p in found} == set(where)
    for p in found:
        assert p["message"] == f"looks like a secret ({where[p['path']]}); remove it"
        assert p["field"] in ("why", "tags", "extra")


def test_staged_reads_the_index_not_the_disk(repo: Path) -> None:
    rel = put(repo, record(what=""))
    git(repo, "add", rel)
    (repo / rel).write_text(json.dumps(record(uuid=Path(rel).stem)))
    assert problems(repo) == []
    assert [p["path"] for p in problems(repo, "--staged")] == [rel]
    assert [p["message"] for p in problems(repo, "--all")] == ["empty (in the index)"]


def test_staged_honours_git_index_file(repo: Path) -> None:
    put(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "one")
    bad = put(repo, record(layer="nope"))
    other = str(repo / ".git" / "other-index")
    env = {"GIT_INDEX_FILE": other}
    git(repo, "read-tree", "HEAD", env=env)
    git(repo, "add", bad, env=env)
    assert problems(repo, "--staged") == []
    assert [p["path"] for p in problems(repo, "--staged", env=env)] == [bad]


def test_personal_memory_staged_or_committed(repo: Path) -> None:
    rel = put(repo, record(layer="preferences", shared=False))
    assert problems(repo) == []  # on disk a personal memory is where it belongs
    git(repo, "add", "-f", rel)
    found = problems(repo, "--staged")
    assert [(p["path"], p["field"]) for p in found] == [(rel, None)]
    assert "personal memory is staged" in found[0]["message"]
    git(repo, "commit", "-q", "-m", "oops")
    assert "committed" in problems(repo, "--rev", "HEAD")[0]["message"]
    # a personal record placed among the shared ones is caught by its content too
    moved = put(repo, record(layer="preferences", shared=False), folder="preferences/shared")
    git(repo, "add", moved)
    fields = {p["field"] for p in problems(repo, "--staged") if p["path"] == moved}
    assert fields == {"layer", "shared"}


def test_rev_checks_a_commit_without_touching_the_tree(repo: Path) -> None:
    rel = put(repo, record(what=""))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "broken")
    (repo / rel).write_text(json.dumps(record(uuid=Path(rel).stem)))
    git(repo, "commit", "-q", "-a", "-m", "fixed")
    assert problems(repo, "--rev", "HEAD") == []
    found = problems(repo, "--rev", "HEAD~1")
    assert [(p["path"], p["field"], p["message"]) for p in found] == [(rel, "what", "empty")]
    assert git(repo, "status", "--porcelain") == ""
    r = aide(repo, "validate", "--rev", "nope")
    assert r.returncode == 1 and "names no commit" in r.stderr


def test_unmerged_entries_are_problems(repo: Path) -> None:
    rel = put(repo)
    blob = git(repo, "hash-object", "-w", rel).strip()
    git(repo, "update-index", "--index-info",
        input="".join(f"100644 {blob} {n}\t{rel}\n" for n in (1, 2, 3)))
    found = problems(repo, "--staged")
    assert [(p["path"], p["message"].split(":")[0]) for p in found] == [(rel, "unmerged")]


def test_usage_and_cache(repo: Path) -> None:
    r = aide(repo, "validate", "--staged", "--rev", "HEAD")
    assert r.returncode == 2
    rel = put(repo, record(what=""))
    first = problems(repo)
    assert problems(repo) == first  # answered from the verdict cache
    cache = repo / CACHE / "validate"
    assert cache.exists()
    cache.write_bytes(b"garbage")
    assert problems(repo) == first
    assert first[0]["path"] == rel
