"""`git aide import` (README, Coming from CLAUDE.md / Cursor rules): agents' rules files read
as memories."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from helpers import TESTS, aide, aide_ok, git, hook, hook_context, write

from git_aide.agents.rules import frontmatter, markdown
from git_aide.agents.rules import importer as rules

FIXTURES = TESTS / "fixtures" / "rules"

#: fixture -> (where it goes in a repository, memories, layer, scope)
REAL_FILES = {
    "codever-AGENTS.md": ("AGENTS.md", 22, "guidelines", None),
    "roguelike-CLAUDE.md": ("CLAUDE.md", 17, "guidelines", None),
    "catdetector-testing.mdc": (".cursor/rules/testing.mdc", 11, "area_context",
                                "{src/**/*.rs,tests/**/*.rs}"),
    "release-validation.mdc": (".cursor/rules/release-validation.mdc", 5, "area_context",
                               "**/{agent/validation/*.md,agent/validation/*.mdx,"
                               "releases/*/agent_validation.md}"),
    "kotlin-testing.instructions.md": (".github/instructions/testing.instructions.md", 9,
                                       "area_context",
                                       "**/{*.test.kt,*.spec.kt,*Test.kt,*Spec.kt}"),
    "fiscal-api-rules.md": (".windsurf/rules/api-rules.md", 10, "area_context", "api/**/*"),
    "webapp-copilot-instructions.md": (".github/copilot-instructions.md", 8, "guidelines",
                                       None),
    "bluecentre-AGENTS.md": ("services/AGENTS.md", 41, "area_context", "services/**"),
    "bluecentre-helm-repositories.mdc": (".cursor/rules/helm.mdc", 10, "area_context",
                                         "{terraform_dev_local/helm_*.tf,"
                                         "pulumi_dev_local/pkg/applications/*.go}"),
    "lyrebird-CLAUDE.md": ("lyrebird/CLAUDE.md", 18, "area_context", "lyrebird/**"),
}


def imported(repo: Path, *args: str) -> dict:
    return aide_ok(repo, "import", *args, "--json").json()


def listed(repo: Path) -> list[dict]:
    return aide_ok(repo, "list", "--json").json()["memories"]


def test_real_rules_files_import_without_junk(repo: Path) -> None:
    for name, (dest, *_rest) in REAL_FILES.items():
        (repo / dest).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(FIXTURES / name, repo / dest)
    doc = imported(repo, *(dest for dest, *_ in REAL_FILES.values()))
    assert doc["skipped"] == [] and doc["dry_run"] is False
    for name, (dest, count, layer, scope) in REAL_FILES.items():
        mine = [m for m in doc["imported"] if m["why"].rsplit(":", 1)[0] == dest]
        assert len(mine) == count, name
        assert {(m["layer"], m["scope"]) for m in mine} == {(layer, scope)}, name
    source = {dest: (FIXTURES / name).read_text(encoding="utf-8").split("\n")
              for name, (dest, *_r) in REAL_FILES.items()}
    for m in doc["imported"]:
        what = m["what"]
        assert m["source"] == "import"
        # code and tables stay with their rule (or are the whole content of a heading)
        assert not what.lstrip().startswith(("#", "<!--", "---"))
        assert not re.fullmatch(r"[\w `*]{0,30}:", what)  # "Example:", "**Key Methods:**"
        assert "[Overview](#overview)" not in what  # a table of contents
        path, line = m["why"].rsplit(":", 1)
        first = re.sub(r"^([-*+]|\d+[.)])\s+", "", what.split("\n")[0])
        # `why` names the line the memory starts on (a whole list: its first entry's)
        assert first.split()[0] in source[path][int(line) - 1]
    labels = {m["context_label"] for m in doc["imported"]}
    assert "Repository map" in labels and "Unit tests" in labels
    nested = [m["what"] for m in doc["imported"] if "RealtimeInput.java" in m["what"]]
    assert nested == ["**`RealtimeInput.java`** - holds the keyboard state\n"
                      "- flags are volatile because the input thread writes them\n"
                      "- `isEnabled()` gates the whole real-time mode"]
    assert len(listed(repo)) == sum(c for _d, c, *_r in REAL_FILES.values())


@pytest.mark.quick
def test_reimport_skips_and_counts_what_exists(repo: Path) -> None:
    write(repo, "CLAUDE.md", "# Rules\n\n- Run the linter before every commit\n"
          "- Keep functions short and named for what they do\n")
    first = imported(repo, "CLAUDE.md")
    assert len(first["imported"]) == 2
    assert all(m["path"] in git(repo, "diff", "--cached", "--name-only")
               for m in first["imported"])
    r = aide_ok(repo, "import", "CLAUDE.md")
    assert "Imported 0 memories from CLAUDE.md; 2 already there." in r.stdout
    again = imported(repo, "CLAUDE.md")
    assert again["imported"] == []
    assert [(s["reason"], s["uuid"]) for s in again["skipped"]] == [
        ("exists", m["uuid"]) for m in first["imported"]]
    assert len(listed(repo)) == 2


def test_dry_run_writes_nothing(repo: Path) -> None:
    write(repo, "AGENTS.md", "- Prefer composition over inheritance\n")
    before = git(repo, "status", "--porcelain")
    doc = imported(repo, "AGENTS.md", "--dry-run")
    assert doc["dry_run"] is True
    assert [(m["what"], m["layer"], m["why"]) for m in doc["imported"]] == [
        ("Prefer composition over inheritance", "guidelines", "AGENTS.md:1")]
    assert git(repo, "status", "--porcelain") == before
    assert listed(repo) == []


def test_secrets_are_refused_per_item_and_the_rest_imported(repo: Path) -> None:
    token = "ghp_" + "a1B2" * 9
    write(repo, "CLAUDE.md", "# Setup\n\n- Deploy with the usual script in tools/\n"
          f"- The CI token is {token}\n- Never push straight to main\n")
    r = aide(repo, "import", "CLAUDE.md", "--json")
    assert r.returncode == 1
    assert "CLAUDE.md:4" in r.stderr and "secret" in r.stderr
    assert r.stderr.strip().splitlines()[-1].startswith("git-aide: error: 1 item refused")
    assert token not in r.stdout + r.stderr
    doc = json.loads(r.stdout)
    assert [s["reason"] for s in doc["skipped"]] == ["secret"]
    assert sorted(m["what"] for m in listed(repo)) == [
        "Deploy with the usual script in tools/", "Never push straight to main"]


def test_invalid_scope_is_refused_per_item(repo: Path) -> None:
    write(repo, ".cursor/rules/out.mdc", "---\nglobs: ../elsewhere/**\n---\n"
          "- First rule for the other place\n- Second rule for the other place\n")
    write(repo, ".cursor/rules/ok.mdc", "---\nglobs: src/**\n---\n- A rule for src\n")
    r = aide(repo, "import", ".cursor/rules/out.mdc", ".cursor/rules/ok.mdc", "--json")
    assert r.returncode == 1
    doc = json.loads(r.stdout)
    assert [(s["reason"], s["where"]) for s in doc["skipped"]] == [
        ("invalid_scope", ".cursor/rules/out.mdc:4"),
        ("invalid_scope", ".cursor/rules/out.mdc:5")]
    assert "climbs out" in doc["skipped"][0]["message"]
    write(repo, "ctl.md", "- a rule with a \x1b[31m colour code\n- a clean rule\n")
    r = aide(repo, "import", "ctl.md")
    assert r.returncode == 1
    assert "ctl.md:1: not imported: what: holds a control character" in r.stderr
    assert sorted((m["what"], m["scope"]) for m in listed(repo)) == [
        ("A rule for src", "src/**"), ("a clean rule", None)]


def test_layer_and_scope_flags_and_folder_files(repo: Path) -> None:
    write(repo, "packages/api/CLAUDE.md", "- Every handler returns a typed response\n")
    write(repo, "notes.md", "A plain note about the build that is long enough.\n")
    doc = imported(repo, "packages/api/CLAUDE.md", "notes.md")
    assert [(m["layer"], m["scope"]) for m in doc["imported"]] == [
        ("area_context", "packages/api/**"), ("technical", None)]
    write(repo, "team.md", "- Review every pull request within a day\n")
    doc = imported(repo, "team.md", "--layer", "preferences", "--scope", "web/**")
    assert [(m["layer"], m["scope"]) for m in doc["imported"]] == [("preferences", "web/**")]
    for name in (".cursorrules", ".windsurfrules", "GEMINI.md"):
        write(repo, name, f"- A team rule that {name} states\n")
    doc = imported(repo, ".cursorrules", ".windsurfrules", "GEMINI.md")
    assert [(m["layer"], m["scope"], m["why"]) for m in doc["imported"]] == [
        ("guidelines", None, ".cursorrules:1"), ("guidelines", None, ".windsurfrules:1"),
        ("guidelines", None, "GEMINI.md:1")]
    write(repo, ".claude/rules/db.md", "---\npaths:\n  - \"db/**\"\n---\n- Migrations are "
          "never edited after merge\n")
    assert [(m["layer"], m["scope"]) for m in imported(repo, ".claude/rules/db.md")[
        "imported"]] == [("area_context", "db/**")]
    r = aide(repo, "import", "team.md", "--scope", "/abs/**")
    assert r.returncode == 1 and "absolute" in r.stderr and "Traceback" not in r.stderr


def test_a_file_outside_the_repository(repo: Path, tmp_path: Path) -> None:
    write(tmp_path, "elsewhere/CLAUDE.md", "- A rule kept outside the repository\n")
    doc = imported(repo, str(tmp_path / "elsewhere" / "CLAUDE.md"))
    assert [(m["layer"], m["scope"]) for m in doc["imported"]] == [("guidelines", None)]
    assert doc["imported"][0]["why"] == str(tmp_path / "elsewhere" / "CLAUDE.md") + ":1"


def test_missing_file_is_one_clear_error(repo: Path) -> None:
    r = aide(repo, "import", "NOPE.md")
    assert r.returncode == 1
    assert r.stderr == "git-aide: error: no such file: NOPE.md\n"


def test_frontmatter_variants() -> None:
    fm = frontmatter.front_matter
    meta, start = fm(["---", "description: 'It''s here'", "globs: [\"a/**\", b/*.{c,d}]",
                      "alwaysApply: TRUE", "---", "", "body"])
    assert meta == {"description": "It's here", "globs": ["a/**", "b/*.{c,d}"],
                    "alwaysApply": True}
    assert start == 6
    meta, _ = fm(["---", "description: >", "  folded", "  text", "globs:", "  - \"x/**\"",
                  "  - y/** # comment", "tools:", "  cursor:", "    deep: 1", "---"])
    assert meta == {"description": "folded text", "globs": ["x/**", "y/**"], "tools": None}
    assert fm(["---", 'globs: "*.jira", "*.confluence"', "---"])[0] == {
        "globs": ["*.jira", "*.confluence"]}
    assert fm(["# no front matter", "---"]) == ({}, 0)
    assert fm(["---", "# a thematic break, then a setext heading", "---"]) == ({}, 0)
    assert fm(["---", "not closed"]) == ({}, 0)
    assert frontmatter.combine_globs("src/**/*.ts, src/**/*.tsx") == "src/**/*.{ts,tsx}"
    assert frontmatter.combine_globs(["a/**", "b/**"]) == "{a/**,b/**}"
    assert frontmatter.combine_globs("src/x/**,src/y/**") == "src/{x/**,y/**}"
    assert frontmatter.combine_globs(["./lib/**", "/lib/**"]) == "lib/**"
    assert frontmatter.combine_globs("**") is None and frontmatter.combine_globs(None) is None
    assert rules.file_defaults(".cursor/rules/a.mdc", {"alwaysApply": True,
                                                       "globs": "x/**"}) == ("guidelines", None)
    assert rules.file_defaults(".cursor/rules/a.mdc", {"description": "d"}) == (
        "technical", None)
    assert rules.file_defaults("x.instructions.md", {"applyTo": "**"}) == ("guidelines", None)
    assert rules.file_defaults(".windsurf/rules/r.md", {"trigger": "always_on"}) == (
        "guidelines", None)
    assert rules.file_defaults(".windsurf/rules/r.md", {"trigger": "manual"}) == (
        "technical", None)


def test_nested_lists_blocks_and_stubs() -> None:
    text = (
        "Intro that is long enough to be a memory\nand wraps.\n\n"
        "1. First step of the release\n   1. tag it\n   2. push it\n"
        "2. Second step\n   continued lazily\n\n"
        "- parent item\n  - child\n    - grandchild\n  - second child\n\n"
        "   indented paragraph inside the list item\n\n"
        "Example:\n```\ncode line\n```\n"
        "<!-- comment that is long enough to be a paragraph -->\n"
        "| a | b |\n|---|---|\n| long table cell text | x |\n\n"
        "Heading in setext style\n=======================\n\n"
        "- [Only a link](#anchor)\n- tiny\n\n"
        "Prerequisites for a local build:\n\n- Docker\n- Node 20 or newer\n\n"
        "The rules below are enforced in review:\n"
        "- Every public function has a docstring of one line\n"
        "- Every change to the schema comes with a migration and a test that runs it\n")
    doc = markdown.parse(text)
    lines = text.split("\n")
    # Numbered steps are one procedure; "Example:" and its code stay with the rule above
    # them; a sentence introducing a list keeps it.
    assert [(i.what, i.line, i.label) for i in doc.items] == [
        ("Intro that is long enough to be a memory and wraps.", 1, None),
        ("1. First step of the release\n  1. tag it\n  2. push it\n"
         "2. Second step continued lazily", 4, None),
        ("parent item\n- child\n  - grandchild\n- second child\n"
         "indented paragraph inside the list item\nExample:\n```\ncode line\n```", 10, None),
        ("Prerequisites for a local build:\n- Docker\n- Node 20 or newer",
         lines.index("Prerequisites for a local build:") + 1,
         "Heading in setext style"),
        ("The rules below are enforced in review:\n"
         "- Every public function has a docstring of one line\n"
         "- Every change to the schema comes with a migration and a test that runs it",
         lines.index("The rules below are enforced in review:") + 1,
         "Heading in setext style"),
    ]
    assert [(line, why) for line, why in doc.dropped] == [
        (lines.index("<!-- comment that is long enough to be a paragraph -->") + 1,
         "HTML and comments"),
        (lines.index("| a | b |") + 1, "tables nothing introduces"),
        (lines.index("- [Only a link](#anchor)") + 1, "tables of contents"),
        (lines.index("- tiny") + 1, "fragments too short to be a rule")]


def test_import_text_serves_the_mcp_tool(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from git_aide.app.context import open_context

    monkeypatch.chdir(repo)
    ctx = open_context()
    r, cache = ctx.repo, ctx.cache
    doc = rules.import_text(r, cache, "## Deploys\n\n- Deploy on Tuesdays only\n",
                            layer="technical", scope="deploy/**", context_label="ops")
    assert [(m["what"], m["layer"], m["scope"], m["context_label"], m["why"])
            for m in doc["imported"]] == [
        ("Deploy on Tuesdays only", "technical", "deploy/**", "ops", "import:3")]
    again = rules.import_text(r, cache, "- Deploy on Tuesdays only\n", layer="technical",
                              scope="deploy/**")
    assert again["imported"] == [] and again["skipped"][0]["reason"] == "exists"


def test_a_sentence_introducing_short_rules_gives_one_memory_per_rule() -> None:
    doc = markdown.parse("Follow these rules when writing code:\n"
                      "- Use 2-space indentation\n- Prefer const over let\n"
                      "- Avoid default exports\n\n"
                      "Code style:\n- Use tabs in Makefiles\n- Never commit .env files\n\n"
                      "Prerequisites:\n- Docker\n- Node 20\n")
    assert [i.what for i in doc.items] == [
        "Use 2-space indentation", "Prefer const over let", "Avoid default exports",
        "Use tabs in Makefiles", "Never commit .env files",
        "Prerequisites:\n- Docker\n- Node 20"]


# -- issue 37, item 13: rules that stand alone -----------------------------------------------

def _by_line(repo: Path) -> list[tuple[str, str]]:
    """(why, what) of every memory `git aide list --json` shows, in the file's order."""
    return sorted(((m["why"], m["what"]) for m in listed(repo)),
                  key=lambda x: int(x[0].rsplit(":", 1)[1]))


