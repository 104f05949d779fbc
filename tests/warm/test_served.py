"""Hooks and reading commands answered by the warm server over its socket
(warm/listener.py, warm/client.py, cli/served.py): the same answer as the command's own,
through `git aide daemon` and through an agent's MCP server."""

from __future__ import annotations

import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import (
    AIDE,
    BASE_ENV,
    MEM,
    aide,
    aide_ok,
    code_file,
    commit,
    edit_by_hand,
    git,
    make_repo,
    remember,
    write_memory,
)

OFF = {"GIT_AIDE_SERVER": "0"}


def answered(repo: Path) -> int:
    """Return how many requests the working tree's server answered."""
    r = aide(repo, "daemon", "status")
    assert r.returncode == 0, r.stdout + r.stderr
    return int(r.stdout.rsplit(",", 1)[1].split()[0])


@pytest.fixture
def stocked(repo: Path) -> Iterator[Path]:
    """A repository with memories on a few files, and a daemon serving it."""
    code_file(repo, "src/auth/login.py")
    code_file(repo, "src/auth/tokens.py")
    code_file(repo, "docs/readme.md")
    remember(repo, "login.py must stay free of network calls", "--scope", "src/auth/login.py")
    remember(repo, "tokens rotate hourly", "--scope", "src/auth/")
    remember(repo, "always run the linter before a commit", "--layer", "guidelines")
    remember(repo, "prefer small functions", "--layer", "preferences", "--tag", "style")
    commit(repo)
    aide_ok(repo, "daemon", "start")
    yield repo
    aide(repo, "daemon", "stop")


#: Reading commands, each run from the top and from src/ (their paths relative to it).
COMMANDS = [
    ["recall", "src/auth/login.py"],
    ["recall", "src/auth/"],
    ["recall", "src/auth/login.py", "--json"],
    ["recall", "src/auth/tokens.py", "--query", "rotate"],
    ["recall", "src/auth/login.py", "--rev", "HEAD"],
    ["recall", "src/auth/login.py", "--cached"],
    ["recall", "src/nothing/here.py", "--layer", "guidelines"],
    ["search", "hourly"],
    ["search", "network", "--json", "--limit", "1"],
    ["search", "nowhere-to-be-found"],
    ["search", "style", "--tag", "style"],
    ["recall", "src/auth/login.py", "--rev", "no-such-rev"],
    ["log", "--json"],
    ["diff", "HEAD~1", "--stat"],
]


def both(cwd: Path, args: list[str], env: dict[str, str] | None = None
         ) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    """Run a command through the server and without it: (status, stdout, stderr) each."""
    served = aide(cwd, *args, env=env)
    alone = aide(cwd, *args, env={**(env or {}), **OFF})
    return ((served.returncode, served.stdout, served.stderr),
            (alone.returncode, alone.stdout, alone.stderr))


@pytest.mark.quick
def test_reading_commands_answer_the_same_through_the_server(stocked: Path) -> None:
    """Every reading command prints the same, exits the same, through the daemon as
    alone; and the daemon did answer them."""
    before = answered(stocked)
    for args in COMMANDS:
        served, alone = both(stocked, args)
        assert served == alone, args
    assert answered(stocked) >= before + len(COMMANDS)


def test_the_same_after_hand_edits_from_a_subfolder(stocked: Path) -> None:
    """A memory edited by hand, one written without git-aide and one deleted are seen at
    the next served command, run from a subfolder with a relative path."""
    files = sorted((stocked / MEM).rglob("*.json"))
    edit_by_hand(stocked, str(files[0].relative_to(stocked)), what="edited by hand today")
    write_memory(stocked, "a fresh file nobody staged", scope="src/auth/login.py")
    files[1].unlink()
    sub = stocked / "src"
    for args in (["recall", "auth/login.py"], ["recall", "auth/"], ["search", "hand"],
                 ["search", "fresh", "--json"]):
        served, alone = both(sub, args)
        assert served == alone, args
    assert "fresh file" in aide_ok(sub, "recall", "auth/login.py").stdout


