"""A warm server finds the memories that name a file through the words of the view's
contents (read/vocabulary.py), made between calls, and asks a new file's scope filter
only about the scopes on its way (read/groups.GroupsByBase): its answers are the command
line's, which searches every content and asks about every scope. The server runs in
this process (agents/mcp/server.call on a ServerState), so that the test can wait for the
thread that makes the vocabulary between calls (ServerState.worked)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from helpers import CACHE, aide_ok, commit_for_a_view, in_this_process, write_memory

from git_aide.agents.mcp import server

pytest.importorskip("mcp")

#: (scope, what) of the memories: scopes of every shape, and texts that name files,
#: folders and stems in the ways the finder must tell apart (scoped elsewhere, so that
#: naming a file is what brings them to its recall).
MEMORIES = [
    ("src/auth/**", "sessions expire after an hour"),
    ("src/auth/login.py", "login retries are capped at three"),
    ("{src,lib}/util/**", "utilities never import the web layer"),
    ("**/*.py", "python files use four spaces"),
    ("lib/", "the lib folder is vendored by hand"),
    ("docs/*.md", "docs are written in British English"),
    ("src/net/", "the network layer retries idempotent calls"),
    ("ops/**", "see src/auth/login.py before touching sessions"),
    ("ops/**", "login.py is the one entry point"),
    ("ops/**", "mylogin.py is an older copy, not a mention"),
    ("ops/**", "everything in src/auth/ is reviewed twice"),
    ("ops/**", "the src/auth folder moves next quarter"),
    ("ops/**", "Throttling uses the client address"),
    ("ops/**", "throttlings are logged per tenant"),
    ("ops/**", "tests/test_throttling.py covers the burst case"),
    ("ops/**", "rate_limits live in one table"),
    ("ops/**", "the rate_limit module reads them at start"),
    ("ops/**", "the café/menu.py module prints prices"),
    ("ops/**", "examples/shop. is where the demo lives"),
    ("docs/guide.md", "the guide names src/net/throttling.py as the example"),
]
#: The query paths, each recalled as the command line recalls it.
PATHS = ["src/auth/login.py", "src/auth/", "src/net/throttling.py", "lib/util/rate_limit.py",
         "src/util/rate_limit.py", "café/menu.py", "examples/shop/cart.py", "docs/guide.md",
         "lib/", "", "src/index.py", "tests/index.ts", "a/io.py"]


@pytest.fixture
def store(repo: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The memories above, and sixty that name `index` (a stem too common in this store
    to mark a topic), committed; this process in the repository."""
    for scope, what in MEMORIES:
        write_memory(repo, what, scope=scope)
    for i in range(60):
        write_memory(repo, f"note {i}: the index of item {i} is stable", scope="ops/**")
    write_memory(repo, "deploys happen on Tuesdays", scope=None)
    commit_for_a_view(repo)
    return in_this_process(repo, monkeypatch)


def recalled(mem: server.ServerState, *paths: str) -> Any:
    text, doc, failed = server.call(mem, "aide_recall", {"paths": [p or "." for p in paths],
                                                         "detail": "full"})
    assert not failed, text
    return doc


def same(doc: Any, repo: Path, *paths: str) -> bool:
    """Whether the server's answer is the command line's (the part of it that fits the
    server's budget, when it says it is cut)."""
    cli = aide_ok(repo, "recall", *[p or "." for p in paths], "--json").json()
    if doc.pop("truncated", False):
        doc.pop("more")
        cli["memories"] = cli["memories"][:len(doc["memories"])]
    return bool(doc == cli)


def test_recalls_through_the_vocabulary_are_the_command_lines(store: Path) -> None:
    mem = server.ServerState()
    # The first recall searches every content, and asks for the view's vocabulary.
    assert same(recalled(mem, "README.md"), store, "README.md")
    assert mem.worked(20)  # the server made it between calls
    view = mem.read()[2]._reader
    assert view.vocab is not None and view.vocab.ready

    for path in PATHS:
        assert same(recalled(mem, path), store, path), path
    got = [m["what"] for m in recalled(mem, "src/auth/login.py")["memories"]]
    assert "see src/auth/login.py before touching sessions" in got
    got = [m["what"] for m in recalled(mem, "src/net/throttling.py")["memories"]]
    assert {"Throttling uses the client address", "throttlings are logged per tenant",
            "tests/test_throttling.py covers the burst case"} <= set(got)


