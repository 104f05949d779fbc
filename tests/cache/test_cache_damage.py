"""The cache may be slow, never wrong (docs/architecture.md, the cache's contract; issue 7,
defects 5 to 9).

Every answer with a damaged cache equals the answer with no cache at all: a damaged
file is rebuilt with one notice, and when the cache cannot be written at all the
memories are read from their files (and searched without the on-disk index).
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
from pathlib import Path

import pytest
from helpers import AIDE, BASE_ENV, CACHE, aide, aide_ok, claude_read, git, hook, make_repo
from helpers import McpServer as Server
from helpers import hook_context as context

from git_aide.cache import codec
from git_aide.cache.disk import FORMAT
from git_aide.cache.folder import Cache
from git_aide.cache.views import KIND as VIEW

#: What every case asks: each through a real git-aide process.
COMMANDS: list[list[str]] = [
    ["recall", "src/app/main.py", "--json", "--limit", "50"],
    ["list", "--json"],
    ["search", "zebra", "--json", "--limit", "50"],
    ["list", "--cached", "--json"],
]
LIMIT = 60


def answers(repo: Path, commands: list[list[str]] = COMMANDS, parallel: bool = False
            ) -> tuple[list[str], str]:
    """stdout of each command, and all stderr; each must exit 0 without a traceback.

    `parallel`: all at once, as an agent's tools may run (and as the machine's cores
    allow); each still sees the damaged cache, or what another made of it.
    """
    procs = []
    outs, errs = [], []
    for args in commands:
        procs.append((args, subprocess.Popen([*AIDE, *args], cwd=repo, env=BASE_ENV,
                                             stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                             text=True)))
        if not parallel:
            procs[-1][1].wait(timeout=LIMIT)
    for args, proc in procs:
        out, err = proc.communicate(timeout=LIMIT)
        assert proc.returncode == 0, (args, err)
        assert "Traceback" not in err and "internal error" not in err, (args, err)
        outs.append(out)
        errs.append(err)
    return outs, "".join(errs)


def build(tmp_path: Path) -> Path:
    """A repository whose memories live in every state: committed, staged, untracked,
    personal; the index old enough that views are kept."""
    repo = make_repo(tmp_path / "r")
    for i in range(8):
        scope = ["--scope", f"src/{['app', 'db', 'ui'][i % 3]}/**"] if i % 4 else []
        aide_ok(repo, "remember", f"memory {i} about zebra crossings {'and lanes' * (i % 2)}",
                *scope, "--tag", f"t{i % 3}")
    git(repo, "commit", "-qm", "memories")
    aide_ok(repo, "remember", "staged zebra note", "--scope", "src/app/**")
    aide_ok(repo, "remember", "untracked zebra note", "--no-stage")
    aide_ok(repo, "remember", "my own zebra preference", "--personal")
    time.sleep(2.2)  # views are kept once the index is old enough to trust its stat
    return repo


@pytest.fixture(scope="module")
def warm(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str], Path]:
    """(repo, the answers with no cache at all, a copy of the warm cache)."""
    repo = build(tmp_path_factory.mktemp("cache"))
    shutil.rmtree(repo / ".git/aide", ignore_errors=True)
    want, _ = answers(repo)
    again, err = answers(repo)  # warm now: the same answers, no notice
    assert again == want and "notice" not in err
    pristine = repo.parent / "pristine"
    shutil.copytree(repo / ".git/aide", pristine)
    return repo, want, pristine


def restore(repo: Path, pristine: Path) -> Path:
    """Put the warm cache back; return this interpreter's cache folder."""
    top = repo / ".git/aide"
    if top.is_dir() and not top.is_symlink():
        shutil.rmtree(top)
    elif top.exists() or top.is_symlink():
        top.unlink()
    shutil.copytree(pristine, top)
    return repo / CACHE


def files(root: Path) -> list[Path]:
    """The cache files that hold data (not the lock files)."""
    return sorted(p for p in root.rglob("*") if p.is_file() and "lock" not in p.name)