def test_hooks_answer_the_same_through_the_server(stocked: Path) -> None:
    """A session's hooks give the same context through the server as alone (two sessions
    of their own: a session gets each memory once)."""
    def event(session: str, **fields: object) -> str:
        return json.dumps({"session_id": session, "cwd": str(stocked), **fields})

    def hook(name: str, payload: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
        r = aide(stocked, "hook", name, input=payload, env=env)
        return r.returncode, r.stdout, r.stderr

    before = answered(stocked)
    for session, env in (("served", None), ("alone", OFF)):
        got = [
            hook("session-start", event(session, source="startup"), env),
            hook("pre-tool-use", event(session, tool_name="Read", tool_input={
                "file_path": str(stocked / "src/auth/login.py")}), env),
            hook("pre-tool-use", event(session, tool_name="Read", tool_input={
                "file_path": str(stocked / "src/auth/login.py")}), env),
            hook("user-prompt", event(session, prompt="look at @src/auth/tokens.py"), env),
        ]
        if session == "served":
            first = got
    assert got == first
    assert "login.py must stay free" in first[1][1] and first[2][1] == ""
    assert answered(stocked) == before + 4


def test_another_environment_or_repository_is_declined(stocked: Path, tmp_path: Path) -> None:
    """A command whose environment differs in what an answer depends on runs alone, as
    does one in a repository nested in the served tree: both still answer right."""
    before = answered(stocked)
    served, alone = both(stocked, ["recall", "src/auth/login.py"],
                         env={"GIT_AIDE_HOOKS": "0"})
    assert served == alone
    nested = make_repo(stocked / "vendor" / "lib")
    code_file(nested, "x.py")
    remember(nested, "the vendored copy is read-only", "--scope", "x.py")
    r = aide_ok(nested, "recall", "x.py")
    assert "read-only" in r.stdout and "login.py" not in r.stdout
    assert answered(stocked) == before


def test_the_socket_and_its_lock_are_the_users_alone(stocked: Path) -> None:
    """The socket and the lock in the git folder are readable by their user only."""
    for name in ("aide-server.sock", "aide-server.lock"):
        mode = (stocked / ".git" / name).stat().st_mode
        assert stat.S_IMODE(mode) == 0o600, name
    assert stat.S_ISSOCK((stocked / ".git" / "aide-server.sock").stat().st_mode)


def test_a_killed_server_leaves_commands_working_and_is_replaced(repo: Path) -> None:
    """Killed with SIGKILL, the daemon leaves its socket; commands still answer (alone),
    `daemon status` says none serves, and a new one takes its place."""
    code_file(repo, "a.py")
    remember(repo, "a.py is generated", "--scope", "a.py")
    aide_ok(repo, "daemon", "start")
    pid = int(aide_ok(repo, "daemon", "status").stdout.split("pid ")[1].split()[0])
    os.kill(pid, signal.SIGKILL)
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.02)
    assert (repo / ".git" / "aide-server.sock").exists()
    assert "generated" in aide_ok(repo, "recall", "a.py").stdout
    assert aide(repo, "daemon", "status").returncode == 1
    aide_ok(repo, "daemon", "start")
    assert "generated" in aide_ok(repo, "recall", "a.py").stdout
    assert answered(repo) == 1
    aide_ok(repo, "daemon", "stop")
    assert not (repo / ".git" / "aide-server.sock").exists()


def test_one_server_per_working_tree(stocked: Path) -> None:
    """A second daemon refuses in one line (naming the one that serves); `start` again
    names the one that serves."""
    r = aide(stocked, "daemon", "run")
    assert r.returncode == 1 and "served already (daemon, pid" in r.stderr
    assert "Traceback" not in r.stderr
    assert "serving: daemon" in aide_ok(stocked, "daemon", "start").stdout


