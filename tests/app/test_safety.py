"""Writing safely (README, Writing safely, issue 7): the write lock, writes that never leave the
working tree, secrets, control characters, bad arguments and environments."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, aide, aide_ok, git, make_repo, remember, uuids, write_lock

from git_aide.core import secrets

MEM = ".aide/memories"
#: The write lock, beside the cache and not in it.
LOCK = ".git/aide.lock"
FOLDERS = ("area_context", "technical", "guidelines", "preferences/shared",
           "preferences/personal")


def files_of(repo: Path, uuid: str) -> list[str]:
    """Every file under the memories folder named after `uuid`."""
    return sorted(str(p.relative_to(repo)) for p in (repo / MEM).rglob(f"{uuid}.json"))


def start(repo: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    """git-aide started as a real process, not waited for."""
    return subprocess.Popen([*AIDE, *args], cwd=repo, env={**BASE_ENV, **(env or {})},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def finish(proc: subprocess.Popen[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of a started process."""
    out, err = proc.communicate(timeout=180)
    assert "Traceback" not in err, err
    return proc.returncode, out, err


def one_error(stderr: str) -> str:
    """The single `git-aide: error:` line of stderr."""
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("git-aide: error: "), stderr
    return lines[0]


# -- defects 1-4: the write lock ---------------------------------------------------------

def test_parallel_updates_of_one_memory_keep_every_tag(repo: Path) -> None:
    doc = remember(repo, "one memory, twelve writers")
    procs = [start(repo, "update", doc["uuid"], "--tag", f"t{i}") for i in range(12)]
    codes = [finish(p)[0] for p in procs]
    assert codes == [0] * 12
    tags = json.loads((repo / doc["path"]).read_text())["tags"]
    assert sorted(tags) == sorted(f"t{i}" for i in range(12))
    assert git(repo, "diff", "--name-only").strip() == ""  # what is on disk is staged


def test_an_update_that_loses_to_a_forget_says_the_memory_is_gone(repo: Path) -> None:
    doc = remember(repo, "about to be forgotten")
    git(repo, "commit", "-qm", "one")
    with write_lock(repo):
        proc = start(repo, "update", doc["uuid"], "--tag", "late")
        time.sleep(1.0)  # before the fix the update read the file here; now it waits
        git(repo, "rm", "-qf", doc["path"])  # what `forget` does, holding the lock
    code, _out, err = finish(proc)
    assert code == 1
    assert "no memory" in one_error(err) and "gone" in err
    assert files_of(repo, doc["uuid"]) == []
    assert uuids(aide_ok(repo, "list", "--json")) == []


def test_forget_and_update_racing_never_bring_a_memory_back(repo: Path) -> None:
    docs = [remember(repo, f"racing memory {i}") for i in range(5)]
    procs = []
    for d in docs:
        procs.append((d, "update", start(repo, "update", d["uuid"], "--tag", "x")))
        procs.append((d, "forget", start(repo, "forget", d["uuid"])))
    for _d, kind, p in procs:
        code, _out, err = finish(p)
        if kind == "forget":
            assert code == 0, err
    for d in docs:
        assert files_of(repo, d["uuid"]) == [], d


def test_a_layer_move_beside_an_update_leaves_one_file(repo: Path) -> None:
    docs = [remember(repo, f"moving memory {i}") for i in range(6)]
    procs = []
    for d in docs:
        procs.append(start(repo, "update", d["uuid"], "--layer", "guidelines"))
        procs.append(start(repo, "update", d["uuid"], "--tag", "kept"))
    assert [finish(p)[0] for p in procs] == [0] * len(procs)
    for d in docs:
        where = files_of(repo, d["uuid"])
        assert where == [f"{MEM}/guidelines/{d['uuid']}.json"], where
        assert json.loads((repo / where[0]).read_text())["tags"] == ["kept"]
    assert aide(repo, "validate", "--all").returncode == 0


