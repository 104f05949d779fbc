"""Time git-aide against `git grep` on generated repositories (docs/architecture.md, the
performance budget).

    python3 bench/run.py [--sizes 1000,10000] [--large] [--runs 7] [--json FILE]

For each size N it generates (or reuses, under --workdir) a repository of N memories,
20,000 other files and 100 commits, runs every command once to warm the cache, then
times it as a whole process, --runs times, and prints one markdown table with the
median, the `git grep` baseline, the ratio and the budget target.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import agents  # noqa: E402  (the agents' rows, beside this file)
import generate  # noqa: E402  (the generator beside this file)

#: The budget of section 9: at most this many times the matching `git grep`.
GREP_RATIO = 1.5
#: Catching up after a merge that brings 1,000 new memories, in ms.
CATCH_UP_MS = 3000.0
#: A first full index of the memories, in ms (issue 23): 4 s up to 10,000 memories,
#: 45 s at 100,000 (aide-memory's first cache build there), in proportion in between.
FULL_INDEX_MS = 4000.0
FULL_INDEX_MS_100K = 45000.0
#: One merge driver call, in ms.
MERGE_DRIVER_MS = 80.0
#: `audit` of the whole repository, in ms.
AUDIT_MS = 10000.0
#: At 100,000 memories every figure is at most this many times its 10,000 figure.
SCALE_RATIO = 12.0
#: The exit statuses of a `git grep` that worked (1: nothing matched).
GREP_OK = (0, 1)
#: How many new memories the catch-up rows merge in.
CATCH_UP_COUNT = 1000
#: A word in about a quarter of the generated memories (generate.py's words fall off as
#: Zipf's law says), for a search that lists every match (issue 23).
BROAD_WORD = "database"
#: `search BROAD_WORD --limit 1000000`, in ms: every match (25,000 at 100,000 memories).
SEARCH_ALL_MS = 2000.0


@dataclass
class Row:
    """One line of a table: what was timed, how long it took, and what it is held to."""

    key: str
    label: str
    command: list[str]
    runs_ms: list[float] = field(default_factory=list)
    median_ms: float | None = None
    baseline_key: str | None = None
    baseline_ms: float | None = None
    #: The baseline timed right before each run of this row (same load as the row).
    baseline_runs_ms: list[float] = field(default_factory=list)
    ratio: float | None = None
    #: The bound on the ratio to the baseline, or None.
    max_ratio: float | None = None
    #: The absolute bound in ms, or None.
    max_ms: float | None = None
    met: bool | None = None
    error: str | None = None
    note: str | None = None


def aide_command() -> list[str]:
    """The git-aide executable: beside this interpreter, else on PATH, else `-m git_aide`."""
    script = Path(sys.executable).parent / "git-aide"
    if script.exists():
        return [str(script)]
    found = shutil.which("git-aide")
    if found:
        return [found]
    return [sys.executable, "-m", "git_aide"]


def clean_env() -> dict[str, str]:
    """The environment for timed processes: ours without GIT_* variables and colour."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env["NO_COLOR"] = "1"
    return env


def first_line(proc: subprocess.CompletedProcess[bytes]) -> str:
    """The first non-empty line of a failed process's stderr (or stdout), for the table."""
    for stream in (proc.stderr, proc.stdout):
        for line in stream.decode(errors="replace").splitlines():
            if line.strip():
                return line.strip()[:160]
    return f"exit status {proc.returncode}"


def git(repo: str, *args: str) -> str:
    """Run git in `repo` (untimed); return stdout; raise with git's message on failure."""
    proc = subprocess.run(["git", *args], cwd=repo, capture_output=True, env=clean_env())
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {first_line(proc)}")
    return proc.stdout.decode()


def run_timed(cmd: list[str], cwd: str, ok_codes: tuple[int, ...] = (0,)
              ) -> tuple[float, str | None]:
    """Run one process; return its wall time in ms and its error line (None if it worked)."""
    start = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, env=clean_env())
    ms = (time.perf_counter() - start) * 1000.0
    if proc.returncode not in ok_codes or b"Traceback" in proc.stderr:
        return ms, first_line(proc)
    return ms, None


