"""The MCP tools search by meaning when a model is configured: `aide_search` takes
aide-memory's `mode`, and `aide_recall`'s question uses the model (tiny test model)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from helpers import McpServer, aide_ok, git, remember

pytest.importorskip("mcp")

if TYPE_CHECKING:
    from git_aide.warm.state import ServerState


def _uuids(srv: McpServer, mid: int, tool: str, args: dict[str, Any]) -> list[str]:
    res = srv.request(mid, "tools/call", {"name": tool,
                                          "arguments": {**args, "detail": "full"}})["result"]
    assert not res.get("isError"), res
    return [m["uuid"] for m in res["structuredContent"]["memories"]]


def test_aide_search_mode_and_recall_question_use_the_model(repo: Path, tiny: Path) -> None:
    auth = remember(repo, "Users authenticate with a password")["uuid"]
    remember(repo, "We deploy on friday")
    git(repo, "config", "aide.semantic.model", str(tiny))
    srv = McpServer(repo)
    try:
        srv.initialize()
        srv.notify("notifications/initialized")
        # No memory holds the word: by meaning it is found, by words it is not.
        assert _uuids(srv, 2, "aide_search", {"keyword": "signin", "mode": "semantic"})[0] == auth
        assert _uuids(srv, 3, "aide_search", {"keyword": "signin", "mode": "keyword"}) == []
        assert _uuids(srv, 4, "aide_search", {"keyword": "signin"})[0] == auth
        assert _uuids(srv, 5, "aide_recall", {"paths": ["README.md"],
                                              "query": "signin"})[0] == auth
    finally:
        srv.close()


def other_meaning(tiny: Path, folder: Path) -> Path:
    """The tiny model with "signin" meaning what "deploy" means (its tokenizer changed)."""
    shutil.copytree(tiny, folder)
    tok = folder / "tokenizer.json"
    doc = json.loads(tok.read_text())
    vocab = doc["model"]["vocab"]
    vocab["signin"] = vocab["deploy"]
    tok.write_text(json.dumps(doc))
    return folder


@pytest.mark.parametrize("how", ["link re-pointed", "folder replaced", "file written again"])
def test_the_server_follows_the_model_folder_when_it_holds_another_model(
        repo: Path, tiny: Path, tmp_path: Path, how: str) -> None:
    """aide.semantic.model names the same folder throughout; the model in it changes.
    The server, like the command line, embeds with the model there now (the identical
    call is not answered from what the old model found)."""
    auth = remember(repo, "Users authenticate with a password")["uuid"]
    ship = remember(repo, "We deploy on friday")["uuid"]
    other = other_meaning(tiny, tmp_path / "other")
    current = tmp_path / "current"
    if how == "link re-pointed":
        current.symlink_to(tiny)
    else:
        shutil.copytree(tiny, current)
    git(repo, "config", "aide.semantic.model", str(current))
    ask = {"keyword": "signin", "mode": "semantic"}
    srv = McpServer(repo)
    try:
        srv.initialize()
        srv.notify("notifications/initialized")
        assert _uuids(srv, 2, "aide_search", ask)[0] == auth
        if how == "link re-pointed":
            (tmp_path / "new-link").symlink_to(other)
            os.replace(tmp_path / "new-link", current)
        elif how == "file written again":  # in place: the same file, other bytes
            with open(current / "tokenizer.json", "r+b") as f:
                f.write((other / "tokenizer.json").read_bytes())
                f.truncate()
        else:
            shutil.rmtree(current)
            shutil.copytree(other, current)
        assert _uuids(srv, 3, "aide_search", ask)[0] == ship
        assert _uuids(srv, 4, "aide_recall", {"paths": ["README.md"],
                                              "query": "signin"})[0] == ship
        assert _uuids(srv, 5, "aide_search", ask)[0] == ship  # and kept, as before
    finally:
        srv.close()


def test_a_model_file_that_is_a_fifo_does_not_hang_the_server(repo: Path, tiny: Path,
                                                              tmp_path: Path) -> None:
    folder = Path(shutil.copytree(tiny, tmp_path / "model"))
    (folder / "model.onnx").unlink()
    os.mkfifo(folder / "model.onnx")
    auth = remember(repo, "Users authenticate with a password")["uuid"]
    git(repo, "config", "aide.semantic.model", str(folder))
    srv = McpServer(repo)
    try:
        srv.initialize()
        srv.notify("notifications/initialized")
        assert _uuids(srv, 2, "aide_search", {"keyword": "password"}) == [auth]
    finally:
        srv.close()


def test_a_question_asked_again_after_a_hand_edit_is_answered_as_a_command_does(
        repo: Path, tiny: Path) -> None:
    """The server embeds a question once (app/semantic.Semantic.question); asked again
    after a hand edit, its answer is the command line's for the memories now."""
    remember(repo, "Users authenticate with a password")
    deploy = remember(repo, "We deploy on friday")
    git(repo, "config", "aide.semantic.model", str(tiny))
    srv = McpServer(repo)
    try:
        srv.initialize()
        srv.notify("notifications/initialized")
        for mid, what in ((2, None), (3, "Users sign in with a passkey"),
                          (4, "Signin goes through the identity provider")):
            if what is not None:
                path = repo / deploy["path"]
                record = json.loads(path.read_text())
                record["what"] = what
                path.write_text(json.dumps(record, indent=2) + "\n")
            res = srv.request(mid, "tools/call", {"name": "aide_search", "arguments": {
                "keyword": "signin", "detail": "full"}})["result"]
            assert res["structuredContent"] == aide_ok(repo, "search", "signin",
                                                       "--json").json()
    finally:
        srv.close()