def test_a_recall_of_several_paths_with_the_vocabulary(store: Path) -> None:
    mem = server.ServerState()
    recalled(mem, "README.md")
    assert mem.worked(20)  # the server made it between calls
    for pair in (PATHS[i:i + 2] for i in range(0, len(PATHS) - 1, 2)):
        assert same(recalled(mem, *pair), store, *pair), pair


def test_the_server_makes_the_vocabulary_between_calls(store: Path) -> None:
    # No one asks for it but the first recall: the server's own thread makes it, in the
    # pause after the call, and the next recalls go through it.
    mem = server.ServerState()
    assert same(recalled(mem, "README.md"), store, "README.md")
    reader = mem.read()[2]._reader
    for _ in range(100):
        if reader.vocab is not None and reader.vocab.ready:
            break
        time.sleep(0.05)
    assert reader.vocab is not None and reader.vocab.ready
    assert same(recalled(mem, "src/net/throttling.py"), store, "src/net/throttling.py")


def test_recalls_through_a_vocabulary_made_in_part_are_the_command_lines(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A call between the steps that make the vocabulary reads it as far as it is made,
    # and every content after that: the same answer at every step, the common stem
    # (sixty memories name `index`) counted over the whole store as before.
    from git_aide.read import vocabulary

    monkeypatch.setattr(vocabulary, "STEP", 7)
    mem = server.ServerState()
    recalled(mem, "README.md")
    assert mem.worked(20)
    with mem.lock:
        reader = mem.read()[2]._reader
        mem.done()
    made = reader.vocab
    assert made is not None and made.ready
    monkeypatch.setattr(mem, "work_later", lambda: None)  # its steps made here, one by one
    partial = vocabulary.Vocabulary(reader.view.contents, reader.view.starts)
    steps = partial.steps()
    for _ in range(3):  # none, 35, then 70 of the 81 memories made
        for path in ("src/index.py", "src/auth/login.py", "src/net/throttling.py"):
            reader.vocab = partial
            reader.found.clear()  # what searches found, kept: searched again
            mem.answers.clear()
            assert same(recalled(mem, path), store, path), (partial.made, path)
        for _ in range(5 if partial.made < 70 else 0):
            next(steps)
    assert 0 < partial.made < len(reader.view.starts)


def _saved_words(repo: Path) -> list[Path]:
    return sorted((repo / CACHE / "words").glob("*"))


def _made(mem: server.ServerState) -> Any:
    """The vocabulary of the server's view, once its work between calls is done."""
    recalled(mem, "README.md")
    assert mem.worked(20)
    with mem.lock:
        vocab = mem.read()[2]._reader.vocab
        mem.done()
    assert vocab is not None and vocab.ready
    return vocab


def test_a_new_server_reads_the_vocabulary_the_last_one_saved(
        store: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The first server makes the view's vocabulary between calls and saves it; the next
    # one reads it there, without making it again (it could not: a word found would
    # raise), and answers through it as the command line does.
    from git_aide.read import vocabulary

    _made(server.ServerState())
    assert len(_saved_words(store)) == 1

    def unmade(data: bytes) -> list[bytes]:
        raise AssertionError("made again")

    monkeypatch.setattr(vocabulary, "name_words", unmade)
    mem = server.ServerState()
    _made(mem)
    for path in PATHS:
        assert same(recalled(mem, path), store, path), path


def test_a_saved_vocabulary_is_not_used_for_another_view(store: Path) -> None:
    # A memory added that names the file: the view changed, so the vocabulary saved for
    # the last one is not read (it would not know the new memory's words): the new
    # view's own is made and saved beside it.
    _made(server.ServerState())
    before = _saved_words(store)
    write_memory(store, "billing/invoice.py rounds half to even", scope="ops/**")
    commit_for_a_view(store)

    mem = server.ServerState()
    _made(mem)
    got = recalled(mem, "billing/invoice.py")
    assert "billing/invoice.py rounds half to even" in [m["what"] for m in got["memories"]]
    assert same(got, store, "billing/invoice.py")
    after = _saved_words(store)
    assert len(after) == 2 and set(before) < set(after)


def test_a_damaged_saved_vocabulary_is_made_again(store: Path) -> None:
    _made(server.ServerState())
    [saved] = _saved_words(store)
    good = saved.read_bytes()
    data = bytearray(good)
    data[-5] ^= 0xFF
    saved.write_bytes(bytes(data))

    mem = server.ServerState()
    _made(mem)
    for path in ("src/auth/login.py", "src/net/throttling.py"):
        assert same(recalled(mem, path), store, path), path
    assert saved.read_bytes() == good  # saved again, whole