def measure(row: Row, cwd: str, runs: int, warmup: int = 1,
            before: Callable[[int], None] | None = None,
            after: Callable[[int], None] | None = None,
            ok_codes: tuple[int, ...] = (0,), paired: list[str] | None = None) -> Row:
    """Fill `row.runs_ms` and `row.median_ms`; `before`/`after` run untimed around each run.

    With `paired` (a `git grep`), that command is timed right before each run as well, so
    that the ratio compares two figures taken under the same load of a shared machine.
    """
    for i in range(-warmup, runs):
        if before:
            before(i)
        if paired is not None:
            base_ms, base_err = run_timed(paired, cwd, GREP_OK)
            if i >= 0 and base_err is None:
                row.baseline_runs_ms.append(round(base_ms, 2))
        ms, err = run_timed(row.command, cwd, ok_codes)
        if after:
            after(i)
        if err:
            row.error = err
            row.runs_ms = []
            return row
        if i >= 0:
            row.runs_ms.append(round(ms, 2))
    row.median_ms = round(statistics.median(row.runs_ms), 2)
    return row


def ensure_repo(workdir: str, n: int, files: int, commits: int, seed: int,
                regenerate: bool) -> tuple[str, dict[str, Any], bool]:
    """The repository for size `n`: reused when complete, else generated; (path, meta, made)."""
    name = f"repo-m{n}-f{files}-c{commits}-s{seed}-v{generate.GENERATOR_VERSION}"
    path = os.path.join(workdir, name)
    meta = None if regenerate else generate.read_meta(path)
    if meta is not None:
        return path, meta, False
    if os.path.exists(path):
        shutil.rmtree(path)
    log(f"generating {n} memories, {files} files, {commits} commits in {path} ...")
    meta = generate.generate(path, n, files=files, commits=commits, seed=seed)
    log(f"  generated in {meta['generate_seconds']:.1f} s")
    return path, meta, True


def reset_repo(repo: str, meta: dict[str, Any]) -> None:
    """Put the repository back at its generated HEAD and drop leftover bench branches."""
    head = meta["head"]
    if git(repo, "rev-parse", "HEAD").strip() != head or git(repo, "status", "--porcelain"):
        git(repo, "reset", "-q", "--hard", head)
        git(repo, "clean", "-q", "-fd", "--", ".aide")
    for ref in git(repo, "for-each-ref", "--format=%(refname:short)",
                   "refs/heads/bench-catchup-*").split():
        git(repo, "branch", "-q", "-D", ref)


def log(message: str) -> None:
    """Progress on stderr, so that stdout holds only the tables."""
    print(message, file=sys.stderr, flush=True)


def catch_up_row(repo: str, meta: dict[str, Any], aide: list[str], key: str, label: str,
                 command: list[str], runs: int) -> Row:
    """Time the first command after merging a branch of 1,000 memories never seen before."""
    row = Row(key, label, [*aide, *command], max_ms=CATCH_UP_MS)
    nonce = time.time_ns() % (1 << 48)  # new memories each time: their blobs are cold
    branches: list[str] = []
    for i in range(runs):
        name = f"bench-catchup-{key}-{i}"
        generate.make_branch(repo, name, CATCH_UP_COUNT, seed=nonce + i, base=meta["head"])
        branches.append(name)
    warm = [*aide, *command]

    def before(i: int) -> None:
        run_timed(warm, repo)  # the cache is warm for the state before the merge
        git(repo, "merge", "-q", "--no-ff", "-m", f"Merge {branches[i]}", branches[i])

    def after(i: int) -> None:
        git(repo, "reset", "-q", "--hard", meta["head"])

    try:
        return measure(row, repo, runs, warmup=0, before=before, after=after)
    finally:
        reset_repo(repo, meta)


def full_index_bound(n: int) -> float:
    """The most a first full index of `n` memories may take, in ms."""
    if n <= 10000:
        return FULL_INDEX_MS
    share = (n - 10000) / 90000
    return FULL_INDEX_MS + share * (FULL_INDEX_MS_100K - FULL_INDEX_MS)


