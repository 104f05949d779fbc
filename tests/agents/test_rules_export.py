"""`git aide export` (README, Coming from CLAUDE.md / Cursor rules): memories into agents'
rules files, and back."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import ROOT, aide, aide_ok, git, make_repo, remember
from hypothesis import given, settings
from hypothesis import strategies as st

from git_aide.agents.rules import exportblock, markdown

ALL = ("--agent", "claude", "--agent", "codex", "--agent", "gemini", "--agent", "cursor",
       "--agent", "copilot", "--agent", "windsurf")


def key_set(memories: list[dict]) -> set[tuple[str, str, str | None]]:
    return {(m["what"], m["layer"], m["scope"]) for m in memories}


def listed(repo: Path) -> list[dict]:
    return aide_ok(repo, "list", "--json").json()["memories"]


def seed(repo: Path) -> None:
    """Memories of every kind export treats differently."""
    remember(repo, "Write commit messages in the imperative", "--layer", "guidelines")
    remember(repo, "Small pull requests\n- one idea each\n  - reviewed within a day\n\n"
             "  and a paragraph after a blank line", "--layer", "guidelines")
    remember(repo, "Prefer tabs in Makefiles", "--layer", "preferences")
    remember(repo, "private taste", "--personal")
    remember(repo, "The staging database is reset every night", "--priority", "always")
    remember(repo, "Postgres 15 is the production database")
    remember(repo, "Handlers return typed responses", "--layer", "area_context",
             "--scope", "src/api/**")
    remember(repo, "TSX files use named exports", "--layer", "area_context",
             "--scope", "src/**/*.{ts,tsx}")
    remember(repo, "The API folder needs Python 3.11", "--scope", "src/api/**")
    remember(repo, "Docs are built by the release job", "--layer", "guidelines",
             "--scope", "docs")


def test_round_trip_on_a_fresh_clone(tmp_path: Path) -> None:
    a = make_repo(tmp_path / "a")
    seed(a)
    aide_ok(a, "export", *ALL)
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "memories and rules")
    wanted = key_set(m for m in listed(a) if m["shared"])
    # Cursor and Windsurf get every shared memory; Claude the always-on ones.
    files = sorted(str(p.relative_to(a)) for p in (a / ".cursor" / "rules").glob("*.mdc"))
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(a), str(b))
    aide_ok(b, "init", "--no-hooks")
    git(b, "rm", "-q", "-r", ".aide/memories")
    git(b, "commit", "-q", "-m", "start over from the rules files")
    doc = aide_ok(b, "import", "CLAUDE.md", *files, "--json").json()
    assert key_set(listed(b)) == wanted
    assert len(listed(b)) == len(wanted)
    always = [m for m in doc["imported"] if m["what"].startswith("The staging database")]
    assert [m["priority"] for m in always] == ["always"]
    # Every other agent's files hold nothing new: importing them creates no duplicate.
    every = ["AGENTS.md", "GEMINI.md", ".github/copilot-instructions.md", *files,
             *(str(p.relative_to(b)) for p in (b / ".github" / "instructions").glob("*")),
             *(str(p.relative_to(b)) for p in (b / ".windsurf" / "rules").glob("*"))]
    again = aide_ok(b, "import", *every, "--json").json()
    assert again["imported"] == []
    assert {s["reason"] for s in again["skipped"]} == {"exists"}
    assert len(listed(b)) == len(wanted)
    # The rules files exported from the imported memories are the same bytes.
    aide_ok(b, "export", *ALL)
    assert git(b, "status", "--porcelain", "--", ".cursor", ".github", ".windsurf", "*.md") == ""
    # And the original repository already has all of them.
    assert aide_ok(a, "import", *every, "--json").json()["imported"] == []


@pytest.mark.quick
def test_block_keeps_user_text_byte_for_byte(repo: Path) -> None:
    remember(repo, "Run the linter before every commit", "--layer", "guidelines")
    before = "# Our notes\r\n\r\nKeep this line\r\nno newline at the end"
    (repo / "CLAUDE.md").write_bytes(before.encode())
    aide_ok(repo, "export", "--agent", "claude")
    data = (repo / "CLAUDE.md").read_bytes()
    assert data.startswith(before.encode() + b"\r\n\r\n<!-- git-aide:begin -->\r\n")
    assert b"- Run the linter before every commit\r\n" in data
    assert data.endswith(b"<!-- git-aide:end -->\r\n")
    # text after the block stays too, and a second export changes nothing
    after = b"\r\n## More of mine\r\n```\r\n<!-- git-aide:begin -->\r\n```\r\n"
    (repo / "CLAUDE.md").write_bytes(data + after)
    remember(repo, "Squash before merging", "--layer", "guidelines")
    r = aide_ok(repo, "export", "--agent", "claude")
    assert r.stdout == "updated CLAUDE.md\n"
    new = (repo / "CLAUDE.md").read_bytes()
    assert new.startswith(before.encode() + b"\r\n\r\n<!-- git-aide:begin -->")
    assert new.endswith(b"<!-- git-aide:end -->\r\n" + after)
    assert b"- Squash before merging\r\n" in new
    r = aide_ok(repo, "export", "--agent", "claude")
    assert "nothing changed" in r.stdout
    assert (repo / "CLAUDE.md").read_bytes() == new


def test_unclosed_block_is_an_error_and_the_file_is_kept(repo: Path) -> None:
    remember(repo, "Run the linter before every commit", "--layer", "guidelines")
    text = b"mine\n<!-- git-aide:begin -->\nhalf a block\n"
    (repo / "AGENTS.md").write_bytes(text)
    r = aide(repo, "export", "--agent", "codex")
    assert r.returncode == 1
    assert r.stderr.startswith("git-aide: error: AGENTS.md: the line <!-- git-aide:begin -->")
    assert (repo / "AGENTS.md").read_bytes() == text


def test_stale_rule_files_are_removed_and_user_files_kept(repo: Path) -> None:
    old = remember(repo, "Handlers return typed responses", "--layer", "area_context",
                   "--scope", "src/api/**")
    aide_ok(repo, "export", "--agent", "cursor", "--agent", "copilot")
    rules = repo / ".cursor" / "rules"
    (rules / "mine.mdc").write_text("---\nglobs: x/**\n---\n- mine\n")
    (rules / "git-aide-by-hand.mdc").write_text("a user's file that happens to share the name\n")
    first = sorted(p.name for p in rules.iterdir())
    assert len(first) == 3
    aide_ok(repo, "forget", old["uuid"])
    remember(repo, "Views never query the database", "--layer", "area_context",
             "--scope", "src/views/**")
    r = aide_ok(repo, "export", "--agent", "cursor", "--agent", "copilot")
    assert "removed .cursor/rules/git-aide-src-api" in r.stdout
    assert "removed .github/instructions/git-aide-src-api" in r.stdout
    names = sorted(p.name for p in rules.iterdir())
    assert "mine.mdc" in names and "git-aide-by-hand.mdc" in names
    [mdc] = [n for n in names if n.startswith("git-aide-src-views")]
    text = (rules / mdc).read_text()
    assert text.startswith('---\ndescription: "git-aide memories for src/views/**"\n'
                           "globs: src/views/**\nalwaysApply: false\n---\n")
    [inst] = list((repo / ".github" / "instructions").iterdir())
    assert inst.read_text().startswith('---\napplyTo: "src/views/**"\n')


def test_check_writes_nothing_and_lists_what_is_out_of_date(repo: Path) -> None:
    remember(repo, "Run the linter before every commit", "--layer", "guidelines")
    r = aide(repo, "export", "--agent", "claude", "--check")
    assert r.returncode == 1
    assert r.stdout == "CLAUDE.md: missing\n"
    assert "run `git aide export --agent claude`" in r.stderr
    assert not (repo / "CLAUDE.md").exists()
    aide_ok(repo, "export", "--agent", "claude", "--agent", "windsurf")
    aide_ok(repo, "export", "--agent", "claude", "--agent", "windsurf", "--check")
    remember(repo, "Scoped to web", "--layer", "area_context", "--scope", "web/**")
    before = (repo / "CLAUDE.md").read_bytes()
    r = aide(repo, "export", "--agent", "claude", "--agent", "windsurf", "--check")
    assert r.returncode == 1
    lines = r.stdout.splitlines()
    assert "CLAUDE.md: out of date" in lines  # the pointer to recall counts it
    assert any(x.startswith(".windsurf/rules/git-aide-web-") and x.endswith(": missing")
               for x in lines)
    assert (repo / "CLAUDE.md").read_bytes() == before
    assert not list((repo / ".windsurf" / "rules").glob("git-aide-web-*"))


def test_max_chars_keeps_the_block_in_budget_and_says_what_it_left_out(repo: Path) -> None:
    kept = remember(repo, "Short rule one", "--layer", "guidelines")
    long = remember(repo, "A much longer guideline " * 20, "--layer", "guidelines")
    remember(repo, "Short rule two", "--layer", "guidelines")
    r = aide_ok(repo, "export", "--agent", "gemini", "--max-chars", "600")
    text = (repo / "GEMINI.md").read_text()
    assert len(text) <= 600
    assert "- Short rule one\n- Short rule two\n" in text
    assert "A much longer guideline" not in text
    assert "_1 always-on memory left out to keep this block within 600 characters" in text
    assert f"left out {long['uuid'][:8]} (guidelines)" in r.stderr
    assert kept["uuid"][:8] not in r.stderr


def test_export_is_deterministic(tmp_path: Path) -> None:
    a = make_repo(tmp_path / "a")
    seed(a)
    git(a, "commit", "-q", "-m", "memories")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(a), str(b))
    aide_ok(b, "init", "--no-hooks")
    for repo in (a, b):
        aide_ok(repo, "export", *ALL)
    produced = sorted(p.relative_to(a) for p in a.rglob("*")
                      if p.is_file() and ".git" not in p.parts and ".aide" not in p.parts)
    assert len(produced) >= 10
    for rel in produced:
        assert (a / rel).read_bytes() == (b / rel).read_bytes(), rel
    claude = (a / "CLAUDE.md").read_text()
    assert "private taste" not in claude and "20" not in claude  # no personal, no dates
    assert claude.index("## Guidelines") < claude.index("## Preferences") < claude.index(
        "## Technical (always)")
    assert "Not listed here: 5 memories" in claude


def test_usage_errors(repo: Path) -> None:
    r = aide(repo, "export")
    assert r.returncode == 2 and "--agent" in r.stderr
    r = aide(repo, "export", "--agent", "vim")
    assert r.returncode == 2


def test_pre_commit_hook_id_is_declared() -> None:
    text = (ROOT / ".pre-commit-hooks.yaml").read_text()
    block = text.split("- id: git-aide-export-check", 1)[1]
    assert "entry: git-aide export --check" in block


def test_a_symlinked_rules_file_stays_a_symlink(repo: Path) -> None:
    remember(repo, "Run the linter before every commit", "--layer", "guidelines")
    (repo / "AGENTS.md").write_text("# Shared by every agent\n")
    (repo / "CLAUDE.md").symlink_to("AGENTS.md")
    aide_ok(repo, "export", "--agent", "claude", "--agent", "codex")
    assert (repo / "CLAUDE.md").is_symlink()
    text = (repo / "AGENTS.md").read_text()
    assert text.startswith("# Shared by every agent\n\n<!-- git-aide:begin -->")
    assert text.count("<!-- git-aide:begin -->") == 1
    aide_ok(repo, "export", "--agent", "claude", "--agent", "codex", "--check")


_PIECES = st.sampled_from(["\n", "\t", "- ", "  - ", "## Guidelines", "## Technical in `x`",
                           markdown.END, markdown.BEGIN, "```", "|a|b|", "# h", "  ", "<!-- c -->"])
_WHAT = st.lists(_PIECES | st.text(st.characters(blacklist_categories=("Cc", "Cs")),
                                   max_size=8), min_size=1, max_size=12).map("".join)
_RECORD = st.fixed_dictionaries({
    "what": _WHAT.filter(str.strip),
    "layer": st.sampled_from(["guidelines", "preferences", "technical", "area_context"]),
    "priority": st.sampled_from(["normal", "always"]),
    "scope": st.sampled_from([None, "src/**", "lib/*.{py,pyi}", "{a,b}/**", "docs"]),
    "uuid": st.uuids().map(str),
    "created_at": st.sampled_from(["2026-01-01T00:00:00.000Z", "2026-02-01T00:00:00.000Z"]),
})


@settings(max_examples=150, deadline=None)
@given(st.lists(_RECORD, max_size=6), st.text(max_size=30).filter(lambda t: "<!--" not in t))
def test_any_block_reads_back_exactly(records: list[dict], user: str) -> None:
    records = sorted(records, key=exportblock.sort_key)
    text = user + "\n\n" + exportblock.block(records, ["_a note that is not a memory_"]) + user
    got = [(i.what, i.layer, i.scope, i.priority) for i in markdown.parse(text).items
           if i.from_block]
    assert got == [(r["what"].strip(), r["layer"], r["scope"], r["priority"]) for r in records]


def test_rules_the_user_wrote_are_not_repeated_in_the_block(repo: Path) -> None:
    mine = "# Team rules\n\n- Run the linter before every commit\n- Keep pull requests small\n"
    (repo / "CLAUDE.md").write_text(mine)
    aide_ok(repo, "import", "CLAUDE.md")
    r = aide_ok(repo, "export", "--agent", "claude")
    assert "nothing changed" in r.stdout  # everything is in the file already
    assert (repo / "CLAUDE.md").read_text() == mine
    remember(repo, "Squash before merging", "--layer", "guidelines")
    aide_ok(repo, "export", "--agent", "claude")
    text = (repo / "CLAUDE.md").read_text()
    assert text.startswith(mine + "\n<!-- git-aide:begin -->")
    assert text.count("Run the linter") == 1 and "- Squash before merging\n" in text
    # importing the file again brings nothing new
    assert aide_ok(repo, "import", "CLAUDE.md", "--json").json()["imported"] == []


def test_rules_files_the_user_keeps_are_not_repeated(repo: Path) -> None:
    rules_dir = repo / ".cursor" / "rules"
    rules_dir.mkdir(parents=True)
    (rules_dir / "api.mdc").write_text("---\nglobs: src/api/**\n---\n- Handlers are thin\n")
    (rules_dir / "team.mdc").write_text("---\nalwaysApply: true\n---\n- Review within a day\n")
    aide_ok(repo, "import", ".cursor/rules/api.mdc", ".cursor/rules/team.mdc")
    remember(repo, "Handlers return typed responses", "--layer", "area_context",
             "--scope", "src/api/**")
    aide_ok(repo, "export", "--agent", "cursor")
    generated = sorted(p.name for p in rules_dir.glob("git-aide-*"))
    assert len(generated) == 1  # no always-on file: the team rule is in team.mdc already
    text = (rules_dir / generated[0]).read_text()
    assert "Handlers return typed responses" in text and "Handlers are thin" not in text


def test_max_chars_is_a_hard_cap_on_the_block(repo: Path) -> None:
    remember(repo, "Short rule one", "--layer", "guidelines")
    remember(repo, "Short rule two", "--layer", "guidelines")
    remember(repo, "Postgres 15 is the production database")  # the pointer note
    for n in (300, 200, 160):
        aide_ok(repo, "export", "--agent", "codex", "--max-chars", str(n))
        text = (repo / "AGENTS.md").read_text()
        assert len(text) <= n, (n, text)
        assert text.startswith(markdown.BEGIN) and text.rstrip().endswith(markdown.END)
    before = (repo / "AGENTS.md").read_bytes()
    r = aide(repo, "export", "--agent", "codex", "--max-chars", "40")
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("git-aide: error: --max-chars 40 is too small: the smallest "
                               "block is ")
    assert (repo / "AGENTS.md").read_bytes() == before


def test_two_blocks_in_one_file_is_an_error_and_the_file_is_kept(repo: Path) -> None:
    remember(repo, "Run the linter before every commit", "--layer", "guidelines")
    aide_ok(repo, "export", "--agent", "claude")
    one = (repo / "CLAUDE.md").read_text()
    text = (one + "\nmine\n\n" + one).encode()
    (repo / "CLAUDE.md").write_bytes(text)
    remember(repo, "Tag releases from main only", "--layer", "guidelines")
    r = aide(repo, "export", "--agent", "claude")
    assert r.returncode == 1
    assert r.stderr == ("git-aide: error: CLAUDE.md holds more than one git-aide block; keep "
                        "one (delete the others), then export again\n")
    assert (repo / "CLAUDE.md").read_bytes() == text


def test_generated_rule_files_say_they_are_generated_whole(repo: Path) -> None:
    remember(repo, "Handlers return typed responses", "--layer", "area_context",
             "--scope", "src/api/**")
    aide_ok(repo, "export", "--agent", "cursor")
    [mdc] = (repo / ".cursor" / "rules").glob("git-aide-*.mdc")
    body = mdc.read_text().split("---\n", 2)[2]
    assert body.lstrip().startswith("<!-- This whole file is generated by `git aide export`")
    assert "edits are overwritten" in body.splitlines()[1]
    # and it still reads back as the same memory, without the header
    assert [i.what for i in markdown.parse(mdc.read_text()).items] == [
        "Handlers return typed responses"]
