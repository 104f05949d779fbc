"""`init --agent` and `--uninstall` give the user's bytes back (issue 19): settings files
in every layout agents and editors write come back identical after install then
uninstall, install alone only adds git-aide's entries, and nothing is read or written
through a link out of the working tree."""

from __future__ import annotations

import difflib
import os
import re
import subprocess
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, TESTS, aide, aide_ok, make_repo

#: The variables our Codex table asks Codex to pass on to the server.
ENV_VARS = ('env_vars = ["XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", '
            '"GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_NOSYSTEM", "NO_COLOR"]')

SETTINGS = TESTS / "data" / "settings"
JSON_CORPUS = sorted(SETTINGS.glob("*.json"))
TOML_CORPUS = sorted(SETTINGS.glob("*.toml"))
AGENTS = ("claude", "codex", "cursor", "gemini", "vscode")
#: Every JSON settings file git-aide edits, and the TOML one.
JSON_FILES = (".mcp.json", ".claude/settings.json", ".codex/hooks.json", ".cursor/mcp.json",
              ".cursor/hooks.json", ".gemini/settings.json", ".vscode/mcp.json")
TOML_FILE = ".codex/config.toml"
ALL = [a for agent in AGENTS for a in ("--agent", agent)]


def read(path: Path) -> bytes | None:
    """A file's bytes, None when there is none."""
    return path.read_bytes() if path.exists() else None


def added(before: str, after: str) -> list[str]:
    """What `after` adds to `before`, as the runs of added text, or fail when it also
    changes or removes something. Runs apart by nothing but punctuation and white space
    are one (a diff may match a closing bracket either side of an added entry)."""
    old = before.splitlines(keepends=True)
    new = after.splitlines(keepends=True)
    starts = [0]
    for line in new:
        starts.append(starts[-1] + len(line))
    runs: list[tuple[int, int]] = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old, new,
                                                        autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        assert tag != "delete", f"install removed {''.join(old[i1:i2])!r}"
        if tag == "insert":
            runs.append((starts[j1], starts[j2]))
            continue
        a, b = "".join(old[i1:i2]), "".join(new[j1:j2])
        for t, _, _, k1, k2 in difflib.SequenceMatcher(None, a, b,
                                                       autojunk=False).get_opcodes():
            assert t in ("equal", "insert"), f"install changed {a!r} into {b!r}"
            if t == "insert":
                runs.append((starts[j1] + k1, starts[j1] + k2))
    merged: list[list[int]] = []
    for start, end in runs:
        if merged and re.fullmatch(r"[\s{}\[\],:]*", after[merged[-1][1]:start]):
            merged[-1][1] = end
        else:
            merged.append([start, end])
    return [after[s:e] for s, e in merged]


def only_ours_added(before: bytes, after: bytes, where: str) -> None:
    """Install left every byte of `before` as it was and added only git-aide's entries."""
    runs = added(before.decode("utf-8", "surrogateescape"),
                 after.decode("utf-8", "surrogateescape"))
    assert runs, f"{where}: nothing was added"
    for run in runs:
        assert "git-aide" in run, f"{where}: install added {run!r}, which is not git-aide's"