def test_personal_writes_say_they_staged_nothing(repo: Path) -> None:
    doc = remember(repo, "I like tabs", "--personal")
    assert doc["staged"] is False
    r = aide_ok(repo, "update", doc["uuid"], "--tag", "mine", "--json").json()
    assert r["staged"] is False
    r = aide_ok(repo, "update", doc["uuid"], "--tag", "again")
    assert "not staged" in r.stdout
    r = aide_ok(repo, "forget", doc["uuid"], "--json").json()
    assert r["staged"] is False
    assert git(repo, "diff", "--cached", "--name-only", "--", MEM).strip() == ""


def test_a_writer_waits_a_bounded_time_for_the_lock(repo: Path) -> None:
    doc = remember(repo, "locked out")
    git(repo, "config", "aide.writeLockTimeout", "1")
    before = (repo / doc["path"]).read_bytes()
    with write_lock(repo):
        code, _out, err = finish(start(repo, "update", doc["uuid"], "--tag", "blocked"))
        assert code == 1
        assert "lock" in one_error(err)
        code, _out, err = finish(start(repo, "remember", "also blocked"))
        assert code == 1 and "lock" in one_error(err)
    assert (repo / doc["path"]).read_bytes() == before
    assert aide_ok(repo, "update", doc["uuid"], "--tag", "free").returncode == 0


def test_the_wait_is_for_one_holder_not_for_the_whole_queue(repo: Path) -> None:
    # Each holder stamps the lock file when it takes it; a waiter that sees a new stamp
    # starts its wait again. Here one process stands for a queue of writers: it holds the
    # lock for 3 s in all, stamping it anew every 0.4 s, beside a 1 s timeout.
    doc = remember(repo, "waits its turn")
    git(repo, "config", "aide.writeLockTimeout", "1")
    relay = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "for i in range(8):\n"
        "    os.pwrite(fd, f'{os.getpid()} {i}'.encode().ljust(40), 0)\n"
        "    time.sleep(0.4)\n"), str(repo / LOCK)], stdout=subprocess.PIPE, text=True)
    assert relay.stdout is not None and relay.stdout.readline().strip() == "held"
    code, _out, err = finish(start(repo, "update", doc["uuid"], "--tag", "in-turn"))
    relay.wait()
    assert code == 0, err
    assert json.loads((repo / doc["path"]).read_text())["tags"] == ["in-turn"]


def test_a_killed_writer_does_not_leave_the_lock_stuck(repo: Path) -> None:
    doc = remember(repo, "outlives its writer")
    git(repo, "config", "aide.writeLockTimeout", "20")
    holder = subprocess.Popen([sys.executable, "-c", (
        "import fcntl, os, sys, time\n"
        "fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o644)\n"
        "fcntl.flock(fd, fcntl.LOCK_EX)\n"
        "print('held', flush=True)\n"
        "time.sleep(600)\n"), str(repo / LOCK)],
        stdout=subprocess.PIPE, text=True)
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    holder.kill()
    holder.wait()
    aide_ok(repo, "update", doc["uuid"], "--tag", "after-kill")
    assert json.loads((repo / doc["path"]).read_text())["tags"] == ["after-kill"]


def test_a_file_where_the_cache_folder_belongs_is_cleared_and_the_write_locked(repo: Path
                                                                             ) -> None:
    # The cache repairs itself (docs/architecture.md, the cache's contract): the file in the
    # way goes, with a notice;
    # the write lock lives outside the cache and is taken as usual.
    doc = remember(repo, "changed with the lock")
    cache = repo / ".git" / "aide"
    subprocess.run(["rm", "-rf", str(cache)], check=True)
    cache.write_text("a file where git-aide keeps its cache\n")
    r = aide(repo, "update", doc["uuid"], "--tag", "x")
    assert r.returncode == 0, r.stderr
    assert "notice" in r.stderr and (repo / LOCK).exists() and cache.is_dir()
    assert json.loads((repo / doc["path"]).read_text())["tags"] == ["x"]


