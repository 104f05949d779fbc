"""A merge that drops a teammate's text says so (issue 19, item 6).

When both sides change one field of a memory, the newer side wins (README, Teams: clone, init,
pull, merge).
The merge driver then says on stderr which memory, which field, whose side was kept and
which command prints the dropped version; `git aide resolve` says the same; and
`git aide log` marks the merge commit, from its parents alone (a clone that never ran
the driver marks it too). Real clones, a bare remote, real merges, pulls and rebases.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, UUID, aide_ok, git, make_repo, pull, stamp, team
from helpers import commit_memories as commit
from helpers import merge_record as record
from helpers import read_record as read
from helpers import write_record as write

from git_aide.core import memory

#: git must find `git-aide` for the merge driver.
ENV = {**BASE_ENV, "PATH": os.path.dirname(AIDE[0]) + os.pathsep + BASE_ENV.get("PATH", "")} \
    if len(AIDE) == 1 else BASE_ENV
PATH = memory.relpath(record())
#: One notice line of the driver (or of resolve), its parts named.
NOTICE = re.compile(
    r'git-aide: memory (?P<id>\w{8}) \[(?P<scope>[^\]]*)\]: both sides changed "(?P<field>\w+)"; '
    r"kept (?P<kept>.+?), dropped (?P<lost>.+?): (?P<value>.*); "
    r"recover it with: (?P<command>git show [0-9a-f]{40})$")


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git, with git-aide on its PATH, returning the process whatever its status."""
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=ENV)


def notices(stderr: str) -> list[dict[str, str]]:
    """The notice lines of a git command's stderr, each as its named parts."""
    found = []
    for line in stderr.splitlines():
        if line.startswith("git-aide: memory "):
            m = NOTICE.match(line)
            assert m, f"not one clear notice line: {line!r}"
            found.append(m.groupdict())
    return found


def shows(repo: Path, command: str) -> dict[str, Any]:
    """What the recovery command a notice names prints, parsed as the memory it is."""
    out = subprocess.run(shlex.split(command), cwd=repo, capture_output=True, env=ENV)
    assert out.returncode == 0, out.stderr
    return memory.parse(out.stdout)


def diverge(tmp_path: Path, a_rec: dict[str, Any], b_rec: dict[str, Any]) -> tuple[Path, Path]:
    """A pushes one edit of the memory; b commits another and has not pulled yet."""
    _origin, a, b = team(tmp_path, record(tags=["x"]))
    write(a, a_rec)
    commit(a, "a edits it")
    git(a, "push", "-q")
    write(b, b_rec)
    commit(b, "b edits it")
    return a, b


# --- the merge driver -----------------------------------------------------------------


