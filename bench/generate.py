"""Build a benchmark repository: N memories beside a tree of source files, with history.

    python3 bench/generate.py DEST --memories N [--files 20000] [--commits 100] [--seed 1]

The whole history is streamed into one `git fast-import` process (no `git add` over
tens of thousands of files), then checked out once. The same arguments always give
the same commits, byte for byte.

Layout of the result:

- commit 1 (HEAD~COMMITS) holds every source file and most of the memories;
- each of the COMMITS commits after it adds a few memories, edits one or two (new
  `what`, `updated_at`), sometimes forgets one, and edits a few source files;
- HEAD holds exactly N memories and FILES other files.

What the benchmark needs to know about the repository (a deep file that many scopes
match, a directory, a word that searches hit) is written to `.git/aide-bench.json`.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
import uuid as uuidlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from itertools import accumulate
from typing import IO, Any

from git_aide.core import memory

#: Bump when the generated content changes, so that cached repositories are rebuilt.
GENERATOR_VERSION = 2
#: Where the benchmark's facts about a generated repository are kept (in the git dir).
META_NAME = "aide-bench.json"
#: The deep file that recall is asked about; the tree always contains it.
DEEP_FILE = "packages/web/components/forms/fields/TextInput.tsx"
#: The directory that `recall <dir>/` is asked about.
QUERY_DIR = "packages/web/"
#: The word that `search` and `recall --query` look for (it is in WORDS).
QUERY_WORD = "migration"

#: The lines `git aide init` writes to .gitignore and .gitattributes.
IGNORE_LINE = memory.PERSONAL_DIR + "/"
ATTRIBUTE_LINE = memory.MEMORIES_DIR + "/**/*.json merge=aide"

AUTHOR = b"Bench Bot <bench@example.com>"
_EPOCH = datetime(2024, 1, 1, tzinfo=timezone.utc)

WORDS: tuple[str, ...] = tuple("""
the a we our this that every never always only before after when because so use avoid
prefer keep must should cache index query request response handler middleware router
route schema model database table column transaction retry timeout backoff
queue worker job scheduler event stream buffer batch page pagination cursor token session
cookie header auth login logout password hash salt secret config setting flag feature
toggle rollout release deploy build bundle chunk lazy load render component hook state
store reducer action effect context provider theme style layout grid form field input
validation error exception log logger metric trace span alert monitor dashboard chart
table modal dialog button link icon image upload download file path folder tree node
graph edge client server api endpoint version deprecate legacy refactor rename split
merge conflict branch commit review test fixture mock stub snapshot coverage flaky
parallel serial async await promise callback thread lock mutex race deadlock memory leak
allocation pool connection socket http grpc json yaml csv parser encoder decoder utf8
locale timezone date time clock duration interval debounce throttle rate limit quota
billing invoice payment customer account user team role permission policy audit export
import search filter sort order group aggregate report sql orm postgres redis kafka
docker kubernetes helm terraform ci pipeline lint format typecheck strict null optional
default fallback retry idempotent unique constraint foreign key index vacuum replica
shard partition tenant migration region latency throughput p99 budget regression benchmark profile
""".split())
#: Word frequencies fall off with rank, as in real text (Zipf-like, exponent 1.2): about
#: 3% of memories mention QUERY_WORD, while "the" is in nearly all.
_CUM_WEIGHTS: list[float] = list(accumulate(1 / (i + 5) ** 1.2 for i in range(len(WORDS))))
TAGS: tuple[str, ...] = tuple("""
api auth db perf security testing ui ux build ci deploy infra logging monitoring billing
search cache schema-changes legacy style naming docs accessibility i18n mobile web backend
frontend data privacy reliability
""".split())
CONTRIBUTORS: tuple[str, ...] = ("Ada Lovelace", "Grace Hopper", "Linus T", "Margaret H",
                                 "Ken T", "Barbara L", "dev@example.com", "Alan K")
LAYER_WEIGHTS: dict[str, float] = {"area_context": 0.45, "technical": 0.25,
                                   "preferences": 0.10, "guidelines": 0.20}
#: How often a memory of each layer has a scope (area_context: always).
SCOPED_SHARE: dict[str, float] = {"area_context": 1.0, "technical": 0.6, "preferences": 0.4,
                                  "guidelines": 0.2}
SOURCE_WEIGHTS: dict[str, float] = {"conversation": 0.6, "agent_discovery": 0.2,
                                    "import": 0.1, "hook": 0.05, "elevated": 0.05}

#: The top of the source tree: (root, language, child names per level below it).
_TREE: tuple[tuple[str, str, tuple[tuple[str, ...], ...]], ...] = (
    ("src", "ts", (
        ("api", "auth", "db", "ui", "utils", "services", "models", "workers", "config", "jobs"),
        ("handlers", "middleware", "routes", "schemas", "internal", "adapters", "queries",
         "helpers", "types", "views"),
        ("v1", "v2", "admin", "public", "legacy", "shared", "core"),
        ("impl", "spec", "common", "extra"),
    )),
    ("packages", "tsx", (
        ("web", "api", "core", "shared", "mobile", "admin"),
        ("components", "hooks", "lib", "server", "utils", "pages"),
        ("forms", "buttons", "layout", "tables", "modals", "charts", "billing", "settings"),
        ("fields", "validation", "inputs", "parts", "styles", "stories"),
    )),
    ("backend", "py", (
        ("billing", "accounts", "search", "reports", "notifications", "ingest"),
        ("models", "views", "tasks", "serializers", "services"),
        ("internal", "v2", "compat"),
    )),
    ("tools", "go", (
        ("cli", "migrate", "lint", "release"),
        ("cmd", "internal", "pkg"),
    )),
    ("docs", "md", (("guides", "reference", "adr", "runbooks"),)),
)
_EXTS: dict[str, tuple[str, ...]] = {"ts": ("ts", "ts", "tsx"), "tsx": ("tsx", "tsx", "ts"),
                                     "py": ("py",), "go": ("go",), "md": ("md",)}
_GLOB_EXTS: dict[str, str] = {"ts": "{ts,tsx}", "tsx": "{ts,tsx}", "py": "py", "go": "go",
                              "md": "md"}


@dataclass
class Plan:
    """The repository being generated: its source tree and its live memories."""

    rng: random.Random
    #: Directories that hold files, with the language of each.
    dirs: list[tuple[str, str]] = field(default_factory=list)
    #: Source file path -> content version (bumped when a commit edits it).
    files: dict[str, int] = field(default_factory=dict)
    #: Live memory records by uuid.
    memories: dict[str, dict[str, Any]] = field(default_factory=dict)
    #: How many memory records were made (numbers the aide-memory `id` key).
    made: int = 0


def _weighted(rng: random.Random, weights: dict[str, float]) -> str:
    """One key of `weights`, drawn in proportion to its value."""
    return rng.choices(list(weights), weights=list(weights.values()))[0]


def _stamp(seconds: float) -> str:
    """A memory timestamp `seconds` after the start of 2024."""
    t = _EPOCH + timedelta(seconds=seconds)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{t.microsecond // 1000:03d}Z"


def _sentence(rng: random.Random, lo: int, hi: int) -> str:
    """Words from WORDS, between `lo` and `hi` characters, capitalised, ending in a period."""
    target = rng.randint(lo, hi)
    words: list[str] = []
    length = 0
    for w in rng.choices(WORDS, cum_weights=_CUM_WEIGHTS, k=hi // 2):
        if length > target:
            break
        if length + len(w) + 1 > hi - 1 and length >= lo:
            break
        words.append(w)
        length += len(w) + 1
    text = " ".join(words)[: hi - 1].rstrip()
    return text[:1].upper() + text[1:] + "."


def build_tree(plan: Plan, count: int) -> None:
    """Fill `plan.dirs` and `plan.files` with `count` source files (DEEP_FILE among them)."""
    rng = plan.rng

    def walk(prefix: str, lang: str, levels: tuple[tuple[str, ...], ...]) -> Iterator[str]:
        if not levels:
            return
        names = sorted(rng.sample(levels[0], k=max(1, (len(levels[0]) * 2 + 2) // 3)))
        for name in names:
            path = f"{prefix}/{name}"
            yield path
            yield from walk(path, lang, levels[1:])

    for root, lang, levels in _TREE:
        plan.dirs.append((root, lang))
        plan.dirs.extend((d, lang) for d in walk(root, lang, levels))
    deep_dir = DEEP_FILE.rsplit("/", 1)[0]
    known = {d for d, _ in plan.dirs}
    parts = deep_dir.split("/")
    for i in range(1, len(parts) + 1):
        d = "/".join(parts[:i])
        if d not in known:
            plan.dirs.append((d, "tsx"))
            known.add(d)
    plan.dirs.sort()
    plan.files[DEEP_FILE] = 0
    # Deeper directories hold more files, as in real trees.
    weights = [1 + d.count("/") for d, _ in plan.dirs]
    while len(plan.files) < count:
        d, lang = rng.choices(plan.dirs, weights=weights)[0]
        ext = rng.choice(_EXTS[lang])
        a, b = rng.choice(WORDS), rng.choice(WORDS)
        name = f"{a.capitalize()}{b.capitalize()}" if ext == "tsx" else f"{a}_{b}"
        path = f"{d}/{name}.{ext}"
        n = 2
        while path in plan.files:
            path = f"{d}/{name}{n}.{ext}"
            n += 1
        plan.files[path] = 0


def file_content(path: str, version: int) -> bytes:
    """A small source file; its text depends on its path and version only."""
    stem = path.rsplit("/", 1)[-1].split(".")[0]
    ext = path.rsplit(".", 1)[-1]
    if ext == "py":
        body = f'"""{path}"""\n\n\ndef {stem.lower()}(x):\n    return x + {version}\n'
    elif ext == "go":
        body = f"// {path}\npackage main\n\nfunc {stem}(x int) int {{ return x + {version} }}\n"
    elif ext == "md":
        body = f"# {stem}\n\nNotes for {path}, revision {version}.\n"
    else:
        body = (f"// {path}\nexport function {stem}(x: number): number {{\n"
                f"  return x + {version};\n}}\n")
    return body.encode()


def _scope(plan: Plan) -> str:
    """A scope over the generated tree: 1 to 4 levels deep, mostly `dir/**`, some globs."""
    rng = plan.rng
    if rng.random() < 0.03:  # a few near the deep file, like a team working there
        parts = DEEP_FILE.split("/")[:-1]
        d = "/".join(parts[: rng.randint(2, 4)])
        lang = "tsx"
    else:
        d, lang = rng.choice(plan.dirs)
        depth = rng.choices((1, 2, 3, 4), weights=(0.25, 0.35, 0.25, 0.15))[0]
        d = "/".join(d.split("/")[:depth])
    r = rng.random()
    if r < 0.6:
        return f"{d}/**"
    if r < 0.7:
        return d
    if r < 0.75:
        return f"{d}/"
    if r < 0.9:
        return f"{d}/**/*.{_GLOB_EXTS[lang]}"
    if r < 0.95:
        return f"**/*.{_EXTS[lang][0]}"
    return f"{d}/*.{_EXTS[lang][0]}"


def make_memory(plan: Plan, seconds: float) -> dict[str, Any]:
    """A new memory record created `seconds` after the start of 2024."""
    rng = plan.rng
    layer = _weighted(rng, LAYER_WEIGHTS)
    scoped = rng.random() < SCOPED_SHARE[layer]
    gen: dict[str, Any] | None = None
    if rng.random() < 0.5:
        gen = {"tool": "claude-code", "model": "claude-sonnet-4", "author_type": "ai"}
    elif rng.random() < 0.2:
        gen = {"tool": "git-aide", "model": None, "author_type": "human"}
    stamp = _stamp(seconds)
    plan.made += 1
    raw: dict[str, Any] = {
        "uuid": str(uuidlib.UUID(int=rng.getrandbits(128), version=4)),
        "layer": layer,
        "what": _sentence(rng, 60, 300),
        "why": _sentence(rng, 30, 160) if rng.random() < 0.7 else None,
        "scope": _scope(plan) if scoped else None,
        "context_label": " ".join(rng.sample(WORDS, 2)) if rng.random() < 0.5 else None,
        "contributor": rng.choice(CONTRIBUTORS),
        "tags": rng.sample(TAGS, rng.randint(1, 3)),
        "source": _weighted(rng, SOURCE_WEIGHTS),
        "shared": True,
        "priority": "always" if rng.random() < 0.02 else "normal",
        "generated_by": gen,
        "derived_from": None,
        "created_at": stamp,
        "updated_at": stamp,
    }
    if rng.random() < 0.2:  # aide-memory writes a numeric id; it must survive untouched
        raw["id"] = plan.made
    return memory.fill_defaults(raw)


def edit_memory(plan: Plan, record: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The record with a new `what` (and sometimes one more tag), updated at `seconds`."""
    rng = plan.rng
    new = dict(record)
    new["what"] = _sentence(rng, 60, 300)
    tag = rng.choice(TAGS)
    if rng.random() < 0.3 and tag not in new["tags"] and len(new["tags"]) < 3:
        new["tags"] = [*new["tags"], tag]
    new["updated_at"] = max(_stamp(seconds), record["created_at"])
    return new


