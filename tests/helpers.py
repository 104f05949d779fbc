"""What the tests share: real git repositories in temporary folders, git and git-aide run
as real processes, and the few ways of writing and committing files that tests repeat.

The one helpers module: test files import from here; conftest.py holds the fixtures.
It is over 400 lines because it is the one place tests share code (no test imports
another test module): its parts are headed by `# --` comments."""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import select
import subprocess
import sys
import time
import uuid as uuidlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from git_aide.cache.folder import RACY_SECONDS
from git_aide.core import memory

#: The test suite's folder (its data/ and fixtures/) and the checkout's top.
TESTS = Path(__file__).resolve().parent
ROOT = TESTS.parent
#: Where the tests' user store would be: under a file, so that it cannot be made.
NO_USER_STORE = "/dev/null/xdg-data"
#: The environment every test process gets: a fixed identity, no user or system config,
#: and this interpreter's scripts first on PATH (agents, hooks and the merge driver run
#: `git-aide` by name, as they would for a user), whether or not the venv is activated.
BASE_ENV = {
    **{k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "NO_COLOR"))},
    "PATH": os.path.dirname(sys.executable) + os.pathsep + os.environ.get("PATH", ""),
    "GIT_CONFIG_NOSYSTEM": "1",
    # Not the developer's own ~/.gitconfig (a commit.gpgSign or an aide.* key there
    # would change what the tests see): none at all, in a folder that does not exist, so
    # that a test writing a global config fails unless it gives its own GIT_CONFIG_GLOBAL.
    "GIT_CONFIG_GLOBAL": str(TESTS / "data" / "no-such-folder" / "global.gitconfig"),
    # Not the developer's own user store (~/.local/share/git-aide/user), which every
    # recall would read: a folder that cannot be, so that no test makes one there either
    # (a test of the user store gives its own: the `user_store` fixture).
    "XDG_DATA_HOME": NO_USER_STORE,
    "GIT_AUTHOR_NAME": "Ada Tester",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Tester",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_TERMINAL_PROMPT": "0",
}


def _aide_command() -> list[str]:
    script = Path(sys.executable).parent / "git-aide"
    if script.exists():
        return [str(script)]
    return [sys.executable, "-m", "git_aide"]


AIDE = _aide_command()
#: The cache folder of this interpreter, relative to a repository's top (the cache keeps
#: one folder per Python version: see Repo.cache_dir).
CACHE = f".git/aide/{sys.implementation.cache_tag}"


@dataclass
class Result:
    """What a finished process left behind."""

    returncode: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        """stdout parsed as one JSON document."""
        return json.loads(self.stdout)