@pytest.mark.parametrize("sample", JSON_CORPUS, ids=lambda p: p.name)
def test_every_layout_comes_back_byte_for_byte(tmp_path: Path, sample: Path) -> None:
    """The corpus file at every agent's JSON path (and a TOML sample as Codex's
    config): install adds only our entries, a second install changes nothing, and
    uninstall gives back the exact bytes."""
    repo = make_repo(tmp_path / "repo", init=False)
    toml = TOML_CORPUS[JSON_CORPUS.index(sample) % len(TOML_CORPUS)]
    original = {rel: sample.read_bytes() for rel in JSON_FILES}
    original[TOML_FILE] = toml.read_bytes()
    for rel, data in original.items():
        (repo / rel).parent.mkdir(exist_ok=True)
        (repo / rel).write_bytes(data)

    aide_ok(repo, "init", "--no-hooks", *ALL)
    installed = {rel: read(repo / rel) for rel in original}
    for rel, data in original.items():
        after = installed[rel]
        assert after is not None
        only_ours_added(data, after, f"{sample.name if rel != TOML_FILE else toml.name} "
                                     f"as {rel}")
    r = aide_ok(repo, "init", "--no-hooks", *ALL)
    assert r.stdout.count("already up to date") == len(original)
    assert {rel: read(repo / rel) for rel in original} == installed

    aide_ok(repo, "init", "--uninstall", *ALL)
    for rel, data in original.items():
        assert read(repo / rel) == data, f"{rel} ({sample.name} / {toml.name})"
    r = aide_ok(repo, "init", "--uninstall", *ALL)
    assert r.stdout.count("already up to date") == len(original)


@pytest.mark.parametrize("sample", TOML_CORPUS, ids=lambda p: p.name)
def test_every_toml_comes_back_byte_for_byte(tmp_path: Path, sample: Path) -> None:
    """Codex's config in every TOML form: install adds only our table, uninstall gives
    back the exact bytes (comments, non-UTF-8 bytes, CRLF, multi-line strings)."""
    repo = make_repo(tmp_path / "repo", init=False)
    (repo / ".codex").mkdir()
    (repo / TOML_FILE).write_bytes(sample.read_bytes())
    aide_ok(repo, "init", "--no-hooks", "--agent", "codex")
    after = read(repo / TOML_FILE)
    assert after is not None
    if sample.name != "codex-mcp-inline-at-root.toml":  # tomlkit's spacing there
        only_ours_added(sample.read_bytes(), after, sample.name)
    aide_ok(repo, "init", "--uninstall", "--agent", "codex")
    assert read(repo / TOML_FILE) == sample.read_bytes()
    assert not (repo / ".codex/hooks.json").exists()


def test_files_install_made_go_and_the_users_stay(tmp_path: Path) -> None:
    """A file git-aide created goes at uninstall; one the user had, even holding only
    `{}`, stays as it was."""
    repo = make_repo(tmp_path / "repo", init=False)
    (repo / ".vscode").mkdir()
    (repo / ".vscode/mcp.json").write_bytes(b"{}")
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").write_bytes(b"{}\r\n")
    aide_ok(repo, "init", "--no-hooks", *ALL)
    assert (repo / ".vscode/mcp.json").read_bytes() == (
        b'{"servers": {"git-aide": {"type": "stdio", "command": "git-aide", "args": ["mcp"]}}}')
    aide_ok(repo, "init", "--uninstall", *ALL)
    assert (repo / ".vscode/mcp.json").read_bytes() == b"{}"
    assert (repo / ".gemini/settings.json").read_bytes() == b"{}\r\n"
    for rel in (".mcp.json", ".claude/settings.json", ".codex/hooks.json", TOML_FILE,
                ".cursor/mcp.json", ".cursor/hooks.json"):
        assert not (repo / rel).exists(), rel


def test_the_users_edits_after_install_stay(tmp_path: Path) -> None:
    """Between install and uninstall the user edits the file: their edits stay, only
    git-aide's entries go."""
    repo = make_repo(tmp_path / "repo", init=False)
    before = ('{\r\n  "mcpServers": {\r\n    "db": {"command": "db-mcp", "args": ["--ro"]}\r\n'
              '  },\r\n  "n": 1e3\r\n}\r\n')
    (repo / ".mcp.json").write_bytes(before.encode())
    aide_ok(repo, "init", "--no-hooks", "--agent", "claude")
    text = (repo / ".mcp.json").read_bytes().decode()
    assert text.count("\r\n") == text.count("\n")  # CRLF throughout, ours too
    # the user changes a value and adds a server of their own after ours
    text = text.replace('"--ro"', '"--rw"').replace(
        '\r\n  },\r\n  "n"', ',\r\n    "web": {"url": "http://localhost:8080"}\r\n  },\r\n  "n"')
    (repo / ".mcp.json").write_bytes(text.encode())
    aide_ok(repo, "init", "--uninstall", "--agent", "claude")
    assert (repo / ".mcp.json").read_bytes().decode() == before.replace('"--ro"', '"--rw"').replace(
        '"--rw"]}\r\n', '"--rw"]},\r\n    "web": {"url": "http://localhost:8080"}\r\n')