def full_index_row(repo: str, meta: dict[str, Any], aide: list[str], runs: int) -> Row:
    """Time `git aide index` from no cache at all (or the first recall, without `index`)."""
    bound = full_index_bound(int(meta["memories"]))
    common = git(repo, "rev-parse", "--path-format=absolute", "--git-common-dir").strip()
    cache = os.path.join(common, "aide")
    probe = subprocess.run([*aide, "index", "-h"], cwd=repo, capture_output=True,
                           env=clean_env())
    if probe.returncode == 0:
        row = Row("full_index", "first full index (`index`, no cache)", [*aide, "index"],
                  max_ms=bound)
    else:
        row = Row("full_index", "first full index (first `recall`: no `index` command)",
                  [*aide, "recall", meta["deep_file"], "--json"], max_ms=bound,
                  note=f"`git aide index` unavailable: {first_line(probe)}")

    def before(_i: int) -> None:
        shutil.rmtree(cache, ignore_errors=True)

    measure(row, repo, runs, warmup=0, before=before)
    # Leave the cache warm for whatever runs next.
    for warm in (["index"], ["search", meta["word"], "--json"],
                 ["recall", meta["deep_file"], "--json"]):
        run_timed([*aide, *warm], repo)
    return row


def merge_setup(aide: list[str]) -> tuple[str, list[str], Callable[[int], None]]:
    """Three small memory files in a new folder, and the merge driver call on them:
    (folder, command, a `before` that puts OURS back, since the driver writes there)."""
    import random

    plan = generate.Plan(random.Random(7))
    plan.dirs = [("src/api", "ts")]
    base = generate.make_memory(plan, 1000.0)
    base["layer"], base["scope"] = "technical", "src/api/**"
    ours = generate.edit_memory(plan, base, 2000.0)
    theirs = dict(base, tags=[*base["tags"], "bench-theirs"],
                  updated_at=generate._stamp(3000.0))
    path = generate.memory.relpath(base)
    tmp = tempfile.mkdtemp(prefix="git-aide-bench-merge-")
    files = {name: os.path.join(tmp, name) for name in ("base", "ours", "theirs")}
    for name, rec in (("base", base), ("ours", ours), ("theirs", theirs)):
        Path(files[name]).write_bytes(generate.memory.canonical(rec))
    ours_bytes = Path(files["ours"]).read_bytes()

    def before(_i: int) -> None:
        Path(files["ours"]).write_bytes(ours_bytes)

    return tmp, [*aide, "merge-driver", files["base"], files["ours"], files["theirs"], "7",
                 path], before


def merge_driver_row(repo: str, aide: list[str], runs: int) -> Row:
    """Time one `merge-driver BASE OURS THEIRS 7 PATH` call on three small memory files."""
    tmp, command, before = merge_setup(aide)
    row = Row("merge_driver", "merge driver, one call", command, max_ms=MERGE_DRIVER_MS)
    try:
        return measure(row, repo, runs, before=before)  # git runs drivers at the top
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def history_rows(repo: str, meta: dict[str, Any], aide: list[str],
                 add: Callable[..., None]) -> None:
    """`log` over the generated history and `diff` between its first and last commit,
    each paired with the git command that lists the same changes."""
    first = f"HEAD~{meta['commits']}"
    span = f"{first}..HEAD"
    mem = generate.memory.MEMORIES_DIR
    add(Row("log", f"`log {span}` ({meta['commits']} commits)",
            [*aide, "log", span, "--json"], baseline_key="git_log", max_ratio=GREP_RATIO,
            note=f"baseline: `git log --name-status {span} -- {mem}`"),
        paired=["git", "log", "--name-status", span, "--", mem])
    add(Row("diff", f"`diff {first} HEAD`", [*aide, "diff", first, "HEAD", "--json"],
            baseline_key="git_diff", max_ratio=GREP_RATIO,
            note=f"baseline: `git diff --stat {first} HEAD -- {mem}`"),
        paired=["git", "diff", "--stat", first, "HEAD", "--", mem])