def flip(path: Path, at: int) -> None:
    """Change one byte."""
    data = bytearray(path.read_bytes())
    if data:
        data[at % len(data)] ^= 0x21
        path.write_bytes(bytes(data))


def test_one_byte_changed_in_a_view_is_noticed(warm: tuple[Path, list[str], Path]) -> None:
    repo, want, pristine = warm
    root = restore(repo, pristine)
    views = sorted((root / "views").glob("worktree-*"))
    assert views
    for view in views:
        data = view.read_bytes()
        size = len(data)
        top = codec.top_size(VIEW, FORMAT)
        header = int.from_bytes(data[top - 8:top - 4], "little")
        # Every part: the lead, the header (state, scopes, where the groups lie),
        # contents, groups.
        spots = [5, *(top + header * i // 12 for i in range(12)), size // 2, size - 3]
        for at in spots:
            restore(repo, pristine)
            flip(view, at)
            got, err = answers(repo, COMMANDS[:1])
            assert got == want[:1], (view.name, at)


def test_one_byte_changed_in_a_record_pack_is_noticed(warm: tuple[Path, list[str], Path]
                                                      ) -> None:
    repo, want, pristine = warm
    root = restore(repo, pristine)
    metas = sorted((root / "packs").glob("*.meta"))
    assert metas
    for meta in metas:
        for at in (20, meta.stat().st_size // 2, meta.stat().st_size - 2):
            restore(repo, pristine)
            shutil.rmtree(root / "views")  # the packs are read when no view is there
            flip(meta, at)
            got, err = answers(repo, COMMANDS[:2])
            assert got == want[:2]
            assert err.count("notice") <= 2 and "damaged" in err


def test_right_format_wrong_contents_is_rebuilt(warm: tuple[Path, list[str], Path]) -> None:
    repo, want, pristine = warm
    root = restore(repo, pristine)
    shutil.rmtree(root / "views")
    cache = Cache(str(root))
    # Files written by the cache itself, so they pass every checksum, but hold nonsense.
    for name in [p.name for p in root.glob("worktree-*")]:
        cache.write({"worktree": cache.read(name)["worktree"]}, name)
    index = cache.read("index")
    cache.write({**index, "rows": [(1, 2)]}, "index")
    cache.write({"a": 1}, "stats")
    cache.write({"key": 1, "table": 3}, "validate")
    for name in [p.name for p in (root / "packs").glob("*.meta")]:
        metas, spans, scopes = cache.read("packs", name)
        cache.write(({b: m[:3] for b, m in metas.items()}, spans, scopes), "packs", name)
    assert not cache.notices
    got, err = answers(repo)
    assert got == want
    r = aide(repo, "remember", "still possible", "--no-stage", "--json")
    assert r.returncode == 0, r.stderr
    (repo / r.json()["path"]).unlink()  # the fixture's memories stay as they were


def test_index_id_table_of_another_state_does_not_hide_a_match(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r")
    first = aide_ok(repo, "remember", "the first memory about giraffes", "--json").json()
    aide_ok(repo, "search", "giraffes")
    whoosh = repo / CACHE / "whoosh"
    older = tmp_path / "older"
    shutil.copytree(whoosh, older)
    late = aide_ok(repo, "remember", "a later memory about okapis and giraffes",
                   "--json").json()["uuid"]
    both = {first["uuid"], late}
    r = aide_ok(repo, "search", "giraffes", "--json")
    assert {m["uuid"] for m in r.json()["memories"]} == both
    newer_ids = (whoosh / "ids").read_bytes()
    shutil.rmtree(whoosh)
    shutil.copytree(older, whoosh)
    (whoosh / "ids").write_bytes(newer_ids)  # the id table of the later state
    r = aide_ok(repo, "search", "giraffes", "--json")
    assert {m["uuid"] for m in r.json()["memories"]} == both


def test_an_index_file_changed_with_its_size_and_time_kept_is_noticed(
        warm: tuple[Path, list[str], Path]) -> None:
    repo, want, pristine = warm
    for kind in ("seg", "toc", ".qt"):
        root = restore(repo, pristine)
        index_file = next(p for p in (root / "whoosh").iterdir() if p.name.endswith(kind))
        st = index_file.stat()
        flip(index_file, st.st_size * 3 // 20 + 7)  # a spot Whoosh reads without an error
        os.utime(index_file, ns=(st.st_atime_ns, st.st_mtime_ns))
        got, err = answers(repo, COMMANDS[2:3])
        assert got == want[2:3] and "full-text index was damaged" in err, kind


def test_index_id_table_lost_with_packs_damaged_answers_as_no_cache(
        warm: tuple[Path, list[str], Path]) -> None:
    """Run 8 of the fuzz once failed: the id table swapped with another cache file, a
    pack's metadata emptied, its contents swapped; every partner, one and all at once."""
    repo, want, pristine = warm
    root = restore(repo, pristine)
    partners = [p.relative_to(root) for p in files(root) if p.name != "ids"]
    for i, partner in enumerate(partners):
        root = restore(repo, pristine)
        ids = root / "whoosh/ids"
        a, b = ids.read_bytes(), (root / partner).read_bytes()
        ids.write_bytes(b)
        (root / partner).write_bytes(a)
        meta = next((root / "packs").glob("*.meta"), None)
        raw = next((root / "packs").glob("*.raw"), None)
        if meta is not None and raw is not None:
            other = root / partners[(i + 3) % len(partners)]
            meta.write_bytes(b"")
            if other.exists() and other not in (meta, raw):
                a, b = raw.read_bytes(), other.read_bytes()
                raw.write_bytes(b)
                other.write_bytes(a)
        asked = [COMMANDS[0], COMMANDS[2], COMMANDS[3]]
        got, err = answers(repo, asked, parallel=True)
        assert got == [want[0], want[2], want[3]], (partner, err)


@pytest.mark.parametrize("where", ["whoosh", "", "views", "packs"])
def test_a_file_where_a_folder_should_be(warm: tuple[Path, list[str], Path], where: str
                                         ) -> None:
    repo, want, pristine = warm
    root = restore(repo, pristine)
    target = root / where if where else root
    shutil.rmtree(target)
    target.write_text("in the way\n")
    got, err = answers(repo)
    assert got == want
    assert err.count("git-aide: notice:") <= len(COMMANDS)
    if where in ("", "whoosh", "views"):  # what these commands read (or write) is repaired
        assert "notice" in err
    got, err = answers(repo)  # repaired: quiet now
    assert got == want and "notice" not in err
    assert (repo / ".git/aide").is_dir() and (root / "whoosh").is_dir()
    aide_ok(repo, "index")


def test_a_cache_that_cannot_be_written_is_read_around(warm: tuple[Path, list[str], Path]
                                                      ) -> None:
    repo, want, pristine = warm
    root = restore(repo, pristine)
    shutil.rmtree(root)
    # A folder nobody may write in, even root: the cache cannot be repaired there.
    unwritable = Path("/sys/kernel")
    if not unwritable.is_dir() or os.access(unwritable / "x", os.W_OK):
        pytest.skip("no unwritable folder here")
    root.symlink_to(unwritable)
    try:
        got, _err = answers(repo)
        assert got == want
        aide_ok(repo, "index")
    finally:
        root.unlink()


MUTATIONS = ("flip", "flip", "truncate", "empty", "garbage", "swap", "folder")


def mutate(rng: random.Random, root: Path, done: set[Path]) -> str:
    """Damage one cache file not damaged yet in this case; say what was done."""
    candidates = [p for p in files(root) if p not in done]
    path = rng.choice(candidates)
    done.add(path)
    kind = rng.choice(MUTATIONS)
    data = path.read_bytes()
    if kind == "flip":
        flip(path, rng.randrange(max(len(data), 1)))
    elif kind == "truncate":
        path.write_bytes(data[: rng.randrange(max(len(data), 1))])
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "garbage":
        path.write_bytes(data + bytes(rng.randrange(256) for _ in range(16)))
    elif kind == "swap":
        other = rng.choice(candidates)
        done.add(other)
        a, b = path.read_bytes(), other.read_bytes()
        path.write_bytes(b)
        other.write_bytes(a)
    else:  # its folder becomes a file
        folder = path.parent
        shutil.rmtree(folder)
        folder.write_bytes(b"\0")
    return f"{kind} {path.relative_to(root)}"


def test_fuzzed_cache_answers_as_no_cache(warm: tuple[Path, list[str], Path]) -> None:
    """Seeded: 30 runs of 8 damages each (240 cases), each run asked 3 questions (the
    working tree's view, the full-text index, the index's listing) at once."""
    repo, want, pristine = warm
    asked = [COMMANDS[0], COMMANDS[2], COMMANDS[3]]
    expected = [want[0], want[2], want[3]]
    rng = random.Random(20261123)
    for run in range(30):
        root = restore(repo, pristine)
        done: set[Path] = set()
        said = []
        for _ in range(8):
            if not root.is_dir() or not [p for p in files(root) if p not in done]:
                break
            said.append(mutate(rng, root, done))
        got, err = answers(repo, asked, parallel=True)
        assert got == expected, (run, said, err)
        assert err.count("git-aide: notice:") <= len(asked), (run, said, err)


def test_json_of_the_fixture_is_sane(warm: tuple[Path, list[str], Path]) -> None:
    _repo, want, _pristine = warm
    recalled, listed, searched, cached = (json.loads(w)["memories"] for w in want)
    assert len(listed) == 11 and len(cached) == 9 and len(searched) == 11
    assert recalled


def damaged_view_repo(tmp_path: Path) -> Path:
    """A repository with a scoped memory whose working tree's view is kept, then damaged
    (its file cut short): the next reader rebuilds it and has a notice to say."""
    repo = make_repo(tmp_path / "r")
    aide_ok(repo, "remember", "auth tokens rotate hourly", "--scope", "src/auth/**")
    git(repo, "commit", "-qm", "memories")
    time.sleep(2.2)  # views are kept once the index is old enough to trust its stat
    aide_ok(repo, "recall", "src/auth/login.py")
    views = sorted((repo / CACHE / "views").glob("worktree-*"))
    assert views
    for view in views:
        view.write_bytes(view.read_bytes()[:40])
    return repo


def test_a_damaged_cache_is_noticed_through_a_hook(tmp_path: Path) -> None:
    """The hooks say the cache's notices on stderr, as the command line does (they were
    dropped), and still answer as with no cache."""
    repo = damaged_view_repo(tmp_path)
    status, out, err = hook(repo, "pre-tool-use", claude_read(repo, "src/auth/login.py"))
    assert status == 0 and "auth tokens rotate hourly" in context(out)
    notices = [line for line in err.splitlines() if line.startswith("git-aide: notice: ")]
    assert len(notices) == 1 and "damaged" in notices[0], err
    _status, _out, err = hook(repo, "pre-tool-use", claude_read(repo, "src/auth/x.py", "s-2"))
    assert "notice" not in err  # repaired: quiet now


def test_a_damaged_cache_is_noticed_through_the_mcp_server(tmp_path: Path) -> None:
    """The server says each call's notices in its log (stderr), once, and answers."""
    pytest.importorskip("mcp")
    repo = damaged_view_repo(tmp_path)
    srv = Server(repo)
    srv.initialize()
    srv.notify("notifications/initialized")
    for mid in (2, 3):  # the second call finds the cache repaired: no notice
        got = srv.request(mid, "tools/call", {"name": "aide_recall",
                                              "arguments": {"paths": ["src/auth/login.py"]}})
        result = got["result"]
        assert not result.get("isError"), result
        assert "auth tokens rotate hourly" in result["content"][0]["text"]
    status, err = srv.close()
    assert status == 0
    notices = [line for line in err.splitlines() if line.startswith("git-aide: notice: ")]
    assert len(notices) == 1 and "damaged" in notices[0], err
