"""Precision and recall of supersession on the judged pairs of bench/quality/data.

    python3 bench/quality/supersession.py [--model DIR]

Each dataset's SOURCE lists its superseded pairs (older -> newer: the older one is
out of date) and its near duplicates (both true). git-aide's supersession check
(rank/duplicates.pairs, as recall and search run it) is run over every memory of the
dataset; a pair it reports counts as right when the SOURCE lists it as superseded.
Prints, per dataset and in all: pairs found, right, precision, recall, and the
near duplicates it took for supersession.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as quality  # noqa: E402

_ARROW = re.compile(r"\b(m\d+)\s*->\s*(m\d+)")
_SLASH = re.compile(r"\b(m\d+)/(m\d+)")


def judged(source: str) -> tuple[set[tuple[str, str]], set[frozenset[str]]]:
    """(superseded pairs as (older, newer), near-duplicate pairs) a SOURCE lists."""
    superseded: set[tuple[str, str]] = set()
    near: set[frozenset[str]] = set()
    part = ""
    for line in source.splitlines():
        low = line.lower()
        if "superseded" in low and ("->" in line or "pairs" in low or "older" in low):
            part = "superseded"
        elif "near duplicates" in low:
            part = "near"
        elif line and not line.startswith(" ") and "->" not in line and "/" not in line[:5]:
            part = "" if ":" in line and not _ARROW.search(line) else part
        if part == "superseded" or _ARROW.search(line) and part != "near":
            superseded.update(_ARROW.findall(line))
        if part == "near" or "near duplicates" in low:
            near.update(frozenset(p) for p in _SLASH.findall(line))
    return superseded, near


def measure(ds: quality.Dataset, model: Path | None) -> tuple[int, int, int, int]:
    """(found, right, judged superseded, near duplicates taken) for one dataset."""
    import os
    import tempfile

    from git_aide.app.context import open_context
    from git_aide.app.hybrid import meaning_of
    from git_aide.app.semantic import Semantic
    from git_aide.rank.memo import RankMemo
    from git_aide.rank.supersede import superseded

    truth, near = judged((quality.DATA_DIR / ds.name / "SOURCE").read_text())
    with tempfile.TemporaryDirectory(prefix="aide-sup-") as tmp:
        repo = Path(tmp) / ds.name
        quality.build_repo(ds, repo)
        here = os.getcwd()
        os.chdir(repo)
        try:
            if model is not None:
                quality._run(["git", "config", "aide.semantic.model", str(model)], repo)
            ctx = open_context()
            snap = ctx.snapshot()
            sem = Semantic(ctx.repo, ctx.cache)
            if sem.configured and sem.ready():
                sem.embed_entries(snap.entries, budget=None)
            found = superseded(snap.entries, RankMemo(), meaning_of(sem, snap.entries))
        finally:
            os.chdir(here)
    key = {quality.memory_uuid(ds.name, m["key"]): m["key"] for m in ds.memories}
    pairs = {(key[o.uuid], key[n.uuid]) for o, n in found}
    right = len(pairs & truth)
    taken = sum(1 for p in pairs if frozenset(p) in near)
    return len(pairs), right, len(truth), taken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, metavar="DIR")
    args = parser.parse_args(argv)
    total = [0, 0, 0, 0]
    print("| dataset | found | right | precision | recall | near duplicates taken |")
    print("|---|---:|---:|---:|---:|---:|")
    for ds in quality.datasets(None):
        got = measure(ds, args.model)
        total = [a + b for a, b in zip(total, got, strict=True)]
        _row(ds.name, *got)
    _row("all", *total)
    return 0


def _row(name: str, found: int, right: int, truth: int, taken: int) -> None:
    precision = right / found if found else 1.0
    recall = right / truth if truth else 1.0
    print(f"| {name} | {found} | {right} | {precision:.2f} | {recall:.2f} | {taken} |")


if __name__ == "__main__":
    sys.exit(main())
