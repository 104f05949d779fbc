"""A new scope is checked when it is written (issue 20, item 12).

`remember --scope 'src/atuh/**'` (a typo) and `--scope 'src/[auth'` were stored without a
word, and `audit` called them orphaned later. A scope that matches no file of the working
tree is still written (it may name code still to come) with a one-line warning naming
the scope it was probably meant to be; a scope a reader would misread is refused.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, aide, aide_ok, git, make_repo, remember

MEM = ".aide/memories"


def write(repo: Path, *paths: str) -> None:
    for path in paths:
        f = repo / path
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(f"# {path}\n")


@pytest.fixture
def code(repo: Path) -> Path:
    """A repository with some committed code."""
    write(repo, "src/auth/login.py", "src/auth/tokens.py", "src/db/store.py",
          "lib/utils/dates.ts", "README.md")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "code")
    return repo


def memory_files(repo: Path) -> list[Path]:
    return sorted((repo / MEM).rglob("*.json"))


#: Texts unlike each other, so that no near-duplicate warning joins the scope's.
FACTS = iter(f"{a} {b}" for a in ("Retries", "Timestamps", "Uploads", "Sessions", "Queries",
                                  "Migrations", "Caches", "Webhooks", "Invoices", "Logs")
             for b in ("back off exponentially", "are stored in UTC", "stream in chunks",
                       "live in redis", "run inside one transaction", "need a reviewer",
                       "expire after a day", "are signed with HMAC", "round half up",
                       "drop personal data"))


def scope_warnings(repo: Path, scope: str) -> list[str]:
    """The warnings of `remember --scope SCOPE --json` (the memory is written)."""
    doc = remember(repo, next(FACTS), "--scope", scope)
    assert doc["created"] is True
    return list(doc["warnings"])


def warnings_of(stderr: str) -> list[str]:
    return [line.removeprefix("git-aide: warning: ") for line in stderr.splitlines()
            if line.startswith("git-aide: warning: ")]


# -- a scope that matches nothing: written, with a warning ---------------------------------


def test_a_misspelt_folder_is_written_with_a_warning_naming_the_real_one(code: Path) -> None:
    r = aide_ok(code, "remember", "Sessions expire after an hour", "--scope", "src/atuh/**")
    assert warnings_of(r.stderr) == [
        "scope 'src/atuh/**' matches no file in the working tree; did you mean "
        "'src/auth/**'?"]
    assert r.stdout.startswith("Remembered ")
    [path] = memory_files(code)
    assert json.loads(path.read_text())["scope"] == "src/atuh/**"  # stored as given
    assert str(path.relative_to(code)) in git(code, "diff", "--cached", "--name-only")


def test_the_warning_is_in_the_json_document(code: Path) -> None:
    doc = remember(code, "Tokens are signed with Ed25519", "--scope", "scr/auth/*.py")
    assert doc["created"] is True
    assert doc["warnings"] == [
        "scope 'scr/auth/*.py' matches no file in the working tree; did you mean "
        "'src/auth/*.py'?"]


@pytest.mark.parametrize(("scope", "meant"), [
    ("src/atuh", "src/auth"),  # a plain folder
    ("src/atuh/", "src/auth/"),  # the trailing '/' is kept
    ("src/atuh/*.{py,ts}", "src/auth/*.{py,ts}"),  # braces kept as written
    ("{src/atuh/**,lib/utlis/**}", "{src/auth/**,lib/utils/**}"),  # each alternative
    ("src/Auth/login.py", "src/auth/login.py"),
])
def test_the_suggestion_keeps_the_rest_of_the_scope(code: Path, scope: str, meant: str
                                                    ) -> None:
    doc = remember(code, f"Something true about {scope}", "--scope", scope)
    assert doc["warnings"] == [
        f"scope {scope!r} matches no file in the working tree; did you mean {meant!r}?"]


def test_a_scope_for_code_still_to_come_names_the_nearest_folder(code: Path) -> None:
    doc = remember(code, "Billing will keep amounts in cents", "--scope", "src/billing/**")
    assert doc["warnings"] == ["scope 'src/billing/**' matches no file in the working tree; "
                               "the nearest existing folder is 'src/'"]
    doc = remember(code, "The mobile app will share the API client", "--scope", "mobile/**")
    assert doc["warnings"] == ["scope 'mobile/**' matches no file in the working tree"]
    doc = remember(code, "Rust bindings will be generated", "--scope", "*.rs")
    assert doc["warnings"] == ["scope '*.rs' matches no file in the working tree"]
    assert len(memory_files(code)) == 3


def test_a_scope_written_from_a_subfolder_is_read_from_the_top(code: Path) -> None:
    r = aide_ok(code / "src", "remember", "Login throttles after five attempts", "--scope",
                "auth/**")
    assert warnings_of(r.stderr) == [
        "scope 'auth/**' matches no file in the working tree; did you mean 'src/auth/**'? "
        "(a scope is relative to the top of the repository, not to the current folder)"]
    r = aide_ok(code / "src", "remember", "The store retries deadlocks", "--scope",
                "src/db/**")
    assert warnings_of(r.stderr) == []


def test_no_warning_when_the_scope_matches_something(code: Path) -> None:
    write(code, "src/payments/new.py")  # untracked, not ignored: a file of the work tree
    (code / ".gitignore").write_text("build/\n")
    write(code, "build/out.js")  # the folder exists, holding only ignored files
    for scope in ["src/auth/**", "src/auth/login.py", "lib/**/*.ts", "src/{auth,nope}/**",
                  "src/payments/**", "build/**", "*.md", "project"]:
        assert scope_warnings(code, scope) == [], scope
    assert remember(code, "A project-wide fact")["warnings"] == []


def test_what_remember_warns_about_is_what_audit_calls_orphaned(code: Path) -> None:
    kept = remember(code, "Login uses the shared session store", "--scope", "src/auth/**")
    typo = remember(code, "Sessions rotate their id on login", "--scope", "src/atuh/**")
    assert kept["warnings"] == [] and typo["warnings"]
    audit = aide(code, "audit", "--json").json()
    orphaned = {f["uuid"] for f in audit["findings"] if f["kind"] == "orphaned"}
    assert orphaned == {typo["uuid"]}


def test_update_scope_warns_too(code: Path) -> None:
    doc = remember(code, "Queries go through the repository layer", "--scope", "src/db/**")
    r = aide_ok(code, "update", doc["uuid"][:8], "--scope", "src/dbb/**", "--json")
    got = r.json()
    assert got["warnings"] == [
        "scope 'src/dbb/**' matches no file in the working tree; did you mean 'src/db/**'?"]
    assert warnings_of(r.stderr) == got["warnings"]
    shown = aide_ok(code, "show", doc["uuid"], "--json").json()["memory"]
    assert shown["scope"] == "src/dbb/**"
    for scope in ("src/db/**", "", "project"):
        r = aide_ok(code, "update", doc["uuid"][:8], "--scope", scope, "--json")
        assert r.json()["warnings"] == [] and warnings_of(r.stderr) == []
    r = aide_ok(code, "update", doc["uuid"][:8], "--what", "Queries use the repository layer",
                "--json")
    assert r.json()["warnings"] == []


def test_no_stage_and_a_repository_without_commits_still_write(tmp_path: Path) -> None:
    fresh = make_repo(tmp_path / "fresh")
    r = aide_ok(fresh, "remember", "The parser will be hand-written", "--scope", "src/**",
                "--no-stage", "--json")
    assert r.json()["warnings"] == ["scope 'src/**' matches no file in the working tree"]
    assert r.json()["staged"] is False and len(memory_files(fresh)) == 1
    assert git(fresh, "diff", "--cached", "--name-only") == ""


def test_an_import_says_each_warning_once(code: Path) -> None:
    rules = code / ".cursor/rules/web.mdc"
    rules.parent.mkdir(parents=True)
    rules.write_text("---\nglobs: web/**/*.tsx\n---\n- Components are functions\n"
                     "- Props stay flat\n- Styles live beside the component\n")
    r = aide_ok(code, "import", ".cursor/rules/web.mdc")
    assert warnings_of(r.stderr) == ["scope 'web/**/*.tsx' matches no file in the working tree"]
    assert len(memory_files(code)) == 3


# -- a scope a reader would misread: refused -----------------------------------------------


@pytest.mark.parametrize(("scope", "says"), [
    ("src/[auth", "the '[' at character 5 is not closed by a ']' in its segment; write '[[]' "
                  "for a literal '['"),
    ("src/[a/b]/**", "the '[' at character 5 is not closed"),
    ("src/{auth,db/**", "the '{' at character 5 is not closed by a '}'; write '[{]' for a "
                        "literal '{'"),
    ("src/auth}/**", "the '}' at character 9 closes no '{'; write '[}]' for a literal '}'"),
    ("{src/auth/**,}", "has an empty alternative, which would make it project-wide"),
    ("src/{auth,}/**", "has an empty path segment (in 'src//**')"),
    ("src//auth", "has an empty path segment"),
    ("./src/**", "starts with '.': a scope is read from the top of the repository"),
    (".", "give 'project' for the whole repository"),
    ("src/./auth", "has a '.' segment, which matches no path; write 'src/auth'"),
])
def test_a_misread_scope_is_refused_in_one_line(code: Path, scope: str, says: str) -> None:
    r = aide(code, "remember", "Passwords are hashed with argon2", "--scope", scope)
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert r.stderr.startswith(f"git-aide: error: scope {scope!r}") and says in r.stderr
    assert memory_files(code) == []
    assert git(code, "diff", "--cached", "--name-only") == ""


def test_update_refuses_a_misread_scope_and_keeps_the_memory(code: Path) -> None:
    doc = remember(code, "Login throttles per account", "--scope", "src/auth/**")
    before = (code / doc["path"]).read_bytes()
    r = aide(code, "update", doc["uuid"][:8], "--scope", "src/[auth/**")
    assert r.returncode == 1 and "write '[[]' for a literal '['" in r.stderr
    assert "Traceback" not in r.stderr
    assert (code / doc["path"]).read_bytes() == before


def test_literal_brackets_and_braces_are_accepted(code: Path) -> None:
    write(code, "src/[legacy]/old.py", "templates/{{name}}/main.py", "src/a,b/x.py")
    for scope in ["src/[[]legacy]/**", "src/[[]legacy[]]/old.py", "templates/{{name}}/**",
                  "src/a[,]b/**", "src/[al]uth/*.py"]:
        assert scope_warnings(code, scope) == [], scope


def test_a_stored_misread_scope_stays_readable_and_updatable(code: Path) -> None:
    # Written before scopes were checked: only `--scope` is held to the new rule.
    doc = remember(code, "The old auth module keeps its own salt", "--scope", "src/auth/**")
    path = code / doc["path"]
    record = json.loads(path.read_text())
    record["scope"] = "src/[auth"
    path.write_text(json.dumps(record))
    git(code, "add", doc["path"])
    aide_ok(code, "validate", "--staged")
    listed = aide_ok(code, "list", "--json").json()["memories"]
    assert [m["uuid"] for m in listed] == [doc["uuid"]]
    r = aide_ok(code, "update", doc["uuid"][:8], "--what", "The old auth module salts alone")
    assert json.loads(path.read_text())["scope"] == "src/[auth"
    assert "Traceback" not in r.stderr


def test_mcp_callers_get_the_warning_and_the_refusal(code: Path) -> None:
    pytest.importorskip("mcp")
    from mcp import ClientSession, StdioServerParameters, stdio_client

    typo = ("scope 'src/atuh/**' matches no file in the working tree; did you mean "
            "'src/auth/**'?")

    async def session() -> None:
        params = StdioServerParameters(command=AIDE[0], args=[*AIDE[1:], "mcp"], cwd=str(code),
                                       env=BASE_ENV)
        async with stdio_client(params) as (r, w), ClientSession(r, w) as s:
            await s.initialize()
            res = await s.call_tool("aide_remember", {
                "what": "Sessions expire after an hour", "layer": "technical",
                "scope": "src/atuh/**"})
            assert not res.is_error, res.content[0].text
            assert res.structured_content["warnings"] == [typo]
            assert f"warning: {typo}" in res.content[0].text
            uuid = res.structured_content["uuid"]
            res = await s.call_tool("aide_update", {"id": uuid, "scope": "src/dbb/**"})
            assert not res.is_error, res.content[0].text
            assert res.structured_content["warnings"] == [
                "scope 'src/dbb/**' matches no file in the working tree; did you mean "
                "'src/db/**'?"]
            res = await s.call_tool("aide_remember", {
                "what": "Passwords are hashed with argon2", "layer": "technical",
                "scope": "src/[auth"})
            assert res.is_error and "write '[[]' for a literal '['" in res.content[0].text

    asyncio.run(session())
    assert len(memory_files(code)) == 1
