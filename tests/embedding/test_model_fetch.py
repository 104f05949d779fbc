"""`git aide semantic fetch` (git_aide/embedding/fetch.py) against a local HTTP server that
serves the tiny model in an upstream's layout, with a catalog of the tests' own
($GIT_AIDE_MODEL_CATALOG)."""

from __future__ import annotations

import json
import shutil
import socket
from pathlib import Path
from typing import Any

import pytest
from helpers import (
    TINY_REMOTE,
    TINY_REPO,
    TINY_REVISION,
    aide,
    aide_ok,
    error_line,
    git,
    remember,
    serve,
    sha256_of,
    tiny_catalog,
    uuids,
)

REPO, REVISION, REMOTE = TINY_REPO, TINY_REVISION, TINY_REMOTE


catalog = tiny_catalog


@pytest.fixture
def env(user_env: dict[str, str], tmp_path: Path, tiny: Path) -> dict[str, str]:
    return {**user_env, "GIT_AIDE_MODEL_CATALOG": str(catalog(tmp_path, tiny))}


def models(env: dict[str, str]) -> list[Path]:
    """What is in the user's models folder (fetched models and leftovers alike)."""
    folder = Path(env["XDG_CACHE_HOME"]) / "git-aide" / "models"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def user_model(repo: Path, env: dict[str, str]) -> str:
    return git(repo, "config", "--global", "--get", "aide.semantic.model", check=False,
               env=env).strip()


def test_fetch_installs_checks_and_configures_then_search_works_by_meaning(
        repo: Path, upstream: Path, env: dict[str, str], tiny: Path) -> None:
    auth = remember(repo, "Users authenticate with a password and get a session")["uuid"]
    remember(repo, "We ship releases on Friday")
    with serve(upstream) as (url, asked):
        r = aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
    assert sorted(asked) == sorted(f"/{REPO}/resolve/{REVISION}/{p}" for p in REMOTE.values())
    [folder] = models(env)
    assert folder.name == f"tiny@{REVISION[:12]}"
    for local in REMOTE:
        assert sha256_of(folder / local) == sha256_of(tiny / local)
    assert str(folder) in r.stdout and "CC0-1.0" in r.stdout
    assert user_model(repo, env) == "tiny"
    # The repository's own config is untouched: the model serves every repository.
    assert git(repo, "config", "--local", "--get", "aide.semantic.model", check=False) == ""
    # No word of "signin" is in the memory: it is found by meaning.
    assert uuids(aide_ok(repo, "search", "signin", "--mode", "semantic", "--json",
                         env=env))[0] == auth
    doc = aide_ok(repo, "semantic", "status", "--json", env=env).json()
    assert doc["model"] == "tiny" and doc["loads"] and doc["folder"] == str(folder)


def test_fetch_twice_downloads_nothing_the_second_time(repo: Path, upstream: Path,
                                                       env: dict[str, str]) -> None:
    with serve(upstream) as (url, asked):
        aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
        first = len(asked)
        aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
    assert first == len(REMOTE) and len(asked) == first
    assert len(models(env)) == 1


def test_a_damaged_fetched_model_is_fetched_again(repo: Path, upstream: Path,
                                                  env: dict[str, str], tiny: Path) -> None:
    with serve(upstream) as (url, asked):
        aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
        [folder] = models(env)
        (folder / "model.onnx").write_bytes(b"half a model")
        aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
    assert len(asked) == 2 * len(REMOTE)
    assert models(env) == [folder]
    assert sha256_of(folder / "model.onnx") == sha256_of(tiny / "model.onnx")


def test_no_config_only_downloads(repo: Path, upstream: Path, env: dict[str, str]) -> None:
    git(repo, "config", "--global", "aide.semantic.model", "/somewhere/else", env=env)
    with serve(upstream) as (url, _asked):
        r = aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, "--no-config",
                    env=env)
    assert len(models(env)) == 1 and "Set aide.semantic.model" not in r.stdout
    assert user_model(repo, env) == "/somewhere/else"


def test_a_wrong_checksum_is_refused_and_installs_nothing(repo: Path, upstream: Path,
                                                          env: dict[str, str], tiny: Path,
                                                          tmp_path: Path) -> None:
    bad = {**env, "GIT_AIDE_MODEL_CATALOG": str(catalog(tmp_path, tiny, tokenizer="0" * 64))}
    git(repo, "config", "--global", "aide.semantic.model", "before", env=env)
    with serve(upstream) as (url, asked):
        line = error_line(aide(repo, "semantic", "fetch", "tiny", "--mirror", url,
                                   env=bad))
    assert asked  # it was downloaded, and then refused
    assert "tokenizer.json" in line and "sha256" in line
    assert models(env) == []  # not even a partial download
    assert user_model(repo, env) == "before"


