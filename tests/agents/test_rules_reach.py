"""Where `import` may read beyond the files named (issue 36, items 3 and 4).

A rules file a clone brings must not lead `import` to text that is nobody's rules: a
committed link out of the working tree (`AGENTS.md -> ../private.md`), or an `@` import
of an ignored file (`@.env`) or of the git folder (`@.git/config`). Their lines would
become memories, staged, and published by the next commit; only the secret check stood in
the way, and a host name, a Sentry DSN or a config without a password pass it.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from helpers import MEM, aide, aide_ok, git, in_this_process, make_repo, served, write

#: What the files a rules file must not lead to hold: rules by their form, so that
#: reading them makes memories (a defect shows as these words in the memories).
PRIVATE = "- The staging database is db7.internal.example.com\n"
#: A rule of the repository's own, imported whatever else is refused.
OURS = "- Run the linter before every commit\n"


def memories(repo: Path) -> list[str]:
    """What each memory says (`git aide list --json`)."""
    return [m["what"] for m in aide_ok(repo, "list", "--json").json()["memories"]]


def on_disk(repo: Path) -> str:
    """Every memory file's text, together."""
    folder = repo / MEM
    return "".join(p.read_text() for p in sorted(folder.rglob("*")) if p.is_file())


def _commit_all(repo: Path, message: str) -> None:
    git(repo, "add", "-A")
    git(repo, "commit", "-qm", message)


# -- item 3: a discovered link out of the working tree -----------------------------------

@pytest.mark.parametrize("absolute", [False, True])
def test_a_rules_file_linked_outside_the_repository_is_refused(
        repo: Path, tmp_path: Path, absolute: bool) -> None:
    write(tmp_path, "private.md", PRIVATE)
    target = str(tmp_path / "private.md") if absolute else "../private.md"
    (repo / "AGENTS.md").symlink_to(target)
    write(repo, "docs/rules.md", "- Keep functions short and named well\n")
    (repo / "CLAUDE.md").symlink_to("docs/rules.md")  # a link inside the tree: read
    write(repo, "GEMINI.md", OURS)
    _commit_all(repo, "rules, one a link out of the repository")
    r = aide(repo, "import")
    assert r.returncode == 0, r.stderr
    assert (f"git-aide: warning: AGENTS.md is a link to {target}, which is outside the "
            "working tree; not read\n") in r.stderr
    assert sorted(memories(repo)) == ["Keep functions short and named well",
                                      "Run the linter before every commit"]
    assert "db7.internal" not in on_disk(repo) and "db7.internal" not in r.stdout
    assert "db7.internal" not in git(repo, "diff", "--cached")


def test_only_a_link_outside_is_one_error_naming_it(repo: Path, tmp_path: Path) -> None:
    write(tmp_path, "private.md", PRIVATE)
    (repo / "AGENTS.md").symlink_to("../private.md")
    _commit_all(repo, "a rules file that is a link out of the repository")
    r = aide(repo, "import", "--json")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr == ("git-aide: error: no rules files to import: AGENTS.md is a link to "
                        "../private.md, which is outside the working tree; not read\n")
    assert memories(repo) == []


def test_a_link_to_an_ignored_file_or_into_git_is_refused(repo: Path) -> None:
    write(repo, ".gitignore", ".env\n")
    write(repo, ".env", PRIVATE)
    (repo / "AGENTS.md").symlink_to(".env")
    (repo / "CLAUDE.md").symlink_to(".git/description")
    write(repo, ".git/description", "- The deploy host is deploy3.internal.example.com\n")
    write(repo, "GEMINI.md", OURS)
    _commit_all(repo, "links to an ignored file and into the git folder")
    r = aide(repo, "import")
    assert r.returncode == 0, r.stderr
    assert ("AGENTS.md is a link to .env, which is ignored by git; not read" in r.stderr)
    assert ("CLAUDE.md is a link to .git/description, which is inside the git folder; "
            "not read") in r.stderr
    assert memories(repo) == ["Run the linter before every commit"]


def test_rules_in_a_folder_now_linked_outside_are_refused(repo: Path, tmp_path: Path) -> None:
    # The index lists .cursor/rules/db.mdc; the tree now has .cursor as a link elsewhere.
    write(repo, ".cursor/rules/db.mdc", "---\nalwaysApply: true\n---\n" + OURS)
    _commit_all(repo, "cursor rules")
    elsewhere = tmp_path / "elsewhere"
    write(elsewhere, "rules/db.mdc", "---\nalwaysApply: true\n---\n" + PRIVATE)
    for p in sorted((repo / ".cursor").rglob("*"), reverse=True):
        p.unlink() if p.is_file() else p.rmdir()
    (repo / ".cursor").rmdir()
    (repo / ".cursor").symlink_to(elsewhere)
    write(repo, "GEMINI.md", OURS)
    r = aide(repo, "import")
    assert r.returncode == 0, r.stderr
    assert (f".cursor/rules/db.mdc lies in a linked folder, at "
            f"{os.path.realpath(elsewhere / 'rules' / 'db.mdc')}, which is outside the working "
            "tree; not read") in r.stderr
    assert memories(repo) == ["Run the linter before every commit"]