def test_a_pull_that_keeps_ours_says_whose_text_it_dropped_and_how_to_get_it(
        tmp_path: Path) -> None:
    _a, b = diverge(tmp_path, record(what="use tabs, said Ada", tags=["x"], updated_at=stamp(2)),
                    record(what="use spaces, said Bob", tags=["x"], updated_at=stamp(5)))
    proc = run(b, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert read(b)["what"] == "use spaces, said Bob"  # the design: the newer side wins
    (n,) = notices(proc.stderr)
    assert (n["id"], n["scope"], n["field"]) == (UUID[:8], "project", "what")
    assert n["kept"].startswith("ours") and n["kept"].endswith("newer)")
    pulled = git(b, "rev-parse", "--short=7", "origin/main").strip()
    assert n["lost"] == f"theirs (commit {pulled})"
    assert n["value"] == '"use tabs, said Ada"'
    assert shows(b, n["command"])["what"] == "use tabs, said Ada"
    assert "Traceback" not in proc.stderr


def test_a_merge_that_keeps_theirs_names_each_dropped_field_once(tmp_path: Path) -> None:
    # Both change what and why (one line each); both change tags (merged as sets: no
    # line); only b changes the label (nothing dropped: no line).
    _a, b = diverge(
        tmp_path,
        record(what="a's text", why="a's reason", tags=["x", "from-a"], updated_at=stamp(7),
               scope="src/**"),
        record(what="b's text", why="b's reason\nsecond line", tags=["from-b"],
               context_label="b's label", updated_at=stamp(3), scope="src/**"))
    git(b, "fetch", "-q")
    proc = run(b, "merge", "--no-edit", "origin/main")
    assert proc.returncode == 0, proc.stderr
    got = read(b)
    assert (got["what"], got["why"], got["context_label"]) == ("a's text", "a's reason",
                                                               "b's label")
    found = notices(proc.stderr)
    assert [n["field"] for n in found] == ["what", "why"]
    for n in found:
        assert n["scope"] == "src/**"
        assert n["kept"] == "theirs (origin/main, newer)" and n["lost"] == "ours"
    assert found[0]["value"] == '"b\'s text"'
    assert found[1]["value"] == '"b\'s reason\\nsecond line"'  # one line, as JSON writes it
    dropped = shows(b, found[0]["command"])
    assert (dropped["what"], dropped["why"]) == ("b's text", "b's reason\nsecond line")


def test_a_rebase_says_yours_and_upstream_as_the_user_sees_them(tmp_path: Path) -> None:
    # Git's "ours" in a rebase is upstream, its "theirs" the commit being replayed: the
    # notice speaks of the user's commit as "yours" either way it goes.
    _a, b = diverge(tmp_path, record(what="upstream's text", tags=["x"], updated_at=stamp(9)),
                    record(what="my text", tags=["x"], updated_at=stamp(4)))
    mine = git(b, "rev-parse", "--short=7", "HEAD").strip()
    git(b, "branch", "kept-mine")
    git(b, "fetch", "-q")
    proc = run(b, "rebase", "origin/main")
    assert proc.returncode == 0, proc.stderr
    assert read(b)["what"] == "upstream's text"
    (n,) = notices(proc.stderr)
    assert n["kept"] == "upstream (newer)" and n["lost"] == f"yours (commit {mine})"
    assert n["value"] == '"my text"'
    # The rebase left the dropped version in no branch: the command still prints it.
    git(b, "branch", "-D", "kept-mine")
    assert shows(b, n["command"])["what"] == "my text"


def test_a_pull_rebase_that_keeps_yours_drops_upstream(tmp_path: Path) -> None:
    _a, b = diverge(tmp_path, record(what="upstream's text", tags=["x"], updated_at=stamp(2)),
                    record(what="my newer text", tags=["x"], updated_at=stamp(6)))
    proc = run(b, "pull", "--rebase", "origin", "main")
    assert proc.returncode == 0, proc.stderr
    assert read(b)["what"] == "my newer text"
    (n,) = notices(proc.stderr)
    assert n["kept"].startswith("yours (commit ") and n["kept"].endswith(", newer)")
    assert n["lost"] == "upstream" and n["value"] == '"upstream\'s text"'
    assert shows(b, n["command"])["what"] == "upstream's text"


def test_a_cherry_pick_names_ours_and_theirs(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    write(repo, record())
    commit(repo, "base")
    git(repo, "checkout", "-q", "-b", "side")
    write(repo, record(what="picked text", updated_at=stamp(8)))
    commit(repo, "side")
    git(repo, "checkout", "-q", "main")
    write(repo, record(what="main's text", updated_at=stamp(3)))
    commit(repo, "main")
    proc = run(repo, "cherry-pick", "side")
    assert proc.returncode == 0, proc.stderr
    (n,) = notices(proc.stderr)
    assert (n["kept"], n["lost"], n["value"]) == ("theirs (newer)", "ours", '"main\'s text"')
    assert shows(repo, n["command"])["what"] == "main's text"


def test_equal_times_say_so_and_a_hostile_value_stays_on_one_line(tmp_path: Path) -> None:
    # At equal times the larger content wins: "plain" beats "a...", so b's text is dropped.
    evil = "a\x1b]0;owned\x07\x9b2J" + "long " * 40
    _a, b = diverge(tmp_path, record(what="plain", tags=["x"], updated_at=stamp(4)),
                    record(what=evil, tags=["x"], updated_at=stamp(4)))
    proc = run(b, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert proc.returncode == 0, proc.stderr
    (n,) = notices(proc.stderr)
    assert n["kept"].endswith(", same updated_at)") and n["lost"] == "ours"
    assert read(b)["what"] == "plain"
    line = next(x for x in proc.stderr.splitlines() if x.startswith("git-aide: memory"))
    assert not re.search("[\x00-\x1f\x7f-\x9f]", line)  # no terminal control reaches git's output
    assert n["value"].startswith('"a\\u001b]0;owned\\u0007\\u009b2J')
    assert len(n["value"]) <= 72 and n["value"].endswith('..."')
    assert shows(b, n["command"])["what"] == evil


def test_the_merge_report_is_the_same_whichever_side_is_ours() -> None:
    from git_aide.core.merge import merge_report

    base = memory.canonical(record(tags=["t"]))
    older = memory.canonical(record(what="old", scope="a/**", tags=["t", "o"],
                                    updated_at=stamp(2)))
    newer = memory.canonical(record(what="new", scope="b/**", tags=["n"], updated_at=stamp(3)))
    one, lost_one = merge_report(base, older, newer)
    two, lost_two = merge_report(base, newer, older)
    assert one == two
    assert [(d.field, d.kept, d.value) for d in lost_one] == [
        ("what", "theirs", "old"), ("scope", "theirs", "a/**")]
    assert [(d.field, d.kept, d.value) for d in lost_two] == [
        ("what", "ours", "old"), ("scope", "ours", "a/**")]
    # No base (both added it): every differing field but the set of tags loses a side.
    _data, lost = merge_report(b"", older, newer)
    assert [d.field for d in lost] == ["what", "scope"]


# --- resolve --------------------------------------------------------------------------


@pytest.mark.parametrize("how", ["--no-rebase", "--rebase"])
def test_resolve_in_a_clone_without_the_driver_says_the_same(tmp_path: Path, how: str) -> None:
    _origin, a, b = team(tmp_path, record(), init_b=False)
    write(a, record(what="a's newer text", updated_at=stamp(6)))
    commit(a, "a")
    git(a, "push", "-q")
    write(b, record(what="b's text", updated_at=stamp(2)))
    commit(b, "b")
    mine = git(b, "rev-parse", "--short=7", "HEAD").strip()
    assert pull(b, how, check=False).returncode != 0  # git's text merge: markers
    aide_ok(b, "init", "--no-hooks")
    dry = aide_ok(b, "resolve", "--dry-run").stdout.splitlines()
    out = aide_ok(b, "resolve").stdout.splitlines()
    assert out[0] == f"merged {PATH}" and dry[0] == f"would merge {PATH}"
    assert out[1:] == dry[1:] and len(out) == 2
    n = NOTICE.match("git-aide: " + out[1].strip())
    assert n, out[1]
    # In the rebase, b's commit is the one replayed onto a's: "yours", dropped.
    assert (n["field"], n["kept"], n["lost"]) == (
        ("what", "theirs (newer)", "ours") if how == "--no-rebase"
        else ("what", "upstream (newer)", f"yours (commit {mine})"))
    assert shows(b, n["command"])["what"] == "b's text"


# --- log ------------------------------------------------------------------------------


def _merged_history(tmp_path: Path) -> tuple[Path, str]:
    """b pulls a's older edit of `what` into its newer one (b's side kept: the merge is
    no change from b's first parent), then a merge that changed different fields."""
    _a, b = diverge(tmp_path, record(what="a's text", tags=["x"], updated_at=stamp(2)),
                    record(what="b's text", tags=["x"], updated_at=stamp(5)))
    proc = run(b, "pull", "--no-rebase", "--no-edit", "origin", "main")
    assert proc.returncode == 0, proc.stderr
    merge = git(b, "rev-parse", "HEAD").strip()
    git(b, "checkout", "-q", "-b", "other", "HEAD~1")
    write(b, record(what="b's text", why="a reason", tags=["x"], updated_at=stamp(6)))
    commit(b, "why")
    git(b, "checkout", "-q", "main")
    write(b, record(what="b's text", tags=["x", "y"], updated_at=stamp(7)))
    commit(b, "tag")
    assert run(b, "merge", "--no-edit", "other").returncode == 0
    git(b, "push", "-q", "origin", "main")
    return b, merge


def test_log_marks_the_merge_that_kept_one_side(tmp_path: Path) -> None:
    b, merge = _merged_history(tmp_path)
    doc = aide_ok(b, "log", "--json").json()
    marked = [c for c in doc["commits"] if c.get("conflicts")]
    assert [c["commit"] for c in marked] == [merge]  # not the merge of different fields
    (c,) = marked
    assert c["changes"] == []  # b's own side was kept: nothing new against ^1
    (x,) = c["conflicts"]
    first, second = git(b, "rev-parse", f"{merge}^1", f"{merge}^2").split()
    assert (x["uuid"], x["field"], x["kept"]) == (UUID, "what", "ours")
    assert (x["kept_parent"], x["dropped_parent"]) == (first, second)
    assert x["dropped_value"] == "a's text" and x["memory"]["what"] == "b's text"
    assert x["recover"] == f"git show {merge}^2:{PATH}"
    assert shows(b, x["recover"])["what"] == "a's text"

    text = aide_ok(b, "log").stdout
    block = text[text.index(f"commit {merge}"):]
    assert (f'conflict  {UUID[:8]}  technical  [project]  both sides changed "what"; '
            f"kept ours ({first[:7]}), dropped theirs ({second[:7]}): \"a's text\"") in block
    assert f"recover: git show {merge}^2:{PATH}" in block
    assert text.count("conflict  ") == 1


def test_a_clone_that_never_ran_the_driver_marks_the_same_merge(tmp_path: Path) -> None:
    b, _merge = _merged_history(tmp_path)
    warm = aide_ok(b, "log", "--json").json()
    assert [c["subject"] for c in warm["commits"] if c.get("conflicts")] == [
        "Merge branch 'main' of " + str(tmp_path / "origin")]
    assert aide_ok(b, "log", "--json").json() == warm  # from the cache: the same answer
    fresh = tmp_path / "fresh"
    git(tmp_path, "clone", "-q", str(tmp_path / "origin.git"), str(fresh))
    assert "merge.aide" not in git(fresh, "config", "--local", "--list")
    assert aide_ok(fresh, "log", "--json").json() == warm
    bare = tmp_path / "bare.git"
    git(tmp_path, "clone", "-q", "--bare", str(tmp_path / "origin.git"), str(bare))
    assert aide_ok(bare, "log", "--json").json() == warm


def test_log_filters_keep_or_drop_the_mark_with_its_memory(tmp_path: Path) -> None:
    b, merge = _merged_history(tmp_path)
    other = record(uuid="1b5e4a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b", what="elsewhere",
                   scope="docs/**", layer="area_context")
    write(b, other)
    commit(b, "another memory")
    by_uuid = aide_ok(b, "log", "--uuid", UUID[:6], "--json").json()
    assert merge in [c["commit"] for c in by_uuid["commits"] if c.get("conflicts")]
    by_other = aide_ok(b, "log", "--uuid", other["uuid"][:6], "--json").json()
    assert not any(c.get("conflicts") for c in by_other["commits"])
    in_docs = aide_ok(b, "log", "--json", "--", "docs/readme.md").json()
    # The marked memory is project-wide: relevant to any path.
    assert merge in [c["commit"] for c in in_docs["commits"]]


def test_a_merge_settled_by_hand_or_by_sets_is_not_marked(tmp_path: Path) -> None:
    _a, b = diverge(tmp_path, record(what="a's text", tags=["x", "a"], updated_at=stamp(2)),
                    record(what="b's text", tags=["b"], updated_at=stamp(5)))
    git(b, "fetch", "-q")
    run(b, "merge", "--no-commit", "origin/main")
    write(b, record(what="both texts, merged by hand", tags=["a", "b"], updated_at=stamp(9)))
    git(b, "add", "-A")
    git(b, "commit", "-q", "--no-edit")
    doc = aide_ok(b, "log", "--json").json()
    assert not any(c.get("conflicts") for c in doc["commits"])
    assert "conflict  " not in aide_ok(b, "log").stdout


def test_the_notice_never_fails_a_merge_it_cannot_describe(tmp_path: Path) -> None:
    # With no git on the PATH the driver cannot ask for the blob id: it still merges,
    # and prints the whole dropped value instead of the command.
    base, ours, theirs = (tmp_path / n for n in ("base", "ours", "theirs"))
    base.write_bytes(memory.canonical(record()))
    ours.write_bytes(memory.canonical(record(what="ours " * 30, updated_at=stamp(2))))
    theirs.write_bytes(memory.canonical(record(what="theirs", updated_at=stamp(3))))
    env = {**BASE_ENV, "PATH": str(tmp_path / "nowhere")}
    proc = subprocess.run([*AIDE, "merge-driver", str(base), str(ours), str(theirs), "7",
                           PATH], capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert json.loads(ours.read_bytes())["what"] == "theirs"
    (line,) = proc.stderr.splitlines()
    assert line.startswith(f'git-aide: memory {UUID[:8]} [project]: both sides changed "what"; '
                           "kept theirs (newer), dropped ours: ")
    assert line.endswith(json.dumps("ours " * 30)) and "recover" not in line


def test_the_mcp_log_shows_the_mark_too(tmp_path: Path) -> None:
    pytest.importorskip("mcp")
    import asyncio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    b, merge = _merged_history(tmp_path)

    async def session() -> str:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(b),
                                       env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            res = await s.call_tool("aide_log", {})
            assert not res.is_error, res.content
            assert res.structured_content == aide_ok(b, "log", "--json").json()
            return "".join(getattr(c, "text", "") for c in res.content)

    text = asyncio.run(session())
    assert f"conflict `{UUID[:8]}` what: kept ours, dropped a's text" in text
    assert f"git show {merge}^2:{PATH}" in text