def test_introductions_and_lines_about_the_file_are_left_out(repo: Path) -> None:
    write(repo, "AGENTS.md", "# Contributor Guide\n\n"
          "Welcome to the repository for the Acme SDK! We are glad you are here.\n\n"
          "This guide helps new contributors get started with the Acme SDK repository. It "
          "covers repo structure and how to test your work.\n\n"
          "**Location:** `AGENTS.md` at the repository root.\n\n"
          "## Table of Contents\n\n1. [Policies](#policies)\n2. [Operation](#operation)\n\n"
          "## Policies\n\n### Releases\n\n"
          "Tag releases from main only, after the changelog is merged.\n")
    r = aide_ok(repo, "import", "AGENTS.md")
    assert _by_line(repo) == [
        ("AGENTS.md:18", "Tag releases from main only, after the changelog is merged.")]
    assert r.stdout.splitlines()[-1] == (
        "Imported 1 memory from AGENTS.md; 0 already there; left out: welcomes (1), lines "
        "about the file itself (1), metadata about the file (1), tables of contents (1).")


def test_a_paragraph_leaning_on_the_one_before_is_one_memory_with_it(repo: Path) -> None:
    write(repo, "src/ui/AGENTS.md",
          "## Adapter properties\n\n"
          "A field earns an adapter property when **both** hold:\n"
          "- the adapter consumes it\n- it names a concept every UI protocol has\n\n"
          "One without the other is the trap: a protocol-specific property with a generic "
          "name breaks the first adapter's return type.\n\n"
          "## The event stream owns what it emits\n\n"
          "A value a stream emits is a field of the stream, set from the run input.\n\n"
          "This is the opposite case from the adapter-property rule above, not an exception "
          "to it.\n\n"
          "## Tooling\n\n"
          "This project uses pnpm workspaces for every package.\n\n"
          "It is worth running the linter before every push to the main branch.\n")
    aide_ok(repo, "import", "src/ui/AGENTS.md")
    assert _by_line(repo) == [
        ("src/ui/AGENTS.md:3", "A field earns an adapter property when **both** hold:\n"
         "- the adapter consumes it\n- it names a concept every UI protocol has\n"
         "One without the other is the trap: a protocol-specific property with a generic "
         "name breaks the first adapter's return type."),
        ("src/ui/AGENTS.md:11", "A value a stream emits is a field of the stream, set from "
         "the run input.\nThis is the opposite case from the adapter-property rule above, "
         "not an exception to it."),
        # "This project" names the project, not the rule above; "It is worth" is no pronoun
        ("src/ui/AGENTS.md:17", "This project uses pnpm workspaces for every package."),
        ("src/ui/AGENTS.md:19", "It is worth running the linter before every push to the "
         "main branch.")]


