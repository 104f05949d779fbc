"""The merge driver (README, Teams: clone, init, pull, merge): real clones, a bare remote, real
git merges."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    AIDE,
    BASE_ENV,
    T0,
    UUID,
    aide,
    aide_ok,
    git,
    make_repo,
    pull,
    stamp,
    team,
    unmerged,
)
from helpers import commit_memories as commit
from helpers import merge_record as record
from helpers import read_record as read
from helpers import write_record as write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from git_aide.core import memory
from git_aide.core.merge import (
    MergeConflict,
    conflict_bytes,
    merge_bytes,
)
from git_aide.drivers.merge import run_driver

# --- set-up ---------------------------------------------------------------------------


def test_init_registers_the_driver_once_and_uninstall_removes_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    assert git(repo, "config", "--local", "merge.aide.driver").strip() == \
        "git-aide merge-driver %O %A %B %L %P"
    assert git(repo, "config", "--local", "merge.aide.name").strip()
    attr = git(repo, "check-attr", "merge", "--", ".aide/memories/technical/x.json")
    assert attr.strip().endswith("merge: aide")
    again = aide_ok(repo, "init", "--no-hooks")
    assert "nothing changed" in again.stdout
    gone = aide_ok(repo, "init", "--uninstall")
    assert "merge.aide.driver" in gone.stdout
    assert "aide" not in git(repo, "config", "--local", "--list")
    assert "nothing changed" in aide_ok(repo, "init", "--uninstall").stdout
    aide_ok(repo, "init", "--no-hooks")
    assert git(repo, "config", "--local", "merge.aide.driver").strip()


def test_fast_path_imports_nothing_heavy(tmp_path: Path) -> None:
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_bytes(memory.canonical(record()))
    ours.write_bytes(memory.canonical(record(what="spaces", updated_at=stamp(2))))
    theirs.write_bytes(memory.canonical(record(why="pep8", updated_at=stamp(3))))
    code = (
        "import sys\n"
        f"sys.argv = ['git-aide', 'merge-driver', {str(base)!r}, {str(ours)!r}, "
        f"{str(theirs)!r}, '7', 'x.json']\n"
        "from git_aide.__main__ import main\n"
        "try:\n    main()\nexcept SystemExit as e:\n    rc = e.code\n"
        "heavy = [m for m in ('click', 'pygit2', 'rich', 'whoosh', 'orjson')\n"
        "         if m in sys.modules]\n"
        "print(rc, heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=BASE_ENV)
    assert out.stdout.strip() == "0 []", out.stderr
    merged = memory.parse(ours.read_bytes())
    assert (merged["what"], merged["why"], merged["updated_at"]) == ("spaces", "pep8", stamp(3))


def test_driver_through_the_executable(tmp_path: Path) -> None:
    base, ours, theirs, path = (tmp_path / n for n in ("base", "ours", "theirs", "p.json"))
    base.write_bytes(b"")
    ours.write_bytes(memory.canonical(record(what="A", updated_at=stamp(2))))
    theirs.write_bytes(b"{not json")
    path.write_bytes(b"untouched")
    proc = subprocess.run([*AIDE, "merge-driver", str(base), str(ours), str(theirs), "9",
                           str(path)], capture_output=True, text=True, env=BASE_ENV)
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr and "not valid JSON" in proc.stderr
    text = ours.read_text()
    assert text.startswith("<" * 9 + " ours\n") and "\n" + ">" * 9 + " theirs\n" in text
    assert "{not json\n" in text and '"what": "A"' in text
    assert path.read_bytes() == b"untouched"  # never the working-tree file
    assert aide(tmp_path, "merge-driver", "only-one").returncode == 2


# --- real merges between clones --------------------------------------------------------


@pytest.mark.quick
def test_different_fields_edited_in_two_clones_are_both_kept(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path, record(tags=["x"]))
    write(a, record(what="use spaces", tags=["x"], updated_at=stamp(2)))
    commit(a, "a: what")
    git(a, "push", "-q")
    write(b, record(why="PEP 8 says so", tags=["x"], updated_at=stamp(3)))
    commit(b, "b: why")
    pull(b)
    got = read(b)
    assert (got["what"], got["why"], got["updated_at"]) == ("use spaces", "PEP 8 says so",
                                                            stamp(3))
    assert unmerged(b) == "" and git(b, "status", "--porcelain") == ""


@pytest.mark.parametrize("merger", ["a", "b"])
def test_same_field_newer_updated_at_wins_whichever_clone_merges(tmp_path: Path,
                                                                 merger: str) -> None:
    _origin, a, b = team(tmp_path, record())
    write(a, record(what="from a, older", updated_at=stamp(2)))
    commit(a, "a")
    write(b, record(what="from b, newer", updated_at=stamp(5)))
    commit(b, "b")
    pusher, puller = (b, a) if merger == "a" else (a, b)
    git(pusher, "push", "-q", "origin", "main")
    pull(puller)
    got = read(puller)
    assert (got["what"], got["updated_at"]) == ("from b, newer", stamp(5))


def _diverge(tmp_path: Path) -> tuple[Path, Path]:
    """a pushes one set of edits; b commits another (on branch `mine`) and fetches."""
    _origin, a, b = team(tmp_path, record(tags=["keep", "drop"], context_label="start"))
    write(a, record(what="a's text", tags=["keep", "drop", "from-a"], context_label="a label",
                    updated_at=stamp(4), id=7))
    commit(a, "a: what, a tag, a label")
    git(a, "push", "-q")
    write(b, record(why="b's reason", tags=["keep"], context_label="b label",
                    updated_at=stamp(6)))
    commit(b, "b: why, drop a tag, a label")
    git(b, "branch", "mine")
    git(b, "fetch", "-q")
    return a, b


def test_pull_rebase_and_cherry_pick_give_the_same_bytes_as_merge(tmp_path: Path) -> None:
    _a, b = _diverge(tmp_path)
    path = b / memory.relpath(record())
    results: dict[str, bytes] = {}

    git(b, "checkout", "-q", "-b", "merged", "mine")
    git(b, "merge", "-q", "--no-edit", "origin/main")
    results["merge"] = path.read_bytes()

    git(b, "checkout", "-q", "-b", "swapped", "origin/main")
    git(b, "merge", "-q", "--no-edit", "mine")
    results["merge, sides swapped"] = path.read_bytes()

    git(b, "checkout", "-q", "main")  # main is `mine`, tracking origin/main
    pull(b, "--rebase")
    results["pull --rebase"] = path.read_bytes()

    git(b, "checkout", "-q", "-b", "picked", "origin/main")
    git(b, "cherry-pick", "mine")
    results["cherry-pick"] = path.read_bytes()

    assert len(set(results.values())) == 1, results
    got = memory.parse(results["merge"])
    assert got["what"] == "a's text" and got["why"] == "b's reason"
    assert got["context_label"] == "b label"  # both changed it: b's is newer
    assert got["tags"] == ["keep", "from-a"]  # b removed "drop", a added "from-a"
    assert got["id"] == 7 and got["updated_at"] == stamp(6)
    assert unmerged(b) == ""


def test_tags_added_on_one_side_and_removed_on_the_other_are_both_kept(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path, record(tags=["x", "y"]))
    write(a, record(tags=["x", "y", "added-by-a"], updated_at=stamp(9)))
    commit(a, "a: add a tag")
    git(a, "push", "-q")
    write(b, record(tags=["y", "added-by-b"], updated_at=stamp(3)))
    commit(b, "b: remove x, add another")
    pull(b)
    assert read(b)["tags"] == ["y", "added-by-a", "added-by-b"]


def test_add_add_of_one_uuid_is_merged_by_updated_at(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path)
    write(a, record(what="tabs", why="house style", tags=["fmt"], updated_at=stamp(2)))
    commit(a, "a adds it")
    git(a, "push", "-q")
    write(b, record(what="spaces", why="house style", tags=["style"], scope="src/**",
                    updated_at=stamp(7)))
    commit(b, "b adds it too")
    pull(b)
    got = read(b)
    assert (got["what"], got["scope"], got["why"]) == ("spaces", "src/**", "house style")
    assert got["tags"] == ["style", "fmt"] and got["updated_at"] == stamp(7)


def test_a_side_that_is_not_json_leaves_markers_and_loses_nothing(tmp_path: Path) -> None:
    _origin, a, b = team(tmp_path, record())
    path = memory.relpath(record())
    broken = b'{"uuid": "' + UUID.encode() + b'", "what": "half a fi'
    (a / path).write_bytes(broken)
    commit(a, "a breaks it")
    git(a, "push", "-q")
    good = memory.canonical(record(what="b's fine edit", updated_at=stamp(4)))
    (b / path).write_bytes(good)
    commit(b, "b edits it")
    proc = pull(b, check=False)
    assert proc.returncode != 0
    assert "not valid JSON" in proc.stderr and "Traceback" not in proc.stderr
    assert path in unmerged(b)
    text = (b / path).read_bytes()
    assert text.startswith(b"<<<<<<< ours\n") and b"\n=======\n" in text
    assert good in text and broken in text  # nothing lost from either side
    assert git(b, "show", f":2:{path}").encode() == good
    assert git(b, "show", f":3:{path}").encode() == broken


# --- the merge itself, called directly ------------------------------------------------


def test_different_uuids_or_an_invalid_result_are_conflicts() -> None:
    other = "1b5e4a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b"
    with pytest.raises(MergeConflict, match="different uuids"):
        merge_bytes(b"", memory.canonical(record()), memory.canonical(record(uuid=other)))
    with pytest.raises(MergeConflict, match="not a JSON object"):
        merge_bytes(b"", b"[1, 2]", memory.canonical(record()))
    base = record(layer="area_context", scope="src/**")
    ours = record(layer="area_context", scope=None, what="x")  # invalid on its own
    theirs = record(layer="area_context", scope="src/**", what="y", updated_at=stamp(2))
    with pytest.raises(MergeConflict, match="invalid"):
        merge_bytes(memory.canonical(base), json.dumps(ours).encode(),
                    memory.canonical(theirs))


def test_unknown_keys_merge_by_the_same_rules() -> None:
    base = record(id=1, extra={"k": 1}, gone="soon")
    ours = record(id=1, extra={"k": 2})  # changes "extra", deletes "gone"
    theirs = record(id=1, extra={"k": 1}, gone="soon", added=[1, 2], updated_at=stamp(2))
    got = json.loads(merge_bytes(*(memory.canonical(r) for r in (base, ours, theirs))))
    assert got["extra"] == {"k": 2} and "gone" not in got and got["added"] == [1, 2]


def test_a_virtual_ancestor_with_markers_is_no_base() -> None:
    ours = memory.canonical(record(what="o", tags=["a"], updated_at=stamp(2)))
    theirs = memory.canonical(record(what="t", tags=["b"], updated_at=stamp(3)))
    base = conflict_bytes(b"x", ours, theirs)
    got = json.loads(merge_bytes(base, ours, theirs))
    assert got["what"] == "t" and got["tags"] == ["b", "a"]


def test_run_driver_marks_conflicts_even_on_unexpected_errors(tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    mine = memory.canonical(record())
    ours.write_bytes(mine)
    unreadable = tmp_path / "theirs"  # a directory: reading it raises an OSError
    os.mkdir(unreadable)
    assert run_driver([str(tmp_path / "base"), str(ours), str(unreadable)]) == 1
    text = ours.read_bytes()
    assert text.startswith(b"<<<<<<< ours\n") and mine in text


# --- properties (hypothesis) ----------------------------------------------------------

STAMPS = [stamp(d) for d in range(2, 9)]
_text = st.text(max_size=12)
#: Values each field may take; every combination is a valid memory.
FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "what": st.sampled_from(["use tabs", "ünïcode ✓", "x"]) | _text.filter(str.strip),
    "why": st.none() | _text,
    "scope": st.sampled_from([None, "src/**", "docs/", "lib/*.{py,pyi}"]),
    "context_label": st.none() | _text,
    "contributor": st.sampled_from(["ada", "bob", ""]),
    "tags": st.lists(st.sampled_from(["a", "b", "c", "d", "e", "f"]), unique=True, max_size=5),
    "source": st.sampled_from(memory.SOURCES),
    "shared": st.booleans(),
    "priority": st.sampled_from(memory.PRIORITIES),
    "layer": st.sampled_from(["technical", "guidelines", "preferences"]),
    "generated_by": st.none() | st.fixed_dictionaries(
        {"tool": st.sampled_from(["claude", "aide"]), "author_type": st.sampled_from(["ai"])}),
    "id": st.integers(min_value=-(2**70), max_value=2**70),
    "x_note": _text | st.lists(st.integers(0, 3), max_size=3) | st.just({"n": 1.5}),
}
_ABSENT_OK = ("id", "x_note")  # unknown keys: may be missing, added or deleted


@st.composite
def base_records(draw: st.DrawFn) -> dict[str, Any]:
    """A valid memory with some unknown keys."""
    rec = {"uuid": UUID, "created_at": T0, "updated_at": stamp(1)}
    for key, strategy in FIELDS.items():
        if key in _ABSENT_OK and draw(st.booleans()):
            continue
        rec[key] = draw(strategy)
    return memory.fill_defaults(rec)


@st.composite
def edits(draw: st.DrawFn, base: dict[str, Any], keys: list[str]) -> dict[str, Any]:
    """`base` with some of `keys` changed (an unknown key may be deleted) and a new stamp."""
    rec = dict(base)
    for key in draw(st.lists(st.sampled_from(keys), unique=True)) if keys else []:
        if key in _ABSENT_OK and draw(st.booleans()):
            rec.pop(key, None)
        else:
            rec[key] = draw(FIELDS[key])
    rec["updated_at"] = draw(st.sampled_from(STAMPS))
    return rec


@st.composite
def three_way(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(base, ours, theirs), each side editing its own share of the fields."""
    base = draw(base_records())
    keys = list(FIELDS)
    mine = draw(st.lists(st.sampled_from(keys), unique=True))
    rest = [k for k in keys if k not in mine]
    return base, draw(edits(base, mine)), draw(edits(base, rest))