def git(cwd: Path | str, *args: str, check: bool = True, env: dict[str, str] | None = None,
        input: str | None = None) -> str:
    """Run git; return its stdout; fail the test with git's stderr when it fails."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True,
                          env={**BASE_ENV, **(env or {})}, input=input)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout


def aide(cwd: Path | str, *args: str, env: dict[str, str] | None = None,
         input: str | None = None) -> Result:
    """Run git-aide as a real process."""
    proc = subprocess.run([*AIDE, *args], cwd=cwd, capture_output=True, text=True,
                          env={**BASE_ENV, **(env or {})}, input=input)
    return Result(proc.returncode, proc.stdout, proc.stderr)


def aide_ok(cwd: Path | str, *args: str, env: dict[str, str] | None = None) -> Result:
    """Run git-aide and insist that it succeeded without a traceback."""
    r = aide(cwd, *args, env=env)
    assert r.returncode == 0, f"git-aide {' '.join(args)} -> {r.returncode}: {r.stderr}"
    assert "Traceback" not in r.stderr
    return r


def make_repo(path: Path, init: bool = True, hooks: bool = False) -> Path:
    """A new repository with an identity and `git aide init` run in it (hooks only if asked)."""
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    git(path, "config", "user.name", "Ada Tester")
    git(path, "config", "user.email", "ada@example.com")
    git(path, "config", "commit.gpgsign", "false")
    if init:
        # Hooks make every commit start git-aide: only the tests of hooks pay for that.
        aide_ok(path, "init", *([] if hooks else ["--no-hooks"]))
    return path


def remember(cwd: Path, what: str, *args: str) -> dict[str, Any]:
    """`git aide remember --json`, returning its document."""
    return aide_ok(cwd, "remember", what, *args, "--json").json()


def uuids(result: Result) -> list[str]:
    """The uuids of a recall/search/list JSON document, in order."""
    return [m["uuid"] for m in result.json()["memories"]]


Remember = Callable[..., dict[str, Any]]


def write(repo: Path, rel: str, text: str) -> Path:
    """A file of the working tree, its folders made; returns its path."""
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def code_file(repo: Path, rel: str) -> Path:
    """A file of code of twenty lines, named in its own first line."""
    return write(repo, rel, f"// {rel}\n" + "".join(f"line {i} of {rel}\n" for i in range(20)))


def commit(repo: Path, message: str = "memories", date: str | None = None) -> str:
    """Stage everything and commit it (at `date`, when given); returns the commit id."""
    env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else None
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", message, env=env)
    return git(repo, "rev-parse", "HEAD").strip()


# -- memories written by hand, and clones of one remote --------------------------------

#: The memories folder and the write lock, relative to a repository's top.
MEM = ".aide/memories"
LOCK = ".git/aide.lock"

#: A fixed uuid, so that two clones can add "the same" memory independently.
UUID = "0b5e4a1c-2f3d-4e5f-8a9b-0c1d2e3f4a5b"


T0 = "2024-01-01T00:00:00.000Z"


def stamp(day: int) -> str:
    """A fixed time in January 2024, one per day: the tests order events by hand."""
    return f"2024-01-{day:02d}T12:00:00.000Z"


def merge_record(**fields: Any) -> dict[str, Any]:
    """A valid technical memory with the fixed uuid, overridden by `fields`."""
    base: dict[str, Any] = {
        "uuid": UUID, "layer": "technical", "what": "use tabs", "why": None,
        "contributor": "Ada Tester", "tags": [], "created_at": T0, "updated_at": T0,
    }
    base.update(fields)
    return memory.fill_defaults(base)


def write_record(repo: Path, rec: dict[str, Any]) -> Path:
    """Write a record canonically where it belongs, as a person or an agent would."""
    path = repo / memory.relpath(rec)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(memory.canonical(rec))
    return path


def commit_for_a_view(repo: Path) -> None:
    """Commit everything, then wait until git's index is old enough for its stat to be
    trusted (read/load.py): the next read saves the state's view, whose contents are one
    run, and a server keeps it."""
    commit(repo)
    time.sleep(RACY_SECONDS + 0.2)


def served(mem: Any, tool: str, args: dict[str, Any]) -> Any:
    """A tool call's structured answer from a server run in this process (an
    agents/mcp/server.ServerState), insisting that it succeeded; a read tool's in full (the
    command's --json document) unless `args` says which detail."""
    from git_aide.agents.mcp import server

    if tool in ("aide_recall", "aide_search", "aide_memories"):
        args = {"detail": "full", **args}
    text, doc, failed = server.call(mem, tool, args)
    assert not failed, text
    return doc


def in_this_process(repo: Path, monkeypatch: Any) -> Path:
    """Put this process in the repository, with the tests' environment: for a server
    run in this process (agents/mcp/server.call on a ServerState). Returns the repository."""
    for k, v in BASE_ENV.items():
        monkeypatch.setenv(k, v)
    monkeypatch.chdir(repo)
    return repo