def test_code_stays_code_and_stays_with_its_lead_in(repo: Path) -> None:
    write(repo, "CLAUDE.md",
          "## Testing\n\n"
          "- Run the full test suite:\n```bash\nmake tests\n```\n"
          "- Run one test:\n```bash\nuv run pytest -k name\n```\n\n"
          "Run the linter:\n    make lint\n    make mypy\n\n"
          "## Layout\n\n"
          "src/\n├── api/      # the HTTP handlers\n└── cli/      # the command line\n\n"
          "## Deploy\n\n```bash\nmake deploy\n```\n")
    aide_ok(repo, "import", "CLAUDE.md")
    assert _by_line(repo) == [
        ("CLAUDE.md:3", "Run the full test suite:\n```bash\nmake tests\n```"),
        ("CLAUDE.md:7", "Run one test:\n```bash\nuv run pytest -k name\n```"),
        ("CLAUDE.md:12", "Run the linter:\n```\nmake lint\nmake mypy\n```"),
        # a tree markdown reads as a paragraph keeps its lines; code nothing introduces
        # takes the heading above it as its lead-in
        ("CLAUDE.md:16", "Layout\n```\nsrc/\n├── api/      # the HTTP handlers\n"
         "└── cli/      # the command line\n```"),
        ("CLAUDE.md:22", "Deploy\n```bash\nmake deploy\n```")]
    assert not any(what.startswith("```") for _why, what in _by_line(repo))