def textconv_row(repo: str, aide: list[str], runs: int) -> Row:
    """Time one `textconv FILE` call on a memory file, each run paired with one merge
    driver call (its baseline: the same load for both)."""
    tmp, merge, before = merge_setup(aide)
    path = os.path.join(tmp, "memory.json")
    listed = git(repo, "ls-files", "--", generate.memory.MEMORIES_DIR + "/technical").split()
    Path(path).write_bytes(Path(repo, listed[0]).read_bytes())
    row = Row("textconv", "textconv, one call", [*aide, "textconv", path],
              baseline_key="merge_driver", max_ratio=1.0,
              note="baseline: one merge driver call, paired; target: no slower")
    try:
        return measure(row, repo, runs, before=before, paired=merge)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def bench_size(n: int, args: argparse.Namespace, aide: list[str]) -> dict[str, Any]:
    """Generate or reuse the repository of size `n` and time every row on it."""
    repo, meta, made = ensure_repo(args.workdir, n, args.files, args.commits, args.seed,
                                   args.regenerate)
    reset_repo(repo, meta)
    word, deep, folder = meta["word"], meta["deep_file"], meta["dir"]
    rev = f"HEAD~{meta['commits']}"  # the first commit: HEAD~100 by default
    runs, slow = args.runs, max(1, min(args.runs, args.slow_runs))
    rows: list[Row] = []
    only = {k.strip() for k in (args.rows or "").split(",") if k.strip()}

    def wanted(key: str) -> bool:
        return not only or key in only

    def add(row: Row, **kw: Any) -> None:
        if not wanted(row.key):
            return
        log(f"  N={n}: {row.label} ...")
        rows.append(measure(row, repo, runs, **kw))

    greps = {"grep_worktree": ["git", "grep", "-i", "-l", word, "--",
                               generate.memory.MEMORIES_DIR],
             "grep_rev": ["git", "grep", "-i", "-l", word, rev, "--",
                          generate.memory.MEMORIES_DIR]}
    add(Row("grep_worktree", "baseline: `git grep -i -l WORD` (worktree)",
            greps["grep_worktree"]), ok_codes=GREP_OK)
    add(Row("grep_rev", f"baseline: `git grep -i -l WORD {rev}`", greps["grep_rev"]),
        ok_codes=GREP_OK)
    add(Row("startup", "`git aide --version` (start-up floor)", [*aide, "--version"]))
    for key, label, cmd, base in (
        ("recall_file", "`recall FILE`", ["recall", deep], "grep_worktree"),
        ("recall_dir", "`recall DIR/`", ["recall", folder], "grep_worktree"),
        ("recall_query", "`recall FILE --query WORD`", ["recall", deep, "--query", word],
         "grep_worktree"),
        ("search", "`search WORD`", ["search", word], "grep_worktree"),
        ("recall_rev", f"`recall --rev {rev} FILE`", ["recall", "--rev", rev, deep],
         "grep_rev"),
    ):
        add(Row(key, label, [*aide, *cmd, "--json"], baseline_key=base, max_ratio=GREP_RATIO),
            paired=greps[base])
    add(Row("search_all", f"`search {BROAD_WORD} --limit 1000000` (every match: a quarter "
            "of the memories)", [*aide, "search", BROAD_WORD, "--limit", "1000000", "--json"],
            max_ms=SEARCH_ALL_MS))
    history_rows(repo, meta, aide, add)

    if wanted("catchup_recall"):
        log(f"  N={n}: catch-up after merging {CATCH_UP_COUNT} memories ...")
        rows.append(catch_up_row(repo, meta, aide, "catchup_recall",
                                 f"catch-up: first `recall` after a merge of {CATCH_UP_COUNT:,}",
                                 ["recall", deep, "--json"], slow))
    if wanted("catchup_search"):
        rows.append(catch_up_row(repo, meta, aide, "catchup_search",
                                 f"catch-up: first `search` after a merge of {CATCH_UP_COUNT:,}",
                                 ["search", word, "--json"], slow))
    if wanted("full_index"):
        log(f"  N={n}: first full index ...")
        rows.append(full_index_row(repo, meta, aide, slow))
    if wanted("merge_driver") or wanted("textconv"):
        log(f"  N={n}: merge driver ...")
        row = merge_driver_row(repo, aide, runs)
        if row.error:
            row.note = "merge-driver not available yet or failed"
        rows.append(row)
    if wanted("textconv"):
        log(f"  N={n}: textconv ...")
        rows.append(textconv_row(repo, aide, runs))
    if wanted("audit"):
        log(f"  N={n}: audit ...")
        rows.append(measure(Row("audit", "`audit` (every memory, the whole history)",
                                [*aide, "audit", "--json"], max_ms=AUDIT_MS), repo, slow))

    if wanted("agents"):
        log(f"  N={n}: MCP server and agent hooks ...")
        grep = greps["grep_worktree"]
        try:
            found = agents.rows(repo, meta, aide, runs, slow, clean_env(), grep, Row)
        except Exception as e:  # noqa: BLE001 -- one failing row must not stop the table
            found = [Row("mcp", "MCP server and agent hooks", [*aide, "mcp"],
                         error=str(e)[:160])]
        if not found:
            log("  (skipped: the mcp package, which every install of git-aide brings, is "
                "missing from this environment; reinstall with pip install .)")
        rows.extend(found)
        reset_repo(repo, meta)

    by_key = {r.key: r for r in rows}
    for r in rows:
        judge(r, by_key)
    return {"memories": meta["memories"], "files": meta["files"], "commits": meta["commits"],
            "word": word, "file": deep, "dir": folder,
            "repo": repo, "generated_now": made, "generate_seconds": meta["generate_seconds"],
            "rows": [asdict(r) for r in rows]}