def test_a_server_that_is_down_is_one_line(repo: Path, env: dict[str, str]) -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    line = error_line(aide(repo, "semantic", "fetch", "tiny", "--mirror",
                               f"http://127.0.0.1:{port}", env=env))
    assert f"127.0.0.1:{port}" in line
    assert models(env) == [] and user_model(repo, env) == ""


def test_a_file_the_server_lacks_is_one_line(repo: Path, upstream: Path,
                                             env: dict[str, str]) -> None:
    (upstream / REPO / "resolve" / REVISION / "tokenizer.json").unlink()
    with serve(upstream) as (url, _asked):
        line = error_line(aide(repo, "semantic", "fetch", "tiny", "--mirror", url,
                                   env=env))
    assert "404" in line and models(env) == []


def test_an_unknown_name_or_a_broken_catalog_is_one_line(repo: Path, env: dict[str, str],
                                                         tmp_path: Path) -> None:
    line = error_line(aide(repo, "semantic", "fetch", "no-such-model", env=env))
    assert "no known model named 'no-such-model'" in line and "tiny" in line
    broken = tmp_path / "broken.json"
    broken.write_text('{"tiny": {"repo": "x"}}')
    line = error_line(aide(repo, "semantic", "fetch", "tiny",
                               env={**env, "GIT_AIDE_MODEL_CATALOG": str(broken)}))
    assert "not a model catalog" in line


def hostile(tmp_path: Path, tiny: Path, name: str = "tiny", revision: str = REVISION,
            files: dict[str, list[str]] | None = None) -> Path:
    """A catalog naming the tiny model with one field of a hostile catalog's."""
    if files is None:
        files = {local: [remote, sha256_of(tiny / local)] for local, remote in REMOTE.items()}
    path = tmp_path / "hostile.json"
    path.write_text(json.dumps({name: {"repo": REPO, "revision": revision, "files": files,
                                       "licence": "CC0-1.0", "dim": 8}}))
    return path


def test_a_catalog_revision_cannot_reach_the_users_cache_folder(
        repo: Path, tiny: Path, env: dict[str, str], tmp_path: Path) -> None:
    """A revision of `/../../..` once made the fetched folder $XDG_CACHE_HOME itself,
    which fetch then removed as "a damaged earlier fetch"."""
    cache = Path(env["XDG_CACHE_HOME"])
    (cache / "precious").write_text("the user's own cache")
    # Served where the unchecked URL leads (the server drops the `..`), so that only
    # the check stops it.
    root = tmp_path / "served"
    for local, remote in REMOTE.items():
        (root / remote).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tiny / local, root / remote)
    bad = {**env, "GIT_AIDE_MODEL_CATALOG": str(hostile(tmp_path, tiny,
                                                        revision="/../../.."))}
    with serve(root) as (url, asked):
        line = error_line(aide(repo, "semantic", "fetch", "tiny", "--mirror", url, env=bad))
    assert "hostile.json" in line and "revision" in line and "'/../../..'" in line
    assert asked == []
    assert (cache / "precious").read_text() == "the user's own cache"
    assert models(env) == []


@pytest.mark.parametrize("field", ["local", "absolute", "remote", "name"])
def test_a_catalog_file_name_cannot_leave_the_models_folder(
        repo: Path, tiny: Path, upstream: Path, env: dict[str, str], tmp_path: Path,
        field: str) -> None:
    """A local name of `../..` or an absolute path was downloaded to that path and left
    there once its checksum failed; a remote path or a model name that is not plain is
    refused as well."""
    target = tmp_path / "escaped"
    onnx = [REMOTE["model.onnx"], "0" * 64]  # a checksum that fails, after the download
    tok = [REMOTE["tokenizer.json"], sha256_of(tiny / "tokenizer.json")]
    name = "tiny"
    if field == "local":
        depth = len(Path(env["XDG_CACHE_HOME"], "git-aide", "models", "x").relative_to(
            tmp_path).parts)
        files = {"/".join([".."] * depth + ["escaped"]): onnx, "tokenizer.json": tok}
    elif field == "absolute":
        files = {str(target): onnx, "tokenizer.json": tok}
    elif field == "remote":
        files = {"model.onnx": ["../../../escaped", "0" * 64], "tokenizer.json": tok}
    else:
        name = "../escaped"
        files = {"model.onnx": onnx, "tokenizer.json": tok}
    bad = {**env, "GIT_AIDE_MODEL_CATALOG": str(hostile(tmp_path, tiny, name, files=files))}
    with serve(upstream) as (url, asked):
        line = error_line(aide(repo, "semantic", "fetch", name, "--mirror", url, env=bad))
    assert "hostile.json" in line and "not a model catalog" in line, line
    what = {"local": "local file name", "absolute": "local file name",
            "remote": "remote path", "name": "model name"}[field]
    assert what in line
    assert asked == [] and not target.exists() and models(env) == []


