"""A first index and an unbounded search, two versions of git-aide timed run by run.

    python3 bench/first_index.py BEFORE_SRC BEFORE_REPO AFTER_REPO [--word W] [--runs N]

BEFORE_SRC is a folder holding the `git_aide` package of the version to compare with
(`git archive COMMIT git_aide | tar -x -C DIR`); the other side is the git_aide this
Python imports. Each side gets its own copy of a repository bench/generate.py made
(`cp -a`, then `git update-index --refresh` in each: a copied index's stat data no
longer matches, and git would compare every file on every call), since each keeps its
own cache there. The sides alternate run by run, so both see the same load of a shared
machine. Rows:

- `index`: `git aide index` with no cache at all (`<git common dir>/aide` removed);
- `search`: `git aide search WORD --limit 1000000 --json` on a warm cache (every match);
- `search-text`: the same as a table.

Prints each row's median and range per side, in ms.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import time


def timed(cmd: list[str], cwd: str, env: dict[str, str]) -> tuple[float, float]:
    """Return the milliseconds one run of `cmd` took (it must succeed), wall and CPU (user
    and system, its own and its children's: git's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                          stderr=subprocess.PIPE, check=False)
    ms = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        sys.exit(f"{' '.join(cmd)} failed in {cwd}: {proc.stderr.decode()[-400:]}")
    cpu = (after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime) * 1000
    return ms, cpu


def cache_of(repo: str) -> str:
    """Return the repository's cache folder, `<git common dir>/aide`."""
    common = subprocess.run(["git", "rev-parse", "--path-format=absolute",
                             "--git-common-dir"], cwd=repo, capture_output=True,
                            check=True).stdout.decode().strip()
    return os.path.join(common, "aide")


def main() -> None:
    """Time the rows, alternating the sides, and print a markdown table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before_src")
    ap.add_argument("before_repo")
    ap.add_argument("after_repo")
    ap.add_argument("--after-src", help="the other side's folder (default: the git_aide this "
                    "Python imports)")
    ap.add_argument("--word", default="database")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--rows", default="index,search,search-text")
    args = ap.parse_args()
    base = {k: v for k, v in os.environ.items()
            if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPATH") and not k.startswith("GIT_")}
    base["NO_COLOR"] = "1"
    cmd = [sys.executable, "-m", "git_aide"]
    sides = {"before": ({**base, "PYTHONPATH": os.path.abspath(args.before_src)},
                        args.before_repo),
             "after": ({**base, "PYTHONPATH": os.path.abspath(args.after_src)}
                       if args.after_src else base, args.after_repo)}
    rows = {"index": ["index", "--quiet"],
            "search": ["search", args.word, "--limit", "1000000", "--json"],
            "search-text": ["search", args.word, "--limit", "1000000"]}
    print("| row | before ms (median, range) | after ms (median, range) | after/before "
          "| CPU ms before / after (medians) |")
    print("|---|---:|---:|---:|---:|")
    for key in args.rows.split(","):
        argv = [*cmd, *rows[key]]
        times: dict[str, list[float]] = {"before": [], "after": []}
        cpus: dict[str, list[float]] = {"before": [], "after": []}
        for env, repo in sides.values():
            timed([*cmd, "index", "--quiet"], repo, env)  # a warm cache, .pyc files
            if key != "index":
                timed(argv, repo, env)
        for i in range(args.runs):
            for side in ("before", "after") if i % 2 == 0 else ("after", "before"):
                env, repo = sides[side]
                if key == "index":
                    shutil.rmtree(cache_of(repo), ignore_errors=True)
                ms, cpu = timed(argv, repo, env)
                times[side].append(ms)
                cpus[side].append(cpu)
        cells = [f"{statistics.median(t):,.0f} ({min(t):,.0f}-{max(t):,.0f})"
                 for t in times.values()]
        ratio = statistics.median(times["after"]) / statistics.median(times["before"])
        cpu = " / ".join(f"{statistics.median(c):,.0f}" for c in cpus.values())
        print(f"| `{' '.join(rows[key])}` | {cells[0]} | {cells[1]} | {ratio:.2f} | {cpu} |",
              flush=True)
    for env, repo in sides.values():
        timed([*cmd, "index", "--quiet"], repo, env)  # leave the caches warm


if __name__ == "__main__":
    main()
