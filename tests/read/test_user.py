"""The user's own store read beside a repository's memories (read/user.py): what every
recall, search and listing of the working tree brings along, and what it does not."""

from __future__ import annotations

import json
import time
from pathlib import Path

from helpers import MEM, aide, aide_ok, commit, git, remember, uuids

from git_aide.cache.folder import RACY_SECONDS
from git_aide.core import memory

FILE = "src/auth/login.py"


def store_of(env: dict[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "git-aide" / "user"


def yours(repo: Path, env: dict[str, str], what: str, *args: str) -> dict[str, object]:
    return aide_ok(repo, "remember", what, "--user", *args, "--json", env=env).json()


def test_the_user_store_follows_into_every_repository(tmp_path: Path, repo: Path,
                                                      user_store: dict[str, str]) -> None:
    team = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")
    commit(repo)
    mine = yours(repo, user_store, "In python code prefer pathlib over os.path",
                 "--scope", "**/*.py")
    terse = yours(repo, user_store, "I like terse answers about auth")
    other = tmp_path / "other"
    git(tmp_path, "init", "-q", str(other))
    aide_ok(other, "init", "--no-hooks")
    for where in (repo, other):
        got = aide_ok(where, "recall", FILE, "--json", env=user_store).json()["memories"]
        by_uuid = {m["uuid"]: m for m in got}
        assert mine["uuid"] in by_uuid
        assert by_uuid[mine["uuid"]]["store"] == "user"
        assert by_uuid[mine["uuid"]]["path"] == mine["path"]
        # a project memory says nothing of a store
        assert all("store" not in m for m in got if m["uuid"] == team["uuid"])
        # every listing holds them, marked as the user's
        listed = aide_ok(where, "list", env=user_store).stdout
        assert "I like terse answers about auth  (yours)" in listed
        found = aide_ok(where, "search", "terse", "--json", env=user_store).json()
        assert [m["uuid"] for m in found["memories"]] == [terse["uuid"]]
    # the query lifts a project-wide one of them as it lifts the repository's own
    asked = aide_ok(repo, "recall", FILE, "--query", "terse answers", "--json",
                    env=user_store).json()["memories"]
    assert terse["uuid"] in [m["uuid"] for m in asked]
    # plain text marks them too
    text = aide_ok(repo, "recall", FILE, env=user_store).stdout
    assert "preferences [**/*.py] (yours)" in text


def test_a_revision_or_the_index_holds_only_the_repositorys(repo: Path,
                                                            user_store: dict[str, str]
                                                            ) -> None:
    """`--rev` and `--cached` answer what the repository held: today's user store would
    be no part of it."""
    team = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")
    commit(repo)
    yours(repo, user_store, "prefer pathlib", "--scope", "**/*.py")
    for source in (["--rev", "HEAD"], ["--cached"]):
        got = aide_ok(repo, "recall", FILE, "--json", *source, env=user_store)
        assert uuids(got) == [team["uuid"]], source
        assert len(uuids(aide_ok(repo, "list", "--json", *source, env=user_store))) == 1
    assert len(uuids(aide_ok(repo, "list", "--json", env=user_store))) == 2


def test_a_hand_edit_of_the_store_is_seen_at_once(repo: Path,
                                                  user_store: dict[str, str]) -> None:
    """The store's files are read again when their stat changes, even after the cache
    of them was written (the file older than RACY_SECONDS)."""
    mine = yours(repo, user_store, "prefer pathlib", "--scope", "**/*.py")
    path = Path(str(mine["path"]))
    time.sleep(RACY_SECONDS + 0.2)  # older: its stat vouches for it, and it is kept
    assert aide_ok(repo, "recall", FILE, "--json", env=user_store).json()[
        "memories"][0]["what"] == "prefer pathlib"
    assert list((store_of(user_store) / ".git" / "aide").rglob("user-files"))
    record = json.loads(path.read_text())
    record["what"] = "prefer pathlib, always"
    path.write_text(json.dumps(record, indent=2) + "\n")
    got = aide_ok(repo, "recall", FILE, "--json", env=user_store).json()["memories"]
    assert [m["what"] for m in got] == ["prefer pathlib, always"]
    path.unlink()
    assert uuids(aide_ok(repo, "recall", FILE, "--json", env=user_store)) == []


def test_a_damaged_cache_of_the_store_is_read_again(repo: Path,
                                                    user_store: dict[str, str]) -> None:
    yours(repo, user_store, "prefer pathlib", "--scope", "**/*.py")
    time.sleep(RACY_SECONDS + 0.2)  # older: its stat vouches for it, and it is kept
    want = aide_ok(repo, "recall", FILE, "--json", env=user_store).json()
    [kept] = (store_of(user_store) / ".git" / "aide").rglob("user-files")
    kept.write_bytes(kept.read_bytes()[:-7] + b"garbage")
    assert aide_ok(repo, "recall", FILE, "--json", env=user_store).json() == want


def test_a_broken_file_of_the_store_is_named_and_the_rest_read(repo: Path,
                                                               user_store: dict[str, str]
                                                               ) -> None:
    mine = yours(repo, user_store, "prefer pathlib", "--scope", "**/*.py")
    bad = store_of(user_store) / MEM / "preferences" / "shared" / "broken.json"
    bad.write_text("{not json")
    r = aide_ok(repo, "recall", FILE, "--json", env=user_store)
    assert uuids(r) == [mine["uuid"]]
    assert f"{bad}: " in r.stderr and "skipped" in r.stderr


def test_no_store_reads_nothing_and_makes_nothing(repo: Path, user_store: dict[str, str]
                                                  ) -> None:
    remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")
    r = aide_ok(repo, "recall", FILE, "--json", env=user_store)
    assert len(uuids(r)) == 1 and r.stderr == ""
    aide_ok(repo, "list", env=user_store)
    aide_ok(repo, "search", "tokens", env=user_store)
    assert not Path(user_store["XDG_DATA_HOME"]).exists()


def test_xdg_data_home_is_taken_only_when_absolute(tmp_path: Path, repo: Path) -> None:
    """A relative XDG_DATA_HOME is ignored, as the XDG specification says: the store is
    then the one under HOME."""
    home = tmp_path / "home"
    env = {"HOME": str(home), "XDG_DATA_HOME": "relative/data"}
    made = aide_ok(repo, "remember", "prefer pathlib", "--user", "--json", env=env).json()
    assert made["path"].startswith(str(home / ".local" / "share" / "git-aide" / "user"))
    assert not (repo / "relative").exists()
    assert uuids(aide_ok(repo, "list", "--json", env=env)) == [made["uuid"]]


def test_the_store_is_never_written_into_the_repository(repo: Path,
                                                        user_store: dict[str, str]
                                                        ) -> None:
    """Nothing of a user memory reaches the repository's files or index: git sees the
    working tree as `remember --user` found it."""
    commit(repo)
    before = git(repo, "status", "--porcelain", "--ignored")
    yours(repo, user_store, "I like terse answers")
    aide_ok(repo, "recall", FILE, env=user_store)
    assert git(repo, "status", "--porcelain", "--ignored") == before
    assert not list((repo / MEM).rglob("*.json"))


def test_the_store_is_its_users_own_to_link(repo: Path, tmp_path: Path,
                                            user_store: dict[str, str]) -> None:
    """A memories folder of the store may be a link (a dotfiles checkout, say): the
    store is read through it, unlike a repository's."""
    elsewhere = tmp_path / "dotfiles" / "preferences"
    rec = memory.new("prefer pathlib", layer="preferences", contributor="Ada",
                     scope="**/*.py")
    (elsewhere / "shared").mkdir(parents=True)
    (elsewhere / "shared" / f"{rec['uuid']}.json").write_bytes(memory.canonical(rec))
    top = store_of(user_store) / MEM
    top.mkdir(parents=True)
    (top / "preferences").symlink_to(elsewhere)
    assert uuids(aide_ok(repo, "recall", FILE, "--json", env=user_store)) == [rec["uuid"]]
    assert aide(repo, "list", "--user", env=user_store).returncode == 0
