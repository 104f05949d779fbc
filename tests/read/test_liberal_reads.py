"""Files written by aide-memory are read liberally (README, The memory file, issue 7).

A file that parses and has a valid uuid, layer and what is a live memory for every
read; `validate` names its other problems as warnings that do not fail a commit. The
fixtures are written as aide-memory writes them: its numeric `id` first, 2-space JSON.
"""

from __future__ import annotations

import json
import subprocess
import uuid as uuidlib
from pathlib import Path
from typing import Any

import pytest
from helpers import BASE_ENV, aide, aide_ok, git, make_repo

MEM = ".aide/memories"


def aide_memory_file(repo: Path, folder: str, n: int, **over: Any) -> tuple[str, Path]:
    """A memory as aide-memory writes it (its `id` first), with some fields replaced;
    a field given as None is left out."""
    u = str(uuidlib.uuid4())
    rec: dict[str, Any] = {
        "id": n, "uuid": u, "layer": folder.split("/")[0], "what": f"memory {n} says zebra",
        "why": "because", "scope": "src/app/**", "context_label": None,
        "contributor": "aide-memory", "tags": ["t"], "source": "conversation",
        "shared": True, "priority": "normal", "generated_by": None, "derived_from": None,
        "created_at": "2024-05-01T10:00:00.000Z", "updated_at": "2024-05-02T10:00:00.000Z",
    }
    rec.update(over)
    rec = {k: v for k, v in rec.items() if v is not None or k not in over}
    path = repo / MEM / folder / f"{u}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec, indent=2))  # no trailing newline, like JSON.stringify
    return u, path


@pytest.fixture
def side_by_side(tmp_path: Path) -> tuple[Path, dict[str, str], dict[str, Path]]:
    repo = make_repo(tmp_path / "r", hooks=True)
    made: dict[str, tuple[str, Path]] = {}
    parent = str(uuidlib.uuid4())
    made["derived"] = aide_memory_file(repo, "technical", 1, derived_from=[parent])
    made["repeated_tag"] = aide_memory_file(repo, "technical", 2, tags=["db", "db"])
    made["time_order"] = aide_memory_file(repo, "technical", 3,
                                          created_at="2024-06-01T10:00:00.000Z")
    made["odd_type"] = aide_memory_file(repo, "technical", 4, why=5, tags="a,b")
    made["no_shared"] = aide_memory_file(repo, "preferences/shared", 5, shared=None)
    made["personal_no_shared"] = aide_memory_file(repo, "preferences/personal", 6,
                                                  shared=None)
    uuids = {k: u for k, (u, _p) in made.items()}
    paths = {k: p for k, (_u, p) in made.items()}
    return repo, uuids, paths


def live(result: Any) -> dict[str, dict[str, Any]]:
    """uuid -> memory of a JSON document of memories."""
    return {m["uuid"]: m for m in result.json()["memories"]}


def test_aide_memory_files_are_live_for_every_read(side_by_side: Any) -> None:
    repo, uuids, paths = side_by_side
    before = {k: p.read_bytes() for k, p in paths.items()}
    listed = aide_ok(repo, "list", "--json")
    assert set(live(listed)) == set(uuids.values()), listed.stderr
    assert "skipped" not in listed.stderr
    got = live(listed)
    assert got[uuids["personal_no_shared"]]["shared"] is False  # taken from its folder
    assert got[uuids["no_shared"]]["shared"] is True
    assert got[uuids["derived"]]["derived_from"] == json.loads(
        before["derived"])["derived_from"]
    recalled = live(aide_ok(repo, "recall", "src/app/main.py", "--json", "--limit", "50"))
    assert set(recalled) == set(uuids.values())
    found = live(aide_ok(repo, "search", "zebra", "--json", "--limit", "50"))
    assert set(found) == set(uuids.values())
    for u in uuids.values():
        assert aide_ok(repo, "show", u, "--json").json()["memory"]["uuid"] == u
    aide_ok(repo, "validate")
    aide_ok(repo, "index")
    # Read, listed, searched, validated: not a byte of any file changed.
    assert {k: p.read_bytes() for k, p in paths.items()} == before


