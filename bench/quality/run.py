"""Score git-aide's recall and search against judged queries, beside grep and BM25.

    python3 bench/quality/run.py [--data NAME] [--json]

For each dataset folder under bench/quality/data/ (files.txt, memories.jsonl,
queries.jsonl; see README.md beside this file) it builds one temporary repository
(the layout as empty files, the memories as real memory files, both committed), runs
every query through the real `git-aide` executable and through two baselines (`git
grep -i -l` per term, plain BM25), and prints Recall@5, Recall@10, nDCG@10 and MRR
per kind of query and system as one markdown table.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import uuid as uuidlib
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from git_aide.core import memory

HERE = Path(__file__).resolve().parent
DATA_DIR = HERE / "data"
KINDS = ("path", "keyword", "paraphrase", "path_question")
SYSTEMS = ("git-aide", "grep", "bm25")
LAYERS = ("area_context", "technical", "preferences", "guidelines")
#: How many results each system returns per query (the metrics look at most at 10).
LIMIT = 10
#: The uuid of a memory is uuid5(NAMESPACE, "<dataset>/<key>"): the same every run.
NAMESPACE = uuidlib.UUID("6f1d2c1e-8a4b-4e0f-9c3a-2b7d5e9f1a04")
#: Query words that every note contains; neither baseline searches for them.
STOPWORDS = frozenset("""
a an and are as at be by can do does for from has have how i if in into is it its
me my not of on or our should so than that the their them then there these this to
was we what when where which who why will with without you your
""".split())
#: BM25's standard parameters.
K1 = 1.2
B = 0.75
#: No user store (read/user.py): the datasets' memories alone are ranked, whoever runs
#: the benchmark (a folder that cannot be: under a file).
NO_USER_STORE = "/dev/null/no-user-store"
#: Every git process gets a fixed identity and no user or system config.
GIT_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith("GIT_")},
    "XDG_DATA_HOME": NO_USER_STORE,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_AUTHOR_NAME": "Quality Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Quality Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_AUTHOR_DATE": "2025-06-01T12:00:00Z",
    "GIT_COMMITTER_DATE": "2025-06-01T12:00:00Z",
}


class DatasetError(Exception):
    """A dataset file that breaks the format."""


@dataclass
class Query:
    """One judged query: what is asked, and the grade of each memory that answers it."""

    id: str
    kind: str
    path: str | None
    query: str | None
    relevant: dict[str, int]


@dataclass
class Dataset:
    """A file layout, the memories written over it and the queries judged against them."""

    name: str
    files: list[str]
    memories: list[dict[str, Any]]
    queries: list[Query]


@dataclass
class Scores:
    """The four metrics of one ranked list against one query's judgments."""

    recall5: float
    recall10: float
    ndcg10: float
    mrr: float


@dataclass
class Outcome:
    """What every system returned for every query of one dataset."""

    dataset: Dataset
    ranked: dict[str, dict[str, list[str]]] = field(default_factory=dict)


# --- metrics -------------------------------------------------------------------------


def recall_at(ranked: Sequence[str], relevant: dict[str, int], k: int) -> float:
    """The share of the memories graded above 0 that appear in the first k results."""
    wanted = {key for key, grade in relevant.items() if grade > 0}
    if not wanted:
        return 0.0
    return len(wanted.intersection(ranked[:k])) / len(wanted)


