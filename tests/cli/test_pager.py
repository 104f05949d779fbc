"""git's manners: long human output goes through a pager on a terminal (chosen as git
chooses it), and `help COMMAND` / `COMMAND --help` open the manual at the command."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, ROOT, aide_ok, commit, git, on_tty, put, remember, valid_record

#: What every pager test starts from: no pager chosen by the developer's environment.
CLEAN = {k: v for k, v in BASE_ENV.items() if k not in ("PAGER", "LESS", "LV", "MANPAGER")}


def fake_pager(folder: Path, name: str = "fake-pager", body: str = "") -> tuple[Path, Path]:
    """A pager that records that it ran (its LESS, LV and what it read); (script, record)."""
    record = folder / f"{name}.record"
    script = folder / name
    script.write_text("#!/bin/sh\n" + (body or
                      f'{{ echo "LESS=$LESS LV=$LV"; cat; }} > "{record}"\n'))
    script.chmod(0o755)
    return script, record


def aide_on_tty(cwd: Path, *args: str, env: dict[str, str] | None = None
                ) -> tuple[int, str, str]:
    return on_tty(cwd, [*AIDE, *args], {**CLEAN, "COLUMNS": "100", **(env or {})})


@pytest.mark.parametrize("argv", [["list"], ["recall"], ["search", "fact"], ["log"],
                                  ["diff", "HEAD~1"], ["audit"], ["stats"], ["show", "ID"],
                                  ["help"]])
def test_human_output_goes_through_the_pager_on_a_terminal(repo: Path, tmp_path: Path,
                                                           argv: list[str]) -> None:
    first = remember(repo, "a first fact about pagers")
    commit(repo, "one")
    remember(repo, "a second fact about pagers")
    commit(repo, "two")
    pager, record = fake_pager(tmp_path)
    argv = [first["uuid"] if a == "ID" else a for a in argv]
    status, screen, err = aide_on_tty(repo, *argv, env={"GIT_PAGER": str(pager)})
    assert status == 0, err
    assert "Traceback" not in err
    got = record.read_text()
    # git's settings for less, when the user has none; the answer went to the pager.
    assert got.startswith("LESS=FRX LV=-c\n"), got
    assert len(got.splitlines()) > 1
    assert "fact" in got or argv[0] in ("audit", "stats", "help"), got
    assert "pagers" not in screen


def test_the_pager_is_chosen_as_git_chooses_it(repo: Path, tmp_path: Path) -> None:
    remember(repo, "a fact about pagers")
    git_pager, by_git_pager = fake_pager(tmp_path, "by-git-pager")
    core, by_core = fake_pager(tmp_path, "by-core-pager")
    env_pager, by_env = fake_pager(tmp_path, "by-pager")
    # PAGER, when neither GIT_PAGER nor core.pager is set; its LESS kept.
    aide_on_tty(repo, "list", env={"PAGER": str(env_pager), "LESS": "-S"})
    assert by_env.read_text().startswith("LESS=-S LV=-c\n")
    # core.pager before PAGER
    git(repo, "config", "core.pager", str(core))
    aide_on_tty(repo, "list", env={"PAGER": str(env_pager)})
    assert "a fact about pagers" in by_core.read_text()
    # GIT_PAGER before both
    aide_on_tty(repo, "list", env={"GIT_PAGER": str(git_pager), "PAGER": str(env_pager)})
    assert "a fact about pagers" in by_git_pager.read_text()
    # An empty value or cat: no pager, the answer on the terminal.
    for value in ("", "cat"):
        by_core.unlink(missing_ok=True)
        status, screen, _err = aide_on_tty(repo, "list", env={"GIT_PAGER": value})
        assert status == 0 and "a fact about pagers" in screen
        assert not by_core.exists()
    git(repo, "config", "core.pager", "")
    by_env.unlink()
    _status, screen, _err = aide_on_tty(repo, "list", env={"PAGER": str(env_pager)})
    assert "a fact about pagers" in screen and not by_env.exists()


def test_no_pager_off_a_terminal_for_json_or_when_told(repo: Path, tmp_path: Path) -> None:
    remember(repo, "a fact about pagers")
    pager, record = fake_pager(tmp_path)
    env = {"GIT_PAGER": str(pager)}
    # A pipe (an agent, a script): never a pager.
    assert "a fact about pagers" in aide_ok(repo, "list", env=env).stdout
    assert "a fact about pagers" in aide_ok(repo, "recall", env=env).stdout
    # --json is for programs, even on a terminal.
    _status, screen, _err = aide_on_tty(repo, "recall", "--json", env=env)
    assert '"what"' in screen
    # git-aide's own --no-pager and -P, and git's.
    for argv in ([*AIDE, "--no-pager", "list"], [*AIDE, "-P", "recall"],
                 ["git", "--no-pager", "aide", "list"]):
        status, screen, err = on_tty(repo, argv, {**CLEAN, **env})
        assert status == 0, err
        assert "a fact about pagers" in screen, argv
    assert not record.exists()
    # git -c pager.aide=false: git sets GIT_PAGER=cat for its external command.
    _status, screen, _err = on_tty(repo, ["git", "-c", "pager.aide=false", "aide", "list"],
                                   {**CLEAN, **env})
    assert "a fact about pagers" in screen and not record.exists()


def test_a_pager_quit_early_is_no_error(repo: Path, tmp_path: Path) -> None:
    """The user pressed q after the first screen: the rest is dropped, no BrokenPipe."""
    for i in range(300):
        put(repo, valid_record(what=f"memory number {i} " + "long text " * 40))
    pager, _record = fake_pager(tmp_path, body="head -c 100 >/dev/null\n")
    status, _screen, err = aide_on_tty(repo, "list", env={"GIT_PAGER": str(pager)})
    assert status == 0, err
    assert "Traceback" not in err and "Broken" not in err, err


# -- the manual --------------------------------------------------------------------------------

@pytest.mark.quick
def test_help_lists_the_commands_and_h_stays_short(tmp_path: Path) -> None:
    out = aide_ok(tmp_path, "help").stdout
    assert "Usage:" in out and "recall" in out and "--no-pager" in out
    short = aide_ok(tmp_path, "recall", "-h").stdout
    assert short.startswith("Usage: git aide recall")


@pytest.mark.parametrize("argv", [["help", "recall"], ["recall", "--help"],
                                  ["recall", "src/x.py", "--help"]])
def test_command_help_is_its_manual_entry_without_man(tmp_path: Path,
                                                      argv: list[str]) -> None:
    """With no man(1) on PATH, the command's entry of the page, as plain text."""
    bare = tmp_path / "bin"
    bare.mkdir()
    for tool in ("git", "sh"):
        found = shutil.which(tool)
        assert found
        (bare / tool).symlink_to(found)
    exe = Path(sys.executable).parent
    r = aide_ok(tmp_path, *argv, env={"PATH": f"{exe}{os.pathsep}{bare}"})
    lines = r.stdout.splitlines()
    assert lines[0].strip() == "recall", r.stdout
    assert "What should I know before I touch these paths?" in r.stdout
    assert "\\fB" not in r.stdout and ".TP" not in r.stdout
    # Only that entry: not the next command's.
    assert "Where did we write about" not in r.stdout


