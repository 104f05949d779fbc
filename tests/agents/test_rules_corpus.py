"""Issue 20, items 4-6: `import` keeps whole rules (scored on real rules files), finds the
rules files agents read by itself and follows their `@` imports; `export` never writes
what an agent already reads, and keeps the source's headings."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import AIDE, BASE_ENV, ROOT, aide, aide_ok, git, make_repo, remember, write


def _load_bench() -> Any:
    """bench/rules/run.py under a name of its own: other benches are `run.py` too, and
    one test process may load more than one."""
    import importlib.util

    path = ROOT / "bench" / "rules" / "run.py"
    spec = importlib.util.spec_from_file_location("bench_rules_run", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


corpus = _load_bench()

TRIGGER_IMPORTS = """\
### Imports

**Prefer static imports over dynamic imports.** Only use dynamic `import()` when:
- Circular dependencies cannot be resolved otherwise
- Code splitting is genuinely needed for performance
- The module must be loaded conditionally at runtime

Dynamic imports add unnecessary overhead in hot paths and make code harder to analyze.
"""


def imported(repo: Path, *args: str) -> dict:
    return aide_ok(repo, "import", "--json", *args).json()


def whats(doc: dict) -> list[str]:
    return [m["what"] for m in doc["imported"]]


# -- item 4: whole rules ------------------------------------------------------------------

def test_the_corpus_of_real_rules_files_is_split_into_whole_rules(tmp_path: Path) -> None:
    rows = corpus.score(corpus.import_all(tmp_path, AIDE, BASE_ENV))
    precision, recall, colons = corpus.totals(rows)
    assert len(rows) >= 10
    assert precision >= corpus.BAR and recall >= corpus.BAR, corpus.table(rows)
    assert colons == 0  # no introduction that lost its list or code
    readme = (corpus.FIXTURES / "README.md").read_text(encoding="utf-8")
    for name, (_dest, repo) in corpus.CORPUS.items():
        assert f"`{name}`" in readme and f"`{repo}`" in readme, name  # source and licence


def test_a_sentence_introducing_a_list_keeps_it(repo: Path) -> None:
    write(repo, "AGENTS.md", TRIGGER_IMPORTS)
    doc = imported(repo, "AGENTS.md")
    assert whats(doc) == [
        "**Prefer static imports over dynamic imports.** Only use dynamic `import()` when:\n"
        "- Circular dependencies cannot be resolved otherwise\n"
        "- Code splitting is genuinely needed for performance\n"
        "- The module must be loaded conditionally at runtime",
        "Dynamic imports add unnecessary overhead in hot paths and make code harder to "
        "analyze."]
    assert [m["context_label"] for m in doc["imported"]] == ["Imports", "Imports"]


def test_code_stays_with_the_rule_it_belongs_to(repo: Path) -> None:
    write(repo, "CLAUDE.md", "## Formatting\n\nFormat and lint are enforced by CI. Run before "
          "committing:\n\n```bash\npnpm run format\npnpm run lint\n```\n\n"
          "- Only surround arrow function parameters when necessary. The following are "
          "correct:\n\n```typescript\nx => x + x\n```\n\n"
          "Always import from `@acme/sdk`, never from its subpaths.\n\n"
          "```ts\nimport { task } from \"@acme/sdk\";\n```\n")
    got = whats(imported(repo, "CLAUDE.md"))
    assert got == [
        "Format and lint are enforced by CI. Run before committing:\n"
        "```bash\npnpm run format\npnpm run lint\n```",
        "Only surround arrow function parameters when necessary. The following are correct:\n"
        "```typescript\nx => x + x\n```",
        "Always import from `@acme/sdk`, never from its subpaths.\n"
        "```ts\nimport { task } from \"@acme/sdk\";\n```"]
    assert not any(w.rstrip().endswith(":") for w in got)


def test_a_procedure_and_a_listing_stay_one_memory_each(repo: Path) -> None:
    write(repo, "AGENTS.md", "## Adding a tool\n\n1. Add the tool in `pkg/tools/`\n"
          "2. Register it in `pkg/toolsets/`\n3. Run `script/test`\n\n"
          "## Important reminders\n\n1. **NEVER** push tags\n2. **ALWAYS** run the linter\n\n"
          "## Layout\n\n- `src/` - the library\n- `tests/` - the test suite\n"
          "- `docs/` - the manual\n\n"
          "### Step 1: start the server\n\n```bash\nmake serve\n```\n\n"
          "### Step 2: open it\n\n```bash\nopen http://localhost:8000\n```\n")
    got = whats(imported(repo, "AGENTS.md"))
    assert got == [
        "1. Add the tool in `pkg/tools/`\n2. Register it in `pkg/toolsets/`\n"
        "3. Run `script/test`",
        "**NEVER** push tags", "**ALWAYS** run the linter",
        "- `src/` - the library\n- `tests/` - the test suite\n- `docs/` - the manual",
        "Step 1: start the server\n```bash\nmake serve\n```\n"
        "Step 2: open it\n```bash\nopen http://localhost:8000\n```"]


def test_cursor_links_are_plain_links_in_memories(repo: Path) -> None:
    write(repo, ".cursor/rules/db.mdc", "---\nglobs: src/**\n---\n- The schema lives in "
          "[schema.prisma](mdc:db/prisma/schema.prisma), never edit it by hand\n")
    [m] = imported(repo, ".cursor/rules/db.mdc")["imported"]
    assert m["what"] == ("The schema lives in [schema.prisma](db/prisma/schema.prisma), "
                         "never edit it by hand")


def test_import_says_what_it_kept_and_what_it_left_out(repo: Path) -> None:
    write(repo, "CLAUDE.md", "# CLAUDE.md\n\nThis file provides guidance to Claude Code when "
          "working with code in this repository.\n\n<!-- maintained by the platform team -->\n"
          "## Contents\n\n1. [Setup](#setup)\n2. [Style](#style)\n\n"
          "## Style\n\n- Use tabs for indentation\n- ok\n")
    r = aide_ok(repo, "import", "CLAUDE.md")
    assert r.stdout.splitlines()[-1] == (
        "Imported 1 memory from CLAUDE.md; 0 already there; left out: lines about the file "
        "itself (1), HTML and comments (1), tables of contents (1), fragments too short to "
        "be a rule (1).")
    doc = imported(repo, "CLAUDE.md")
    assert [(x["where"], x["reason"]) for x in doc["left_out"]] == [
        ("CLAUDE.md:3", "lines about the file itself"), ("CLAUDE.md:5", "HTML and comments"),
        ("CLAUDE.md:8", "tables of contents"), ("CLAUDE.md:14", "fragments too short to be "
                                                                "a rule")]


def test_the_markdown_tokenizer_stays_off_the_hot_path(repo: Path) -> None:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "recall",
                           "src/app.py"], cwd=repo, capture_output=True, text=True,
                          env=BASE_ENV)
    assert proc.returncode == 0, proc.stderr
    assert "markdown_it" not in proc.stderr


# -- item 5: import finds the rules files and follows @ imports -------------------------------

def test_import_with_no_file_finds_every_rules_file_agents_read(repo: Path) -> None:
    write(repo, "CLAUDE.md", "@AGENTS.md\n")
    write(repo, "AGENTS.md", "- Run the linter before every commit\n")
    write(repo, "GEMINI.md", "- Answer in English in every review\n")
    write(repo, "packages/api/CLAUDE.md", "- Every handler returns a typed response\n")
    write(repo, "web/AGENTS.md", "- Components are function components\n")
    write(repo, ".cursorrules", "- Prefer composition over inheritance\n")
    write(repo, ".cursor/rules/db.mdc", "---\nglobs: db/**\n---\n- Migrations are never "
          "edited after merge\n")
    write(repo, ".github/copilot-instructions.md", "- Keep pull requests small\n")
    write(repo, ".github/instructions/py.instructions.md", "---\napplyTo: \"**/*.py\"\n---\n"
          "- Type hints on every public function\n")
    write(repo, ".windsurf/rules/docs.md", "---\ntrigger: always_on\n---\n- Docs are in "
          "British English\n")
    # not read: ignored, or what export generated
    write(repo, ".gitignore", "node_modules/\n")
    write(repo, "node_modules/pkg/CLAUDE.md", "- A dependency's own rule, not ours\n")
    write(repo, ".cursor/rules/git-aide-always.mdc", "---\nalwaysApply: true\n---\n"
          "<!-- git-aide:begin -->\n## Guidelines\n\n- A memory forgotten since\n"
          "<!-- git-aide:end -->\n")
    doc = imported(repo)
    got = sorted((m["why"], m["layer"], m["scope"]) for m in doc["imported"])
    assert got == [
        (".cursor/rules/db.mdc:4", "area_context", "db/**"),
        (".cursorrules:1", "guidelines", None),
        (".github/copilot-instructions.md:1", "guidelines", None),
        (".github/instructions/py.instructions.md:4", "area_context", "**/*.py"),
        (".windsurf/rules/docs.md:4", "guidelines", None),
        ("AGENTS.md:1", "guidelines", None),
        ("GEMINI.md:1", "guidelines", None),
        ("packages/api/CLAUDE.md:1", "area_context", "packages/api/**"),
        ("web/AGENTS.md:1", "area_context", "web/**")]
    assert "git aide import" not in doc["summary"] and doc["summary"].startswith(
        "Imported 9 memories from .cursorrules, AGENTS.md, CLAUDE.md, GEMINI.md and 6 more")
    # a second run finds the same files and adds nothing
    again = imported(repo)
    assert again["imported"] == [] and len(again["skipped"]) == 9


def test_import_follows_at_imports_inside_the_working_tree(repo: Path, tmp_path: Path) -> None:
    write(repo, "CLAUDE.md", "@AGENTS.md\n")
    write(repo, "AGENTS.md", "# Rules\n\n@docs/style.md\n@../outside.md\n\n"
          "Ask @jlowin before tagging a release.\n\n- ONLY use uv, NEVER pip\n")
    write(repo, "docs/style.md", "@../CLAUDE.md\n@deeper/one.md\n\n- Use tabs in Makefiles\n")
    for i in range(1, 8):  # a chain deeper than any agent follows
        write(repo, f"docs/deeper/{['one', 'two', 'three', 'four', 'five', 'six', 'seven'][i - 1]}"
              ".md", (f"@{['two', 'three', 'four', 'five', 'six', 'seven', 'none'][i - 1]}.md\n\n"
                      f"- Rule number {i} of the deep chain\n"))
    write(tmp_path, "outside.md", "- A rule from outside the repository\n")
    r = aide_ok(repo, "import", "CLAUDE.md", "--json")
    doc = r.json()
    got = [(m["why"], m["layer"]) for m in doc["imported"]]
    # five hops at most, as Claude Code follows them; CLAUDE.md imported again: no loop
    assert got == [("AGENTS.md:6", "guidelines"), ("AGENTS.md:8", "guidelines"),
                   ("docs/style.md:4", "guidelines"),
                   *((f"docs/deeper/{n}.md:3", "guidelines") for n in ("one", "two", "three"))]
    assert "A rule from outside" not in r.stdout
    assert any("@../outside.md, which is outside the working tree" in w
               for w in doc["warnings"])
    assert not any("jlowin" in w for w in doc["warnings"])  # a mention, not a file


def test_a_file_only_importing_another_reports_the_rules_it_reaches(repo: Path) -> None:
    write(repo, "CLAUDE.md", "@AGENTS.md\n")
    write(repo, "AGENTS.md", "- ONLY use uv, NEVER pip\n- Keep functions short\n")
    r = aide_ok(repo, "import", "CLAUDE.md")
    assert r.stdout.splitlines()[-1].startswith("Imported 2 memories from CLAUDE.md, AGENTS.md")
    write(repo, "GEMINI.md", "@MISSING.md\n")
    r = aide_ok(repo, "import", "GEMINI.md")
    assert "git-aide: warning: GEMINI.md imports @MISSING.md, which does not exist" in r.stderr


def test_a_file_that_does_not_exist_is_one_error_naming_it(repo: Path) -> None:
    write(repo, "CLAUDE.md", "- Run the linter before every commit\n")
    r = aide(repo, "import", "CLAUDE.md", ".cursor/rules/*.mdc")  # a glob the shell kept
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == ("git-aide: error: no such file: .cursor/rules/*.mdc (the shell found "
                        "no file for this pattern; `git aide import` with no file finds the "
                        "rules files by itself)\n")
    assert aide_ok(repo, "list", "--json").json()["memories"] == []


def test_import_with_no_file_and_no_rules_files_says_so(repo: Path) -> None:
    r = aide(repo, "import")
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("git-aide: error: no rules files here: looked for CLAUDE.md")


# -- item 6: export never duplicates what the agent reads ----------------------------------

def test_export_does_not_repeat_what_claude_reads_through_an_import(repo: Path) -> None:
    write(repo, "CLAUDE.md", "@AGENTS.md\n")
    agents_md = "# Rules\n\n- ONLY use uv, NEVER pip\n- Keep functions short and named well\n"
    write(repo, "AGENTS.md", agents_md)
    aide_ok(repo, "import")
    r = aide_ok(repo, "export", "--agent", "claude")
    assert "nothing changed" in r.stdout
    assert (repo / "CLAUDE.md").read_text() == "@AGENTS.md\n"
    remember(repo, "Squash before merging", "--layer", "guidelines")
    aide_ok(repo, "export", "--agent", "claude", "--agent", "codex")
    claude, agents = (repo / "CLAUDE.md").read_text(), (repo / "AGENTS.md").read_text()
    both = claude + agents
    assert both.count("ONLY use uv") == 1 and both.count("Squash before merging") == 1
    assert claude == "@AGENTS.md\n"  # Claude reads the block in AGENTS.md through @AGENTS.md
    assert agents.startswith(agents_md) and "- Squash before merging\n" in agents
    # the same export again changes nothing, and --check agrees
    assert "nothing changed" in aide_ok(repo, "export", "--agent", "claude", "--agent",
                                        "codex").stdout
    aide_ok(repo, "export", "--agent", "claude", "--agent", "codex", "--check")


def test_a_block_whose_memories_the_agent_now_reads_elsewhere_goes(repo: Path) -> None:
    remember(repo, "Squash before merging", "--layer", "guidelines")
    write(repo, "CLAUDE.md", "# Ours\n")
    aide_ok(repo, "export", "--agent", "claude")
    assert "- Squash before merging" in (repo / "CLAUDE.md").read_text()
    write(repo, "AGENTS.md", "- Squash before merging\n")
    (repo / "CLAUDE.md").write_text((repo / "CLAUDE.md").read_text().replace(
        "# Ours\n", "# Ours\n@AGENTS.md\n"))
    r = aide_ok(repo, "export", "--agent", "claude")
    assert r.stdout == "updated CLAUDE.md\n"
    assert (repo / "CLAUDE.md").read_text() == "# Ours\n@AGENTS.md\n"


def test_nested_rules_claude_loads_are_not_pointed_at(repo: Path) -> None:
    write(repo, "packages/api/CLAUDE.md", "- Every handler returns a typed response\n")
    aide_ok(repo, "import")
    remember(repo, "The web app talks to the API through the SDK only", "--scope", "web/**")
    aide_ok(repo, "export", "--agent", "claude")
    text = (repo / "CLAUDE.md").read_text()
    # one memory to recall (web/**), not the nested file's rule Claude reads by itself
    assert "_Not listed here: 1 memory scoped to paths" in text
    assert "typed response" not in text


def test_exported_blocks_keep_the_sources_headings(tmp_path: Path) -> None:
    a = make_repo(tmp_path / "a")
    write(a, "CLAUDE.md", "## Testing\n\n- Run pytest with -x\n\n## Style\n\n- Use tabs in "
          "Makefiles\n- Keep lines under 100 characters\n")
    aide_ok(a, "import")
    remember(a, "Squash before merging", "--layer", "guidelines")
    aide_ok(a, "export", "--agent", "codex")
    text = (a / "AGENTS.md").read_text()
    assert ("## Guidelines\n\n- Squash before merging\n\n### Testing\n\n- Run pytest with -x\n"
            "\n### Style\n\n- Use tabs in Makefiles\n- Keep lines under 100 characters\n") in text
    git(a, "add", "-A")
    git(a, "commit", "-qm", "rules")
    b = tmp_path / "b"
    git(tmp_path, "clone", "-q", str(a), str(b))
    aide_ok(b, "init", "--no-hooks")
    git(b, "rm", "-q", "-r", ".aide/memories")
    doc = imported(b, "AGENTS.md")
    assert sorted((m["what"], m["context_label"]) for m in doc["imported"]) == [
        ("Keep lines under 100 characters", "Style"), ("Run pytest with -x", "Testing"),
        ("Squash before merging", None), ("Use tabs in Makefiles", "Style")]


@pytest.mark.parametrize("agent", ["cursor", "copilot"])
def test_agents_reading_agents_md_get_no_copy_of_its_block(repo: Path, agent: str) -> None:
    remember(repo, "Squash before merging", "--layer", "guidelines")
    aide_ok(repo, "export", "--agent", "codex", "--agent", agent)
    found = [p for p in repo.rglob("*") if p.is_file() and ".git" not in p.parts
             and ".aide" not in p.parts and "Squash before merging" in p.read_text()]
    assert [p.relative_to(repo).as_posix() for p in found] == ["AGENTS.md"]


def test_a_file_of_thousands_of_imports_is_read_at_once(repo: Path) -> None:
    # `@` imports are found in time linear in the file, and named in one warning line
    write(repo, "CLAUDE.md", "".join(f"@docs/f{i}.md\n" for i in range(30_000))
          + "\n- Run the linter before every commit\n")
    proc = subprocess.run([*AIDE, "import", "--dry-run", "CLAUDE.md"], cwd=repo,
                          capture_output=True, text=True, env=BASE_ENV, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ("git-aide: warning: CLAUDE.md imports @docs/f0.md, @docs/f1.md, "
                           "@docs/f2.md and 29997 more, which do not exist\n")
    assert proc.stdout.splitlines()[-1].startswith("Would import 1 memory from CLAUDE.md")