def test_a_long_git_folder_path_is_served(tmp_path: Path) -> None:
    """A git folder whose socket path passes the kernel's 108 bytes is still served."""
    deep = tmp_path / ("d" * 60) / ("e" * 60)
    repo = make_repo(deep / "repo")
    code_file(repo, "a.py")
    remember(repo, "a deep memory", "--scope", "a.py")
    aide_ok(repo, "daemon", "start")
    try:
        assert len(str(repo / ".git" / "aide-server.sock")) > 108
        served, alone = both(repo, ["recall", "a.py"])
        assert served == alone and "a deep memory" in served[1]
        assert answered(repo) >= 1
    finally:
        aide(repo, "daemon", "stop")


def test_outside_a_repository_the_daemon_says_so(tmp_path: Path) -> None:
    """`daemon start` outside a working tree is one line and a non-zero exit."""
    r = aide(tmp_path, "daemon", "start")
    assert r.returncode != 0 and r.stderr.startswith("git-aide: error:")
    assert "Traceback" not in r.stderr


class Client:
    """An MCP client on the server's stdio, as an agent starts it."""

    def __init__(self, repo: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen([*AIDE, "mcp"], cwd=repo, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                     env={**BASE_ENV, **(env or {})})
        self.send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "test-agent", "version": "1.0"}}})
        assert self.proc.stdout is not None
        assert json.loads(self.proc.stdout.readline())["id"] == 1
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def send(self, msg: dict[str, object]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg).encode() + b"\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def wait_for_server(repo: Path) -> str:
    """Wait until a server answers for `repo`; its status line."""
    for _ in range(300):
        r = aide(repo, "daemon", "status")
        if r.returncode == 0:
            return r.stdout
        time.sleep(0.05)
    raise AssertionError("no server came up")


def test_an_agents_mcp_server_serves_its_hooks_and_commands(repo: Path) -> None:
    """An agent's MCP server answers the working tree's commands over the socket while
    its client is connected, refuses `daemon stop`, and leaves no socket behind."""
    code_file(repo, "a.py")
    remember(repo, "a.py is generated", "--scope", "a.py")
    client = Client(repo)
    try:
        assert "MCP server of test-agent 1.0" in wait_for_server(repo)
        served, alone = both(repo, ["recall", "a.py"])
        assert served == alone and "generated" in served[1]
        assert answered(repo) >= 1
        r = aide(repo, "daemon", "stop")
        assert r.returncode == 1 and "stops with its agent" in r.stderr
    finally:
        client.close()
    assert not (repo / ".git" / "aide-server.sock").exists()
    assert aide(repo, "daemon", "status").returncode == 1


def test_git_config_can_keep_the_mcp_server_off_the_socket(repo: Path) -> None:
    """With aide.mcp.serve false the MCP server answers its tools only."""
    git(repo, "config", "aide.mcp.serve", "false")
    client = Client(repo)
    try:
        client.send({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
            "name": "aide_recall", "arguments": {"paths": ["a.py"]}}})
        assert client.proc.stdout is not None
        assert json.loads(client.proc.stdout.readline())["id"] == 2
        assert aide(repo, "daemon", "status").returncode == 1
    finally:
        client.close()


def test_a_linked_worktree_has_a_server_of_its_own(stocked: Path, tmp_path: Path) -> None:
    """The daemon of the main tree does not answer for a linked worktree, which reads
    its own branch's memories."""
    other = tmp_path / "wt"
    git(stocked, "worktree", "add", "-q", "-b", "other", str(other))
    remember(other, "only on the other branch", "--scope", "src/auth/login.py")
    before = answered(stocked)
    r = aide_ok(other, "recall", "src/auth/login.py")
    assert "only on the other branch" in r.stdout
    assert answered(stocked) == before
    assert "only on the other branch" not in aide_ok(stocked, "recall",
                                                     "src/auth/login.py").stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="git")
