"""Measure git-aide's write gate: pasted output refused, honest memories let through.

    python3 bench/gate/run.py [--seed N] [--show] [--dump] [--json]

Every sample goes through `git_aide.core.pasted.find`, as `remember`, `update`, the MCP
tools and `import` judge a memory's text. Two corpora:

- junk, which a memory should not be: the real output of real programs, captured once
  into real/ (README.md says how), and output drawn at run time from the templates of
  junk.py with a seed (stack traces in nine forms, diffs and patches, `git log` in four
  forms, `git status` long and short, `git branch`, listings by `ls`, `ls -l`, `find`,
  `tree`, `du`, `pip list` and on one line, and the output of test runners, compilers,
  linters, package managers, builds and shell sessions);
- honest memories, which must all pass: the memories `git aide import` makes of the real
  rules files under tests/fixtures/rules (as the rules bench reads them), the honest lines
  of bench/secrets/negatives.txt, the memories of bench/quality/data, and honest.txt's
  memories that quote output.

The bars: at least 95% of the junk refused, no honest memory refused.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
try:
    from git_aide.core import pasted
except ImportError:  # run from a checkout without an install
    sys.path.insert(0, str(ROOT))
    from git_aide.core import pasted


def _load(name: str, path: Path) -> Any:
    """A script beside this one (or another bench's) as a module of its own name: the
    benches' scripts share file names (`run.py`), and a test process may load several."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = sys.modules[name] = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


junk = _load("bench_gate_junk", HERE / "junk.py")

#: The least share of junk refused, and the most honest memories refused.
BAR_REFUSED = 0.95
BAR_HONEST = 0


@dataclass(frozen=True)
class Sample:
    """One text to judge, where it comes from, and whether it is junk."""

    text: str
    kind: str
    source: str
    junk: bool


# -- the honest sets ---------------------------------------------------------------------

def rules_memories() -> list[Sample]:
    """The memories `git aide import` makes of every real rules file of the corpus."""
    from git_aide.agents.rules.markdown import parse

    out = []
    folder = ROOT / "tests" / "fixtures" / "rules"
    for path in sorted(folder.glob("*")):
        if path.is_file() and path.name != "README.md":
            out += [Sample(it.what, "rules file", path.name, False)
                    for it in parse(path.read_text(errors="replace")).items]
    return out


def secrets_negatives(seed: int) -> list[Sample]:
    """The honest lines of the secrets gate's corpus, drawn as its bench draws them."""
    secrets_bench = _load("bench_secrets_run", HERE.parent / "secrets" / "run.py")
    ex = secrets_bench.Expander(seed)
    return [Sample(ex.expand(line), "secrets negatives", "bench/secrets/negatives.txt", False)
            for line in (HERE.parent / "secrets" / "negatives.txt").read_text().splitlines()
            if line.strip() and not line.startswith("# ")]


def quality_memories() -> list[Sample]:
    """The memories of the retrieval benchmark's datasets."""
    out = []
    for path in sorted((HERE.parent / "quality" / "data").glob("*/memories.jsonl")):
        for line in path.read_text().splitlines():
            if line.strip():
                out.append(Sample(json.loads(line)["what"], "quality memories",
                                  path.parent.name, False))
    return out


def near_the_line() -> list[Sample]:
    """The honest memories of honest.txt, which name or quote machine output."""
    text = (HERE / "honest.txt").read_text()
    body = text[text.index("\n%%\n") + 4:]
    return [Sample(part.strip("\n"), "near the line", "bench/gate/honest.txt", False)
            for part in body.split("\n%%\n") if part.strip()]


def corpus(seed: int, per_kind: int) -> list[Sample]:
    """Every sample: the real junk, `per_kind` drawn of each generated kind, the honest."""
    samples = [Sample(p.read_text(), "real: " + p.stem, p.name, True)
               for p in sorted((HERE / "real").glob("*.txt"))]
    d = junk.Draw(seed)
    for kind, make in junk.GENERATORS.items():
        samples += [Sample(junk.framed(d, make(d)), kind, "generated", True)
                    for _ in range(per_kind)]
    return (samples + rules_memories() + secrets_negatives(seed) + quality_memories()
            + near_the_line())


def measure(samples: list[Sample]) -> dict[str, Any]:
    """Per set: samples, refused, the rate; and the samples judged wrongly."""
    found = [(s, pasted.find(s.text)) for s in samples]
    rows = []
    sets = (("junk: real output (real/)", lambda s: s.junk and s.kind.startswith("real")),
            ("junk: generated", lambda s: s.junk and not s.kind.startswith("real")),
            ("honest: rules files (tests/fixtures/rules)", lambda s: s.kind == "rules file"),
            ("honest: bench/secrets negatives", lambda s: s.kind == "secrets negatives"),
            ("honest: bench/quality memories", lambda s: s.kind == "quality memories"),
            ("honest: naming or quoting output (honest.txt)",
             lambda s: s.kind == "near the line"))
    for name, wanted in sets:
        mine = [(s, k) for s, k in found if wanted(s)]
        refused = sum(1 for _s, k in mine if k is not None)
        rows.append({"set": name, "samples": len(mine), "refused": refused,
                     "rate": refused / len(mine) if mine else 0.0})
    junk = [(s, k) for s, k in found if s.junk]
    honest = [(s, k) for s, k in found if not s.junk]
    refused_junk = sum(1 for _s, k in junk if k is not None)
    refused_honest = sum(1 for _s, k in honest if k is not None)
    return {
        "rows": rows,
        "junk_refused": refused_junk / len(junk), "honest_refused": refused_honest,
        "passed": refused_junk / len(junk) >= BAR_REFUSED and refused_honest <= BAR_HONEST,
        "named": dict(Counter(k for _s, k in junk if k is not None).most_common()),
        "missed": [{"kind": s.kind, "text": s.text} for s, k in junk if k is None],
        "refused": [{"kind": s.kind, "source": s.source, "as": k, "text": s.text}
                    for s, k in honest if k is not None],
    }


def main(argv: list[str] | None = None) -> int:
    """Print the table (or the JSON document); exit 1 below the bars."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=41, help="seed of the generated output")
    ap.add_argument("--per-kind", type=int, default=20, help="samples drawn of each kind")
    ap.add_argument("--show", action="store_true", help="list the samples judged wrongly")
    ap.add_argument("--dump", action="store_true", help="print the corpus and exit")
    ap.add_argument("--json", action="store_true", help="print one JSON document")
    args = ap.parse_args(argv)
    samples = corpus(args.seed, args.per_kind)
    if args.dump:
        for s in samples:
            print(f"{'+' if s.junk else '-'} {s.kind} [{s.source}]\n{s.text}\n")
        return 0
    result = measure(samples)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0 if result["passed"] else 1
    print(f"Write gate, corpus bench/gate (seed {args.seed}, {args.per_kind} of each kind)\n")
    print("| corpus | samples | refused | rate |")
    print("|---|---:|---:|---:|")
    for row in result["rows"]:
        print(f"| {row['set']} | {row['samples']} | {row['refused']} | {row['rate']:.1%} |")
    print(f"\njunk refused: {result['junk_refused']:.1%} (bar {BAR_REFUSED:.0%}); honest "
          f"memories refused: {result['honest_refused']} (bar {BAR_HONEST})")
    if args.show:
        print("\nJunk let through:")
        for row in result["missed"]:
            print(f"  [{row['kind']}]\n    " + row["text"].replace("\n", "\n    "))
        print("\nHonest memories refused:")
        for row in result["refused"]:
            print(f"  [{row['source']}] as {row['as']}:\n    "
                  + row["text"].replace("\n", "\n    "))
    return 0 if result["passed"] else 1


if __name__ == "__main__":
    sys.exit(main())