def test_an_unwritable_cache_does_not_stop_a_write(repo: Path) -> None:
    doc = remember(repo, "written with no cache")
    cache = repo / ".git" / "aide"
    subprocess.run(["rm", "-rf", str(cache)], check=True)
    unwritable = Path("/sys/kernel")
    if not unwritable.is_dir() or os.access(unwritable / "x", os.W_OK):
        pytest.skip("no unwritable folder here")
    cache.symlink_to(unwritable)
    try:
        aide_ok(repo, "update", doc["uuid"], "--tag", "x")
        other = aide_ok(repo, "remember", "another one", "--json").json()
        aide_ok(repo, "forget", doc["uuid"])
    finally:
        cache.unlink()
    assert not (repo / doc["path"]).exists() and (repo / other["path"]).is_file()


def test_removing_the_cache_under_live_writers_loses_no_update(repo: Path) -> None:
    # The lock used to live in the cache: `index --rebuild` (or an `rm -rf .git/aide`)
    # removed it while a writer held it, the next writer locked a new file, and two
    # read-modify-writes of one memory ran at once.
    git(repo, "config", "aide.writeLockTimeout", "300")
    doc = remember(repo, "tagged by many writers at once")
    tags = [f"t{i}" for i in range(12)]
    writers = [start(repo, "update", doc["uuid"], "--tag", t) for t in tags]
    wipers = [start(repo, "index", "--rebuild") for _ in range(3)]
    while any(p.poll() is None for p in writers):
        shutil.rmtree(repo / ".git" / "aide", ignore_errors=True)
        time.sleep(0.001)
    for p in writers + wipers:
        code, _out, err = finish(p)
        assert code == 0, err
    assert sorted(json.loads((repo / doc["path"]).read_text())["tags"]) == sorted(tags)


def test_no_lock_file_means_no_write_and_a_clear_line(repo: Path) -> None:
    doc = remember(repo, "cannot be changed without the lock")
    before = (repo / doc["path"]).read_bytes()
    # A folder nobody may write in, even root: the lock cannot be made there.
    unwritable = Path("/sys/kernel")
    if not unwritable.is_dir() or os.access(unwritable / "x", os.W_OK):
        pytest.skip("no unwritable folder here")
    lock = repo / LOCK
    lock.unlink(missing_ok=True)
    lock.symlink_to(unwritable / "git-aide-cannot-make-this")
    try:
        for args in (["update", doc["uuid"], "--tag", "x"], ["remember", "new one"],
                     ["forget", doc["uuid"]]):
            r = aide(repo, *args)
            assert r.returncode == 1, (args, r.stderr)
            assert ".git/aide.lock" in one_error(r.stderr) and "lock" in r.stderr
    finally:
        lock.unlink()
    assert (repo / doc["path"]).read_bytes() == before
    assert [p.name for p in (repo / MEM / "technical").glob("*.json")] == \
        [f"{doc['uuid']}.json"]


# -- defects 12-13: writes never leave the working tree ---------------------------------

def test_a_cloned_symlinked_layer_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "somewhere"
    outside.mkdir()
    origin = make_repo(tmp_path / "origin")
    remember(origin, "a guideline", "--layer", "guidelines")
    subprocess.run(["rm", "-rf", str(origin / MEM / "technical")], check=True)
    (origin / MEM / "technical").symlink_to(outside)
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "a hostile symlink")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    assert (clone / MEM / "technical").is_symlink()
    r = aide(clone, "remember", "goes nowhere")
    assert r.returncode == 1
    assert f"{MEM}/technical" in one_error(r.stderr) and "symbolic link" in r.stderr
    assert list(outside.iterdir()) == []
    v = aide(clone, "validate", "--json")
    assert v.returncode == 1
    assert any(p["path"] == f"{MEM}/technical" and "symbolic link" in p["message"]
               for p in v.json()["problems"])
    d = aide(clone, "doctor")
    assert d.returncode == 1 and f"{MEM}/technical" in d.stdout
    # a pull brings the same link into a clone that had none
    git(origin, "rm", "-q", f"{MEM}/technical")
    git(origin, "commit", "-qm", "gone again")
    git(tmp_path, "clone", "-q", str(origin), "second")
    second = tmp_path / "second"
    git(origin, "revert", "--no-edit", "HEAD")
    git(second, "pull", "-q", "--no-rebase")
    assert (second / MEM / "technical").is_symlink()
    r = aide(second, "remember", "still nowhere", "--layer", "technical")
    assert r.returncode == 1 and "symbolic link" in one_error(r.stderr)
    assert list(outside.iterdir()) == []


