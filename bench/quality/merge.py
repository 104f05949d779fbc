"""Which memories `aide_remember` (and `remember --merge`) would merge, on the judged
pairs of bench/quality/data.

    python3 bench/quality/merge.py [--model DIR]

An agent's near duplicate is merged into the memory it repeats (app/duplicate.py): the
same layer and sharing, overlapping scopes, nearly the same words (Jaccard of the word
sets at least aide.audit.duplicateThreshold, 0.6) or, with a model, nearly the same
meaning (cosine at least app/meaning.DUPLICATE_COSINE, 0.85), and the newer keeping
every exact word of the older (a name, a number, a flag, an identifier). Every pair of
memories of a dataset is taken as if the newer were being remembered with the older
already there, and each pair the rule would merge is counted by what the dataset's
SOURCE says of it: superseded (the older out of date: the merge is the update that was
due), near duplicates (both true, one fact: the merge wanted), or neither (two distinct
facts: a merge loses one, and none may be merged). One row per threshold around the
one in use, with and without the exact-words guard.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import run as quality  # noqa: E402
import supersession  # noqa: E402

#: The word thresholds and cosines tried (the ones in use marked in the table).
WORDS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8)
COSINES = (0.75, 0.80, 0.85, 0.90)


def pairs(ds: quality.Dataset, model: Path | None) -> list[tuple[str, float, float, bool]]:
    """(what the SOURCE says of it, word similarity, cosine or 0, whether the newer keeps
    every exact word of the older) of every pair that could be merged: one layer and
    sharing, overlapping scopes."""
    from git_aide.app.context import open_context
    from git_aide.app.duplicate import lacking
    from git_aide.app.semantic import Semantic
    from git_aide.rank.duplicates import is_personal, jaccard, overlap, words

    truth, near = supersession.judged((quality.DATA_DIR / ds.name / "SOURCE").read_text())
    key = {quality.memory_uuid(ds.name, m["key"]): m["key"] for m in ds.memories}
    out = []
    with tempfile.TemporaryDirectory(prefix="aide-merge-") as tmp:
        repo = Path(tmp) / ds.name
        quality.build_repo(ds, repo)
        here = os.getcwd()
        os.chdir(repo)
        try:
            if model is not None:
                quality._run(["git", "config", "aide.semantic.model", str(model)], repo)
            ctx = open_context()
            entries = ctx.snapshot().entries
            sem = Semantic(ctx.repo, ctx.cache)
            vecs = None
            if model is not None:
                if not (sem.configured and sem.ready()):
                    raise SystemExit(f"the model in {model} cannot be used")
                sem.embed_entries(entries, budget=None)
                vecs = sem.vectors
            for a, b in itertools.combinations(entries, 2):
                if a.layer != b.layer or is_personal(a.path) != is_personal(b.path) \
                        or not overlap(a.compiled, b.compiled):
                    continue
                older, newer = (a, b) if (a.updated_at, a.uuid) <= (b.updated_at, b.uuid) \
                    else (b, a)
                cos = 0.0
                if vecs is not None and vecs.matrix is not None:
                    m = vecs.matrix
                    cos = float(m[vecs.rows[older.blob]] @ m[vecs.rows[newer.blob]])
                pair = (key[older.uuid], key[newer.uuid])
                said = "superseded" if pair in truth else \
                    "near duplicates" if frozenset(pair) in near else "distinct"
                out.append((said, jaccard(words(older.read_what()), words(newer.read_what())), cos,
                            not lacking(older.read_what(), newer.read_what())))
        finally:
            os.chdir(here)
    return out


def main(argv: list[str] | None = None) -> int:
    from git_aide.app.hybrid import DUPLICATE_COSINE
    from git_aide.core.settings import KEYS

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--model", type=Path, metavar="DIR")
    args = parser.parse_args(argv)
    found = [p for ds in quality.datasets(None) for p in pairs(ds, args.model)]
    judged = sum(1 for p in found if p[0] != "distinct")
    in_use = next(k.default for k in KEYS if k.name == "aide.audit.duplicateThreshold")
    print(f"{len(found)} pairs that could be merged (one layer and sharing, overlapping "
          f"scopes), {judged} of them judged\n")
    print("| rule | guard | merged | superseded | near duplicates | distinct facts |")
    print("|---|---|---:|---:|---:|---:|")
    rules: list[tuple[str, float, float]] = [
        (f"words >= {t}{' (in use)' if t == in_use else ''}", t, 2.0) for t in WORDS]
    if args.model is not None:
        rules += [(f"words >= {in_use}, or cosine >= {c:.2f}"
                   f"{' (in use)' if c == DUPLICATE_COSINE else ''}", in_use, c)
                  for c in COSINES]
    for name, least, cosine in rules:
        for guard in (True, False):
            taken = [p for p in found
                     if (p[1] >= least or p[2] >= cosine) and (p[3] or not guard)]
            count = {k: sum(1 for p in taken if p[0] == k)
                     for k in ("superseded", "near duplicates", "distinct")}
            print(f"| {name} | {'exact words kept' if guard else 'none'} | {len(taken)} | "
                  f"{count['superseded']} | {count['near duplicates']} | {count['distinct']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
