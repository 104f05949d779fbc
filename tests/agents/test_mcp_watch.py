"""The MCP server watches the memories folder instead of running `git status` on every
call (warm/watch.py): whatever happens to the files between two calls, each answer is
the command line's answer for the files as they are."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import uuid as uuidlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, aide_ok, git, remember

pytest.importorskip("mcp")

from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

MEM = ".aide/memories"


def copy_as_new(repo: Path, rel: str, folder: str, what: str) -> str:
    """A new memory made by hand from an existing file: new uuid, new text."""
    record = json.loads((repo / rel).read_text())
    record["uuid"] = str(uuidlib.uuid4())
    record["what"] = what
    dest = repo / MEM / folder / f"{record['uuid']}.json"
    dest.parent.mkdir(parents=True, exist_ok=True)
    dest.write_text(json.dumps(record, indent=2) + "\n")
    return str(dest.relative_to(repo))


def steps(repo: Path, a: str, b: str) -> list[tuple[str, Callable[[], None]]]:
    """Changes a person or another tool makes between two calls of the server."""
    moved: dict[str, str] = {}

    def edit() -> None:
        path = repo / a
        record = json.loads(path.read_text())
        record["what"] = "auth tokens rotate every 30 minutes"
        path.write_text(json.dumps(record, indent=2) + "\n")

    def append_in_place() -> None:  # same inode, no rename: only a write event
        with open(repo / b, "r+", encoding="utf-8") as f:
            record = json.load(f)
            record["why"] = "edited in place"
            f.seek(0)
            f.write(json.dumps(record, indent=2) + "\n")
            f.truncate()

    def new_file() -> None:
        copy_as_new(repo, a, "technical", "a memory written by hand")

    def new_folder() -> None:
        shutil.rmtree(repo / MEM / "technical", ignore_errors=True)
        copy_as_new(repo, b, "technical", "a folder made again with a file in it")

    def delete() -> None:
        (repo / a).unlink()

    def restore() -> None:
        git(repo, "checkout", "--", MEM)

    def stage_and_commit() -> None:
        edit()
        git(repo, "add", "-A", MEM)
        git(repo, "commit", "-qm", "by hand")

    def rename_folder() -> None:
        src = repo / MEM / "guidelines"
        moved["to"] = str(repo / "elsewhere")
        os.rename(src, moved["to"])

    def rename_back() -> None:
        os.rename(moved["to"], repo / MEM / "guidelines")

    def through_git_aide() -> None:
        remember(repo, "a memory written by the command line", "--layer", "technical")

    def aide_linked() -> None:  # the same folders, reached through a link now
        os.rename(repo / ".aide", repo.parent / "aide-linked")
        os.symlink(repo.parent / "aide-linked", repo / ".aide")

    def aide_unlinked() -> None:
        (repo / ".aide").unlink()
        os.rename(repo.parent / "aide-linked", repo / ".aide")

    def layer_linked() -> None:
        os.rename(repo / MEM / "guidelines", repo.parent / "guidelines-linked")
        os.symlink(repo.parent / "guidelines-linked", repo / MEM / "guidelines")

    def layer_unlinked() -> None:
        (repo / MEM / "guidelines").unlink()
        os.rename(repo.parent / "guidelines-linked", repo / MEM / "guidelines")

    def aide_replaced() -> None:  # the watched folders leave; copies take their place
        away = repo.parent / "aide-old"
        os.rename(repo / ".aide", away)
        shutil.copytree(away, repo / ".aide", symlinks=True)

    def edit_the_copy() -> None:
        path = repo / b
        record = json.loads(path.read_text())
        record["what"] = "review every migration three times"
        path.write_text(json.dumps(record, indent=2) + "\n")

    return [("edit", edit), ("in place", append_in_place), ("new file", new_file),
            ("delete", delete), ("restore", restore), ("new folder", new_folder),
            ("commit", stage_and_commit), ("folder moved away", rename_folder),
            ("folder moved back", rename_back), ("remember", through_git_aide),
            ("nothing", lambda: None), (".aide linked", aide_linked),
            (".aide unlinked", aide_unlinked), ("layer linked", layer_linked),
            ("layer unlinked", layer_unlinked), (".aide replaced", aide_replaced),
            ("edit in the new .aide", edit_the_copy)]


@pytest.mark.parametrize("watch", ["true", "false"])
def test_every_answer_sees_the_files_as_they_are(repo: Path, watch: str) -> None:
    git(repo, "config", "aide.mcp.watch", watch)
    a = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**",
                 "--layer", "area_context")["path"]
    b = remember(repo, "review every migration twice", "--layer", "guidelines")["path"]
    git(repo, "commit", "-qm", "memories")

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"],
                                       cwd=str(repo), env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()

            async def agree(step: str) -> None:
                res = await s.call_tool("aide_memories", {"limit": 1000, "detail": "full"})
                assert not res.is_error, (step, res.content)
                want: Any = aide_ok(repo, "list", "--json").json()
                got = res.structured_content
                assert [m["what"] for m in got["memories"]] == [
                    m["what"] for m in want["memories"]], step
                assert got == want, step

            await agree("start")
            for name, change in steps(repo, a, b):
                change()
                await agree(name)

    asyncio.run(session())
