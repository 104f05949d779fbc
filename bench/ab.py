"""Two installs of git-aide timed against each other, run by run, on the hot rows.

    python3 bench/ab.py BEFORE_EXE AFTER_EXE BEFORE_REPO AFTER_REPO [--runs N]

One install after the other (bench/run.py twice) lets the machine's load move between
the two; here the two alternate run by run, so both see the same load. Each install gets
its own copy of the repository, since each keeps its own cache there (two versions of
the cache format would rebuild each other's files on every run). Make the copies with
`cp -a` of a repository bench/run.py generated, then run `git update-index --refresh`
in each (a copied index's stat data no longer matches, and git would compare every file
on every call). Prints a markdown table of medians, and `git grep` on the second copy
for scale.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import time

#: The rows: (label, arguments), on bench/run.py's generated repository.
FILE = "packages/web/components/forms/fields/TextInput.tsx"
ROWS = (
    ("recall FILE", ["recall", FILE, "--json"]),
    ("recall DIR/", ["recall", "packages/web/", "--json"]),
    ("recall FILE --query WORD", ["recall", FILE, "--query", "migration", "--json"]),
    ("search WORD", ["search", "migration", "--json"]),
    ("recall --rev HEAD~100 FILE", ["recall", "--rev", "HEAD~100", FILE, "--json"]),
)
GREP = ["git", "grep", "-i", "-l", "migration", "--", ".aide/memories"]


def timed(cmd: list[str], cwd: str, env: dict[str, str]) -> float:
    """Milliseconds one run of `cmd` took."""
    start = time.perf_counter()
    subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, check=False)
    return (time.perf_counter() - start) * 1000


def main() -> None:
    """Time every row, alternating the installs, and print the table."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("before_exe")
    ap.add_argument("after_exe")
    ap.add_argument("before_repo")
    ap.add_argument("after_repo")
    ap.add_argument("--runs", type=int, default=21)
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    sides = {"before": (args.before_exe, args.before_repo),
             "after": (args.after_exe, args.after_repo)}
    print("| row | before ms | after ms | after/before | `git grep` ms |")
    print("|---|---:|---:|---:|---:|")
    for label, argv in ROWS:
        times: dict[str, list[float]] = {"before": [], "after": [], "grep": []}
        for exe, repo in sides.values():
            for _ in range(2):  # warm each cache
                timed([exe, *argv], repo, env)
        for i in range(args.runs):
            for side in ("before", "after") if i % 2 == 0 else ("after", "before"):
                exe, repo = sides[side]
                times[side].append(timed([exe, *argv], repo, env))
            times["grep"].append(timed(GREP, args.after_repo, env))
        b, a, g = (statistics.median(times[k]) for k in ("before", "after", "grep"))
        print(f"| `{label}` | {b:.1f} | {a:.1f} | {a / b:.2f} | {g:.1f} |", flush=True)


if __name__ == "__main__":
    main()