class FastImport:
    """A `git fast-import` process fed one commit at a time."""

    def __init__(self, dest: str, force: bool = False) -> None:
        args = ["git", "fast-import", "--quiet", "--done", *(["--force"] if force else [])]
        self.proc = subprocess.Popen(args, cwd=dest, stdin=subprocess.PIPE)
        assert self.proc.stdin is not None
        self.out: IO[bytes] = self.proc.stdin

    def commit(self, ref: str, when: int, message: str, parent: str | None,
               changes: list[tuple[str, bytes | None]]) -> None:
        """One commit on `ref`: each change writes a file's bytes, or deletes it (None)."""
        w = self.out.write
        msg = message.encode()
        w(b"commit %s\nauthor %s %d +0000\ncommitter %s %d +0000\ndata %d\n%s\n"
          % (ref.encode(), AUTHOR, when, AUTHOR, when, len(msg), msg))
        if parent:
            w(b"from %s\n" % parent.encode())
        for path, data in changes:
            if data is None:
                w(b"D %s\n" % path.encode())
            else:
                w(b"M 100644 inline %s\ndata %d\n%s\n" % (path.encode(), len(data), data))
        w(b"\n")

    def close(self) -> None:
        """Finish the stream; raise when fast-import failed."""
        self.out.write(b"done\n")
        self.out.close()
        if self.proc.wait() != 0:
            raise RuntimeError(f"git fast-import failed with status {self.proc.returncode}")