def test_a_linked_rules_folder_is_not_followed(repo: Path, tmp_path: Path) -> None:
    # git lists a link, never what is behind it: nothing of the folder is discovered
    # (this held before issue 36; kept so).
    write(tmp_path, "elsewhere/db.mdc", "---\nalwaysApply: true\n---\n" + PRIVATE)
    (repo / ".cursor").mkdir()
    (repo / ".cursor" / "rules").symlink_to(tmp_path / "elsewhere")
    write(repo, "GEMINI.md", OURS)
    _commit_all(repo, "a rules folder that is a link")
    r = aide(repo, "import")
    assert r.returncode == 0, r.stderr
    assert memories(repo) == ["Run the linter before every commit"]


# -- item 4: `@` imports only of files git tracks or would track ---------------------------

def test_an_import_of_an_ignored_file_is_refused(repo: Path) -> None:
    write(repo, ".gitignore", ".env\nsecrets/\n")
    write(repo, ".env", "- The Sentry DSN is https://0123abcd@o1.ingest.sentry.io/42\n")
    write(repo, "secrets/hosts.md", PRIVATE)
    write(repo, "docs/style.md", "- Use tabs in Makefiles\n")
    write(repo, "CLAUDE.md", "@.env\n@secrets/hosts.md\n@docs/style.md\n\n" + OURS)
    r = aide(repo, "import")
    assert r.returncode == 0, r.stderr
    assert ("git-aide: warning: CLAUDE.md imports @.env, @secrets/hosts.md, which are "
            "ignored by git; not read\n") in r.stderr
    assert sorted(memories(repo)) == ["Run the linter before every commit",
                                      "Use tabs in Makefiles"]
    assert "sentry" not in on_disk(repo) and "db7.internal" not in on_disk(repo)


def test_an_import_into_the_git_folder_is_refused(repo: Path) -> None:
    write(repo, ".git/description", "- The deploy host is deploy3.internal.example.com\n")
    write(repo, "docs/deep.md", "@../.git/config\n\n- Keep functions short\n")
    write(repo, "AGENTS.md", "@.git/description\n@docs/deep.md\n\n" + OURS)
    r = aide(repo, "import", "AGENTS.md")
    assert r.returncode == 0, r.stderr
    assert ("git-aide: warning: AGENTS.md imports @.git/description, which is inside the git "
            "folder; not read\n") in r.stderr
    assert ("git-aide: warning: docs/deep.md imports @../.git/config, which is inside the git "
            "folder; not read\n") in r.stderr
    assert sorted(memories(repo)) == ["Keep functions short",
                                      "Run the linter before every commit"]
    text = on_disk(repo)
    assert "deploy3" not in text and "repositoryformatversion" not in text


def test_an_import_into_a_git_folder_elsewhere_is_refused(tmp_path: Path) -> None:
    # `--separate-git-dir` puts the git folder anywhere, here inside the working tree
    # under another name.
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", "--separate-git-dir", str(repo / "meta"))
    make_repo(repo)
    write(repo, "meta/description", PRIVATE)
    write(repo, "CLAUDE.md", "@meta/description\n\n" + OURS)
    r = aide(repo, "import")
    assert r.returncode == 0, r.stderr
    assert ("CLAUDE.md imports @meta/description, which is inside the git folder; "
            "not read") in r.stderr
    assert memories(repo) == ["Run the linter before every commit"]


def test_a_submodule_is_asked_what_it_ignores(repo: Path, tmp_path: Path) -> None:
    # git answers for no path in a submodule: the submodule is asked. What git tracks is
    # read (in the submodule, or tracked though a pattern ignores it); what it ignores not.
    write(repo, ".gitignore", "*.local.md\n")
    write(repo, "team.local.md", "- Deploy on Tuesdays only\n")
    git(repo, "add", "-f", "team.local.md")
    sub = make_repo(tmp_path / "shared", init=False)
    write(sub, "AGENTS.md", "- Answer in English in every review\n")
    write(sub, ".gitignore", "notes.md\n")
    _commit_all(sub, "shared rules")
    git(repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(sub), "shared")
    write(repo, "shared/notes.md", PRIVATE)
    write(repo, "CLAUDE.md", "@team.local.md\n@shared/AGENTS.md\n@shared/notes.md\n\n" + OURS)
    r = aide(repo, "import", "CLAUDE.md")
    assert r.returncode == 0, r.stderr
    assert r.stderr == ("git-aide: warning: CLAUDE.md imports @shared/notes.md, which is "
                        "ignored by git; not read\n")
    assert sorted(memories(repo)) == ["Answer in English in every review",
                                      "Deploy on Tuesdays only",
                                      "Run the linter before every commit"]


def test_the_mcp_import_follows_no_import(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # aide_import takes text, not a file: an `@` line in it names a file it never reads.
    from git_aide.agents.mcp import server

    write(repo, ".gitignore", ".env\n")
    write(repo, ".env", PRIVATE)
    in_this_process(repo, monkeypatch)
    doc = served(server.ServerState(), "aide_import", {"content": "@.env\n@.git/description\n\n"
                                                  + OURS, "layer": "technical"})
    assert [m["what"] for m in doc["imported"]] == ["Run the linter before every commit"]
    assert memories(repo) == ["Run the linter before every commit"]