def _enc(rec: dict[str, Any]) -> bytes:
    """A record's canonical bytes, as a file in git holds them."""
    return memory.canonical(rec)


PROPS = settings(max_examples=150, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow])


@PROPS
@given(three_way())
def test_property_symmetric_and_keeps_one_sided_changes(
        case: tuple[dict[str, Any], dict[str, Any], dict[str, Any]]) -> None:
    base, ours, theirs = case
    merged = merge_bytes(_enc(base), _enc(ours), _enc(theirs))
    assert merged == merge_bytes(_enc(base), _enc(theirs), _enc(ours))
    got = json.loads(merged)
    assert memory.parse(merged) is not None and memory.canonical(got) == merged
    for side in (ours, theirs):
        for key in set(side) | set(base):
            if key == "updated_at" or json.dumps(side.get(key)) == json.dumps(base.get(key)):
                continue
            assert json.dumps(got.get(key)) == json.dumps(side.get(key)), key
    assert got["updated_at"] == max(ours["updated_at"], theirs["updated_at"])


@PROPS
@given(base_records(), st.data())
def test_property_both_changed_tags_merge_as_sets(base: dict[str, Any],
                                                  data: st.DataObject) -> None:
    ours, theirs = data.draw(edits(base, ["tags"])), data.draw(edits(base, ["tags"]))
    got = json.loads(merge_bytes(_enc(base), _enc(ours), _enc(theirs)))
    b, o, t = set(base["tags"]), set(ours["tags"]), set(theirs["tags"])
    if o != b and t != b:
        assert set(got["tags"]) == (b & o & t) | (o - b) | (t - b)