def _git(dest: str, *args: str) -> str:
    """Run git in `dest`; return its stdout; raise with git's message when it fails."""
    proc = subprocess.run(["git", *args], cwd=dest, capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} failed: {proc.stderr.strip()}")
    return proc.stdout


def _mem_change(record: dict[str, Any]) -> tuple[str, bytes]:
    """A fast-import change that writes a record at its canonical path."""
    return memory.relpath(record), memory.canonical(record)


def generate(dest: str, memories: int, files: int = 20000, commits: int = 100,
             seed: int = 1) -> dict[str, Any]:
    """Create the repository at `dest` (must not exist or be empty); return its metadata."""
    if memories < 1 or files < 1 or commits < 1:
        raise ValueError("--memories, --files and --commits must be at least 1")
    start = time.perf_counter()
    os.makedirs(dest, exist_ok=True)
    if os.listdir(dest):
        raise FileExistsError(f"{dest} is not empty")
    _git(dest, "init", "-q", "-b", "main")
    for key, value in (("user.name", "Bench Bot"), ("user.email", "bench@example.com"),
                       ("commit.gpgsign", "false"), ("gc.auto", "0"),
                       ("maintenance.auto", "false")):
        _git(dest, "config", key, value)

    plan = Plan(random.Random(seed))
    rng = plan.rng
    build_tree(plan, files)
    deletions = [i for i in range(commits) if rng.random() < 0.1]
    created = memories + len(deletions)
    later = min(created // 5, 2 * commits)
    per_commit = [later // commits] * commits
    for i in rng.sample(range(commits), later % commits):
        per_commit[i] += 1

    fi = FastImport(dest)
    when = int(_EPOCH.timestamp()) + 400 * 86400
    first: list[tuple[str, bytes | None]] = [
        (".gitignore", f"{IGNORE_LINE}\n".encode()),
        (".gitattributes", f"{ATTRIBUTE_LINE}\n".encode()),
        ("README.md", b"# bench\n\nA repository generated by git-aide's benchmark.\n"),
    ]
    first += [(p, file_content(p, 0)) for p in plan.files]
    for _ in range(created - later):
        rec = make_memory(plan, rng.uniform(0, 400 * 86400))
        plan.memories[rec["uuid"]] = rec
        first.append(_mem_change(rec))
    fi.commit("refs/heads/main", when, "Initial import", None, first)

    paths = list(plan.files)
    for i in range(commits):
        when += 3600
        seconds = when - _EPOCH.timestamp()
        changes: list[tuple[str, bytes | None]] = []
        live = list(plan.memories)
        if i in deletions:
            gone = plan.memories.pop(rng.choice(live))
            live.remove(gone["uuid"])
            changes.append((memory.relpath(gone), None))
        for u in rng.sample(live, min(len(live), rng.randint(0, 2))):
            plan.memories[u] = edit_memory(plan, plan.memories[u], seconds)
            changes.append(_mem_change(plan.memories[u]))
        for _ in range(per_commit[i]):
            rec = make_memory(plan, seconds)
            plan.memories[rec["uuid"]] = rec
            changes.append(_mem_change(rec))
        for p in rng.sample(paths, min(len(paths), rng.randint(1, 4))):
            plan.files[p] += 1
            changes.append((p, file_content(p, plan.files[p])))
        fi.commit("refs/heads/main", when, f"Change {i + 1}: {rng.choice(WORDS)} work",
                  None, changes)
    fi.close()
    # Writing 30,000 files is most of the time on slow disks; let git use both cores.
    _git(dest, "-c", "checkout.workers=0", "reset", "-q", "--hard")
    imported = time.perf_counter() - start

    meta = {
        "generator_version": GENERATOR_VERSION, "memories": len(plan.memories),
        "files": len(plan.files), "commits": commits, "seed": seed,
        "deep_file": DEEP_FILE, "dir": QUERY_DIR, "word": QUERY_WORD,
        "head": _git(dest, "rev-parse", "HEAD").strip(),
        "generate_seconds": round(imported, 3),
    }
    with open(os.path.join(dest, ".git", META_NAME), "w", encoding="utf-8") as f:
        json.dump(meta, f, indent=2)
        f.write("\n")
    return meta


def make_branch(dest: str, branch: str, count: int, seed: int, base: str = "HEAD") -> str:
    """A branch off `base` with one commit adding `count` new memories; returns its sha."""
    plan = Plan(random.Random(seed))
    langs = {root: lang for root, lang, _ in _TREE}
    dirs = sorted({p.rsplit("/", 1)[0] for p in _tracked(dest)})
    plan.dirs = [(d, langs.get(d.split("/")[0], "ts")) for d in dirs]
    parent = _git(dest, "rev-parse", "--verify", f"{base}^{{commit}}").strip()
    when = int(_git(dest, "log", "-1", "--format=%ct", parent).strip()) + 60
    changes: list[tuple[str, bytes | None]] = []
    for _ in range(count):
        changes.append(_mem_change(make_memory(plan, when - _EPOCH.timestamp())))
    fi = FastImport(dest, force=True)  # replaces a branch of that name
    fi.commit(f"refs/heads/{branch}", when, f"Add {count} memories", parent, changes)
    fi.close()
    return _git(dest, "rev-parse", f"refs/heads/{branch}").strip()


def _tracked(dest: str) -> list[str]:
    """The tracked files of HEAD outside `.aide/` (to draw scopes from)."""
    out = _git(dest, "ls-tree", "-r", "--name-only", "HEAD")
    return [p for p in out.splitlines() if "/" in p and not p.startswith(".aide/")]


def read_meta(dest: str) -> dict[str, Any] | None:
    """The metadata a finished generation left in `dest`, or None."""
    try:
        with open(os.path.join(dest, ".git", META_NAME), encoding="utf-8") as f:
            meta: dict[str, Any] = json.load(f)
    except (OSError, ValueError):
        return None
    return meta if meta.get("generator_version") == GENERATOR_VERSION else None


def main(argv: list[str] | None = None) -> int:
    """The command line."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dest", help="the folder to create (must not exist, or be empty)")
    ap.add_argument("--memories", type=int, required=True, help="memories at HEAD")
    ap.add_argument("--files", type=int, default=20000, help="other files (default 20000)")
    ap.add_argument("--commits", type=int, default=100,
                    help="commits after the first one (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = ap.parse_args(argv)
    try:
        meta = generate(args.dest, args.memories, args.files, args.commits, args.seed)
    except (OSError, RuntimeError, ValueError) as e:
        print(f"generate.py: error: {e}", file=sys.stderr)
        return 1
    print(f"{args.dest}: {meta['memories']} memories, {meta['files']} files, "
          f"{meta['commits'] + 1} commits in {meta['generate_seconds']:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
