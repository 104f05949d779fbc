"""`search --limit` of any size (issue 23): every match, best first, and a memory a newer
match supersedes still after every current one."""

from __future__ import annotations

from pathlib import Path

from helpers import aide_ok, git, put, uuids, valid_record


def stamp(minute: int) -> str:
    """A time on one day, a minute apart: the order in which the memories were written."""
    return f"2024-03-01T{minute // 60:02d}:{minute % 60:02d}:00.000Z"


def test_a_large_limit_returns_every_match_best_first_superseded_last(repo: Path) -> None:
    # Many matches with words of their own (none near another), and one old fact with
    # its newer version: the old one says the query's word most, so it ranks first
    # until supersession moves it.
    notes = []
    for i in range(150):
        rec = valid_record(what=f"flux note {i}: word{i}a word{i}b word{i}c",
                           created_at=stamp(i + 1), updated_at=stamp(i + 1))
        put(repo, rec)
        notes.append(rec["uuid"])
    older = valid_record(what="flux capacitor flux setting: flux is 1.21 gigawatts of flux",
                         created_at=stamp(0), updated_at=stamp(0))
    newer = valid_record(what="flux capacitor setting: flux is now 2.1 gigawatts",
                         created_at=stamp(200), updated_at=stamp(200))
    elsewhere = valid_record(what="thumbnails are made by a worker")
    for rec in (older, newer, elsewhere):
        put(repo, rec)
    git(repo, "add", "-A", ".aide")
    git(repo, "commit", "-q", "-m", "memories")

    doc = aide_ok(repo, "search", "flux", "--limit", "1000000", "--json").json()
    got = [m["uuid"] for m in doc["memories"]]
    assert sorted(got) == sorted([*notes, older["uuid"], newer["uuid"]])
    assert got[-1] == older["uuid"]
    scores = [m["score"] for m in doc["memories"]]
    assert scores == sorted(scores, reverse=True), scores
    # The default limit: the newer version among the first, the old one cut.
    first = uuids(aide_ok(repo, "search", "flux", "--json"))
    assert len(first) == 20 and newer["uuid"] in first and older["uuid"] not in first
    # Without its newer version, the old fact is the best match.
    git(repo, "rm", "-q", f".aide/memories/technical/{newer['uuid']}.json")
    alone = uuids(aide_ok(repo, "search", "flux", "--limit", "1000000", "--json"))
    assert alone[0] == older["uuid"] and len(alone) == len(got) - 1


def test_a_large_recall_limit_keeps_a_superseded_memory_below_its_replacement(
        repo: Path) -> None:
    old = valid_record(what="uploads are capped at 10 MB by MAX_UPLOAD_BYTES",
                       scope="src/upload/limits.py", created_at=stamp(0), updated_at=stamp(0))
    new = valid_record(what="uploads are capped at 50 MB by MAX_UPLOAD_BYTES since 2025",
                       scope="src/upload/**", created_at=stamp(9), updated_at=stamp(9))
    others = [valid_record(what=f"upload rule {i}: term{i}x term{i}y", scope="src/**",
                           created_at=stamp(i + 1), updated_at=stamp(i + 1))
              for i in range(5)]
    for rec in (old, new, *others):
        put(repo, rec)
    got = uuids(aide_ok(repo, "recall", "src/upload/limits.py", "--limit", "1000000",
                        "--json"))
    # Without the newer note the old one would come first (it names the file).
    assert got[:2] == [new["uuid"], old["uuid"]]
    assert len(got) == 7
    (repo / f".aide/memories/technical/{new['uuid']}.json").unlink()
    alone = uuids(aide_ok(repo, "recall", "src/upload/limits.py", "--limit", "1000000",
                          "--json"))
    assert alone[0] == old["uuid"] and len(alone) == 6


def test_an_answer_of_many_memories_shows_each_as_a_small_answer_does(repo: Path) -> None:
    """More than a thousand matches are read from the view's contents in one run
    (read/snapshot.body): each shows as it does in an answer of a few."""
    for i in range(1100):
        put(repo, valid_record(what=f"zebra note {i}: word{i}a word{i}b", tags=[f"t{i % 7}"],
                               why=f"reason {i}" if i % 3 else None,
                               scope=f"src/m{i % 5}/**" if i % 2 else None,
                               layer="area_context" if i % 2 else "technical",
                               created_at=stamp(i % 1400), updated_at=stamp(i % 1400)))
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "many")
    aide_ok(repo, "index")
    every = aide_ok(repo, "search", "zebra", "--json", "--limit", "1000000").json()
    assert len(every["memories"]) == 1100
    shown = {m["uuid"]: m for m in every["memories"]}
    text = aide_ok(repo, "search", "zebra", "--limit", "1000000").stdout
    for i in (0, 1, 2, 517, 1099):
        few = aide_ok(repo, "search", f"word{i}a", "--json", "--limit", "3").json()
        one = next(m for m in few["memories"] if f"word{i}a" in m["what"].split())
        assert {k: v for k, v in shown[one["uuid"]].items() if k != "score"} == \
            {k: v for k, v in one.items() if k != "score"}
        assert f"{one['uuid'][:8]}  {one['layer']}" in text and one["what"] in text