def test_our_stale_entries_are_replaced_where_they_are(repo: Path) -> None:
    """An entry of ours written by an older version (or by hand) changes in place; the
    lines around it stay."""
    (repo / ".mcp.json").write_text('{\n  "mcpServers": {\n    "git-aide": {"command": '
                                    '"/old/bin/git-aide", "args": ["mcp"]},\n'
                                    '    "db": {"command": "db"}\n  }\n}\n')
    aide_ok(repo, "init", "--agent", "claude")
    assert (repo / ".mcp.json").read_text() == (
        '{\n  "mcpServers": {\n    "git-aide": {"type": "stdio", "command": "git-aide", '
        '"args": ["mcp"]},\n    "db": {"command": "db"}\n  }\n}\n')


# -- Codex's TOML (item 4) --------------------------------------------------------------------

def test_a_multiline_string_is_not_a_table(repo: Path) -> None:
    """A `[mcp_servers.git-aide]` line inside a multi-line string is text: uninstall
    leaves it, install adds the real table."""
    text = ('instructions = """\nUse these:\n[mcp_servers.git-aide]\ncommand = "x"\n"""\n'
            'model = "o4"\n')
    (repo / ".codex").mkdir()
    (repo / TOML_FILE).write_text(text)
    r = aide_ok(repo, "init", "--uninstall", "--agent", "codex")
    assert "already up to date" in r.stdout
    assert (repo / TOML_FILE).read_text() == text
    aide_ok(repo, "init", "--agent", "codex")
    assert (repo / TOML_FILE).read_text() == (
        text + '\n[mcp_servers.git-aide]\ncommand = "git-aide"\nargs = ["mcp"]\n'
        f'startup_timeout_sec = 30\n{ENV_VARS}\n')
    aide_ok(repo, "init", "--uninstall", "--agent", "codex")
    assert (repo / TOML_FILE).read_text() == text


def test_non_utf8_bytes_in_a_comment_are_kept(repo: Path) -> None:
    """Install does not turn a Latin-1 comment into U+FFFD."""
    data = b'# r\xe9glages\nmodel = "o4"\n'
    (repo / ".codex").mkdir()
    (repo / TOML_FILE).write_bytes(data)
    aide_ok(repo, "init", "--agent", "codex")
    assert (repo / TOML_FILE).read_bytes() == (
        data + b'\n[mcp_servers.git-aide]\ncommand = "git-aide"\nargs = ["mcp"]\n'
        b'startup_timeout_sec = 30\n' + ENV_VARS.encode() + b'\n')


def test_our_server_as_an_inline_table(repo: Path) -> None:
    """`mcp_servers.git-aide = { ... }` written by hand: install keeps it when it is
    right, corrects it in place when it is not, and uninstall takes the line out."""
    (repo / ".codex").mkdir()
    right = ('model = "o4"\nmcp_servers.git-aide = { command = "git-aide", args = ["mcp"], '
             f'startup_timeout_sec = 30, {ENV_VARS} }}\n')
    (repo / TOML_FILE).write_text(right)
    r = aide_ok(repo, "init", "--agent", "codex")
    assert ".codex/config.toml: already up to date" in r.stdout
    assert (repo / TOML_FILE).read_text() == right
    (repo / TOML_FILE).write_text(right.replace('"git-aide", args', '"/opt/git-aide", args'))
    aide_ok(repo, "init", "--agent", "codex")
    assert (repo / TOML_FILE).read_text() == right
    aide_ok(repo, "init", "--uninstall", "--agent", "codex")
    assert (repo / TOML_FILE).read_text() == 'model = "o4"\n'


