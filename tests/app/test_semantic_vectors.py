"""The memories' vectors (git_aide/cache/vectors.py): `index` embeds them, a changed
memory alone is embedded again, every revision shares them, damage to the file is said
and repaired, and two processes embedding at once do not corrupt it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, aide_ok, commit, git, remember, uuids, write_memory

AUTH = "Users authenticate with a password and get a session"
SHIP = "We ship releases on Friday"
#: A vectors file: its header, then records of a blob id (20 bytes), 8 float16s and the
#: CRC-32 of the two.
HEADER, RECORD = 16, 20 + 2 * 8 + 4


@pytest.fixture
def store(repo: Path, tiny: Path) -> dict[str, str]:
    """Memories on a few subjects, committed, with the tiny model configured."""
    made = {"auth": remember(repo, AUTH)["uuid"], "ship": remember(repo, SHIP)["uuid"],
            "db": remember(repo, "The database uses postgres")["uuid"],
            "tabs": remember(repo, "Use tabs for indentation")["uuid"]}
    commit(repo, "memories")
    git(repo, "config", "aide.semantic.model", str(tiny))
    return made


def vec_file(repo: Path) -> Path:
    [path] = (repo / ".git/aide/vectors").glob("*.vec")
    return path


def status(repo: Path) -> dict[str, object]:
    doc: dict[str, object] = aide_ok(repo, "semantic", "status", "--json").json()
    return doc


def embedded(result_stdout: str) -> int:
    [line] = [x for x in result_stdout.splitlines() if x.startswith("Embedded ")]
    return int(line.split()[1])


def semantic_first(repo: Path, query: str, *extra: str) -> str:
    return uuids(aide_ok(repo, "search", query, "--mode", "semantic", "--json", *extra))[0]


def test_index_embeds_every_memory_then_only_what_changed(repo: Path,
                                                          store: dict[str, str]) -> None:
    before = status(repo)
    assert before["loads"] and before["memories"] == 4 and before["with_vectors"] == 0
    assert embedded(aide_ok(repo, "index").stdout) == 4
    doc = status(repo)
    assert doc["with_vectors"] == doc["memories"] == 4 and doc["dim"] == 8
    assert vec_file(repo).stat().st_size == HEADER + 4 * RECORD == doc["vectors_bytes"]
    assert embedded(aide_ok(repo, "index").stdout) == 0
    aide_ok(repo, "update", store["db"], "--what", "The database uses postgres and redis")
    assert embedded(aide_ok(repo, "index").stdout) == 1
    assert status(repo)["with_vectors"] == 4
    # Without a model, index says nothing of embedding.
    git(repo, "config", "--unset", "aide.semantic.model")
    assert "Embedded" not in aide_ok(repo, "index").stdout


def test_search_embeds_as_it_goes(repo: Path, store: dict[str, str]) -> None:
    """No `index` needed: the first search by meaning embeds what has no vector."""
    assert semantic_first(repo, "signin") == store["auth"]
    assert status(repo)["with_vectors"] == 4
    write_memory(repo, "Every deploy goes out on friday")
    assert status(repo)["with_vectors"] == 4  # status embeds nothing
    assert semantic_first(repo, "ship") != store["auth"]
    assert status(repo)["with_vectors"] == 5


def test_vectors_are_shared_across_revisions(repo: Path, store: dict[str, str]) -> None:
    git(repo, "tag", "v1")
    aide_ok(repo, "index")
    size = vec_file(repo).stat().st_size
    aide_ok(repo, "update", store["auth"], "--what", "The cache lives in git")
    commit(repo, "changed")
    # The old text is found by meaning at v1, with the vectors index made: nothing new
    # is embedded for it.
    assert semantic_first(repo, "signin", "--rev", "v1") == store["auth"]
    assert vec_file(repo).stat().st_size == size
    # The new text is embedded once, for the new revision, and is no longer about signing in.
    # (Every memory left then scores 0 for "signin" with the tiny model: which comes
    # first among equals is not the point; the edited one's score is.)
    doc = aide_ok(repo, "search", "signin", "--mode", "semantic", "--json").json()
    scores = {m["uuid"]: m["score"] for m in doc["memories"]}
    assert scores.get(store["auth"], 0.0) < 0.01
    assert vec_file(repo).stat().st_size == size + RECORD
    assert semantic_first(repo, "signin", "--rev", "v1") == store["auth"]


def garble_record(path: Path, at: int) -> None:
    data = bytearray(path.read_bytes())
    start = HEADER + at * RECORD + 20  # the vector of record `at`
    data[start:start + 16] = b"\xff" * 16  # float16 NaNs
    path.write_bytes(bytes(data))


@pytest.mark.parametrize("damage", ["torn tail", "garbled record", "bad header",
                                    "cut in the header", "many records garbled"])
def test_a_damaged_vectors_file_is_said_and_rebuilt(repo: Path, store: dict[str, str],
                                                    damage: str) -> None:
    aide_ok(repo, "index")
    path = vec_file(repo)
    data = path.read_bytes()
    assert len(data) == HEADER + 4 * RECORD
    if damage == "torn tail":
        path.write_bytes(data[:-5])
    elif damage == "garbled record":
        garble_record(path, 1)
    elif damage == "many records garbled":
        for at in range(4):
            garble_record(path, at)
    elif damage == "bad header":
        path.write_bytes(b"NOTAVEC!" + data[8:])
    else:
        path.write_bytes(data[:10])
    r = aide_ok(repo, "search", "signin", "--json")
    assert uuids(r)[0] == store["auth"]
    assert "vectors" in r.stderr and "notice" in r.stderr, r.stderr
    assert "Traceback" not in r.stderr
    # Rebuilt: every memory has its vector again, the file is whole, nothing more is said.
    assert status(repo)["with_vectors"] == 4
    size = path.stat().st_size
    assert (size - HEADER) % RECORD == 0 and size >= HEADER + 4 * RECORD
    again = aide_ok(repo, "search", "signin", "--json")
    assert uuids(again)[0] == store["auth"] and again.stderr == ""


def test_a_torn_tail_is_not_carried_into_later_appends(repo: Path,
                                                       store: dict[str, str]) -> None:
    """A writer killed mid-append leaves half a record: the next append starts at a
    record's end, so the records after it are read back as they were written."""
    aide_ok(repo, "index")
    path = vec_file(repo)
    path.write_bytes(path.read_bytes() + b"\x01" * 7)
    write_memory(repo, "Tokens rotate every hour")
    aide_ok(repo, "index")
    size = path.stat().st_size
    assert (size - HEADER) % RECORD == 0
    r = aide_ok(repo, "search", "signin", "--mode", "semantic", "--json")
    assert status(repo)["with_vectors"] == status(repo)["memories"] == 5
    assert uuids(r)[0] == store["auth"]