@PROPS
@given(base_records(), base_records(), st.sampled_from(STAMPS))
def test_property_idempotent(x: dict[str, Any], b: dict[str, Any], when: str) -> None:
    x = dict(x, updated_at=when)
    assert merge_bytes(_enc(x), _enc(x), _enc(x)) == _enc(x)
    assert merge_bytes(_enc(b), _enc(x), _enc(x)) == _enc(x)
    assert merge_bytes(b"", _enc(x), _enc(x)) == _enc(x)


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | _text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_text, inner, max_size=3),
    max_leaves=8)
_mangled = st.builds(lambda rec, key, value: _enc(rec)[:-1] if key == "cut" else
                     json.dumps({**rec, key: value}).encode(),
                     base_records(), st.sampled_from([*memory.KNOWN_KEYS, "cut"]), _json)
_anything = st.binary(max_size=40) | _json.map(lambda v: json.dumps(v).encode()) | \
    base_records().map(_enc) | _mangled


@PROPS
@given(_anything, _anything, _anything)
def test_property_never_raises_and_never_looks_resolved_when_not(b: bytes, o: bytes,
                                                                 t: bytes) -> None:
    try:
        merged = merge_bytes(b, o, t)
    except MergeConflict:
        merged = None
    if merged is not None:
        memory.parse(merged)  # a merge that succeeds is always a valid memory
        assert merged == merge_bytes(b, t, o)
    with tempfile.TemporaryDirectory() as tmp:
        paths = [os.path.join(tmp, n) for n in ("base", "ours", "theirs")]
        for path, data in zip(paths, (b, o, t), strict=True):
            with open(path, "wb") as f:
                f.write(data)
        rc = run_driver([*paths, "7", "x.json"])
        with open(paths[1], "rb") as f:
            out = f.read()
    assert (rc, out) == ((0, merged) if merged is not None else (1, conflict_bytes(b, o, t)))