def judge(row: Row, by_key: dict[str, Row]) -> None:
    """Fill in the baseline, the ratio and whether the row meets its target."""
    if row.median_ms is None:
        return
    base = by_key.get(row.baseline_key or "")
    if row.baseline_runs_ms:
        row.baseline_ms = round(statistics.median(row.baseline_runs_ms), 2)
    elif base is not None and base.median_ms:
        row.baseline_ms = base.median_ms
    if row.baseline_ms:
        row.ratio = round(row.median_ms / row.baseline_ms, 2)
    if row.max_ratio is not None and row.ratio is not None:
        row.met = row.ratio <= row.max_ratio
    elif row.max_ms is not None:
        row.met = row.median_ms <= row.max_ms


def fmt_ms(ms: float | None) -> str:
    """A duration for the table."""
    if ms is None:
        return "n/a"
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.1f}"


def target_text(row: dict[str, Any], scale: dict[str, Any] | None) -> str:
    """The target column: the bound, whether it is met, and the 100k-vs-10k check."""
    parts: list[str] = []
    if row["max_ratio"] is not None:
        against = ("recall" if row["key"].startswith("hook_") else
                   "grep" if (row["baseline_key"] or "").startswith("grep") else "baseline")
        parts.append(f"≤ {row['max_ratio']:g}x {against}")
    elif row["max_ms"] is not None:
        bound = row["max_ms"]
        parts.append(f"< {bound / 1000:g} s" if bound >= 1000 else f"< {bound:g} ms")
    if parts and row["met"] is not None:
        parts[-1] += ": met" if row["met"] else ": **missed**"
    if scale is not None and scale.get("median_ms") and row["median_ms"] is not None:
        factor = row["median_ms"] / scale["median_ms"]
        verdict = "met" if factor <= SCALE_RATIO else "**missed**"
        parts.append(f"≤ {SCALE_RATIO:g}x 10k ({factor:.1f}x): {verdict}")
    return "; ".join(parts) or "-"