def test_a_symlinked_personal_folder_is_refused(repo: Path, tmp_path: Path) -> None:
    outside = tmp_path / "private-elsewhere"
    outside.mkdir()
    personal = repo / MEM / "preferences" / "personal"
    subprocess.run(["rm", "-rf", str(personal)], check=True)
    personal.symlink_to(outside)
    r = aide(repo, "remember", "my secret habit", "--personal")
    assert r.returncode == 1
    assert f"{MEM}/preferences/personal" in one_error(r.stderr)
    assert list(outside.iterdir()) == []


def test_a_symlinked_memories_folder_is_refused_for_writes(repo: Path, tmp_path: Path) -> None:
    doc = remember(repo, "lives in the repository")
    outside = tmp_path / "moved"
    (repo / MEM).rename(outside)
    (repo / MEM).symlink_to(outside)
    before = sorted(p.read_bytes() for p in outside.rglob("*.json"))
    for args in (["remember", "x y z"], ["update", doc["uuid"], "--tag", "t"],
                 ["forget", doc["uuid"]]):
        r = aide(repo, *args)
        assert r.returncode == 1, (args, r.stderr)
        assert MEM in one_error(r.stderr) and "symbolic link" in r.stderr
    assert sorted(p.read_bytes() for p in outside.rglob("*.json")) == before


