"""Rules files a repository brings, written to hurt (issue 19, items 8-10).

`import` and `export --check` read whatever CLAUDE.md or `.cursor/rules/*.mdc` a clone
holds: they take time linear in the file on adversarial markdown, read only regular files
of a bounded size, and export writes and removes nothing outside the working tree.
"""

from __future__ import annotations

import os
import resource
import subprocess
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, Result, aide_ok, git, remember

from git_aide.agents.rules import markdown

#: Roughly how large each hostile file is: big enough that work growing with the square
#: of the size takes minutes, small enough that linear work takes a fraction of a second.
SIZE = 200_000
#: Far above what these commands take (well under a second each): a bound that cannot
#: flake on a busy machine, and that quadratic work on SIZE bytes still exceeds.
PATIENCE = 30


def _limited() -> None:
    # A defect that reads /dev/zero to the end would otherwise take the machine's memory.
    resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))


def run(cwd: Path, *args: str) -> Result:
    """git-aide as a real process, in its own session (no terminal) and with bounded
    memory; it must finish within PATIENCE seconds."""
    proc = subprocess.run([*AIDE, *args], cwd=cwd, capture_output=True, text=True,
                          env=BASE_ENV, timeout=PATIENCE, preexec_fn=_limited,
                          start_new_session=True, stdin=subprocess.DEVNULL)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def one_error(r: Result) -> str:
    """The single `git-aide: error:` line of a failed run."""
    assert r.returncode == 1, (r.returncode, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("git-aide: error: "), r.stderr
    return lines[0]


def times(unit: str, size: int = SIZE) -> str:
    """`unit` repeated to about `size` characters."""
    return unit * max(1, size // len(unit))


# -- item 8: linear time on adversarial markdown ----------------------------------------

def _nested_lists() -> str:
    return "".join(" " * (i % 600) + "- x\n" for i in range(2000)) + times("  " * 300 + "- y\n")


def _deep_quotes() -> str:
    return times("> " * 200 + "- quoted item text\n")


#: name -> the text of a hostile rules file (str, or bytes when it is not UTF-8).
CORPUS: dict[str, str | bytes] = {
    "unclosed comments": times("<!--"),
    "unclosed comments after text": times("rule text <!--"),
    "an unclosed comment over many lines": "<!--\n" + times("- not a rule\n"),
    "comments that close late": times("<!-- <!-- -- -> ") + "-->",
    "an unclosed fence": "```\n" + times("- inside the fence\n"),
    "fences of every length": "".join("`" * n + "\n" for n in range(3, 630)),
    "a heading with a long run of blanks": "# a" + " " * SIZE + "x",
    "a heading of hashes and blanks": "# " + times(" #") + "x",
    "many headings": times("## Heading\n"),
    "a table rule of blanks": "a | b\n" + " " * SIZE + "x|-",
    "a table rule of dashes and blanks": "a | b\n-" + " " * SIZE + "x|",
    "a list item of links": "- " + times("[a](b) ") + "x",
    "a paragraph of links": times("[a](b), ") + "x",
    "mdc links": times("[x](mdc:.cursor/rules/other.mdc) "),
    "unclosed mdc links": times("[x](mdc:"),
    "brackets": times("[") + times("]("),
    "autolinks": times("<http://x> ") + "<",
    "emphasis runs": times("*_"),
    "bold runs": times("**a** __b__ "),
    "deeply nested lists": _nested_lists(),
    "deeply nested quotes": _deep_quotes(),
    "a list item continued for many lines": "- item\n" + times("word\n"),
    "a very long line": times("word "),
    "a thematic break that is not one": "-" + times(" -") + "x",
    "an html tag that does not close": "<a " + " " * SIZE + "x",
    "nul bytes": "- a rule with \x00 in it\n" * 20 + times("\x00") + "\n\n" + times("a\x00 "),
    "invalid utf-8": b"- rule\n" + times("\xff").encode("latin-1"),
    "front matter with a long blank run": "---\ndescription: a" + " " * SIZE + "b\n---\n- rule",
    "front matter globs": "---\nglobs: " + ",".join(f"src/g{i}/*.ts" for i in range(15000))
                          + "\n---\n" + times("- a rule for those files\n", 20_000),
    "front matter globs of ./": "---\nglobs: " + times("./") + "a\n---\n- a rule to follow",
    "front matter fences": times("---\n"),
    "front matter never closed": "---\na: b\n" + times("key: value\n"),
    "an exported section scope of backticks": f"{markdown.BEGIN}\n## Technical in "
                                              + "`" * (SIZE // 2) + "x" * (SIZE // 2) + "\n",
    "an unclosed exported block": markdown.BEGIN + "\n" + times("- exported\n"),
    "many exported blocks": times(f"{markdown.BEGIN}\n## Technical\n\n- x\n{markdown.END}\n"),
}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One repository for the whole corpus, with a memory so that export has work."""
    from helpers import make_repo

    repo = make_repo(tmp_path_factory.mktemp("hostile") / "repo")
    remember(repo, "Use tabs for indentation", "--layer", "guidelines")
    remember(repo, "The parser lives in src/parse", "--scope", "src/**")
    return repo


@pytest.mark.parametrize("name", list(CORPUS))
def test_hostile_markdown_is_read_in_linear_time(shared: Path, name: str) -> None:
    data = CORPUS[name]
    raw = data if isinstance(data, bytes) else data.encode("utf-8", "surrogateescape")
    (shared / "CLAUDE.md").write_bytes(raw)
    (shared / ".cursor" / "rules").mkdir(parents=True, exist_ok=True)
    (shared / ".cursor" / "rules" / "hostile.mdc").write_bytes(raw)
    for args in (["import", "--dry-run", "CLAUDE.md"], ["import", ".cursor/rules/hostile.mdc"],
                 ["export", "--check", "--agent", "claude", "--agent", "cursor"]):
        r = run(shared, *args)
        assert r.returncode in (0, 1), (args, r.stderr)
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr, (args, r.stderr)
        assert all(line.startswith("git-aide: ") for line in r.stderr.splitlines()), r.stderr


def test_what_hostile_files_mean_is_still_read() -> None:
    # The shapes read by hand instead of by pattern keep their meaning.
    doc = markdown.parse("# Title ##\n\n<!-- a --> Use tabs for indentation everywhere\n\n"
                         "- [a](b), <http://c>\n- Keep lines short\n  and plain\n\n"
                         "| a | b |\n| :-- | --: |\n| 1 | 2 |\n\n"
                         f"{markdown.BEGIN}\n## Technical in ``a`b``\n\n- the scope holds a "
                         f"backtick\n{markdown.END}\n")
    got = [(i.what, i.label, i.scope) for i in doc.items]
    assert got == [("Use tabs for indentation everywhere", "Title", None),
                   ("Keep lines short and plain", "Title", None),
                   ("the scope holds a backtick", None, "a`b")]


# -- item 9: only regular files, of a bounded size --------------------------------------

def _commit_link(repo: Path, rel: str, target: str) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.symlink_to(target)
    git(repo, "add", rel)
    git(repo, "commit", "-qm", f"{rel} links to {target}")


@pytest.mark.parametrize("target", ["/dev/zero", "/dev/tty", "pipe"])
def test_a_rules_file_that_is_a_device_or_a_pipe_is_refused(repo: Path, tmp_path: Path,
                                                            target: str) -> None:
    if target == "pipe":
        os.mkfifo(tmp_path / "pipe")
        target, kind = str(tmp_path / "pipe"), "a named pipe"
    else:
        kind = "a character device"
        if not os.path.exists(target):
            pytest.skip(f"no {target} here")
    remember(repo, "Use tabs for indentation", "--layer", "guidelines")
    _commit_link(repo, "CLAUDE.md", target)
    for args in (["import", "CLAUDE.md"], ["export", "--agent", "claude"],
                 ["export", "--check", "--agent", "claude"]):
        line = one_error(run(repo, *args))
        assert "CLAUDE.md" in line and kind in line and "regular file" in line, (args, line)
    assert os.readlink(repo / "CLAUDE.md") == target
    assert len(aide_ok(repo, "list", "--json").json()["memories"]) == 1


def test_a_device_among_an_agents_rules_is_skipped_with_a_warning(repo: Path) -> None:
    remember(repo, "Use tabs for indentation", "--layer", "guidelines")
    _commit_link(repo, ".cursor/rules/zero.mdc", "/dev/zero")
    r = run(repo, "export", "--agent", "cursor")
    assert r.returncode == 0, r.stderr
    assert ".cursor/rules/zero.mdc" in r.stderr and "character device" in r.stderr
    assert "Use tabs for indentation" in (
        repo / ".cursor" / "rules" / "git-aide-always.mdc").read_text()
    assert run(repo, "export", "--check", "--agent", "cursor").returncode == 0


def test_a_rules_file_larger_than_any_honest_one_is_refused(repo: Path) -> None:
    remember(repo, "Use tabs for indentation", "--layer", "guidelines")
    big = times("- a rule that is repeated to make the file enormous\n", 3 * 1024 * 1024)
    (repo / "AGENTS.md").write_text(big)
    for args in (["import", "AGENTS.md"], ["export", "--agent", "codex"],
                 ["export", "--check", "--agent", "codex"]):
        line = one_error(run(repo, *args))
        assert "AGENTS.md is larger than 2 MiB" in line, (args, line)
    assert (repo / "AGENTS.md").read_text() == big
    assert len(aide_ok(repo, "list", "--json").json()["memories"]) == 1


# -- item 10: export writes and removes only inside the working tree ---------------------

@pytest.mark.parametrize(("link", "agent", "written"), [
    (".cursor/rules", "cursor", ".cursor/rules/git-aide-always.mdc"),
    (".cursor", "cursor", ".cursor/rules/git-aide-always.mdc"),
    (".github", "copilot", ".github/copilot-instructions.md"),
    (".windsurf/rules", "windsurf", ".windsurf/rules/git-aide-always.md"),
])
def test_export_writes_nothing_through_a_symlinked_folder(
        repo: Path, tmp_path: Path, link: str, agent: str, written: str) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    # A file export wrote once, which it would now remove as stale.
    stale = outside / Path(written).relative_to(link).parent / "git-aide-old-00000000.md"
    stale.parent.mkdir(parents=True, exist_ok=True)
    stale.write_text(f"{markdown.BEGIN}\n- gone\n{markdown.END}\n")
    for suffix in (".mdc", ".instructions.md"):
        stale.with_name("git-aide-old-00000000" + suffix).write_text(stale.read_text())
    before = sorted((p.relative_to(outside), p.read_bytes()) for p in outside.rglob("*")
                    if p.is_file())
    remember(repo, "Use tabs for indentation", "--layer", "guidelines")
    remember(repo, "The parser lives in src/parse", "--scope", "src/**")
    _commit_link(repo, link, str(outside))
    for args in (["export", "--agent", agent], ["export", "--check", "--agent", agent]):
        line = one_error(run(repo, *args))
        assert link in line and "symbolic link" in line, (args, line)
    after = sorted((p.relative_to(outside), p.read_bytes()) for p in outside.rglob("*")
                   if p.is_file())
    assert after == before


def test_export_does_not_write_through_a_link_into_git(repo: Path) -> None:
    remember(repo, "Use tabs for indentation", "--layer", "guidelines")
    config = (repo / ".git" / "config").read_bytes()
    _commit_link(repo, "CLAUDE.md", ".git/config")
    for args in (["export", "--agent", "claude"], ["export", "--check", "--agent", "claude"]):
        line = one_error(run(repo, *args))
        assert "CLAUDE.md" in line and ".git" in line, (args, line)
    assert (repo / ".git" / "config").read_bytes() == config
    assert git(repo, "config", "user.name").strip() == "Ada Tester"


def test_the_mcp_import_reads_hostile_text_at_once_and_refuses_a_huge_one(repo: Path) -> None:
    pytest.importorskip("mcp")
    import asyncio

    from mcp import ClientSession, StdioServerParameters, stdio_client

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(repo),
                                       env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            for name in ("a list item of links", "unclosed comments",
                         "a heading with a long run of blanks"):
                res = await s.call_tool("aide_import", {"content": CORPUS[name],
                                                        "layer": "technical"})
                assert not res.is_error, (name, res.content)
            huge = times("- a rule repeated until the text is enormous\n", 2 * 1024 * 1024 + 4096)
            res = await s.call_tool("aide_import", {"content": huge, "layer": "technical"})
            said = " ".join(getattr(c, "text", "") for c in res.content)
            assert res.is_error and "larger than 2 MiB" in said, said

    asyncio.run(asyncio.wait_for(session(), PATIENCE * 2))
    assert aide_ok(repo, "list", "--json").json()["memories"] == []
