"""The write gate's judgment (core/pasted.py, issue 41.1): pasted output is named for what
it looks like; honest memories, even those that quote a line of output, are not. The
bars are bench/gate's: at least 95% of the junk refused, no honest memory refused."""

from __future__ import annotations

import importlib.util
import sys
import time
from typing import Any

import pytest
from helpers import ROOT

from git_aide.core import pasted


def _load_bench() -> Any:
    """bench/gate/run.py under a name of its own (other benches are `run.py` too)."""
    path = ROOT / "bench" / "gate" / "run.py"
    spec = importlib.util.spec_from_file_location("bench_gate_run", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


bench = _load_bench()

REAL = ROOT / "bench" / "gate" / "real"


@pytest.mark.parametrize(("name", "kind"), [
    ("py-json.txt", "a Python traceback"), ("java-npe.txt", "a Java stack trace"),
    ("node-typeerror.txt", "a JavaScript stack trace"), ("rust-panic.txt", "a Rust panic"),
    ("git-show.txt", "a diff"), ("git-log-stat.txt", "git log output"),
    ("git-status.txt", "git status output"), ("ls-l.txt", "a listing of files"),
    ("pytest-fail.txt", "test runner output"), ("gcc-errors.txt", "compiler or linter output"),
])
def test_real_output_is_named_for_what_it_is(name: str, kind: str) -> None:
    assert pasted.find((REAL / name).read_text()) == kind


def test_an_agent_framing_its_paste_does_not_hide_it() -> None:
    trace = (REAL / "py-open.txt").read_text()
    assert pasted.find(f"Got this when starting the worker:\n```\n{trace}\n```") \
        == "a Python traceback"
    paths = " ".join(f"src/billing/m{i}.py" for i in range(12))
    assert pasted.find(f"Files touched:\n{paths}") == "a listing of files"


@pytest.mark.parametrize("text", [
    "`KeyError: 'tenant_id'` in the importer means the CSV has no tenant column.",
    "Traceback (most recent call last) from `manage.py migrate` means a squashed migration.",
    "Run `git log --oneline -- src/billing` to see who changed the retry rules.",
    "Project layout:\n```\nsrc/\n  api/       HTTP handlers\n  domain/    rules, no I/O\n```",
    "The only files that may import internal/:\n- cmd/server/main.go\n- cmd/worker/main.go",
    "Two facts\nOn two lines",
])
def test_memories_that_quote_output_pass(text: str) -> None:
    assert pasted.find(text) is None


def test_the_bench_meets_its_bars() -> None:
    result = bench.measure(bench.corpus(seed=7, per_kind=4))
    assert result["junk_refused"] >= bench.BAR_REFUSED, result["missed"][:3]
    assert result["honest_refused"] == 0, result["refused"][:3]
    honest = {row["set"]: row["samples"] for row in result["rows"] if "honest" in row["set"]}
    assert min(honest.values()) > 20  # every honest set was read


def test_the_longest_memory_is_judged_quickly_whatever_it_holds() -> None:
    # Lines made to make a backtracking pattern retry: each judged in about linear time.
    for line in (" " * 3999 + "|", "+-" * 2000 + " x", " a" + " " * 3990 + "|x",
                 "abcdef1 (a 2024-01-01 " + "1" * 3970, "\t" * 3999 + "x"):
        start = time.perf_counter()
        pasted.find(line + "\n" + line)
        assert time.perf_counter() - start < 0.5