@pytest.mark.parametrize("folder", [".aide", MEM, f"{MEM}/technical"])
def test_no_memory_is_read_through_a_linked_folder(repo: Path, tmp_path: Path,
                                                   folder: str) -> None:
    # git lists nothing beyond a link (its files are deleted, to git): the readers say
    # they skip the link, and skip it, instead of reading the files through it.
    remember(repo, "lives in the repository", "--layer", "technical")
    git(repo, "commit", "-qm", "a memory")
    outside = tmp_path / "moved"
    (repo / folder).rename(outside)
    (repo / folder).symlink_to(outside)
    r = aide(repo, "list", "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["memories"] == []
    assert f"{folder}: a symbolic link" in r.stderr and "skipped" in r.stderr
    # Nothing is lost: the index holds it still.
    assert json.loads(aide(repo, "list", "--json", "--cached").stdout)["memories"] != []


# -- defect 14: secrets ------------------------------------------------------------------

SECRET_TEXTS = [
    "export DB_PASSWORD=hunter2",
    "db password: hunter2",
    "db password: swordfish",
    "PGPASSWORD=s3cr3t psql -h db -U app",
    "api_key=abcd1234efgh",
    "API_KEY = 'abcd1234'",
    'set password = "correct-horse-battery"',
    "client_secret: Zm9vYmFyYmF6cXV4",
    "the token=0123abcd is the staging one",
    "aws_secret_access_key=wJalrXUtnFEMI/K7MDENG",
    'password: "letmein"',
    "mysql --password=hunter2 app",
    "STRIPE_KEY=rk_test_abcdefghijk",
    '{"auth_token": "x9f8e7d6c5"}',
    "https://api.example.com/v1?access_token=abc123def456",
    "SECRET_KEY='django-insecure-abc'",
]
NOT_SECRET_TEXTS = [
    "rotate the api key monthly",
    "the password: field is required",
    "the password is read from the PASSWORD environment variable",
    "export DB_PASSWORD=${DB_PASSWORD}",
    "DB_PASSWORD=$DB_PASSWORD psql",
    "DB_PASSWORD=<your password>",
    "api_key=***",
    "password: changeme",
    "PASSWORD= (left empty in dev)",
    "PASSWORD=",
    "token: JWT",
    "api_key=os.environ['API_KEY']",
    "max_tokens=4096 for the summariser",
    "if token == expected: accept",
    "token != null is checked first",
    "password_min_length=12",
    "fixed in commit 3f786850e387550fdab836ed7e6dc881de23001b",
    "memory 64666e0d-ebc2-4448-ac72-65255abbf167 says so",
    "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
    "the primary key: uuid, never the id",
    "cd $(pwd) first; PWD=/home/ada is set by the shell",
]


@pytest.mark.parametrize("text", SECRET_TEXTS)
def test_secret_assignments_are_found(text: str) -> None:
    assert secrets.find(text) is not None, text


@pytest.mark.parametrize("text", NOT_SECRET_TEXTS)
def test_prose_ids_and_placeholders_are_not_secrets(text: str) -> None:
    assert secrets.find(text) is None, (text, secrets.find(text))


def test_secret_json_keys_and_values_are_found() -> None:
    assert secrets.find_json({"github_token": "abc123def456"}) is not None
    assert secrets.find_json({"deep": [{"DB_PASSWORD": "hunter2"}]}) is not None
    assert secrets.find_json({"ghp_" + "a1B2" * 9: True}) is not None
    assert secrets.find_json({"password": "<set in vault>", "token": ""}) is None
    assert secrets.find_json({"tokens": 12, "sort_key": "updated_at"}) is None


def test_remember_and_validate_refuse_secret_assignments(repo: Path) -> None:
    for args in (["export DB_PASSWORD=hunter2"], ["x", "--why", "db password: hunter2"],
                 ["x", "--label", "api_key=abcd1234efgh"], ["x", "--tag", "token=abcdef123"]):
        r = aide(repo, "remember", *args)
        assert r.returncode == 1 and "secret" in one_error(r.stderr), args
    ok = remember(repo, "rotate the api key monthly; the password: field is required")
    assert ok["created"]
    path = repo / ok["path"]
    rec = json.loads(path.read_text())
    rec["github_token"] = "abc123def456"
    path.write_text(json.dumps(rec, indent=2))
    v = aide(repo, "validate", "--json")
    assert v.returncode == 1
    assert [p["field"] for p in v.json()["problems"]] == ["github_token"]
    r = aide(repo, "update", ok["uuid"], "--tag", "t")
    assert r.returncode == 1
    assert one_error(r.stderr).endswith(f"github_token: {v.json()['problems'][0]['message']}")


# -- defect 15: control characters -------------------------------------------------------

CONTROLS = ["\x1b]0;pwned\x07", "\x1b[2K", "\x08", "\x7f", "\x9b31m", "\x00", "\r"]


@pytest.mark.parametrize("bad", CONTROLS)
def test_control_characters_are_refused_on_write(repo: Path, bad: str) -> None:
    if bad == "\x00":
        return  # the OS itself refuses NUL in an argument
    r = aide(repo, "remember", f"before {bad} after")
    assert r.returncode == 1 and "control character" in one_error(r.stderr)
    assert "\x1b" not in r.stderr and "\x9b" not in r.stderr
    doc = remember(repo, f"fine {CONTROLS.index(bad)}")
    for flag in ("--what", "--why", "--label", "--tag"):
        r = aide(repo, "update", doc["uuid"], flag, f"x{bad}y")
        assert r.returncode == 1 and "control character" in one_error(r.stderr), flag
    assert aide_ok(repo, "remember", "tabs\tand\nnewlines are fine").returncode == 0


def test_control_characters_already_in_files_are_escaped_on_output(repo: Path) -> None:
    doc = remember(repo, "placeholder text", "--scope", "src/**")
    path = repo / doc["path"]
    rec = json.loads(path.read_text())
    rec["what"] = "evil \x1b]0;pwned\x07 title \x1b[2K erase \x9b31m c1 \x7f del"
    rec["why"] = "\x1b[31mred\x1b[0m"
    rec["tags"] = ["\x1bt"]
    path.write_text(json.dumps(rec, indent=2, ensure_ascii=False))

    def clean(text: str) -> None:
        for ch in "\x1b\x07\x9b\x7f":
            assert ch not in text, repr(text)

    for args in (["list"], ["recall", "src/a.py"], ["show", doc["uuid"]], ["search", "evil"],
                 ["list", "--json"], ["show", doc["uuid"], "--json"], ["stats"],
                 ["recall", "--json", "src/a.py"]):
        r = aide(repo, *args)
        assert r.returncode == 0, (args, r.stderr)
        clean(r.stdout)
        clean(r.stderr)
        if "--json" in args:
            assert "evil" in r.stdout
            json.loads(r.stdout)  # still one JSON document
    listed = aide_ok(repo, "list", "--json").json()["memories"][0]
    assert listed["what"] == rec["what"]  # JSON readers get the text exactly
    v = aide(repo, "validate")
    assert v.returncode == 1 and "control character" in v.stdout
    clean(v.stdout)
    r = aide(repo, "show", "\x1b[2Kabcd")
    clean(r.stderr)
    assert r.returncode == 1


def test_control_characters_on_a_terminal_are_escaped(repo: Path) -> None:
    doc = remember(repo, "placeholder")
    path = repo / doc["path"]
    rec = json.loads(path.read_text())
    rec["what"] = "evil \x1b]0;pwned\x07 [bold]markup[/bold]"
    path.write_text(json.dumps(rec, indent=2))
    script = ("import pty, sys, os\n"
              "out = []\n"
              "def read(fd):\n"
              "    data = os.read(fd, 65536)\n"
              "    out.append(data)\n"
              "    return data\n"
              "pty.spawn(sys.argv[1:], read)\n")
    for args in (["list"], ["show", doc["uuid"]]):
        proc = subprocess.run([sys.executable, "-c", script, *AIDE, *args], cwd=repo,
                              env={**BASE_ENV, "COLUMNS": "200"}, capture_output=True)
        assert b"evil" in proc.stdout
        assert b"\x1b]0;" not in proc.stdout and b"\x07" not in proc.stdout
        assert b"[bold]markup[/bold]" in proc.stdout


# -- defect 16: arguments that are not UTF-8 ---------------------------------------------

@pytest.mark.parametrize("args", [
    [b"recall", b"--rev", b"\xff"],
    [b"recall", b"src/\xff.py"],
    [b"recall", b"--query", b"\xff", b"src"],
    [b"recall", b"--tag", b"\xfe"],
    [b"search", b"\xff"],
    [b"search", b"x", b"--rev", b"\xff"],
    [b"remember", b"\xff"],
    [b"show", b"\xff\xff\xff\xff"],
    [b"list", b"--rev", b"\xff"],
    [b"update", b"abcd", b"--tag", b"\xff"],
    [b"forget", b"\xffabc"],
    [b"validate", b"--rev", b"\xff"],
    [b"stats", b"--rev", b"\xff"],
    [b"\xff"],
])
@pytest.mark.parametrize("fast", [True, False])
def test_arguments_that_are_not_utf8_give_one_line(repo: Path, args: list[bytes],
                                                    fast: bool) -> None:
    env = {**BASE_ENV, **({} if fast else {"GIT_AIDE_NO_FASTPATH": "1"})}
    proc = subprocess.run([*AIDE, *args], cwd=repo, env=env, capture_output=True)
    assert proc.returncode in (2, 128), proc.stderr
    lines = proc.stderr.decode("utf-8").strip().splitlines()  # itself valid UTF-8
    assert len(lines) == 1 and lines[0].startswith("git-aide: error: "), proc.stderr
    assert "UTF-8" in lines[0]


# -- defect 17: GIT_WORK_TREE without GIT_DIR --------------------------------------------

def test_git_work_tree_without_git_dir_works_as_git_does(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    other = tmp_path / "tree"
    other.mkdir()
    env = {"GIT_WORK_TREE": str(other)}
    git(repo, "status", env=env)  # git discovers the repository from the cwd
    doc = aide_ok(repo, "remember", "kept in the other tree", "--json", env=env).json()
    assert (other / doc["path"]).exists()
    assert doc["path"] in git(repo, "diff", "--cached", "--name-only", env=env)
    for args in (["list", "--json"], ["recall", "--json"], ["recall", "--cached", "--json"]):
        assert uuids(aide_ok(repo, *args, env=env)) == [doc["uuid"]], args
    env = {"GIT_WORK_TREE": ".."}
    sub = repo / "sub"
    sub.mkdir()
    git(sub, "status", env=env)
    aide_ok(sub, "list", env=env)


# -- defect 18: writes refuse what validate refuses, with its message ---------------------

def digitless(text: str) -> str:
    """`text` without its numbers (a file's size differs with its uuid and times)."""
    return re.sub(r"[0-9]+", "N", text)


def test_writes_refuse_what_validate_refuses_with_the_same_message(repo: Path) -> None:
    doc = remember(repo, "a memory to grow")
    big = "because " * 2600  # 20 KB: the file would pass the 16 KB limit
    r = aide(repo, "remember", "short", "--why", big)
    assert r.returncode == 1
    line = one_error(r.stderr)
    r = aide(repo, "update", doc["uuid"], "--why", big)
    assert r.returncode == 1 and digitless(one_error(r.stderr)) == digitless(line)
    # the same record written by hand: validate says the very same thing
    path = repo / doc["path"]
    rec = json.loads(path.read_text())
    rec["why"] = big
    path.write_text(json.dumps(rec, indent=2))
    v = aide(repo, "validate", "--json")
    messages = [p["message"] for p in v.json()["problems"]]
    assert any(digitless(line).endswith(digitless(m)) for m in messages), (line, messages)
    for args in (["remember", "y", "--label", "L" * 20000],
                 ["remember", "z", "--scope", "../outside/**"]):
        r = aide(repo, *args)
        assert r.returncode == 1, args
        one_error(r.stderr)


# -- the stress test of the bars ------------------------------------------------

#: Rounds of the 40-writer stress test (the issue's bar is 20: GIT_AIDE_STRESS_ROUNDS=20).
STRESS_ROUNDS = int(os.environ.get("GIT_AIDE_STRESS_ROUNDS", "2"))


@pytest.mark.parametrize("seed", range(STRESS_ROUNDS))
def test_forty_concurrent_writers_lose_nothing(tmp_path: Path, seed: int) -> None:
    # Beside the writers, the cache is removed over and over and rebuilt: the write lock
    # must not live where a cache removal reaches.
    import random

    repo = make_repo(tmp_path / "repo")
    rng = random.Random(seed)
    git(repo, "config", "aide.writeLockTimeout", "300")  # a slow machine must not flake
    ids = [remember(repo, f"shared memory number {i}")["uuid"] for i in range(5)]
    git(repo, "commit", "-qm", "seed")
    jobs: list[tuple[str, str, str, subprocess.Popen[str]]] = []

    def job(kind: str, uuid: str, arg: str, *args: str) -> None:
        jobs.append((kind, uuid, arg, start(repo, *args)))

    order = list(range(40))
    rng.shuffle(order)
    wipers = [start(repo, "index", "--rebuild") for _ in range(2)]
    for i in order:
        uuid = ids[i % len(ids)]
        if i % 5 == 0:  # 8 remembers: four texts, each twice
            text = f"remembered concurrently {i % 4}"
            job("remember", "", text, "remember", text, "--json")
        elif i % 5 in (1, 2):  # 16 tag updates
            job("tag", uuid, f"t{i}", "update", uuid, "--tag", f"t{i}")
        elif i % 5 == 3:  # 8 layer moves, back and forth
            layer = ("guidelines", "technical")[(i // 5) % 2]
            job("move", uuid, layer, "update", uuid, "--layer", layer)
        else:  # 8 forgets of two of the memories, each forgotten four times over
            target = ids[3 + (i // 5) % 2]
            job("forget", target, "", "forget", target)
        if rng.random() < 0.2:
            shutil.rmtree(repo / ".git" / "aide", ignore_errors=True)
    while any(p.poll() is None for _k, _u, _a, p in jobs):
        shutil.rmtree(repo / ".git" / "aide", ignore_errors=True)
        time.sleep(rng.random() / 50)
    done = [(kind, uuid, arg, *finish(p)) for kind, uuid, arg, p in jobs]
    for p in wipers:
        code, _out, err = finish(p)
        assert code == 0, err

    on_disk: dict[str, list[str]] = {}
    for path in (repo / MEM).rglob("*.json"):
        on_disk.setdefault(path.stem, []).append(str(path.relative_to(repo)))
    assert all(len(paths) == 1 for paths in on_disk.values()), on_disk  # no uuid twice
    v = aide(repo, "validate", "--all")
    assert v.returncode == 0, v.stdout
    # what is on disk is staged: nothing differs from the index, nothing is untracked
    assert git(repo, "diff", "--name-only", "--", MEM).strip() == ""
    assert git(repo, "ls-files", "--others", "--exclude-standard", "--", MEM).strip() == ""
    forgotten = set()
    for kind, uuid, _arg, code, out, err in done:
        if kind == "forget" and code == 0:
            forgotten.add(uuid)
            assert uuid not in on_disk
        elif kind == "remember":
            assert code == 0, err
            assert json.loads(out)["uuid"] in on_disk
        elif code != 0:  # only a memory that was forgotten may be missing
            assert kind in ("tag", "move", "forget") and uuid in forgotten | {ids[3], ids[4]}
            assert "no memory" in one_error(err), err
    assert forgotten == {ids[3], ids[4]}
    remembered = [json.loads((repo / p[0]).read_text())["what"] for p in on_disk.values()]
    assert sorted(w for w in remembered if "concurrently" in w) == \
        sorted(f"remembered concurrently {k}" for k in range(4))  # one file per text
    for kind, uuid, arg, code, _out, _err in done:
        if kind == "tag" and code == 0 and uuid not in forgotten:
            rec = json.loads((repo / on_disk[uuid][0]).read_text())
            assert arg in rec["tags"], (arg, rec["tags"])


def test_init_never_writes_through_a_symlinked_personal_folder(repo: Path,
                                                                tmp_path: Path) -> None:
    outside = tmp_path / "private-elsewhere"
    outside.mkdir()
    personal = repo / MEM / "preferences" / "personal"
    subprocess.run(["rm", "-rf", str(personal)], check=True)
    personal.symlink_to(outside)
    r = aide(repo, "init", "--no-hooks")
    assert r.returncode == 1
    assert f"{MEM}/preferences/personal" in one_error(r.stderr)
    assert list(outside.iterdir()) == []


def test_reads_skip_a_cloned_symlinked_layer_folder_with_one_warning(tmp_path: Path) -> None:
    outside = tmp_path / "somewhere"
    origin = make_repo(tmp_path / "origin")
    inside = remember(origin, "a guideline", "--layer", "guidelines")
    stray = remember(origin, "lives outside the repository")  # technical
    git(origin, "commit", "-qm", "two memories")
    (origin / MEM / "technical").rename(outside)
    git(origin, "rm", "-rq", "--cached", f"{MEM}/technical")
    (origin / MEM / "technical").symlink_to(outside)
    git(origin, "add", "-A")
    git(origin, "commit", "-qm", "a hostile symlink")
    git(tmp_path, "clone", "-q", str(origin), "clone")
    clone = tmp_path / "clone"
    assert (clone / MEM / "technical" / f"{stray['uuid']}.json").is_file()  # through the link
    for args in (["recall", "--json"], ["search", "outside", "--json"], ["list", "--json"]):
        r = aide_ok(clone, *args)
        assert stray["uuid"] not in r.stdout, args
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and f"{MEM}/technical" in lines[0] and \
            "symbolic link" in lines[0], (args, r.stderr)
    assert uuids(aide_ok(clone, "recall", "--json")) == [inside["uuid"]]
    assert aide(clone, "show", stray["uuid"]).returncode != 0
