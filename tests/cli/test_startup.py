"""Lean start-up (docs/architecture.md, the performance budget): a command imports only what
its own path needs."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

from helpers import BASE_ENV, aide_ok, git, remember

HEAVY = ("pygit2", "whoosh", "rich", "pathspec")


def imported(cwd: Path, *args: str, whole: bool = False) -> set[str]:
    """Top-level modules a git-aide process imported (from `python -X importtime`);
    `whole`: every module, by its full name."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", *args],
                          cwd=cwd, env=BASE_ENV, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    names = set()
    for line in proc.stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            name = line.rsplit("|", 1)[1].strip()
            names.add(name if whole else name.split(".")[0])
    return names


def test_version_imports_nothing_heavy(tmp_path: Path) -> None:
    mods = imported(tmp_path, "--version")
    assert not mods & set(HEAVY), mods & set(HEAVY)
    assert "git_aide" in mods


def test_warm_scope_recall_imports_nothing_heavy(repo: Path) -> None:
    remember(repo, "auth tokens rotate", "--scope", "src/auth/**")
    remember(repo, "db uses postgres", "--scope", "src/db/**")
    git(repo, "commit", "-qm", "one")
    time.sleep(2.2)  # the index is trusted (and its listing kept) once it is 2 s old
    aide_ok(repo, "recall", "src/auth/x.ts")  # warms the cache
    aide_ok(repo, "recall", "--rev", "HEAD", "src/auth/x.ts")
    # hashlib too: the view's contents carry a CRC-32, so showing them hashes nothing.
    hot = {*HEAVY, "click", "orjson", "subprocess", "hashlib"}
    mods = imported(repo, "recall", "src/auth/x.ts")
    assert not mods & hot, mods & hot
    mods = imported(repo, "recall", "--json", "--rev", "HEAD", "src/")
    assert not mods & hot, mods & hot


def test_a_recall_without_a_user_store_costs_one_stat(repo: Path) -> None:
    """No user store (read/user.py): its module is not even imported."""
    remember(repo, "auth tokens rotate", "--scope", "src/auth/**")
    aide_ok(repo, "recall", "src/auth/x.ts")
    mods = imported(repo, "recall", "src/auth/x.ts", whole=True)
    assert "git_aide.read.load" in mods
    assert "git_aide.read.user" not in mods


def test_search_imports_whoosh_but_not_pygit2(repo: Path) -> None:
    remember(repo, "auth tokens rotate")
    aide_ok(repo, "search", "tokens")
    mods = imported(repo, "search", "tokens")
    assert "whoosh" in mods  # its stemmer
    assert "pygit2" not in mods


def test_a_warm_search_reads_the_postings_tables_not_whooshs_index(repo: Path) -> None:
    """Once the index is written, a query of plain words is scored from git-aide's own
    postings tables: Whoosh's index, searcher and analysis are not imported."""
    remember(repo, "auth tokens rotate", "--scope", "src/auth/**")
    aide_ok(repo, "search", "tokens")
    engine = {"whoosh.index", "whoosh.searching", "whoosh.analysis.intraword",
              "whoosh.fields"}
    for argv in (("search", "tokens"), ("recall", "src/auth/x.ts", "--query", "rotate")):
        mods = imported(repo, *argv, whole=True)
        # The words are the memories' own: the tables know their stems.
        assert not mods & {*engine, "whoosh.lang.porter"}, argv
    # A word no memory uses is stemmed by Whoosh's stemmer alone.
    mods = imported(repo, "search", "rotating", whole=True)
    assert "whoosh.lang.porter" in mods and not mods & engine
    # An identifier needs Whoosh's analysis (its intra-word filter), not its index.
    mods = imported(repo, "search", "rotateTokens", whole=True)
    assert "whoosh.analysis.intraword" in mods and "whoosh.index" not in mods


#: The semantic extra: imported only when a model is configured and asked.
MODEL_LIBS = {"onnxruntime", "tokenizers", "numpy", "onnx"}


def test_without_a_model_nothing_of_the_semantic_extra_is_imported(repo: Path) -> None:
    """The extra installed (the test extra holds it) but no aide.semantic.model: recall
    and search import none of it, nor does --version."""
    remember(repo, "auth tokens rotate", "--scope", "src/auth/**")
    aide_ok(repo, "search", "tokens")
    for argv in (("--version",), ("recall", "src/auth/x.ts"),
                 ("recall", "src/auth/x.ts", "--query", "rotate"), ("search", "tokens"),
                 ("search", "tokens", "--mode", "keyword"), ("search", "a-word-nobody-used")):
        mods = imported(repo, *argv)
        assert not mods & MODEL_LIBS, (argv, mods & MODEL_LIBS)


def test_with_a_model_only_a_question_loads_it(repo: Path, tiny: Path) -> None:
    """A recall without --query never asks the model, nor does a keyword search."""
    remember(repo, "auth tokens rotate", "--scope", "src/auth/**")
    git(repo, "config", "aide.semantic.model", str(tiny))
    aide_ok(repo, "search", "tokens")  # embeds the memory
    for argv in (("recall", "src/auth/x.ts"), ("search", "tokens", "--mode", "keyword")):
        mods = imported(repo, *argv)
        assert not mods & MODEL_LIBS, (argv, mods & MODEL_LIBS)
    assert "onnxruntime" in imported(repo, "search", "tokens")
