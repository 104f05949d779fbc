"""The per-machine usage counts (cache/usage.py): appended by processes at once without
a line lost or mixed, folded into the table without a line counted twice, and a damaged
file said in one warning line, never a traceback."""

from __future__ import annotations

import subprocess
import sys
import uuid as uuidlib
from pathlib import Path

from helpers import BASE_ENV, aide, aide_ok, remember

from git_aide.cache import usage

ROUNDS = 1500
IDS = [str(uuidlib.UUID(int=i)) for i in range(1, 6)]
#: Appends ROUNDS recalls of IDS, one line each, as a front end counts.
APPENDER = f"""
import sys
from git_aide.cache import usage
for i in range({ROUNDS}):
    usage.record(sys.argv[1], [usage.line("recall", sys.argv[2], {IDS!r}, 1700000000 + i)])
"""


def test_two_processes_counting_at_once_lose_no_line_across_folds(tmp_path: Path) -> None:
    folder = str(tmp_path / "usage")
    procs = [subprocess.Popen([sys.executable, "-c", APPENDER, folder, channel],
                              env=BASE_ENV, stderr=subprocess.PIPE, text=True)
             for channel in ("cli", "mcp")]
    for p in procs:
        _out, err = p.communicate(timeout=300)
        assert p.returncode == 0, err
    # 3,000 lines of ~200 bytes: the log was folded into the table several times
    # while both wrote.
    assert (tmp_path / "usage" / "counts").exists()
    assert (tmp_path / "usage" / "log").stat().st_size < usage.FOLD_BYTES + 4096
    got = usage.read(folder)
    assert got.warnings == []
    assert got.calls == {"recall": {"cli": ROUNDS, "mcp": ROUNDS}}
    for u in IDS:
        m = got.memories[u]
        assert (m.recalls, m.searches, m.agents) == (2 * ROUNDS, 0, ROUNDS)
        assert m.last == 1700000000 + ROUNDS - 1


def test_a_fold_cut_off_before_it_emptied_the_log_counts_nothing_twice(tmp_path: Path) -> None:
    folder = str(tmp_path / "usage")
    log = tmp_path / "usage" / "log"
    line = usage.line("search", "hook", IDS, 1700000000)
    per_line = len(line)
    before = usage.FOLD_BYTES // per_line  # just short of a fold
    usage.record(folder, [line] * before)
    assert not (tmp_path / "usage" / "counts").exists()
    kept = log.read_bytes()
    usage.record(folder, [line] * 3)  # past FOLD_BYTES: folded, the log emptied
    assert (tmp_path / "usage" / "counts").exists() and log.stat().st_size < 100
    # As if the fold had died between writing the table and emptying the log, and a
    # count came after.
    log.write_bytes(kept + line * 3 + usage.line("recall", "cli", IDS[:1], 1700000001))
    got = usage.read(folder)
    assert got.warnings == []
    assert got.calls == {"search": {"hook": before + 3}, "recall": {"cli": 1}}
    assert got.memories[IDS[0]].searches == before + 3
    assert got.memories[IDS[0]].recalls == 1


def test_a_damaged_counts_file_is_one_warning_line_then_rewritten(repo: Path) -> None:
    a = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")["uuid"]
    aide_ok(repo, "recall", "src/auth/login.py")
    folder = repo / ".git" / "aide" / "usage"
    (folder / "counts").write_text('{"format": 1, "token": 7, "calls": []}')
    with (folder / "log").open("ab") as f:
        f.write(b"\xff\xfe not a line\n")
    r = aide(repo, "stats", "--json")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    said = r.stderr.splitlines()
    assert len(said) == 2, said  # one line for the table, one for the log
    assert "usage counts" in said[0] and "damaged" in said[0]
    assert "1 line of the usage log" in said[1]
    doc = r.json()
    # The log is still counted: the recall and the remember.
    assert doc["calls"]["recall"]["cli"] == 1 and doc["calls"]["remember"]["cli"] == 1
    assert [m["uuid"] for m in doc["most_recalled"]] == [a]
    # Garbage where the folder should be: counting is skipped, nothing fails.
    for p in folder.iterdir():
        p.unlink()
    folder.rmdir()
    folder.write_text("not a folder")
    aide_ok(repo, "recall", "src/auth/login.py")
    r = aide(repo, "stats")
    assert r.returncode == 0 and "Traceback" not in r.stderr
    assert len(r.stderr.splitlines()) <= 1