def commit_memories(repo: Path, message: str, date: str | None = None) -> None:
    """Stage everything under .aide and commit (at `date`, when given)."""
    env = {"GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date} if date else None
    git(repo, "add", "-A", ".aide")
    git(repo, "commit", "-q", "-m", message, env=env)


def read_record(repo: Path, rec: dict[str, Any] | None = None) -> dict[str, Any]:
    """The memory file of the fixed uuid, parsed (and therefore valid)."""
    return memory.parse((repo / memory.relpath(rec or merge_record())).read_bytes())


def clone(origin: Path, path: Path, init: bool = True) -> Path:
    """A clone of the remote with an identity, set up with `git aide init` unless not."""
    git(origin.parent, "clone", "-q", str(origin), str(path))
    git(path, "config", "user.name", "Bob Tester")
    git(path, "config", "user.email", "bob@example.com")
    git(path, "config", "commit.gpgsign", "false")
    git(path, "config", "core.editor", "true")
    if init:
        aide_ok(path, "init", "--no-hooks")
    return path


def team(tmp_path: Path, rec: dict[str, Any] | None = None, init_b: bool = True
         ) -> tuple[Path, Path, Path]:
    """(remote, clone a, clone b): a pushed the set-up (and `rec`, if given) before b cloned."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    a = make_repo(tmp_path / "a")
    git(a, "config", "core.editor", "true")
    git(a, "remote", "add", "origin", str(origin))
    if rec is not None:
        write_record(a, rec)
    git(a, "add", "-A")
    git(a, "commit", "-q", "-m", "set up git-aide")
    git(a, "push", "-q", "-u", "origin", "main")
    b = clone(origin, tmp_path / "b", init=init_b)
    return origin, a, b


def pull(repo: Path, *how: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    """`git pull` (merge unless told), returning the process."""
    proc = subprocess.run(["git", "pull", "-q", "--no-edit", *(how or ("--no-rebase",)),
                           "origin", "main"], cwd=repo, capture_output=True, text=True,
                          env=BASE_ENV)
    if check:
        assert proc.returncode == 0, proc.stderr
    return proc


def unmerged(repo: Path) -> str:
    """`git ls-files -u` (empty when nothing is unmerged)."""
    return git(repo, "ls-files", "-u")


#: One example of each secret kind `secrets.PATTERNS` knows, by kind.
SECRET_EXAMPLES: dict[str, str] = {
    "private key block": "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA7\n-----END",
    "AWS access key id": "the key is AKIAIOSFODNN7EXAMPLE here",
    "AWS secret access key": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "GitHub token": "token ghp_" + "a1B2c3D4e5" * 3 + "f6G7h8",
    "GitLab token": "use glpat-" + "xY9zW8vU7tS6rQ5pO4nM",
    "Slack token": "bot token xoxb-123456789012-abcdefghijkl",
    "Slack webhook": "post to https://hooks.slack.com/services/T0123ABCD/B0123ABCD/abcDEF123456",
    "npm token": "npm_" + "A1b2C3d4E5f6" * 3,
    "PyPI token": "pypi-AgEIcHlwaS5vcmc" + "Q2hlY2tzdW1z" * 5,
    "SendGrid API key": "SG." + "a" * 22 + "." + "B" * 43,
    "Google API key": "AIza" + "SyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q",
    "Stripe secret key": "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "AI provider API key": "sk-ant-" + "api03-" + "x" * 40,
    "JSON web token": "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "password in a URL": "connect with postgres://admin:hunter22@db.example.com/app",
    "a value assigned to password": 'set password = "correct-horse-battery"',
}


def valid_record(**over: Any) -> dict[str, Any]:
    """A valid technical memory record (a fresh uuid), with some fields replaced."""
    rec: dict[str, Any] = {
        "uuid": str(uuidlib.uuid4()), "layer": "technical", "what": "use pnpm, not npm",
        "why": None, "scope": None, "context_label": None, "contributor": "Ada Tester",
        "tags": [], "source": "conversation", "shared": True, "priority": "normal",
        "generated_by": None, "derived_from": None,
        "created_at": "2024-05-01T10:00:00.000Z", "updated_at": "2024-05-02T10:00:00.000Z",
    }
    rec.update(over)
    return rec


def put(repo: Path, rec: dict[str, Any] | None = None, *, folder: str | None = None,
        name: str | None = None, raw: bytes | None = None) -> str:
    """Write a memory file (or raw bytes) into the working tree; return its repo path."""
    rec = rec if rec is not None else valid_record()
    if folder is None:
        folder = "preferences/" + ("shared" if rec.get("shared", True) else "personal") \
            if rec.get("layer") == "preferences" else str(rec.get("layer"))
    rel = f"{MEM}/{folder}/{name or str(rec.get('uuid')) + '.json'}"
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw if raw is not None else json.dumps(rec, indent=2).encode() + b"\n")
    return rel


def edit_by_hand(repo: Path, rel: str, **fields: Any) -> None:
    """Change a memory file the way a person in an editor would (no git-aide)."""
    path = repo / rel
    record = json.loads(path.read_text())
    record.update(fields)
    path.write_text(json.dumps(record, indent=2) + "\n")


def write_memory(repo: Path, what: str, layer: str = "technical", **fields: Any) -> dict[str, Any]:
    """Write a memory file as any tool (or a person) would: canonical, not yet staged."""
    record = memory.new(what, layer=layer, contributor="Ada Tester", **fields)
    path = repo / memory.relpath(record)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(memory.canonical(record))
    return record


@contextlib.contextmanager
def write_lock(repo: Path) -> Iterator[None]:
    """Hold git-aide's write lock from this process, as another writer would."""
    fd = os.open(repo / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


# -- a user the permission bits apply to ----------------------------------------------

#: The capabilities that let root ignore permission bits: CAP_DAC_OVERRIDE,
#: CAP_DAC_READ_SEARCH, CAP_FOWNER (linux/capability.h).
DAC_CAPABILITIES = (1, 2, 3)
#: prctl(2)'s PR_CAPBSET_DROP.
_PR_CAPBSET_DROP = 24


def _drop_dac_capabilities() -> None:
    """In the child, before exec: take root's power over permission bits out of its
    bounding set, so that the program it runs (and every process that starts) obeys them
    as any user does, while it stays uid 0 (its files, the tests' tmp folders, the
    interpreter under /root stay its own, and git needs no safe.directory)."""
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for cap in DAC_CAPABILITIES:
        if libc.prctl(_PR_CAPBSET_DROP, cap, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "prctl(PR_CAPBSET_DROP) failed")


_UNPRIVILEGED: list[tuple[Callable[[], None] | None, str | None]] = []


def unprivileged() -> Callable[[], None] | None:
    """The preexec_fn that makes a child a user the permission bits apply to (None: this
    process is one already); the test is skipped, saying why, when there is no way.

    Root ignores permission bits, and the tests run as root here: then the capabilities
    that allow it are dropped in the child (Linux). Checked once, on a read-only folder.
    """
    import pytest

    if not _UNPRIVILEGED:
        _UNPRIVILEGED.append(_find_unprivileged())
    fn, reason = _UNPRIVILEGED[0]
    if reason is not None:
        pytest.skip(reason)
    return fn


def _find_unprivileged() -> tuple[Callable[[], None] | None, str | None]:
    import shutil
    import tempfile

    if os.geteuid() != 0:
        return None, None  # the permission bits apply to this user already
    if not sys.platform.startswith("linux"):
        return None, "root ignores permission bits, and only Linux can drop that here"
    folder = tempfile.mkdtemp()
    try:
        os.chmod(folder, 0o555)
        probe = [sys.executable, "-c", "import sys; open(sys.argv[1] + '/x', 'w')", folder]
        try:
            proc = subprocess.run(probe, preexec_fn=_drop_dac_capabilities,
                                  capture_output=True, text=True)
        except (OSError, subprocess.SubprocessError) as e:
            return None, f"root cannot drop its power over permission bits here ({e})"
        if proc.returncode == 0:
            return None, ("a child of root still writes in a read-only folder with "
                          "CAP_DAC_OVERRIDE dropped")
        if "PermissionError" not in proc.stderr:
            return None, f"the permission probe failed otherwise: {proc.stderr.strip()}"
        return _drop_dac_capabilities, None
    finally:
        os.chmod(folder, 0o755)
        shutil.rmtree(folder, ignore_errors=True)


def run_unprivileged(cwd: Path | str, argv: list[str], env: dict[str, str] | None = None
                     ) -> Result:
    """Run a program as a user the permission bits apply to (unprivileged())."""
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True,
                          env={**BASE_ENV, **(env or {})}, preexec_fn=unprivileged())
    return Result(proc.returncode, proc.stdout, proc.stderr)


def aide_unprivileged(cwd: Path | str, *args: str, env: dict[str, str] | None = None
                      ) -> Result:
    """Run git-aide as a user the permission bits apply to: a read-only folder is one."""
    return run_unprivileged(cwd, [*AIDE, *args], env=env)


@contextlib.contextmanager
def read_only(*paths: Path, tree: bool = False) -> Iterator[None]:
    """Make folders read-only (with everything below them, `tree`) for the length of the
    block; put the write bit back after."""
    changed = [p for root in paths for p in ([root, *root.rglob("*")] if tree else [root])
               if not p.is_symlink()]
    modes = {p: p.stat().st_mode & 0o7777 for p in changed}
    try:
        for p, mode in modes.items():
            p.chmod(mode & ~0o222)
        yield
    finally:
        for p, mode in modes.items():
            with contextlib.suppress(OSError):
                p.chmod(mode)


# -- agents: hook events and the MCP server, as an agent runs them ----------------------

def hook(repo: Path, event: str, data: Any, agent: str = "claude",
         env: dict[str, str] | None = None) -> tuple[int, str, str]:
    """Run a hook with an event on stdin: (exit status, stdout, stderr)."""
    stdin = data if isinstance(data, str) else json.dumps(data)
    r = aide(repo, "hook", event, "--agent", agent, input=stdin, env=env)
    assert "Traceback" not in r.stderr, r.stderr
    return r.returncode, r.stdout, r.stderr


def hook_context(stdout: str) -> str:
    """The additionalContext of a Claude/Codex/Gemini reply."""
    return json.loads(stdout)["hookSpecificOutput"]["additionalContext"]


def claude_read(repo: Path, rel: str, session: str = "s-1") -> dict[str, Any]:
    """A Claude Code PreToolUse event for a Read, as Claude Code sends it."""
    return {"session_id": session, "transcript_path": "/tmp/t.jsonl", "cwd": str(repo),
            "permission_mode": "default", "hook_event_name": "PreToolUse",
            "tool_name": "Read", "tool_input": {"file_path": str(repo / rel)},
            "tool_use_id": "toolu_01"}


class McpServer:
    """`git aide mcp` started as an agent starts it, spoken to line by line."""

    def __init__(self, cwd: Path, env: dict[str, str] | None = None) -> None:
        self.proc = subprocess.Popen([*AIDE, "mcp"], cwd=cwd, env={**BASE_ENV, **(env or {})},
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.buf = b""

    def send(self, msg: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(msg) + "\n").encode())
        self.proc.stdin.flush()

    def recv(self, timeout: float = 30) -> dict[str, Any]:
        """The next message, or a failure after `timeout` seconds (never a hang)."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            ready, _, _ = select.select([fd], [], [], max(0.0, left))
            if not ready:
                raise AssertionError(f"no answer within {timeout} s: {self.stderr()}")
            chunk = os.read(fd, 65536)
            if not chunk:
                raise AssertionError(f"the server closed its output: {self.stderr()}")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return json.loads(line)

    def request(self, mid: int | str, method: str, params: dict[str, Any] | None = None
                ) -> dict[str, Any]:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": mid, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        return self.recv()

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, **({"params": params} if params else {})})

    def initialize(self, version: str = "2025-06-18", mid: int | str = 1) -> dict[str, Any]:
        return self.request(mid, "initialize", {
            "protocolVersion": version, "capabilities": {},
            "clientInfo": {"name": "test-client", "version": "1.0"}})

    def close(self, timeout: float = 20) -> tuple[int, str]:
        """Close the client's side, as an agent does; (exit status, stderr)."""
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        try:
            self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise AssertionError("the server did not exit once its client left") from None
        return self.proc.returncode, self.stderr()

    def stderr(self) -> str:
        if self.proc.poll() is None:
            return "(still running)"
        assert self.proc.stderr is not None
        return self.proc.stderr.read().decode()


# -- semantic search: a tiny model the tests build, and a server to fetch it from ------

#: The tiny model's words that mean "signing in" (they share one direction) ...
AUTH_WORDS = ("login", "signin", "authenticate", "authenticates", "password", "session",
              "credentials")
#: ... and those that mean "shipping a release" (another direction).
SHIP_WORDS = ("deploy", "deploys", "release", "releases", "ship", "friday")
#: Other words the tests' memories use: small vectors of their own, in neither direction.
OTHER_WORDS = ("users", "user", "with", "a", "and", "get", "we", "on", "the", "is", "uses",
               "database", "postgres", "tabs", "for", "indentation", "cache", "lives",
               "in", "git", "tokens", "rotate", "every", "hour", "queue", "backed", "by",
               "redis", "how", "do", "log", "in", "of", "to", "what", "when")
#: The tiny model's vector length.
TINY_DIM = 8


def tiny_model(folder: Path) -> Path:
    """A sentence model of a few kilobytes in `folder` (model.onnx + tokenizer.json), in
    the form git-aide runs: token vectors (batch x tokens x 8) looked up from a table, a
    lower-casing word-level tokenizer. Words of AUTH_WORDS point one way and SHIP_WORDS
    another, so that search by meaning is testable without a real model."""
    import random

    import numpy as np
    import onnx
    from onnx import TensorProto, helper, numpy_helper
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers

    folder.mkdir(parents=True, exist_ok=True)
    vocab = {"[PAD]": 0, "[UNK]": 1}
    for w in (*AUTH_WORDS, *SHIP_WORDS, *OTHER_WORDS):
        vocab.setdefault(w, len(vocab))
    rnd = random.Random(22)
    table = np.zeros((len(vocab), TINY_DIM), dtype=np.float32)
    # An unknown word has a small vector too: a text of unknown words is not a zero vector.
    table[vocab["[UNK]"], TINY_DIM - 1] = 0.1
    for w, i in vocab.items():
        if w in AUTH_WORDS:
            table[i, 0] = 1.0
        elif w in SHIP_WORDS:
            table[i, 1] = 1.0
        elif i > 1:  # other words: small, in the dimensions neither meaning uses
            table[i, 2:] = [rnd.uniform(-0.25, 0.25) for _ in range(TINY_DIM - 2)]
    ints = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "tokens"])
            for n in ("input_ids", "attention_mask", "token_type_ids")]
    out = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT,
                                        ["batch", "tokens", TINY_DIM])
    graph = helper.make_graph(
        [helper.make_node("Gather", ["table", "input_ids"], ["last_hidden_state"], axis=0)],
        "tiny", ints, [out], initializer=[numpy_helper.from_array(table, "table")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what every supported onnxruntime reads
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    tok = Tokenizer(models.WordLevel(vocab, unk_token="[UNK]"))
    tok.normalizer = normalizers.Lowercase()
    tok.pre_tokenizer = pre_tokenizers.Whitespace()
    tok.save(str(folder / "tokenizer.json"))
    return folder


def broken_model(tiny: Path, folder: Path, damage: str) -> Path:
    """A model folder at `folder` broken one way: "missing" (no folder at all), "no
    tokenizer" (the tiny model without its tokenizer), "corrupt" (its model.onnx not a
    model)."""
    import shutil

    if damage != "missing":
        shutil.copytree(tiny, folder)
    if damage == "no tokenizer":
        (folder / "tokenizer.json").unlink()
    if damage == "corrupt":
        (folder / "model.onnx").write_bytes(b"\x00not a model" * 40)
    return folder


def sha256_of(path: Path) -> str:
    """The sha256 of a file, as a model catalog states it."""
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@contextlib.contextmanager
def serve(root: Path) -> Iterator[tuple[str, list[str]]]:
    """An HTTP server on 127.0.0.1 serving the files under `root`, in a thread, for the
    length of the block: (its base URL, the paths asked for, in order)."""
    import functools
    import http.server
    import threading

    asked: list[str] = []

    class Handler(http.server.SimpleHTTPRequestHandler):
        def do_GET(self) -> None:
            asked.append(self.path)
            super().do_GET()

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    server.timeout = 5
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", asked
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


def shared_model(name: str = "all-MiniLM-L6-v2-onnx-int8") -> Path | None:
    """A real model in the project's shared/models/ beside the checkout (or beside a
    folder above it), if there is one."""
    for up in ROOT.parents:
        folder = up / "shared" / "models" / name
        if (folder / "model.onnx").is_file():
            return folder
    return None


def error_line(r: Result) -> str:
    """The one line a failed command said (no traceback, nothing else on stderr)."""
    assert r.returncode != 0, r.stderr
    lines = [x for x in r.stderr.splitlines() if x.strip()]
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("git-aide: error:"), lines[0]
    return lines[0]


#: Where the tests' tiny model is served from, as a catalog names it.
TINY_REPO = "tests/tiny-model"
TINY_REVISION = "0123456789abcdef0123456789abcdef01234567"
TINY_REMOTE = {"model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json"}


def tiny_catalog(tmp_path: Path, tiny: Path, sizes: bool = False, **wrong: str) -> Path:
    """Write a catalog naming the tiny model `tiny`: its files' sha256s (or `wrong` ones,
    by the file's stem), and with `sizes` each file's size."""
    files = {local: [remote, wrong.get(local.split(".")[0], sha256_of(tiny / local))]
             + ([(tiny / local).stat().st_size] if sizes else [])
             for local, remote in TINY_REMOTE.items()}
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps({"tiny": {"repo": TINY_REPO, "revision": TINY_REVISION,
                                         "files": files, "licence": "CC0-1.0", "dim": 8}}))
    return path


def on_tty(cwd: Path, argv: list[str], env: dict[str, str]) -> tuple[int, str, str]:
    """Run `argv` with stdout on a pseudo-terminal: (status, what the terminal got, stderr)."""
    import pty

    leader, follower = pty.openpty()
    proc = subprocess.Popen(argv, cwd=cwd, stdout=follower, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL, env=env)
    os.close(follower)
    chunks = []
    while True:
        try:
            chunk = os.read(leader, 65536)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    err = proc.stderr.read() if proc.stderr else b""
    status = proc.wait(timeout=60)
    os.close(leader)
    return status, b"".join(chunks).decode(errors="replace"), err.decode(errors="replace")