def two_index_runs_afresh(repo: Path) -> list[tuple[str, str]]:
    """Remove the vectors, run two `git aide index` at once; their (stdout, stderr)."""
    for path in (repo / ".git/aide/vectors").glob("*.vec"):
        path.unlink()
    procs = [subprocess.Popen([*AIDE, "index"], cwd=repo, env=BASE_ENV,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    results = [p.communicate(timeout=120) for p in procs]
    for p, (_out, err) in zip(procs, results, strict=True):
        assert p.returncode == 0 and "Traceback" not in err, err
    return results


def test_two_processes_embedding_at_once_do_not_corrupt_the_file(repo: Path,
                                                                 tiny: Path) -> None:
    for i in range(300):
        write_memory(repo, f"{'login' if i % 2 else 'deploy'} note {i} of the queue")
    auth = remember(repo, AUTH)["uuid"]
    git(repo, "config", "aide.semantic.model", str(tiny))
    aide_ok(repo, "index")
    results = two_index_runs_afresh(repo)
    assert sum(embedded(out) for out, _err in results) >= 301
    size = vec_file(repo).stat().st_size
    assert (size - HEADER) % RECORD == 0
    r = aide_ok(repo, "search", "signin", "--mode", "semantic", "--json")
    assert r.stderr == ""  # nothing was found damaged
    assert auth in uuids(r)
    doc = status(repo)
    assert doc["with_vectors"] == doc["memories"] == 301


def test_a_blob_id_ending_in_a_zero_byte_keeps_its_vector(repo: Path, tiny: Path) -> None:
    """One blob id in 256 ends in 00: its vector is found again like any other (it was
    once read back without that byte, and embedded again on every search)."""
    import hashlib

    from git_aide.core import memory

    for i in range(5000):
        rec = write_memory(repo, f"login note number {i}")
        path = repo / memory.relpath(rec)
        data = path.read_bytes()
        if hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest().endswith("00"):
            break
        path.unlink()
    else:
        pytest.fail("no blob id ending in 00")
    git(repo, "config", "aide.semantic.model", str(tiny))
    assert embedded(aide_ok(repo, "index").stdout) == 1
    assert embedded(aide_ok(repo, "index").stdout) == 0
    assert status(repo)["with_vectors"] == 1
    aide_ok(repo, "search", "signin", "--mode", "semantic")
    assert vec_file(repo).stat().st_size == HEADER + RECORD


def records(path: Path) -> list[bytes]:
    data = path.read_bytes()
    assert (len(data) - HEADER) % RECORD == 0
    return [data[at:at + RECORD] for at in range(HEADER, len(data), RECORD)]


@pytest.mark.parametrize("damage", ["blob ids swapped", "a sign flipped"])
def test_a_record_changed_yet_of_unit_length_is_dropped_not_used(
        repo: Path, store: dict[str, str], damage: str) -> None:
    """Two records' blob ids swapped, or one number's sign flipped, still make unit
    vectors: each record's checksum tells them, and they are embedded again."""
    aide_ok(repo, "index")
    path = vec_file(repo)
    recs = [bytearray(r) for r in records(path)]
    if damage == "blob ids swapped":
        recs[0][:20], recs[1][:20] = recs[1][:20], recs[0][:20]
    else:
        for rec in recs:  # every record: whichever memory is whose, its vector changed
            rec[20 + 1] ^= 0x80  # the high byte of the first float16: its sign
    path.write_bytes(path.read_bytes()[:HEADER] + b"".join(recs))
    r = aide_ok(repo, "search", "signin", "--mode", "semantic", "--json")
    assert "damaged memory vectors were dropped" in r.stderr, r.stderr
    assert uuids(r)[0] == store["auth"]
    assert status(repo)["with_vectors"] == 4
    again = aide_ok(repo, "search", "signin", "--mode", "semantic", "--json")
    assert uuids(again)[0] == store["auth"] and again.stderr == ""
    assert len(records(path)) == 4


def test_a_vectors_file_of_the_older_format_is_made_again(repo: Path,
                                                          store: dict[str, str]) -> None:
    """Records without a checksum (format 1) are not trusted: the file is removed, said
    once, and every vector made again."""
    aide_ok(repo, "index")
    path = vec_file(repo)
    head = path.read_bytes()[:HEADER]
    old = b"AIDEVEC1" + head[8:] + b"".join(r[:-4] for r in records(path))
    path.write_bytes(old)
    r = aide_ok(repo, "search", "signin", "--mode", "semantic", "--json")
    assert "made by another version of git-aide" in r.stderr, r.stderr
    assert uuids(r)[0] == store["auth"]
    assert path.read_bytes()[:8] == b"AIDEVEC2" and len(records(path)) == 4
    assert aide_ok(repo, "search", "signin", "--json").stderr == ""


def test_two_index_runs_at_once_embed_each_memory_once(repo: Path, tiny: Path) -> None:
    """Each run reads what the other stored before it embeds a chunk (holding the
    vectors' lock): as many records as memories, not one per memory and run."""
    for i in range(400):
        write_memory(repo, f"{'login' if i % 2 else 'deploy'} note {i} of the queue")
    git(repo, "config", "aide.semantic.model", str(tiny))
    aide_ok(repo, "index")
    blobs = status(repo)["memories"]
    assert blobs == 400
    for attempt in range(3):
        results = two_index_runs_afresh(repo)
        assert sum(embedded(out) for out, _err in results) == blobs, (attempt, results)
        assert len(records(vec_file(repo))) == blobs, attempt