@pytest.mark.skipif(not shutil.which("man"), reason="needs man(1)")
def test_command_help_opens_man_at_the_command(tmp_path: Path) -> None:
    """man's pager is less: it is told to start at the command's entry (man pages only a
    terminal)."""
    fake = tmp_path / "bin"
    fake.mkdir()
    record = tmp_path / "less.args"
    (fake / "less").write_text(f'#!/bin/sh\nprintf "%s\\n" "$@" > "{record}"\ncat > /dev/null\n')
    (fake / "less").chmod(0o755)
    env = {k: v for k, v in CLEAN.items() if k not in ("MANPAGER", "PAGER")}
    env["PATH"] = f"{fake}{os.pathsep}{env['PATH']}"
    for argv in (["help", "search"], ["search", "--help"]):
        record.unlink(missing_ok=True)
        status, _screen, err = on_tty(tmp_path, [*AIDE, *argv], env)  # man pages a terminal
        assert status == 0, err
        args = record.read_text().splitlines()
        assert "-p" in args and args[args.index("-p") + 1] == "^       search( |$)", args
    # MANPAGER chosen by the user: theirs, whole.
    r = aide_ok(tmp_path, "help", "search", env={"MANPAGER": "cat", "MANWIDTH": "80"})
    assert "GIT-AIDE(1)" in r.stdout and "git aide search" in r.stdout


def test_the_manual_names_help_and_the_pager() -> None:
    page = (ROOT / "man" / "git-aide.1").read_text(encoding="utf-8")
    assert "\\fBgit aide help\\fR" in page
    assert "GIT_PAGER" in page and "core.pager" in page and "\\-\\-no\\-pager" in page