_any_text = st.text(st.characters(codec="utf-8"), max_size=12)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**80), max_value=2**80) |
    st.floats(allow_nan=False, allow_infinity=False) | _any_text,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_any_text, inner, max_size=3),
    max_leaves=10)


@PROPS
@given(base_records(), st.dictionaries(_any_text, _values, max_size=4), _any_text)
def test_property_canonical_is_orjsons_form(rec: dict[str, Any], extra: dict[str, Any],
                                            what: str) -> None:
    # memory.canonical writes most records with the standard library (the merge driver
    # starts without orjson): the bytes must be orjson's, the form of files on disk.
    import orjson

    rec = {**extra, **rec, "what": what}
    ordered = memory.fill_defaults(rec)
    try:
        want = orjson.dumps(ordered, option=orjson.OPT_INDENT_2) + b"\n"
    except TypeError:  # integers beyond 64 bits: the standard library's form
        want = (json.dumps(ordered, indent=2, ensure_ascii=False) + "\n").encode()
    assert memory.canonical(rec) == want


def test_files_read_liberally_merge_and_are_written_repaired(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")  # `git aide init` installed the driver
    other = "1b5e4a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b"
    loose = {**record(tags=["a", "b", "a"]), "derived_from": [other, "not-a-uuid"]}
    path = write(repo, record())
    path.write_text(json.dumps(loose, indent=1))  # aide-memory's file, not canonical
    commit(repo, "a memory as another tool wrote it")
    git(repo, "checkout", "-q", "-b", "side")
    path.write_text(json.dumps({**loose, "what": "side's text", "updated_at": stamp(3)}))
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    path.write_text(json.dumps({**loose, "why": "main's reason", "updated_at": stamp(4)}))
    commit(repo, "main")
    r = subprocess.run(["git", "merge", "-q", "--no-edit", "side"], cwd=repo,
                       capture_output=True, text=True, env=BASE_ENV)
    assert r.returncode == 0, r.stdout + r.stderr
    got = read(repo)
    assert (got["what"], got["why"], got["tags"], got["derived_from"]) == \
        ("side's text", "main's reason", ["a", "b"], [other])
    assert path.read_bytes() == memory.canonical(got) and memory.check(got) == []
    assert unmerged(repo) == ""