def test_the_thin_client_imports_no_read_path(stocked: Path) -> None:
    """A served recall imports neither the read path nor pygit2, whoosh, rich or json."""
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "git_aide", "recall",
                           "src/auth/login.py"], cwd=stocked, env=BASE_ENV,
                          capture_output=True, text=True)
    assert proc.returncode == 0 and "login.py must stay free" in proc.stdout
    mods = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines()
            if line.startswith("import time:") and "|" in line}
    assert not {"pygit2", "whoosh", "rich", "click", "json", "git_aide.read.load",
                "git_aide.gitio.repo"} & mods


def test_commands_at_once_are_each_answered_right(stocked: Path) -> None:
    """Eight commands started together are answered one after another, each as alone."""
    wanted = aide_ok(stocked, "recall", "src/auth/login.py", "--json").stdout
    procs = [subprocess.Popen([*AIDE, "recall", "src/auth/login.py", "--json"], cwd=stocked,
                              env=BASE_ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for _ in range(8)]
    for proc in procs:
        out, err = proc.communicate(timeout=60)
        assert proc.returncode == 0 and out == wanted and err == ""


def test_a_malformed_request_is_dropped_and_serving_goes_on(stocked: Path) -> None:
    """Bytes that are no request get no answer, and the next command is served."""
    import socket

    before = answered(stocked)
    for junk in (b"not json at all", b"[1, 2]\n", b'{"version": 1, "argv": "recall"}\n',
                 b'{"version": 99, "argv": ["recall", "x"]}\n'):
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.connect(str(stocked / ".git" / "aide-server.sock"))
            sock.sendall(junk)
            sock.shutdown(socket.SHUT_WR)
            reply = sock.recv(65536)
            assert b'"status"' not in reply
    served, alone = both(stocked, ["recall", "src/auth/login.py"])
    assert served == alone
    assert answered(stocked) == before + 1


def test_git_aide_server_0_keeps_a_command_off_the_server(stocked: Path) -> None:
    """GIT_AIDE_SERVER=0 runs the command alone: the server answers nothing."""
    before = answered(stocked)
    aide_ok(stocked, "recall", "src/auth/login.py", env=OFF)
    assert answered(stocked) == before


def test_a_codex_hook_is_served_with_its_own_codex_home(stocked: Path, tmp_path: Path) -> None:
    """Codex gives its hooks CODEX_HOME but not its MCP server: the server answers the
    hook with the hook's CODEX_HOME (its config's AGENTS.md budget counts), as alone."""
    filler = "".join(f"Background note {i}: nothing to follow here.\n" for i in range(200))
    (stocked / "AGENTS.md").write_text("# Rules\n\n- always run the linter before a commit\n\n"
                                       + filler)
    home = tmp_path / "codex-home"
    home.mkdir()
    (home / "config.toml").write_text("project_doc_max_bytes = 16\n")
    env = {"CODEX_HOME": str(home)}
    before = answered(stocked)
    got = []
    for session, extra in (("cx-served", {}), ("cx-alone", OFF)):
        start = json.dumps({"session_id": session, "cwd": str(stocked), "source": "startup",
                            "hook_event_name": "SessionStart"})
        r = aide(stocked, "hook", "session-start", "--agent", "codex", input=start,
                 env={**env, **extra})
        got.append((r.returncode, r.stdout, r.stderr))
    assert got[0] == got[1]
    # 16 bytes of AGENTS.md hold no rule: the guideline it restates is sent
    assert "linter before a commit" in got[0][1]
    assert answered(stocked) == before + 1


def test_a_server_of_another_version_is_not_asked_to_answer(stocked: Path) -> None:
    """A client of another git-aide version (an upgrade while an agent's server runs) is
    declined, and runs the command itself."""
    script = ("import git_aide, sys; git_aide.__version__ = '0.0.0-other'; "
              "from git_aide.warm.client import ask; "
              "print('answered' if ask(['recall', 'src/auth/login.py']) is not None "
              "else 'declined')")
    before = answered(stocked)
    proc = subprocess.run([sys.executable, "-c", script], cwd=stocked, env=BASE_ENV,
                          capture_output=True, text=True)
    assert proc.stdout.strip() == "declined", proc.stderr
    proc = subprocess.run([sys.executable, "-c", script.replace("0.0.0-other", "")
                           .replace("git_aide.__version__ = ''; ", "")], cwd=stocked,
                          env=BASE_ENV, capture_output=True, text=True)
    assert proc.stdout.strip().endswith("answered"), proc.stderr
    assert answered(stocked) == before + 1


def test_doctor_names_the_server_that_answers(stocked: Path) -> None:
    """`doctor` says which server answers the working tree's hooks and commands."""
    assert "answered by the daemon, pid" in aide(stocked, "doctor").stdout
    aide_ok(stocked, "daemon", "stop")
    assert "no warm server runs for this working tree" in aide(stocked, "doctor").stdout


def test_the_users_own_store_is_read_as_alone(repo: Path, user_store: dict[str, str]) -> None:
    """A memory written into the user's own store while the server runs is in the next
    served recall, as in the command's own."""
    code_file(repo, "a.py")
    remember(repo, "a.py is generated", "--scope", "a.py")
    aide_ok(repo, "daemon", "start", env=user_store)
    try:
        served, alone = both(repo, ["recall", "a.py"], env=user_store)
        assert served == alone
        aide_ok(repo, "remember", "prefer pathlib", "--user", "--scope", "**/*.py",
                env=user_store)
        before = answered(repo)
        served, alone = both(repo, ["recall", "a.py"], env=user_store)
        assert served == alone and "prefer pathlib" in served[1]
        assert answered(repo) == before + 1
    finally:
        aide(repo, "daemon", "stop", env=user_store)


def test_the_same_across_git_operations(stocked: Path) -> None:
    """After a commit, a branch switch, a stash and a `git rm` made while the daemon
    runs, each served command answers as alone."""
    def same() -> None:
        for args in (["recall", "src/auth/login.py"], ["recall", "src/auth/", "--cached"],
                     ["search", "network", "--json"]):
            served, alone = both(stocked, args)
            assert served == alone, args

    git(stocked, "checkout", "-q", "-b", "feature")
    remember(stocked, "the feature branch moves login to OAuth", "--scope", "src/auth/login.py")
    commit(stocked, "feature memory")
    same()
    git(stocked, "checkout", "-q", "main")
    same()
    assert "OAuth" not in aide_ok(stocked, "recall", "src/auth/login.py").stdout
    files = sorted((stocked / MEM / "technical").glob("*.json"))
    edit_by_hand(stocked, str(files[0].relative_to(stocked)), what="stashed edit about network")
    same()
    git(stocked, "stash", "-q")
    same()
    git(stocked, "rm", "-q", str(files[0].relative_to(stocked)))
    same()
    git(stocked, "checkout", "-q", "feature")
    same()


def test_a_link_in_place_of_the_lock_is_never_followed(repo: Path, tmp_path: Path) -> None:
    """A link planted at the lock's name is not followed (the file it names is not
    touched) and no server starts: the commands run alone."""
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    (repo / ".git" / "aide-server.lock").symlink_to(victim)
    r = aide(repo, "daemon", "start")
    assert r.returncode != 0 and "Traceback" not in r.stderr
    assert victim.read_text() == "keep me\n"
    assert aide(repo, "daemon", "status").returncode == 1


def test_daemon_start_runs_no_code_of_the_working_tree(repo: Path, tmp_path: Path) -> None:
    """A `git_aide` folder in the working tree is not what the daemon imports."""
    marker = tmp_path / "ran"
    (repo / "git_aide").mkdir()
    (repo / "git_aide" / "__init__.py").write_text(
        f"open({str(marker)!r}, 'w').write('ran')\n")
    aide_ok(repo, "daemon", "start")
    try:
        assert not marker.exists()
    finally:
        aide(repo, "daemon", "stop")


def test_a_stopped_server_or_an_idle_peer_holds_nobody_up(stocked: Path) -> None:
    """A connection that sends nothing does not hold up the next command, and a server
    stopped with SIGSTOP is left after a moment: the command runs alone, and right."""
    import socket

    idle = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    idle.connect(str(stocked / ".git" / "aide-server.sock"))
    try:
        start = time.monotonic()
        served, alone = both(stocked, ["recall", "src/auth/login.py"])
        assert served == alone and time.monotonic() - start < 5
    finally:
        idle.close()
    pid = int(aide_ok(stocked, "daemon", "status").stdout.split("pid ")[1].split()[0])
    os.kill(pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        r = aide_ok(stocked, "recall", "src/auth/login.py")
        assert "login.py must stay free" in r.stdout and time.monotonic() - start < 10
    finally:
        os.kill(pid, signal.SIGCONT)


def test_the_answer_is_written_once_whatever_writing_meets(stocked: Path) -> None:
    """With stderr closed the answer is still printed once (never run again here); with
    stdout closed, one error line as alone, never a traceback."""
    proc = subprocess.run(" ".join([*AIDE, "recall", "src/auth/login.py", "2>&-"]),
                          shell=True, cwd=stocked, env=BASE_ENV, capture_output=True,
                          text=True)
    assert proc.stdout.count("login.py must stay free") == 1
    for env in (BASE_ENV, {**BASE_ENV, **OFF}):
        proc = subprocess.run(" ".join([*AIDE, "recall", "src/auth/login.py", ">&-"]),
                              shell=True, cwd=stocked, env=env, capture_output=True,
                              text=True)
        assert "Traceback" not in proc.stderr


def test_stdout_and_stderr_in_one_pipe_keep_their_order(stocked: Path) -> None:
    """With a broken memory file, `recall 2>&1` gives its warning and its answer in the
    order the command alone gives them."""
    (stocked / MEM / "technical" / "broken.json").write_text("{ not json")
    outs = []
    for env in (BASE_ENV, {**BASE_ENV, **OFF}):
        proc = subprocess.run([*AIDE, "recall", "src/auth/login.py"], cwd=stocked, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        outs.append((proc.returncode, proc.stdout))
    assert "warning" in outs[0][1] and outs[0] == outs[1]


def test_another_language_is_declined(stocked: Path) -> None:
    """git's messages follow LANGUAGE and LC_*: a command in another language runs alone."""
    before = answered(stocked)
    served, alone = both(stocked, ["recall", "src/auth/login.py"], env={"LANGUAGE": "de"})
    assert served == alone
    assert answered(stocked) == before


def test_a_hook_whose_event_is_in_another_repository_runs_alone(stocked: Path) -> None:
    """A hook started in the served tree whose event names a folder of a repository
    nested in it is declined before any work, and answers as alone (that repository's
    memories)."""
    nested = make_repo(stocked / "vendor" / "lib")
    code_file(nested, "x.py")
    remember(nested, "the vendored copy is read-only", "--scope", "x.py")
    before = answered(stocked)
    got = []
    for session, env in (("nested-served", None), ("nested-alone", OFF)):
        payload = json.dumps({"session_id": session, "cwd": str(nested), "tool_name": "Read",
                              "tool_input": {"file_path": str(nested / "x.py")}})
        r = aide(stocked, "hook", "pre-tool-use", input=payload, env=env)
        got.append((r.returncode, r.stdout, r.stderr))
    assert got[0] == got[1] and "read-only" in got[0][1]
    assert answered(stocked) == before
