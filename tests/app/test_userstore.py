"""Writing the user's own store (app/userstore.py): each write commits there, none ever
touches the repository the command runs in, and its memories are reached by id from
any repository (or none)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import MEM, aide, aide_ok, clone, commit, error_line, git, make_repo, remember, uuids


def store_of(env: dict[str, str]) -> Path:
    return Path(env["XDG_DATA_HOME"]) / "git-aide" / "user"


def yours(cwd: Path, env: dict[str, str], what: str, *args: str) -> dict[str, object]:
    return aide_ok(cwd, "remember", what, "--user", *args, "--json", env=env).json()


def history(env: dict[str, str]) -> list[str]:
    return git(store_of(env), "log", "--format=%s").splitlines()


def test_remember_user_commits_in_the_store_and_nothing_here(repo: Path,
                                                             user_store: dict[str, str]
                                                             ) -> None:
    commit(repo)
    before = git(repo, "status", "--porcelain", "--ignored")
    made = yours(repo, user_store, "I like terse answers", "--why", "long ones get skimmed")
    store = store_of(user_store)
    rel = f"{MEM}/preferences/shared/{made['uuid']}.json"
    assert made == {"uuid": made["uuid"], "path": str(store / rel), "created": True,
                    "staged": False, "store": "user", "committed": True, "warnings": []}
    record = json.loads((store / rel).read_text())
    assert record["layer"] == "preferences" and record["why"] == "long ones get skimmed"
    # a repository of its own, the memory its first commit, nothing left over
    assert history(user_store) == ["remember: I like terse answers"]
    assert git(store, "status", "--porcelain") == ""
    # the project: nothing staged, nothing written
    assert git(repo, "status", "--porcelain", "--ignored") == before
    # the same text again is the same memory, and no commit
    again = yours(repo, user_store, "I like terse answers")
    assert (again["uuid"], again["created"]) == (made["uuid"], False)
    assert len(history(user_store)) == 1
    text = aide_ok(repo, "remember", "Prefer pathlib", "--user", env=user_store).stdout
    assert text.startswith("Remembered ") and "in your user store (" in text
    assert text.rstrip().endswith(", committed).")


def test_the_user_store_works_outside_any_repository(tmp_path: Path,
                                                     user_store: dict[str, str]) -> None:
    nowhere = tmp_path / "nowhere"
    nowhere.mkdir()
    made = yours(nowhere, user_store, "I like terse answers")
    listed = aide_ok(nowhere, "list", "--user", "--json", env=user_store).json()
    assert listed["source"] == {"kind": "user", "rev": None, "commit": None}
    assert [m["uuid"] for m in listed["memories"]] == [made["uuid"]]
    assert listed["memories"][0]["store"] == "user"
    short = str(made["uuid"])[:8]
    shown = aide_ok(nowhere, "show", short, "--json", env=user_store).json()
    assert shown["memory"]["what"] == "I like terse answers"
    aide_ok(nowhere, "update", short, "--what", "I like short answers", env=user_store)
    assert "I like short answers  (yours)" in aide_ok(nowhere, "list", "--user",
                                                      env=user_store).stdout
    aide_ok(nowhere, "forget", short, env=user_store)
    assert aide_ok(nowhere, "list", "--user", env=user_store).stdout.strip() == \
        "No memories in your user store."
    assert history(user_store) == ["forget: I like short answers",
                                   "update: I like short answers",
                                   "remember: I like terse answers"]
    # a source of the repository needs one
    r = aide(nowhere, "list", "--user", "--rev", "HEAD", env=user_store)
    assert r.returncode == 2 and "--user" in error_line(r)


def test_update_and_forget_find_a_user_memory_from_a_repository(repo: Path,
                                                                user_store: dict[str, str]
                                                                ) -> None:
    team = remember(repo, "auth tokens rotate hourly", "--scope", "src/auth/**")
    commit(repo)
    made = yours(repo, user_store, "I like terse answers")
    short = str(made["uuid"])[:8]
    done = aide_ok(repo, "update", short, "--tag", "style", "--json", env=user_store).json()
    assert done["store"] == "user" and done["committed"] and not done["staged"]
    assert json.loads(Path(str(made["path"])).read_text())["tags"] == ["style"]
    # the project was not touched; the store has the change committed
    assert git(repo, "status", "--porcelain") == ""
    assert history(user_store)[0] == "update: I like terse answers"
    # one forget may name a project memory and a user memory
    gone = aide_ok(repo, "forget", team["uuid"][:8], short, "--json", env=user_store).json()
    assert gone == {"forgotten": [team["uuid"], made["uuid"]], "staged": True,
                    "store": "user", "committed": True}
    assert not Path(str(made["path"])).exists()
    assert git(repo, "status", "--porcelain") == f"D  {team['path']}\n"
    assert history(user_store)[0] == "forget: I like terse answers"


def test_an_id_that_names_a_memory_of_each_is_ambiguous(repo: Path,
                                                        user_store: dict[str, str]) -> None:
    made = yours(repo, user_store, "I like terse answers")
    uuid = str(made["uuid"])
    twin = {**json.loads(Path(str(made["path"])).read_text()),
            "uuid": uuid[:8] + "-0000-4000-8000-000000000000", "layer": "technical"}
    (repo / MEM / "technical" / f"{twin['uuid']}.json").write_text(json.dumps(twin))
    for argv in (["update", uuid[:8], "--tag", "x"], ["forget", uuid[:8]]):
        r = aide(repo, *argv, env=user_store)
        assert r.returncode == 1 and "ambiguous" in error_line(r), argv
    assert Path(str(made["path"])).exists()
    # the whole uuid names one
    aide_ok(repo, "update", uuid, "--tag", "x", env=user_store)


def test_a_user_memory_is_checked_as_any_write(repo: Path, user_store: dict[str, str]
                                               ) -> None:
    r = aide(repo, "remember", "I like terse answers", "--user", "--personal", env=user_store)
    assert r.returncode == 2 and "--personal" in error_line(r)
    r = aide(repo, "remember", "the deploy key is AKIAIOSFODNN7EXAMPLE", "--user",
             env=user_store)
    assert r.returncode == 1
    r = aide(repo, "remember", "billing is event-sourced", "--user", "--layer",
             "area_context", env=user_store)
    assert r.returncode == 1 and "scope" in error_line(r)
    assert not store_of(user_store).joinpath(MEM).exists()


def test_a_write_from_a_git_hook_commits_in_the_store_not_the_project(
        repo: Path, user_store: dict[str, str]) -> None:
    """git runs a hook with GIT_DIR and GIT_INDEX_FILE set to the project's: the store's
    git must not take them."""
    commit(repo)
    head = git(repo, "rev-parse", "HEAD")
    before = git(repo, "status", "--porcelain", "--ignored")
    env = {**user_store, "GIT_DIR": str(repo / ".git"), "GIT_WORK_TREE": str(repo),
           "GIT_INDEX_FILE": str(repo / ".git" / "index")}
    yours(repo, env, "I like terse answers")
    assert history(user_store) == ["remember: I like terse answers"]
    assert git(repo, "rev-parse", "HEAD") == head
    assert git(repo, "status", "--porcelain", "--ignored") == before


def test_a_teammate_never_reads_a_user_memory(tmp_path: Path, user_store: dict[str, str]
                                              ) -> None:
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    mine = make_repo(tmp_path / "mine")
    git(mine, "remote", "add", "origin", str(origin))
    remember(mine, "auth tokens rotate hourly", "--scope", "src/auth/**")
    yours(mine, user_store, "I like terse answers")
    commit(mine)
    git(mine, "push", "-q", "origin", "main")
    theirs = clone(origin, tmp_path / "theirs")
    teammate = {"XDG_DATA_HOME": str(tmp_path / "teammate-data")}
    got = aide_ok(theirs, "list", "--json", env=teammate).json()["memories"]
    assert [m["what"] for m in got] == ["auth tokens rotate hourly"]
    assert "terse" not in git(theirs, "log", "-p", "--all")


def test_export_leaves_user_memories_out(repo: Path, user_store: dict[str, str]) -> None:
    remember(repo, "review every migration twice", "--layer", "guidelines")
    yours(repo, user_store, "I like terse answers", "--priority", "always")
    aide_ok(repo, "export", "--agent", "claude", env=user_store)
    written = (repo / "CLAUDE.md").read_text()
    assert "review every migration twice" in written
    assert "terse" not in written


def test_a_commit_that_fails_leaves_the_memory_written_and_says_so(
        repo: Path, user_store: dict[str, str]) -> None:
    no_name = {**user_store, "GIT_AUTHOR_NAME": "", "GIT_COMMITTER_NAME": ""}
    made = aide_ok(repo, "remember", "I like terse answers", "--user", "--json",
                   env=no_name).json()
    assert made["committed"] is False
    assert "not committed in the user store" in made["warnings"][0]
    assert uuids(aide_ok(repo, "list", "--user", "--json", env=user_store)) == [made["uuid"]]
    doctor = aide(repo, "doctor", env=user_store).stdout
    assert "1 file of the user store not committed" in doctor


def test_doctor_reports_the_store(repo: Path, user_store: dict[str, str]) -> None:
    store = store_of(user_store)
    r = aide(repo, "doctor", env=user_store)
    assert f"note: no user store yet ({store})" in r.stdout
    yours(repo, user_store, "I like terse answers")
    yours(repo, user_store, "Prefer pathlib", "--scope", "**/*.py")
    lines = aide(repo, "doctor", "--json", env=user_store).json()["checks"]
    said = [c["message"] for c in lines if c["check"] == "user"]
    assert said[0] == f"user store {store}: 2 memories"
    assert "has no remote" in said[1]
    git(store, "remote", "add", "origin", str(store.parent / "elsewhere.git"))
    (store / MEM / "preferences" / "shared" / "broken.json").write_text("{")
    lines = aide(repo, "doctor", "--json", env=user_store).json()["checks"]
    user = [c for c in lines if c["check"] == "user"]
    assert any("remote (origin)" in c["message"] and c["ok"] for c in user)
    assert any("broken.json" in c["message"] and not c["ok"] for c in user)
