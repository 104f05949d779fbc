"""What semantic search costs, on a repository bench/generate.py made (README, Semantic
search).

    python3 bench/semantic.py REPO MODEL_DIR [--runs N] [--skip-build]

Times, beside `git grep -i -l WORD` over the same memories:
- building the vectors of every memory (`git aide index`, vectors removed first), the
  vectors file's size, and embedding again after one memory changed;
- a CLI `search` that needs the model (whole process), and what it spends importing
  onnxruntime/tokenizers/numpy, loading the model and embedding the query;
- a warm MCP `aide_search` in the server's own code, in this process (the model and
  the vectors loaded once), with and without the model.
Run it on a copy of the repository: it sets aide.semantic.model there and edits one
memory (the edit is undone at the end).
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

WORD = "migration"
QUESTION = "how do we move the database schema forward safely"


def _exe() -> list[str]:
    here = os.path.join(os.path.dirname(sys.executable), "git-aide")
    return [here] if os.path.exists(here) else [sys.executable, "-m", "git_aide"]


def ms(cmd: list[str], repo: str) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=repo, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=False)
    return (time.perf_counter() - start) * 1000


def median(cmd: list[str], repo: str, runs: int) -> float:
    return statistics.median(ms(cmd, repo) for _ in range(runs))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("repo")
    parser.add_argument("model")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--skip-build", action="store_true",
                        help="Keep the vectors there are (do not time a full build).")
    args = parser.parse_args(argv)
    repo, exe = os.path.abspath(args.repo), _exe()
    subprocess.run(["git", "config", "aide.semantic.model", args.model], cwd=repo, check=True)
    subprocess.run([*exe, "index", "--quiet"], cwd=repo, check=True)  # the full-text part
    rows: list[tuple[str, str]] = []
    vec_dir = os.path.join(repo, ".git", "aide", "vectors")
    if not args.skip_build:
        shutil.rmtree(vec_dir, ignore_errors=True)
        t = ms([*exe, "index", "--quiet"], repo)
        rows.append(("vectors of every memory (`git aide index`)", f"{t / 1000:.1f} s"))
    size = sum(os.path.getsize(p) for p in glob.glob(os.path.join(vec_dir, "*.vec")))
    rows.append(("vectors file", f"{size / 1e6:.1f} MB"))
    # One memory changed: only it is embedded again.
    path = sorted(glob.glob(os.path.join(repo, ".aide/memories/technical/*.json")))[0]
    with open(path, "rb") as f:
        before = f.read()
    doc = json.loads(before)
    doc["what"] += " (edited for the benchmark)"
    with open(path, "w") as f:
        json.dump(doc, f, indent=2)
    try:
        out = subprocess.run([*exe, "index"], cwd=repo, capture_output=True, text=True)
        t = ms([*exe, "index", "--quiet"], repo)  # nothing left: the floor
        start = time.perf_counter()
        doc["what"] += "!"
        with open(path, "w") as f:
            json.dump(doc, f, indent=2)
        subprocess.run([*exe, "index", "--quiet"], cwd=repo, check=True)
        one = (time.perf_counter() - start) * 1000
        said = [line for line in out.stdout.splitlines() if line.startswith("Embedded")]
        note = said[0] if said else "?"
        rows.append(("`index` after one memory changed", f"{one:.0f} ms ({note})"))
        rows.append(("`index` with nothing to do", f"{t:.0f} ms"))
    finally:
        with open(path, "wb") as f:
            f.write(before)
        subprocess.run([*exe, "index", "--quiet"], cwd=repo, check=False)
    grep = median(["git", "grep", "-i", "-l", WORD, "--", ".aide/memories"], repo, args.runs)
    rows.append(("`git grep -i -l WORD`", f"{grep:.0f} ms"))
    for label, extra in (("`search QUESTION` with the model", []),
                         ("`search QUESTION --mode keyword`", ["--mode", "keyword"])):
        t = median([*exe, "search", QUESTION, "--json", *extra], repo, args.runs)
        rows.append((label, f"{t:.0f} ms ({t / grep:.2f}x git grep)"))
    code = ("import time; t=time.perf_counter(); import onnxruntime, tokenizers, numpy; "
            "a=time.perf_counter(); from git_aide.embedding.runtime import Embedder; "
            f"e=Embedder({args.model!r}); b=time.perf_counter(); e.embed([{QUESTION!r}]); "
            "c=time.perf_counter(); print(a-t, b-a, c-b)")
    imp, load, emb = map(float, subprocess.run([sys.executable, "-c", code], cwd=repo,
                                               capture_output=True, text=True).stdout.split())
    rows.append(("of which: imports, model load, query embedding",
                 f"{imp * 1000:.0f} ms, {load * 1000:.0f} ms, {emb * 1000:.1f} ms"))
    rows += warm(repo, args.runs * 5, grep)
    print("| what | figure |\n|---|---:|")
    for label, figure in rows:
        print(f"| {label} | {figure} |")
    return 0


#: Distinct questions for the warm calls: the server gives an identical call its answer
#: again (warm/state.py), so each timed call asks something new.
TOPICS = ("database schema", "user sessions", "payment retries", "build cache",
          "feature flags", "error pages", "api tokens", "log rotation", "image uploads",
          "search ranking", "email templates", "cron jobs", "rate limits", "dark mode",
          "test fixtures", "docker images", "locale files", "audit trail",
          "websocket reconnects", "csv exports")


def warm(repo: str, runs: int, grep: float) -> list[tuple[str, str]]:
    """A warm MCP aide_search, in the server's own code, in this process: each call a
    question not asked before (a repeated call is answered from the server's memory)."""
    here = os.getcwd()
    os.chdir(repo)
    try:
        from git_aide.agents.mcp.server import ServerState, call

        mem = ServerState()
        out = []
        asks = [f"how do we handle {t} {i}" for i in range(max(1, runs // len(TOPICS)) + 1)
                for t in TOPICS][:runs]
        single = [t.split()[-1] for t in TOPICS]
        for label, mode, words in (
                ("warm MCP `aide_search` QUESTION, with the model", "auto", asks),
                ("warm MCP `aide_search` QUESTION, keyword", "keyword", asks),
                ("warm MCP `aide_search` one word, with the model", "auto", single),
                ("warm MCP `aide_search` one word, keyword", "keyword", single)):
            call(mem, "aide_search", {"keyword": "warming up", "mode": mode})
            times = []
            for text in words:
                start = time.perf_counter()
                call(mem, "aide_search", {"keyword": text, "mode": mode})
                times.append((time.perf_counter() - start) * 1000)
            t = statistics.median(times)
            out.append((label, f"{t:.1f} ms ({t / grep:.2f}x git grep)"))
        return out
    finally:
        os.chdir(here)


if __name__ == "__main__":
    sys.exit(main())
