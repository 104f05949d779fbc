"""A path recall of imported rules and of memories that name the path (issue 37: the
right memories, in the right order)."""

from __future__ import annotations

from pathlib import Path

from helpers import aide_ok, claude_read, git, hook, remember, uuids
from helpers import hook_context as context

RULES = """# Capabilities

- Keep capabilities provider-agnostic: no provider SDK is imported here.
- Each capability declares the settings it reads.
- A capability never calls another capability directly.
- Capabilities register themselves in `__init__.py`, sorted by name.
- Errors raised here derive from CapabilityError.
- Log with the module's logger, never print.
- The thinking capability streams its tokens.
"""


def test_imported_rules_come_in_the_files_order(repo: Path) -> None:
    # One rules file, one scope: the file's order, whatever the path's words or the
    # import's timestamps say, so a budget that cuts the answer's end cuts the last rules.
    (repo / "capabilities").mkdir()
    (repo / "capabilities" / "AGENTS.md").write_text(RULES)
    (repo / "capabilities" / "thinking.py").write_text("")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    aide_ok(repo, "import", "capabilities/AGENTS.md")
    whats = [m["what"] for m in
             aide_ok(repo, "recall", "capabilities/thinking.py", "--json").json()["memories"]]
    assert len(whats) == 7
    assert whats[0].startswith("Keep capabilities provider-agnostic")
    assert whats[-1] == "The thinking capability streams its tokens."
    # the agent's per-file block, cut by its budget, keeps the first rules
    git(repo, "config", "aide.hooks.fileChars", "400")
    out = context(hook(repo, "pre-tool-use",
                       claude_read(repo, "capabilities/thinking.py", "s1"))[1])
    assert "provider-agnostic" in out


def test_a_memory_naming_the_path_stays_below_a_nearer_scope(repo: Path) -> None:
    # Two broad memories that share the file's rare words, two scoped to its folder:
    # the folder's come first (a mention outranks no scope that holds the file closer).
    broad = [remember(repo, f"Fixtures of models/test_anthropic/ are recorded, note {i}",
                      "--scope", "tests/**")["uuid"] for i in range(2)]
    near = [remember(repo, f"Stub the HTTP client here, rule {i}",
                     "--scope", "tests/models/**")["uuid"] for i in range(2)]
    got = uuids(aide_ok(repo, "recall", "tests/models/test_anthropic.py", "--json"))
    assert set(got[:2]) == set(near)
    assert set(got[2:4]) == set(broad)
    # a question still lifts what answers it
    got = uuids(aide_ok(repo, "recall", "tests/models/test_anthropic.py", "--query",
                        "recorded fixtures", "--json"))
    assert got[0] in broad


def test_a_path_recall_shows_the_always_on_memories(repo: Path) -> None:
    # An always-on memory that shares no word with the path still comes, after the
    # path's own, marked; a filter applies to it as to the others.
    scoped = remember(repo, "tokens rotate hourly", "--scope", "src/auth/**",
                      "--layer", "area_context")["uuid"]
    rule = remember(repo, "CI runs on Python 3.10", "--priority", "always")["uuid"]
    plain = remember(repo, "we deploy on Tuesdays")["uuid"]
    got = uuids(aide_ok(repo, "recall", "src/auth/login.py", "--json"))
    assert got == [scoped, rule]
    assert "(always-on)" in aide_ok(repo, "recall", "src/auth/login.py").stdout
    assert uuids(aide_ok(repo, "recall", "src/auth/login.py", "--layer", "area_context",
                         "--json")) == [scoped]
    # update --priority makes a memory always-on, or not; list marks and filters them
    aide_ok(repo, "update", plain[:8], "--priority", "always")
    aide_ok(repo, "update", rule[:8], "--priority", "normal")
    assert uuids(aide_ok(repo, "recall", "src/auth/login.py", "--json")) == [scoped, plain]
    assert uuids(aide_ok(repo, "list", "--priority", "always", "--json")) == [plain]
    assert set(uuids(aide_ok(repo, "list", "--priority", "normal", "--json"))) == {
        scoped, rule}
    # at a revision too; and a file written by hand, spaced its own way, counts
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "m")
    assert uuids(aide_ok(repo, "recall", "src/auth/login.py", "--rev", "HEAD", "--json")
                 ) == [scoped, plain]
    path = next((repo / ".aide" / "memories" / "technical").glob(f"{rule}.json"))
    path.write_text(path.read_text().replace('"priority": "normal"', '"priority" :"always"'))
    assert uuids(aide_ok(repo, "recall", "src/auth/login.py", "--json")) == [
        scoped, plain, rule]


def test_a_question_keeps_only_what_answers_it(repo: Path) -> None:
    # recall --query returns the memories that match the question, and with paths the
    # memories scoped to them, not the whole store in another order.
    redis = remember(repo, "sessions live in redis", "--scope", "src/auth/**")["uuid"]
    tokens = remember(repo, "tokens rotate hourly", "--scope", "src/auth/**")["uuid"]
    remember(repo, "billing is event-sourced")
    remember(repo, "docs are built with mkdocs", "--scope", "docs/**")
    wide = remember(repo, "the redis cluster has three nodes")["uuid"]
    got = uuids(aide_ok(repo, "recall", "--query", "redis", "--json"))
    assert set(got) == {redis, wide}
    got = uuids(aide_ok(repo, "recall", "src/auth/login.py", "--query", "redis", "--json"))
    assert got[0] == redis and set(got) == {redis, tokens, wide}
    assert uuids(aide_ok(repo, "recall", "--query", "kubernetes", "--json")) == []


def test_a_team_memory_comes_before_imported_rules_of_its_scope(repo: Path) -> None:
    # A rule imported from a file is also in a file some agent loads; the team's note
    # is only here: of one scope, it comes first, whatever the dates say.
    team = remember(repo, "packages/core must not import Node-only modules", "--scope",
                    "packages/core/**")["uuid"]
    (repo / "packages" / "core").mkdir(parents=True)
    (repo / "packages" / "core" / "CLAUDE.md").write_text(
        "# Core\n\n- Keep exports sorted.\n- Document every public function.\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", "rules")
    aide_ok(repo, "import", "packages/core/CLAUDE.md")
    got = aide_ok(repo, "recall", "packages/core/src/a.ts", "--json").json()["memories"]
    assert got[0]["uuid"] == team
    assert [m["what"] for m in got[1:]] == ["Keep exports sorted.",
                                            "Document every public function."]