def warm_server(repo: Path, monkeypatch: pytest.MonkeyPatch) -> ServerState:
    """Commit and index the memories written, and return a server's state for the
    repository, made in this process, its work between calls done."""
    from helpers import in_this_process

    from git_aide.agents.mcp.server import ready_state

    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "m")
    aide_ok(repo, "index")
    in_this_process(repo, monkeypatch)
    mem = ready_state("bench/1")
    assert mem.worked(60)
    return mem


def test_the_configured_model_is_loaded_between_calls(repo: Path, tiny: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """A server whose repository names a model loads it, and its vectors, between calls
    before any search asks: the first search by meaning loads nothing (and answers as
    the command line does)."""
    from helpers import served, write_memory

    git(repo, "config", "aide.semantic.model", str(tiny))
    write_memory(repo, "deploys go out on tuesdays", scope="ops/**")
    mem = warm_server(repo, monkeypatch)
    sem = mem._semantic
    assert sem is not None and sem.ready(say=False) and sem._vectors is not None
    got = served(mem, "aide_search", {"keyword": "when do deploys ship", "mode": "semantic"})
    assert mem._semantic is sem  # the same model, not loaded again
    assert got == aide_ok(repo, "search", "when do deploys ship", "--mode", "semantic",
                          "--json", env={"GIT_AIDE_SERVER": "0"}).json()


def test_questions_beside_a_hand_edited_memory_are_answered_as_a_command_does(
        repo: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """While a memory differs from the index (laid over the server's view at every
    call), each new question weighs it by its text now, and the view's others as
    before: the answers are the command line's, call after call and edit after edit."""
    from helpers import served

    git(repo, "config", "aide.semantic.model", str(tiny))
    remember(repo, "Users authenticate with a password")
    remember(repo, "We deploy on friday")
    edited = remember(repo, "The cache lives in git")
    remember(repo, "Tokens rotate every hour")
    mem = warm_server(repo, monkeypatch)
    path = repo / edited["path"]
    record = json.loads(path.read_text())
    asked = 0
    questions = ("when do we ship a release", "signin with a password", "where the cache lives")
    for what, meant in (("Releases ship on tuesdays", questions[0]),
                        ("The session uses signin credentials", questions[1])):
        record["what"] = what
        path.write_text(json.dumps(record, indent=2) + "\n")
        for question in questions:
            asked += 1
            ask = {"keyword": f"{question} {asked}", "mode": "semantic"}
            got = served(mem, "aide_search", ask)
            assert got == aide_ok(repo, "search", ask["keyword"], "--mode", "semantic",
                                  "--json", env={"GIT_AIDE_SERVER": "0"}).json()
            # The edited memory is found by what it says now.
            found = edited["uuid"] in [m["uuid"] for m in got["memories"]]
            assert found == (question == meant), (what, question)


def test_a_memory_embedded_by_a_search_leaves_the_full_text_index_as_read(
        repo: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A hand edit searched by meaning embeds the edited memory (the vectors' file
    changes): the server reads its full-text index again only when the index itself
    changed (another process wrote it), and answers as the command line does."""
    from helpers import served

    git(repo, "config", "aide.semantic.model", str(tiny))
    remember(repo, "Users authenticate with a password")
    edited = remember(repo, "We deploy on friday")
    mem = warm_server(repo, monkeypatch)
    index = mem._index
    assert index is not None
    reads: list[int] = []
    refresh = index.refresh
    monkeypatch.setattr(index, "refresh", lambda: (reads.append(1), refresh())[1])
    path = repo / edited["path"]
    record = json.loads(path.read_text())
    vectors = next((repo / ".git" / "aide" / "vectors").glob("*.vec"))
    for what in ("Releases ship on tuesdays", "Signin uses a passkey"):
        size = vectors.stat().st_size
        record["what"] = what
        path.write_text(json.dumps(record, indent=2) + "\n")
        got = served(mem, "aide_search", {"keyword": f"how do users signin {what}"})
        assert vectors.stat().st_size > size  # the server embedded the edit
    assert reads == []
    # The command line answers alike, and writes the edit into the index: the server
    # reads the index again at its next call.
    assert got == aide_ok(repo, "search", f"how do users signin {what}", "--json",
                          env={"GIT_AIDE_SERVER": "0"}).json()
    got = served(mem, "aide_search", {"keyword": "passkey"})
    assert reads == [1]
    assert got == aide_ok(repo, "search", "passkey", "--json", env={"GIT_AIDE_SERVER": "0"}).json()


def test_a_question_is_embedded_on_a_worker_while_words_are_searched(
        repo: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A server embeds a new question, and weighs it against every vector, on a worker
    thread while it searches by words (Semantic.foresee); its answers are the command
    line's, for a memory edited by hand after the question was foreseen too (the
    vectors it was weighed against are then no longer all of them)."""
    from helpers import served

    from git_aide.app.ahead import Ahead

    git(repo, "config", "aide.semantic.model", str(tiny))
    remember(repo, "Users authenticate with a password")
    edited = remember(repo, "We deploy on friday")
    mem = warm_server(repo, monkeypatch)
    weighed: list[str] = []
    weigh = Ahead.weigh
    monkeypatch.setattr(Ahead, "weigh", lambda self, text, matrix: (
        weighed.append(text), weigh(self, text, matrix))[1])
    path = repo / edited["path"]
    record = json.loads(path.read_text())
    for n, what in enumerate((None, "Releases ship on tuesdays", "Signin uses a passkey")):
        if what is not None:
            record["what"] = what
            path.write_text(json.dumps(record, indent=2) + "\n")
        for question in ("when do releases ship", "how do users signin"):
            ask = f"{question} {n}"
            got = served(mem, "aide_search", {"keyword": ask})
            assert got == aide_ok(repo, "search", ask, "--json",
                                  env={"GIT_AIDE_SERVER": "0"}).json()
            assert weighed[-1] == ask
    # Asked again, the question is not embedded again.
    served(mem, "aide_search", {"keyword": "when do releases ship 0", "limit": 3})
    assert weighed[-1] == "how do users signin 2"


def test_a_worker_that_fails_leaves_the_question_to_the_call(
        repo: Path, tiny: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure on the worker thread is not the answer's: the call embeds the
    question itself, and answers as the command line does."""
    from helpers import served

    from git_aide.app.ahead import Ahead

    git(repo, "config", "aide.semantic.model", str(tiny))
    remember(repo, "Users authenticate with a password")
    mem = warm_server(repo, monkeypatch)
    sem = mem._semantic
    assert sem is not None

    def fails(self: Ahead, text: str, matrix: object) -> None:
        raise RuntimeError("the worker failed")

    monkeypatch.setattr(Ahead, "weigh", fails)
    got = served(mem, "aide_search", {"keyword": "how do users signin"})
    assert got == aide_ok(repo, "search", "how do users signin", "--json",
                          env={"GIT_AIDE_SERVER": "0"}).json()
    assert "how do users signin" in sem._asked