def ndcg_at(ranked: Sequence[str], relevant: dict[str, int], k: int) -> float:
    """Normalised discounted cumulative gain at k, with the grade as the gain."""
    dcg = sum(relevant.get(key, 0) / math.log2(i + 2) for i, key in enumerate(ranked[:k]))
    ideal = sorted((g for g in relevant.values() if g > 0), reverse=True)[:k]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def reciprocal_rank(ranked: Sequence[str], relevant: dict[str, int]) -> float:
    """1 / the rank of the first result graded above 0; 0 when none is."""
    for i, key in enumerate(ranked):
        if relevant.get(key, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def score(ranked: Sequence[str], relevant: dict[str, int]) -> Scores:
    """All four metrics of one ranked list (only its first LIMIT results count)."""
    ranked = list(ranked)[:LIMIT]
    return Scores(recall_at(ranked, relevant, 5), recall_at(ranked, relevant, 10),
                  ndcg_at(ranked, relevant, 10), reciprocal_rank(ranked, relevant))


def mean_scores(scores: Iterable[Scores]) -> Scores | None:
    """The mean of each metric, or None for no scores."""
    rows = list(scores)
    if not rows:
        return None
    n = len(rows)
    return Scores(sum(s.recall5 for s in rows) / n, sum(s.recall10 for s in rows) / n,
                  sum(s.ndcg10 for s in rows) / n, sum(s.mrr for s in rows) / n)


# --- terms (shared by both baselines) -------------------------------------------------


def tokens(text: str) -> list[str]:
    """Lowercase runs of letters and digits: `MAX_UPLOAD_BYTES` is max, upload, bytes."""
    return re.findall(r"[a-z0-9]+", text.lower())


def text_terms(text: str) -> list[str]:
    """The words a grep user would search for: tokens of 2+ characters, no stopwords."""
    return [t for t in tokens(text) if len(t) >= 2 and t not in STOPWORDS]


def path_terms(path: str) -> list[str]:
    """A path's words: each segment's tokens, the last segment without its extension."""
    segments = [s for s in path.strip("/").split("/") if s]
    if segments and "." in segments[-1].lstrip("."):
        segments[-1] = segments[-1].rsplit(".", 1)[0]
    return text_terms(" ".join(segments))


def query_terms(q: Query) -> list[str]:
    """The terms a baseline searches for: the path's words, then the question's, once each."""
    terms = path_terms(q.path) if q.path else []
    if q.query:
        terms += text_terms(q.query)
    return list(dict.fromkeys(terms))


# --- datasets ------------------------------------------------------------------------


def _jsonl(path: Path) -> list[dict[str, Any]]:
    """The objects of a JSON-lines file (blank lines skipped)."""
    rows = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise DatasetError(f"{path}:{n}: {exc}") from None
    return rows


def load_dataset(folder: Path) -> Dataset:
    """Read and check one dataset folder."""
    files = [line.strip() for line in (folder / "files.txt").read_text().splitlines()
             if line.strip()]
    memories = _jsonl(folder / "memories.jsonl")
    keys = [m["key"] for m in memories]
    if len(set(keys)) != len(keys):
        raise DatasetError(f"{folder.name}: duplicate memory keys")
    for m in memories:
        if m.get("layer") not in LAYERS or not m.get("what"):
            raise DatasetError(f"{folder.name}: memory {m.get('key')}: bad layer or no what")
    queries = []
    for row in _jsonl(folder / "queries.jsonl"):
        q = Query(row["id"], row["kind"], row.get("path"), row.get("query"),
                  {k: int(v) for k, v in row["relevant"].items()})
        needs_path = q.kind in ("path", "path_question")
        needs_query = q.kind != "path"
        if q.kind not in KINDS or needs_path != bool(q.path) or needs_query != bool(q.query):
            raise DatasetError(f"{folder.name}: query {q.id}: kind, path and query disagree")
        unknown = set(q.relevant) - set(keys)
        if unknown:
            raise DatasetError(f"{folder.name}: query {q.id} judges unknown {sorted(unknown)}")
        if not any(g > 0 for g in q.relevant.values()):
            raise DatasetError(f"{folder.name}: query {q.id} has no relevant memory")
        queries.append(q)
    return Dataset(folder.name, files, memories, queries)


def memory_uuid(dataset: str, key: str) -> str:
    """The deterministic uuid of a dataset's memory."""
    return str(uuidlib.uuid5(NAMESPACE, f"{dataset}/{key}"))


def record_of(dataset: str, m: dict[str, Any]) -> dict[str, Any]:
    """The memory file's record for one line of memories.jsonl."""
    return memory.fill_defaults({
        "uuid": memory_uuid(dataset, m["key"]), "layer": m["layer"], "what": m["what"],
        "why": m.get("why"), "scope": m.get("scope"), "context_label": m.get("context_label"),
        "contributor": "Quality Bench", "tags": list(dict.fromkeys(m.get("tags") or [])),
        "source": "conversation", "shared": True, "priority": m.get("priority", "normal"),
        "created_at": m["created_at"], "updated_at": m.get("updated_at") or m["created_at"],
    })


# --- the repository ------------------------------------------------------------------


def aide_command() -> list[str]:
    """The git-aide executable: beside this interpreter, else on PATH, else `-m git_aide`."""
    script = Path(sys.executable).parent / "git-aide"
    if script.exists():
        return [str(script)]
    found = shutil.which("git-aide")
    return [found] if found else [sys.executable, "-m", "git_aide"]


def _run(cmd: Sequence[str], cwd: Path, ok: Sequence[int] = (0,)) -> str:
    """A process's stdout; a RuntimeError with its stderr when its status is not in ok."""
    proc = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, env=GIT_ENV)
    if proc.returncode not in ok:
        raise RuntimeError(f"{' '.join(cmd)} -> {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout


def build_repo(ds: Dataset, dest: Path) -> dict[str, str]:
    """A repository at dest holding the layout and the memories; returns memory path -> key."""
    dest.mkdir(parents=True)
    _run(["git", "init", "-q", "-b", "main"], dest)
    for rel in ds.files:
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.touch()
    _run(["git", "add", "-A"], dest)
    _run(["git", "commit", "-q", "--allow-empty", "-m", "layout"], dest)
    _run([*aide_command(), "init", "--no-hooks"], dest)
    by_path = {}
    for m in ds.memories:
        record = record_of(ds.name, m)
        rel = memory.relpath(record)
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(memory.canonical(record))
        by_path[rel] = m["key"]
    _run(["git", "add", "-A"], dest)
    _run(["git", "commit", "-q", "-m", "memories"], dest)
    return by_path


# --- the three systems ---------------------------------------------------------------


def aide_args(q: Query) -> list[str]:
    """The git-aide command line of a query."""
    if q.kind == "path":
        return ["recall", q.path or "", "--json", "--limit", str(LIMIT)]
    if q.kind == "path_question":
        return ["recall", q.path or "", "--query", q.query or "", "--json",
                "--limit", str(LIMIT)]
    return ["search", q.query or "", "--json", "--limit", str(LIMIT)]


def _run_in_process(repo: Path, args: Sequence[str]) -> str:
    """What `git-aide ARGS` prints, from the same functions the command calls, in this
    process (for iterating on ranking: no start-up per query; not the reported figure)."""
    import contextlib
    import io

    from git_aide.cli import commands
    from git_aide.cli.argv import parse

    parsed = parse(list(args))
    if parsed is None:
        raise RuntimeError(f"not a plain recall or search: {' '.join(args)}")
    command, kwargs = parsed
    buf = io.StringIO()
    here = os.getcwd()
    os.chdir(repo)
    try:
        with contextlib.redirect_stdout(buf):
            status = commands.guarded(lambda: commands.run(command, kwargs))
    finally:
        os.chdir(here)
    if status:
        raise RuntimeError(f"git-aide {' '.join(args)} -> {status}")
    return buf.getvalue()


def run_aide(repo: Path, q: Query, key_of_uuid: dict[str, str],
             in_process: bool = False) -> list[str]:
    """The keys git-aide returns for a query, in its order; none (and a warning) on failure."""
    try:
        if in_process:
            doc = json.loads(_run_in_process(repo, aide_args(q)))
        else:
            doc = json.loads(_run([*aide_command(), *aide_args(q)], repo))
    except (RuntimeError, json.JSONDecodeError) as exc:
        # One broken query scores zero and is named; it does not stop the other 500.
        print(f"quality: warning: query {q.id} failed: {exc}", file=sys.stderr)
        return []
    return [key_of_uuid[m["uuid"]] for m in doc["memories"] if m["uuid"] in key_of_uuid]


def rank_by_matches(hits: dict[str, float], key_of: Callable[[str], str]) -> list[str]:
    """Documents by score, best first, ties by name; only those that scored."""
    best = sorted((-s, name) for name, s in hits.items() if s > 0)
    return [key_of(name) for _, name in best[:LIMIT]]


class Grep:
    """`git grep -i -l -F TERM -- .aide/memories` per term; files ranked by terms matched."""

    def __init__(self, repo: Path, key_of_path: dict[str, str]) -> None:
        self.repo = repo
        self.key_of_path = key_of_path
        self.cache: dict[str, list[str]] = {}

    def files(self, term: str) -> list[str]:
        """The memory files that contain term, any case (cached per term)."""
        if term not in self.cache:
            out = _run(["git", "grep", "-i", "-l", "-F", "-e", term, "--", memory.MEMORIES_DIR],
                       self.repo, ok=(0, 1))
            self.cache[term] = out.splitlines()
        return self.cache[term]

    def prefetch(self, queries: Iterable[Query], pool: ThreadPoolExecutor) -> None:
        """Run every term of every query once, two at a time."""
        terms = sorted({t for q in queries for t in query_terms(q)})
        for term, found in zip(terms, pool.map(self.files, terms), strict=True):
            self.cache[term] = found

    def rank(self, q: Query) -> list[str]:
        """The keys of the files that match most terms of q."""
        counts: Counter[str] = Counter()
        for term in query_terms(q):
            counts.update(self.files(term))
        return rank_by_matches(dict(counts), self.key_of_path.__getitem__)


class BM25:
    """Plain Okapi BM25 over what, why, label, tags and scope, with the baselines' tokens."""

    def __init__(self, memories: Sequence[dict[str, Any]]) -> None:
        self.docs: dict[str, Counter[str]] = {}
        for m in memories:
            text = " ".join([m["what"], m.get("why") or "", m.get("context_label") or "",
                             " ".join(m.get("tags") or []), m.get("scope") or ""])
            self.docs[m["key"]] = Counter(tokens(text))
        self.lengths = {k: sum(c.values()) for k, c in self.docs.items()}
        self.avgdl = sum(self.lengths.values()) / max(len(self.docs), 1)
        self.df: Counter[str] = Counter()
        for c in self.docs.values():
            self.df.update(c.keys())

    def idf(self, term: str) -> float:
        """The BM25 inverse document frequency (never negative)."""
        n, df = len(self.docs), self.df[term]
        return math.log(1 + (n - df + 0.5) / (df + 0.5))

    def rank(self, q: Query) -> list[str]:
        """The keys of the best-scoring memories for q's terms."""
        hits: dict[str, float] = {}
        terms = query_terms(q)
        for key, counts in self.docs.items():
            norm = K1 * (1 - B + B * self.lengths[key] / self.avgdl)
            s = sum(self.idf(t) * counts[t] * (K1 + 1) / (counts[t] + norm)
                    for t in terms if counts[t])
            if s > 0:
                hits[key] = s
        return rank_by_matches(hits, str)


# --- one pass ------------------------------------------------------------------------


def evaluate(ds: Dataset, workdir: Path, in_process: bool = False,
             model: Path | None = None) -> Outcome:
    """Build the dataset's repository and run every query through the three systems;
    with `model`, git-aide's semantic search uses it (its vectors built first)."""
    key_of_path = build_repo(ds, workdir / ds.name)
    repo = workdir / ds.name
    if model is not None:
        _run(["git", "config", "aide.semantic.model", str(model)], repo)
        _run([*aide_command(), "index", "--quiet"], repo)
    key_of_uuid = {Path(p).stem: k for p, k in key_of_path.items()}
    outcome = Outcome(ds)
    grep = Grep(repo, key_of_path)
    bm25 = BM25(ds.memories)
    with ThreadPoolExecutor(max_workers=2) as pool:
        grep.prefetch(ds.queries, pool)
        if in_process:
            aide = [run_aide(repo, q, key_of_uuid, in_process=True) for q in ds.queries]
        else:
            aide = list(pool.map(lambda q: run_aide(repo, q, key_of_uuid), ds.queries))
    outcome.ranked["git-aide"] = {q.id: r for q, r in zip(ds.queries, aide, strict=True)}
    outcome.ranked["grep"] = {q.id: grep.rank(q) for q in ds.queries}
    outcome.ranked["bm25"] = {q.id: bm25.rank(q) for q in ds.queries}
    return outcome


def summarise(outcomes: Sequence[Outcome]) -> dict[str, dict[str, Scores | None]]:
    """Mean metrics per kind (and "all") per system, over every query of the outcomes."""
    table: dict[str, dict[str, Scores | None]] = {}
    for kind in (*KINDS, "all"):
        table[kind] = {}
        for system in SYSTEMS:
            table[kind][system] = mean_scores(
                score(o.ranked[system][q.id], q.relevant)
                for o in outcomes for q in o.dataset.queries if kind in ("all", q.kind))
    return table


def markdown(table: dict[str, dict[str, Scores | None]], counts: dict[str, int]) -> str:
    """The summary as one markdown table, rows kind x system."""
    lines = ["| kind | queries | system | Recall@5 | Recall@10 | nDCG@10 | MRR |",
             "|---|---:|---|---:|---:|---:|---:|"]
    for kind, row in table.items():
        for system, s in row.items():
            if s is None:
                continue
            lines.append(f"| {kind} | {counts[kind]} | {system} | {s.recall5:.3f} | "
                         f"{s.recall10:.3f} | {s.ndcg10:.3f} | {s.mrr:.3f} |")
    return "\n".join(lines)


def datasets(names: Sequence[str] | None, root: Path = DATA_DIR) -> list[Dataset]:
    """The named datasets under root (all of them when no name is given), checked."""
    folders = sorted(p for p in root.iterdir() if (p / "queries.jsonl").is_file())
    if names:
        missing = set(names) - {p.name for p in folders}
        if missing:
            raise DatasetError(f"no dataset named {', '.join(sorted(missing))} under {root}")
        folders = [p for p in folders if p.name in names]
    return [load_dataset(p) for p in folders]


def run(sets: Sequence[Dataset], keep: Path | None = None,
        in_process: bool = False, model: Path | None = None) -> list[Outcome]:
    """Evaluate every dataset in a temporary folder (or in keep, left behind)."""
    if keep is not None:
        keep.mkdir(parents=True, exist_ok=True)
        return [evaluate(ds, keep, in_process, model) for ds in sets]
    with tempfile.TemporaryDirectory(prefix="aide-quality-") as tmp:
        return [evaluate(ds, Path(tmp), in_process, model) for ds in sets]


def report(outcomes: Sequence[Outcome]) -> dict[str, Any]:
    """The JSON document: metrics per dataset and pooled, and every ranked list."""
    def doc(os_: Sequence[Outcome]) -> dict[str, Any]:
        table = summarise(os_)
        return {kind: {sys_: (None if s is None else vars(s)) for sys_, s in row.items()}
                for kind, row in table.items()}
    return {
        "all": doc(outcomes),
        "datasets": {o.dataset.name: doc([o]) for o in outcomes},
        "ranked": {o.dataset.name: o.ranked for o in outcomes},
    }


def kind_counts(outcomes: Sequence[Outcome]) -> dict[str, int]:
    """How many queries of each kind (and in all) the outcomes hold."""
    counts = Counter(q.kind for o in outcomes for q in o.dataset.queries)
    return {**{k: counts[k] for k in KINDS}, "all": sum(counts.values())}


def main(argv: Sequence[str] | None = None) -> int:
    """Parse arguments, run, print."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data", action="append", metavar="NAME",
                        help="Only this dataset (repeatable; default: all).")
    parser.add_argument("--json", action="store_true", help="Print JSON instead of a table.")
    parser.add_argument("--root", type=Path, default=DATA_DIR, help=argparse.SUPPRESS)
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="Build the repositories in DIR and leave them there.")
    parser.add_argument("--in-process", action="store_true",
                        help="Call git-aide's functions in this process instead of one "
                             "process per query (fast, for iterating; the reported "
                             "figures come from the default, process, mode).")
    parser.add_argument("--model", type=Path, metavar="DIR",
                        help="Semantic search with the model in DIR (a folder holding "
                             "model.onnx and tokenizer.json; README, Semantic search).")
    args = parser.parse_args(argv)
    try:
        sets = datasets(args.data, args.root)
    except (DatasetError, OSError, KeyError, ValueError) as exc:
        print(f"quality: error: {exc}", file=sys.stderr)
        return 2
    os.environ["XDG_DATA_HOME"] = NO_USER_STORE  # --in-process reads this process's
    outcomes = run(sets, args.keep, args.in_process, args.model)
    if args.json:
        print(json.dumps(report(outcomes), indent=1))
        return 0
    names = ", ".join(o.dataset.name for o in outcomes)
    print(f"All datasets ({names}):\n")
    print(markdown(summarise(outcomes), kind_counts(outcomes)))
    if len(outcomes) > 1:
        for o in outcomes:
            print(f"\n{o.dataset.name}:\n")
            print(markdown(summarise([o]), kind_counts([o])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