def table(n: int, result: dict[str, Any], ten_k: dict[str, Any] | None, runs: int,
          slow: int) -> str:
    """One markdown table for one size."""
    head = (f"### {result['memories']:,} memories, {result['files']:,} other files, "
            f"{result['commits'] + 1} commits\n\n"
            "| operation | median ms | baseline | ratio | target |\n"
            "|---|---:|---:|---:|---|\n")
    lines: list[str] = []
    scale_rows = {r["key"]: r for r in ten_k["rows"]} if ten_k and n > 10000 else {}
    for r in result["rows"]:
        if r["median_ms"] is None:
            why = r["error"] or "failed"
            lines.append(f"| {r['label']} | n/a | | | {why}" + (
                f" ({r['note']})" if r["note"] else "") + " |")
            continue
        baseline = fmt_ms(r["baseline_ms"]) if r["baseline_ms"] is not None else ""
        ratio = f"{r['ratio']:.2f}x" if r["ratio"] is not None else ""
        scale = scale_rows.get(r["key"]) if not r["key"].startswith("grep") else None
        target = target_text(r, scale)
        if r["note"]:
            target += f" ({r['note']})"
        lines.append(f"| {r['label']} | {fmt_ms(r['median_ms'])} | {baseline} | {ratio} "
                     f"| {target} |")
    made = "generated" if result["generated_now"] else "reused; generated"
    foot = (f"\nFILE = `{result['file']}`, DIR = `{result['dir']}`, WORD = "
            f"`{result['word']}`; every git-aide command with `--json`.\n"
            f"Repository {made} in {result['generate_seconds']:.1f} s. Medians of "
            f"{runs} runs after a warm-up; catch-up and first index: {slow} runs, no warm-up.\n")
    return head + "\n".join(lines) + "\n" + foot


def environment(aide: list[str]) -> dict[str, Any]:
    """What the figures were measured with."""
    version = subprocess.run([*aide, "--version"], capture_output=True)
    return {
        "git_aide": first_line(version) if version.returncode else version.stdout.decode().strip(),
        "git": subprocess.run(["git", "--version"], capture_output=True,
                              text=True).stdout.strip(),
        "python": platform.python_version(), "platform": platform.platform(),
        "cpus": os.cpu_count(), "executable": " ".join(aide),
    }


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000",
                    help="memory counts, comma-separated (default 1000,10000)")
    ap.add_argument("--large", action="store_true", help="also 100,000 memories")
    ap.add_argument("--runs", type=int, default=7, help="timed runs per row (default 7)")
    ap.add_argument("--slow-runs", type=int, default=3,
                    help="runs for catch-up and first index (default 3, at most --runs)")
    ap.add_argument("--workdir", default=os.path.join(tempfile.gettempdir(), "git-aide-bench"),
                    help="where generated repositories are kept (default /tmp/git-aide-bench)")
    ap.add_argument("--files", type=int, default=20000, help="other files (default 20000)")
    ap.add_argument("--commits", type=int, default=100, help="history depth (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="generator seed (default 1)")
    ap.add_argument("--regenerate", action="store_true", help="do not reuse repositories")
    ap.add_argument("--rows", metavar="KEYS",
                    help="time only these rows, comma-separated keys (startup, recall_file, "
                         "recall_dir, recall_query, search, recall_rev, search_all, log, diff, "
                         "catchup_recall, catchup_search, full_index, merge_driver, "
                         "textconv, audit, agents: the MCP and hook rows)")
    ap.add_argument("--json", dest="json_out", metavar="FILE", help="write raw figures here")
    args = ap.parse_args(argv)
    try:
        sizes = sorted({int(s) for s in args.sizes.split(",") if s.strip()}
                       | ({100000} if args.large else set()))
    except ValueError:
        ap.error("--sizes takes comma-separated integers")
    if args.runs < 1 or not sizes or min(sizes) < 1:
        ap.error("--runs and every size must be at least 1")
    if args.commits < 1:
        ap.error("--commits must be at least 1")
    workdir = os.path.abspath(args.workdir)
    main_checkout = Path(__file__).resolve().parent.parent
    if Path(workdir).resolve().is_relative_to(main_checkout):
        ap.error("--workdir must be outside the project checkout")
    os.makedirs(workdir, exist_ok=True)
    args.workdir = workdir

    aide = aide_command()
    doc: dict[str, Any] = {"environment": environment(aide), "runs": args.runs,
                           "slow_runs": min(args.runs, args.slow_runs), "sizes": {}}
    for n in sizes:
        doc["sizes"][str(n)] = bench_size(n, args, aide)
        ten_k = doc["sizes"].get("10000")
        print(table(n, doc["sizes"][str(n)], ten_k, doc["runs"], doc["slow_runs"]), flush=True)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(doc, f, indent=2)
            f.write("\n")
        log(f"raw figures written to {args.json_out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