# -- links (items 5 and 10) ------------------------------------------------------------------

def test_a_linked_settings_file_is_written_through(repo: Path) -> None:
    """`.mcp.json -> shared/mcp.json`: the link stays a link, its target gets our
    server, and uninstall gives the target its bytes back."""
    (repo / "shared").mkdir()
    data = b'{\n  "mcpServers": {\n    "db": {"command": "db"}\n  }\n}\n'
    (repo / "shared/mcp.json").write_bytes(data)
    (repo / ".mcp.json").symlink_to("shared/mcp.json")
    aide_ok(repo, "init", "--agent", "claude")
    assert os.readlink(repo / ".mcp.json") == "shared/mcp.json"
    assert b'"git-aide"' in (repo / "shared/mcp.json").read_bytes()
    aide_ok(repo, "init", "--uninstall", "--agent", "claude")
    assert os.readlink(repo / ".mcp.json") == "shared/mcp.json"
    assert (repo / "shared/mcp.json").read_bytes() == data


def test_a_link_out_of_the_tree_is_refused(tmp_path: Path) -> None:
    """A settings file that links out of the working tree is neither read nor
    written."""
    repo = make_repo(tmp_path / "repo")
    outside = tmp_path / "global.json"
    outside.write_bytes(b'{"mcpServers": {}}')
    (repo / ".mcp.json").symlink_to(outside)
    r = aide(repo, "init", "--agent", "claude")
    assert r.returncode == 1 and len(r.stderr.splitlines()) == 1
    assert r.stderr.startswith("git-aide: error: .mcp.json is a symbolic link out of the "
                               "working tree")
    assert outside.read_bytes() == b'{"mcpServers": {}}'
    assert not (repo / ".claude").exists()  # nothing half done


@pytest.mark.parametrize("agent", AGENTS)
def test_a_linked_agent_folder_is_refused(tmp_path: Path, agent: str) -> None:
    """A committed `.claude -> ../../.claude` points at the user's own global settings:
    init neither writes nor (with --uninstall) deletes anything there."""
    repo = make_repo(tmp_path / "repo", init=False)
    home = make_repo(tmp_path / "home", init=False)
    aide_ok(home, "init", "--no-hooks", "--agent", agent)  # as if set up globally
    folder = {"claude": ".claude", "codex": ".codex", "cursor": ".cursor",
              "gemini": ".gemini", "vscode": ".vscode"}[agent]
    (repo / folder).symlink_to(home / folder)
    there = {p: p.read_bytes() for p in (home / folder).iterdir()}
    assert there
    for args in ((), ("--uninstall",), ("--dry-run",)):
        r = aide(repo, "init", "--agent", agent, *args)
        assert r.returncode == 1, r.stdout
        assert len(r.stderr.splitlines()) == 1 and "Traceback" not in r.stderr
        assert f"{folder} is a symbolic link" in r.stderr
        assert {p: p.read_bytes() for p in (home / folder).iterdir()} == there
    if agent == "claude":
        assert not (repo / ".mcp.json").exists()  # nothing half done
    note = [line for line in aide(repo, "doctor").stdout.splitlines()
            if line.startswith(f"note: {agent}: ")]
    assert len(note) == 1 and f"{folder} is a symbolic link" in note[0]
    assert "git aide init" not in note[0]  # init cannot mend it: the message says what can


def test_two_agents_sharing_one_file_through_a_link(repo: Path) -> None:
    """`.cursor/mcp.json -> ../.mcp.json`: the two agents' entries would overwrite each
    other, so init says so and writes nothing; one agent at a time works."""
    (repo / ".mcp.json").write_text("{}\n")
    (repo / ".cursor").mkdir()
    (repo / ".cursor/mcp.json").symlink_to("../.mcp.json")
    r = aide(repo, "init", "--agent", "claude", "--agent", "cursor")
    assert r.returncode == 1 and "one file" in r.stderr and len(r.stderr.splitlines()) == 1
    assert (repo / ".mcp.json").read_text() == "{}\n"
    assert not (repo / ".claude").exists()
    aide_ok(repo, "init", "--agent", "cursor")
    assert (repo / ".cursor/mcp.json").is_symlink()
    assert '"git-aide"' in (repo / ".mcp.json").read_text()


