"""Check the evaluation datasets in bench/quality/data/ for mistakes a hand edit makes.

Usage: python3 bench/quality/check_data.py [DATASET_DIR ...]
(no argument: every folder under bench/quality/data/). Exit 1 when a check fails.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from pathlib import Path

LAYERS = {"area_context", "technical", "preferences", "guidelines"}
KINDS = {"path", "keyword", "paraphrase", "path_question"}
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
MIN_PER_KIND = 50


def _lines(path: Path) -> list[tuple[int, dict]]:
    """Parse a JSON-lines file into (line number, object) pairs."""
    out = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            out.append((n, json.loads(line)))
    return out


def check(folder: Path) -> list[str]:
    """Return the problems found in one dataset folder (empty when it is sound)."""
    problems: list[str] = []
    files = [p for p in (folder / "files.txt").read_text(encoding="utf-8").splitlines() if p]
    file_set = set(files)
    dirs = {p.rsplit("/", i)[0] + "/" for p in files for i in range(1, p.count("/") + 1)}
    if not (folder / "SOURCE").is_file():
        problems.append("SOURCE missing")

    keys: dict[str, dict] = {}
    for n, m in _lines(folder / "memories.jsonl"):
        where = f"memories.jsonl:{n}"
        key = m.get("key")
        if key in keys:
            problems.append(f"{where}: duplicate key {key}")
        keys[key] = m
        if m.get("layer") not in LAYERS:
            problems.append(f"{where}: bad layer {m.get('layer')!r}")
        if not str(m.get("what", "")).strip():
            problems.append(f"{where}: empty what")
        scope = m.get("scope")
        if m.get("layer") == "area_context" and not scope:
            problems.append(f"{where}: area_context without a scope")
        if scope is not None and (not isinstance(scope, str) or not scope.strip()):
            problems.append(f"{where}: empty scope string")
        if m.get("priority") not in ("normal", "always"):
            problems.append(f"{where}: bad priority")
        if not isinstance(m.get("tags"), list):
            problems.append(f"{where}: tags is not a list")
        created, updated = m.get("created_at", ""), m.get("updated_at", "")
        if not (STAMP.match(created) and STAMP.match(updated)):
            problems.append(f"{where}: timestamp not YYYY-MM-DDTHH:MM:SS.sssZ")
        elif updated < created:
            problems.append(f"{where}: updated_at before created_at")
        if re.search(r"(password|secret|token|api[_-]?key)\s*[=:]", json.dumps(m), re.I):
            problems.append(f"{where}: text looks like a secret")

    kinds: Counter[str] = Counter()
    ids: set[str] = set()
    for n, q in _lines(folder / "queries.jsonl"):
        where = f"queries.jsonl:{n}"
        if q.get("id") in ids:
            problems.append(f"{where}: duplicate id {q.get('id')}")
        ids.add(q.get("id"))
        kind = q.get("kind")
        kinds[kind] += 1
        if kind not in KINDS:
            problems.append(f"{where}: bad kind {kind!r}")
        path, text = q.get("path"), q.get("query")
        if kind in ("path", "path_question"):
            if not path:
                problems.append(f"{where}: {kind} query without a path")
            elif path not in file_set and path not in dirs:
                problems.append(f"{where}: path {path!r} not in files.txt")
        if kind in ("keyword", "paraphrase", "path_question") and not (text or "").strip():
            problems.append(f"{where}: {kind} query without text")
        if kind == "path" and text:
            problems.append(f"{where}: path query with text")
        rel = q.get("relevant") or {}
        if not rel:
            problems.append(f"{where}: no relevant memories")
        for key, grade in rel.items():
            if key not in keys:
                problems.append(f"{where}: unknown memory {key}")
            if grade not in (1, 2):
                problems.append(f"{where}: grade {grade!r} for {key}")
    for kind in sorted(KINDS):
        if kinds[kind] < MIN_PER_KIND:
            problems.append(f"only {kinds[kind]} {kind} queries (want {MIN_PER_KIND})")
    layers = Counter(m["layer"] for m in keys.values())
    print(
        f"{folder.name}: {len(files)} files, {len(keys)} memories {dict(sorted(layers.items()))}, "
        f"{sum(kinds.values())} queries {dict(sorted(kinds.items()))}"
    )
    return problems


def main(argv: list[str]) -> int:
    """Check the named dataset folders, or all of them."""
    root = Path(__file__).resolve().parent / "data"
    folders = [Path(a) for a in argv] or sorted(p for p in root.iterdir() if p.is_dir())
    failed = False
    for folder in folders:
        for problem in check(folder):
            failed = True
            print(f"  {folder.name}: {problem}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