def test_a_catalog_may_pin_each_files_size(repo: Path, upstream: Path, tiny: Path,
                                           env: dict[str, str], tmp_path: Path) -> None:
    """[path, sha256, size] or {"path", "sha256", "size"}: both are read."""
    files: dict[str, Any] = {
        "model.onnx": [REMOTE["model.onnx"], sha256_of(tiny / "model.onnx"),
                       (tiny / "model.onnx").stat().st_size],
        "tokenizer.json": {"path": "tokenizer.json",
                           "sha256": sha256_of(tiny / "tokenizer.json"),
                           "size": (tiny / "tokenizer.json").stat().st_size}}
    pinned = {**env, "GIT_AIDE_MODEL_CATALOG": str(hostile(tmp_path, tiny, files=files))}
    with serve(upstream) as (url, _asked):
        aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=pinned)
    assert [p.name for p in models(env)] == [f"tiny@{REVISION[:12]}"]
    files["model.onnx"][2] = -1
    bad = {**env, "GIT_AIDE_MODEL_CATALOG": str(hostile(tmp_path, tiny, files=files))}
    line = error_line(aide(repo, "semantic", "fetch", "tiny", env=bad))
    assert "size of 'model.onnx'" in line


@pytest.mark.parametrize("what", ["link", "file", "unnamed"])
def test_what_is_in_the_way_and_not_a_fetched_folder_is_never_removed(
        repo: Path, upstream: Path, env: dict[str, str], tmp_path: Path, what: str) -> None:
    """Where the fetched folder goes, a link (to the user's own folder) or a file is
    left as it is, and said in one line; a damaged fetched folder is replaced (the test
    above), renamed aside into a folder of fetch's own first."""
    mine = tmp_path / "my-folder"
    mine.mkdir()
    (mine / "model.onnx").write_text("mine")
    folder = Path(env["XDG_CACHE_HOME"]) / "git-aide" / "models" / f"tiny@{REVISION[:12]}"
    folder.parent.mkdir(parents=True)
    if what == "link":
        folder.symlink_to(mine)
    elif what == "file":
        folder.write_text("a file of the user's")
    if what == "unnamed":
        # $XDG_CACHE_HOME itself a link: the folders under it are still fetch's own.
        real = tmp_path / "real-cache"
        shutil.move(env["XDG_CACHE_HOME"], real)
        Path(env["XDG_CACHE_HOME"]).symlink_to(real)
        with serve(upstream) as (url, _asked):
            aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
        assert [p.name for p in models(env)] == [folder.name]
        return
    with serve(upstream) as (url, _asked):
        line = error_line(aide(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env))
    assert "is in the way" in line and str(folder) in line
    assert (mine / "model.onnx").read_text() == "mine"
    if what == "link":
        assert folder.is_symlink()
    else:
        assert folder.read_text() == "a file of the user's"
    assert models(env) == [folder]  # and no leftovers beside it


def test_a_model_that_does_not_load_is_not_installed(
        repo: Path, tiny: Path, env: dict[str, str], tmp_path: Path) -> None:
    """Its files match the catalog, but it is no model: the load is checked before the
    folder is moved into place, and nothing is installed or configured."""
    root = tmp_path / "served"
    for local, remote in REMOTE.items():
        dest = root / REPO / "resolve" / REVISION / remote
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tiny / local, dest)
    corrupt = root / REPO / "resolve" / REVISION / REMOTE["model.onnx"]
    corrupt.write_bytes(b"\x08\x07 this is not a model" * 20)
    files = {"model.onnx": [REMOTE["model.onnx"], sha256_of(corrupt)],
             "tokenizer.json": [REMOTE["tokenizer.json"], sha256_of(tiny / "tokenizer.json")]}
    bad = {**env, "GIT_AIDE_MODEL_CATALOG": str(hostile(tmp_path, tiny, files=files))}
    with serve(root) as (url, asked):
        line = error_line(aide(repo, "semantic", "fetch", "tiny", "--mirror", url, env=bad))
    assert len(asked) == 2
    assert "tiny does not load, so it was not installed" in line
    assert models(env) == [] and user_model(repo, env) == ""