def test_validate_warns_and_the_commit_passes(side_by_side: Any) -> None:
    repo, uuids, _paths = side_by_side
    r = aide(repo, "validate", "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert doc["ok"] is True and doc["problems"] == []
    warned = {(w["path"].rsplit("/", 1)[-1][:-5], w["field"]) for w in doc["warnings"]}
    assert (uuids["repeated_tag"], "tags") in warned
    assert (uuids["time_order"], "updated_at") in warned
    assert (uuids["odd_type"], "why") in warned and (uuids["odd_type"], "tags") in warned
    assert not any(u == uuids["derived"] for u, _f in warned)  # a list is its own type
    human = aide(repo, "validate")
    assert human.returncode == 0 and "warning:" in human.stderr
    git(repo, "add", "-A")
    commit = subprocess.run(["git", "commit", "-q", "-m", "aide-memory's files"], cwd=repo,
                            capture_output=True, text=True, env=BASE_ENV)
    assert commit.returncode == 0, commit.stderr


def test_update_writes_canonically_and_keeps_unknown_keys(side_by_side: Any) -> None:
    repo, uuids, paths = side_by_side
    for name in ("derived", "repeated_tag", "time_order", "odd_type"):
        r = aide_ok(repo, "update", uuids[name], "--tag", "new", "--json")
        assert r.json()["uuid"] == uuids[name]
        data = paths[name].read_bytes()
        rec = json.loads(data)
        assert list(rec)[0] == "uuid" and data.endswith(b"}\n")  # canonical order
        assert isinstance(rec["id"], int)  # aide-memory's id is kept
        assert "new" in rec["tags"] and len(set(rec["tags"])) == len(rec["tags"])
        assert rec["updated_at"] >= rec["created_at"]
    assert aide(repo, "validate", "--json").json()["ok"] is True
    rec = json.loads(paths["derived"].read_bytes())
    assert isinstance(rec["derived_from"], list)
    aide_ok(repo, "forget", uuids["time_order"], uuids["personal_no_shared"])
    assert not paths["time_order"].exists() and not paths["personal_no_shared"].exists()


def test_only_a_file_that_is_not_a_memory_is_skipped(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    good, _ = aide_memory_file(repo, "technical", 1)
    _, nojson = aide_memory_file(repo, "technical", 2)
    nojson.write_text("{ not json")
    _, nowhat = aide_memory_file(repo, "technical", 3, what=None)
    _, badname = aide_memory_file(repo, "technical", 4)
    badname.rename(badname.with_name(str(uuidlib.uuid4()) + ".json"))
    _, badlayer = aide_memory_file(repo, "technical", 5, layer="gossip")
    r = aide_ok(repo, "list", "--json")
    assert set(live(r)) == {good}
    assert r.stderr.count("skipped") == 4
    assert aide(repo, "validate").returncode == 1


#: Records with a problem of each kind that leaves them live memories (and none).
ODD: dict[str, dict[str, Any]] = {
    "fine": {}, "repeated_tag": {"tags": ["db", "db"]}, "tags_text": {"tags": "a,b"},
    "tag_number": {"tags": ["a", 7]}, "why_number": {"why": 5},
    "label_list": {"context_label": ["x"]}, "no_contributor": {"contributor": None},
    "contributor_number": {"contributor": 3}, "bad_time": {"created_at": "yesterday"},
    "time_number": {"updated_at": 12}, "time_order": {"created_at": "2024-06-01T10:00:00.000Z"},
    "source": {"source": "telepathy"}, "priority": {"priority": 2},
    "generated_by": {"generated_by": "me"}, "derived_text": {"derived_from": "nope"},
    "derived_numbers": {"derived_from": [1, 2]}, "shared_text": {"shared": "yes"},
    "no_shared": {"shared": None}, "no_tags": {"tags": None},
}


def test_a_known_memory_reads_as_one_checked_again(tmp_path: Path) -> None:
    from git_aide.core import memory

    repo = make_repo(tmp_path / "r", hooks=True)
    for n, (name, over) in enumerate(ODD.items()):
        for folder in ("technical", "preferences/personal"):
            _u, path = aide_memory_file(repo, folder, n, **over)
            data = path.read_bytes()
            rel = path.relative_to(repo).as_posix()
            assert memory.parse(data, rel, known=True) == memory.parse(data, rel), name
            for text in (data, memory.canonical(memory.parse(data, rel))):
                assert memory.parse(text, rel, known=True) == memory.parse(text, rel), name


def test_a_search_shows_odd_memories_as_read_and_validate_still_warns(
        side_by_side: Any) -> None:
    repo, uuids, paths = side_by_side
    git(repo, "add", "-A")
    subprocess.run(["git", "commit", "-q", "-m", "odd"], cwd=repo, check=True, env=BASE_ENV)
    aide_ok(repo, "index")  # read from the view now: each blob's verdict is the index's
    found = live(aide_ok(repo, "search", "zebra", "--json", "--limit", "1000000"))
    odd = found[uuids["odd_type"]]
    assert odd["why"] == "5" and odd["tags"] == ["a,b"]
    assert found[uuids["repeated_tag"]]["tags"] == ["db", "db"]
    assert found[uuids["personal_no_shared"]]["shared"] is False
    text = aide_ok(repo, "search", "zebra", "--limit", "1000000").stdout
    assert "why: 5" in text and "#a,b" in text
    # After an index and a search, the same problems are still named.
    warned = {(w["path"].rsplit("/", 1)[-1][:-5], w["field"])
              for w in aide(repo, "validate", "--json").json()["warnings"]}
    assert {(uuids["odd_type"], "why"), (uuids["repeated_tag"], "tags"),
            (uuids["time_order"], "updated_at")} <= warned
    # An odd memory edited into another blob is read anew, not by the first verdict.
    rec = json.loads(paths["odd_type"].read_bytes())
    paths["odd_type"].write_text(json.dumps({**rec, "why": [1, 2], "tags": ["b", "b"]}))
    found = live(aide_ok(repo, "search", "zebra", "--json", "--limit", "1000000"))
    assert found[uuids["odd_type"]]["why"] == "[1, 2]"
    assert found[uuids["odd_type"]]["tags"] == ["b", "b"]