def test_a_real_contributor_guide_imports_as_rules_that_stand_alone(repo: Path) -> None:
    shutil.copy(FIXTURES / "openai-agents-AGENTS.md", repo / "AGENTS.md")
    doc = imported(repo, "AGENTS.md")
    whats = [m["what"] for m in listed(repo)]
    assert len(whats) == len(doc["imported"])
    assert not any(w.startswith(("This guide", "**Location:**", "```")) for w in whats)
    assert "Run the full test suite:\n```bash\nmake tests\n```" in whats
    assert ("When `$code-change-verification` applies, run the full sequence in order (or use "
            "the skill scripts):\n```bash\nmake format\nmake lint\nmake mypy\nmake tests\n```"
            ) in whats
    assert [(x["where"], x["reason"]) for x in doc["left_out"]] == [
        ("AGENTS.md:3", "lines about the file itself"),
        ("AGENTS.md:5", "metadata about the file"), ("AGENTS.md:9", "tables of contents")]


def test_imported_code_reaches_the_agent_as_code(repo: Path) -> None:
    # A rule with its fenced commands keeps their lines in recall, the hooks and MCP text.
    (repo / "AGENTS.md").write_text("# Testing\n\n- Run the full test suite:\n\n"
                                    "```bash\nmake tests\nmake lint\n```\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    aide_ok(repo, "import", "AGENTS.md")
    shown = aide_ok(repo, "recall").stdout
    assert "```bash\n" in shown and "make tests\n" in shown and "make lint" in shown
    start = {"session_id": "code", "cwd": str(repo), "hook_event_name": "SessionStart",
             "source": "startup"}
    text = hook_context(hook(repo, "session-start", start)[1])  # Claude: no AGENTS.md
    assert "```bash\n" in text and "make tests\n" in text and "make tests make lint" not in text
