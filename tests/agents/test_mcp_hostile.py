"""The MCP server against hostile or unlucky input: a revision no git could take, a
personal memory asked for in a shared layer, and files changed where the server's
watch of the memories folder cannot see it. It never hangs, and never answers wrong."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, aide_ok, git, remember

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

#: A call that takes longer than this hangs: the test fails instead of waiting forever.
CALL_TIMEOUT = 30

Call = Callable[..., Awaitable[Any]]


def serve(repo: Path, body: Callable[[Call], Awaitable[None]]) -> None:
    """Run `body` against `git aide mcp` in `repo`, each call bounded in time."""

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"],
                                       cwd=str(repo), env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()

            async def call(name: str, **args: Any) -> Any:
                try:
                    return await asyncio.wait_for(s.call_tool(name, args), CALL_TIMEOUT)
                except TimeoutError:
                    pytest.fail(f"{name} did not answer within {CALL_TIMEOUT} s")

            await body(call)

    asyncio.run(session())


def listed(repo: Path) -> Any:
    """What `git aide list --json` answers: a fresh read of the files as they are."""
    return aide_ok(repo, "list", "--json").json()


def edit_in_place(path: Path, what: str) -> None:
    """Rewrite a memory file in place (same inode, no rename), as `>>` or an editor
    that keeps the file does: through whichever of its names `path` is."""
    record = json.loads(path.read_text())
    record["what"] = what
    with open(path, "r+", encoding="utf-8") as f:
        f.write(json.dumps(record, indent=2) + "\n")
        f.truncate()


HUGE = "a" * 66_000
#: Revisions git-aide refuses before git sees them, and the words that say why.
HOSTILE = [(HUGE, "66000 bytes"), ("HEAD\0", "NUL"), ("HEAD\nHEAD", "newline"),
           ("HEAD\x1b[2J", "U+001B"), ("-all", "option"), ("", "empty")]


def test_a_hostile_revision_is_a_clear_tool_error_and_the_server_answers_on(
        repo: Path) -> None:
    u = remember(repo, "auth tokens rotate hourly", "--scope", "src/**")["uuid"]
    git(repo, "commit", "-qm", "memories")

    async def body(call: Call) -> None:
        for rev, words in HOSTILE:
            for name, args in (("aide_recall", {"paths": ["src/a.py"], "rev": rev}),
                               ("aide_memories", {"rev": rev}),
                               ("aide_search", {"keyword": "tokens", "rev": rev}),
                               ("aide_diff", {"args": [rev]}),
                               ("aide_diff", {"args": ["HEAD", rev]}),
                               ("aide_log", {"revs": [rev]})):
                res = await call(name, **args)
                text = res.content[0].text
                assert res.is_error, (name, rev[:20], text)
                assert "names no commit" in text and words in text, (name, text[:300])
                assert "internal error" not in text and len(text) < 400, text[:300]
                # the server is not stuck: the next call answers, and rightly
                res = await call("aide_memories", rev="HEAD")
                assert not res.is_error
                assert [m["id"] for m in res.structured_content["memories"]] == [u[:8]]
        res = await call("aide_diff", args=["HEAD"])
        assert not res.is_error and res.structured_content["added"] == []
        res = await call("aide_log")
        assert not res.is_error and len(res.structured_content["commits"]) == 1

    serve(repo, body)


def test_shared_false_outside_preferences_is_refused_and_nothing_is_written(
        repo: Path) -> None:
    async def body(call: Call) -> None:
        for layer in ("technical", "guidelines", "area_context"):
            res = await call("aide_remember", what="use tabs", layer=layer,
                             scope="src/**", shared=False)
            text = res.content[0].text
            assert res.is_error, (layer, text)
            assert "shared=false" in text and "layer preferences" in text, text
        res = await call("aide_memories")
        assert res.structured_content["memories"] == []
        # in preferences it is a personal memory: written, never staged
        res = await call("aide_remember", what="use tabs", layer="preferences",
                         shared=False)
        assert not res.is_error, res.content[0].text
        assert res.structured_content["staged"] is False

    serve(repo, body)
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert git(repo, "status", "--porcelain", "--", ".aide/memories") == ""
    mine = listed(repo)["memories"]
    assert [(m["what"], m["layer"], m["shared"]) for m in mine] == [
        ("use tabs", "preferences", False)]


def link_tree(src: Path, dest: Path) -> None:
    """`cp -al SRC DEST`: the same files under other names (hard links)."""
    shutil.copytree(src, dest, copy_function=os.link)


def test_an_edit_through_a_hard_link_is_seen(repo: Path) -> None:
    """A write through another name of a memory file (a `cp -al` backup, a sync tool)
    reaches the file, though not through its folder: the answer is still a fresh read,
    whether the link was there before the server started or made between two calls."""
    a = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**",
                 "--layer", "area_context")["path"]
    b = remember(repo, "review every migration twice", "--layer", "guidelines")["path"]
    git(repo, "commit", "-qm", "memories")
    backup = repo.parent / "backup"
    link_tree(repo / ".aide", backup)  # before the server starts
    later = repo.parent / "later"

    async def body(call: Call) -> None:
        async def agree(step: str) -> None:
            res = await call("aide_memories", limit=1000, detail="full")
            assert not res.is_error, (step, res.content)
            got = [m["what"] for m in res.structured_content["memories"]]
            assert got == [m["what"] for m in listed(repo)["memories"]], step
            assert res.structured_content == listed(repo), step

        await agree("start")
        edit_in_place(backup / Path(a).relative_to(".aide"), "tokens rotate every 5 min")
        await agree("edited through the backup")
        assert "tokens rotate every 5 min" in (repo / a).read_text()
        edit_in_place(backup / Path(a).relative_to(".aide"), "tokens rotate every 6 min")
        await agree("edited through the backup again")
        # a link made after the server last looked, then a write through it
        later.mkdir()
        os.link(repo / b, later / "b.json")
        edit_in_place(later / "b.json", "review every migration three times")
        await agree("edited through a link made between two calls")
        git(repo, "add", "-A", ".aide")  # git's look again: the links stay
        await agree("staged")
        edit_in_place(later / "b.json", "review every migration four times")
        await agree("edited through the link after git looked again")

    serve(repo, body)


def test_events_the_kernel_dropped_are_no_miss(repo: Path) -> None:
    """More changes between two calls than the kernel's queue holds: it drops the rest
    (an edit among them), and the answer is still a fresh read."""
    try:
        queue = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    except (OSError, ValueError):
        pytest.skip("no inotify here")
    a = remember(repo, "auth tokens rotate hourly", "--layer", "technical")["path"]
    b = remember(repo, "review every migration twice", "--layer", "guidelines")["path"]
    c = remember(repo, "migrations run at night", "--layer", "guidelines")["path"]
    git(repo, "commit", "-qm", "memories")

    async def body(call: Call) -> None:
        res = await call("aide_memories", detail="full")
        assert res.structured_content == listed(repo)
        # The same bytes written again and again, by turns: events that do not merge.
        fds = [os.open(repo / p, os.O_WRONLY) for p in (a, b)]
        try:
            same = [(repo / p).read_bytes() for p in (a, b)]
            for _ in range(queue):
                for fd, data in zip(fds, same, strict=True):
                    os.pwrite(fd, data, 0)
        finally:
            for fd in fds:
                os.close(fd)
        edit_in_place(repo / c, "migrations run at noon")  # queued after the overflow
        res = await call("aide_memories", detail="full")
        assert "migrations run at noon" in [m["what"] for m in
                                            res.structured_content["memories"]]
        assert res.structured_content == listed(repo)

    serve(repo, body)


def test_a_mount_over_a_memory_folder_is_seen(repo: Path, tmp_path: Path) -> None:
    """A bind mount over a memory folder shows other files under the same names, and
    the folder's watch hears nothing of it: the answer is still a fresh read."""
    remember(repo, "review every migration twice", "--layer", "guidelines")
    git(repo, "commit", "-qm", "memories")
    other = tmp_path / "other"
    shutil.copytree(repo / ".aide/memories/guidelines", other)
    for f in other.glob("*.json"):
        edit_in_place(f, "seen only through the mount")
    target = repo / ".aide/memories/guidelines"
    probe = subprocess.run(["mount", "--bind", str(other), str(target)],
                           capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot bind-mount here (needs root)")
    subprocess.run(["umount", str(target)], check=True)
    mounted = False

    async def body(call: Call) -> None:
        nonlocal mounted
        res = await call("aide_memories", detail="full")
        assert res.structured_content == listed(repo)
        subprocess.run(["mount", "--bind", str(other), str(target)], check=True)
        mounted = True
        res = await call("aide_memories", detail="full")
        assert [m["what"] for m in res.structured_content["memories"]] == [
            "seen only through the mount"]
        assert res.structured_content == listed(repo)
        subprocess.run(["umount", str(target)], check=True)
        mounted = False
        res = await call("aide_memories")
        assert [m["what"] for m in res.structured_content["memories"]] == [
            "review every migration twice"]

    try:
        serve(repo, body)
    finally:
        if mounted:
            subprocess.run(["umount", str(target)], check=False)