# -- bad shapes and unreadable files (item 18, bounded reads) --------------------------------

@pytest.mark.parametrize("rel, text, message", [
    (".claude/settings.json", '{"hooks": {"PreToolUse": {"matcher": "Bash"}}}',
     ".claude/settings.json: hooks.PreToolUse is an object, not an array; left as it was"),
    (".claude/settings.json", '{"hooks": []}',
     ".claude/settings.json: 'hooks' is an array, not an object; left as it was"),
    (".mcp.json", '{"mcpServers": null}',
     ".mcp.json: 'mcpServers' is null, not an object; left as it was"),
    (".mcp.json", "[]", ".mcp.json does not hold a JSON object; left as it was"),
    (".mcp.json", '{"a": ' * 100_000 + "1" + "}" * 100_000,
     ".mcp.json is nested too deeply to be agent settings; left as it was"),
])
def test_a_shape_git_aide_cannot_edit_is_one_line(repo: Path, rel: str, text: str,
                                                  message: str) -> None:
    """The usual one-line refusal naming the file, the file as it was."""
    (repo / rel).parent.mkdir(exist_ok=True)
    (repo / rel).write_text(text)
    for args in ((), ("--uninstall",)):
        r = aide(repo, "init", "--agent", "claude", *args)
        if args and rel == ".claude/settings.json" and "PreToolUse" in text:
            assert r.returncode == 0  # nothing of ours in it to take out
            continue
        assert r.returncode == 1 and r.stderr == f"git-aide: error: {message}\n"
        assert (repo / rel).read_text() == text


def run(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """git-aide with a time limit: a hang fails the test instead of the run."""
    return subprocess.run([*AIDE, *args], cwd=repo, capture_output=True, text=True,
                          env=BASE_ENV, timeout=20)


def test_a_fifo_or_a_device_is_not_read(repo: Path) -> None:
    """Reading a settings file that never ends (a FIFO, a link to /dev/zero) would hang:
    it is refused in one line, by init and by doctor."""
    (repo / ".claude").mkdir()
    os.mkfifo(repo / ".claude/settings.json")
    r = run(repo, "init", "--agent", "claude")
    assert r.returncode == 1
    assert r.stderr == ("git-aide: error: .claude/settings.json is not a regular file; "
                        "left as it was\n")
    assert "claude: .claude/settings.json is not a regular file" in run(repo, "doctor").stdout
    (repo / ".gemini").mkdir()
    (repo / ".gemini/settings.json").symlink_to("/dev/zero")
    r = run(repo, "init", "--agent", "gemini")
    assert r.returncode == 1 and "symbolic link out of the working tree" in r.stderr
    assert "gemini: " in run(repo, "doctor").stdout


def test_a_huge_settings_file_is_refused(repo: Path) -> None:
    """A file far larger than settings ever are is not read whole."""
    big = '{"a": "' + "x" * (2 << 20) + '"}'
    (repo / ".mcp.json").write_text(big)
    r = aide(repo, "init", "--agent", "claude")
    assert r.returncode == 1 and r.stderr == (
        "git-aide: error: .mcp.json is larger than 1024 KiB, more than agent settings ever "
        "are; left as it was\n")


def test_permissions_are_kept(repo: Path) -> None:
    """A settings file kept private (0600) stays so when rewritten."""
    (repo / ".mcp.json").write_text("{}\n")
    (repo / ".mcp.json").chmod(0o600)
    aide_ok(repo, "init", "--agent", "claude")
    assert (repo / ".mcp.json").stat().st_mode & 0o777 == 0o600
