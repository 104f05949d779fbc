"""Running a sentence model (git_aide/embedding/runtime.py) on the tests' tiny model, with
the real onnxruntime and tokenizers; the catalog of known models."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from helpers import (
    AIDE,
    AUTH_WORDS,
    BASE_ENV,
    TINY_DIM,
    Result,
    aide,
    broken_model,
    git,
    remember,
    uuids,
)

from git_aide.core.errors import AideError
from git_aide.embedding import catalog
from git_aide.embedding.runtime import Embedder, identity

np = pytest.importorskip("numpy")


def test_the_tiny_model_loads_and_gives_unit_vectors(tiny: Path) -> None:
    assert sum(p.stat().st_size for p in tiny.iterdir()) < 16_000  # kilobytes
    model = Embedder(str(tiny))
    texts = ["Users authenticate with a password and get a session",
             "We ship releases on Friday", "signin", "words it never saw"]
    vecs = model.embed(texts)
    assert vecs.shape == (len(texts), TINY_DIM) and vecs.dtype == np.float32
    assert np.allclose(np.linalg.norm(vecs, axis=1), 1.0, atol=1e-5)
    assert model.dim == TINY_DIM
    # In its order, whatever the lengths (texts are batched by length).
    assert np.allclose(model.embed(texts[::-1]), vecs[::-1], atol=1e-6)
    assert model.embed([]).shape == (0, TINY_DIM)


def test_the_tiny_model_means_something(tiny: Path) -> None:
    """The table's design, as the other semantic tests rely on it: words of one meaning
    are near one another and far from the other meaning."""
    model = Embedder(str(tiny))
    auth, ship, signin, friday = model.embed([
        "Users authenticate with a password and get a session",
        "We ship releases on Friday", "signin", "FRIDAY"])
    assert signin @ auth > 0.8 and abs(signin @ ship) < 0.1
    assert friday @ ship > 0.8 and abs(friday @ auth) < 0.1
    assert {"login", "signin"} <= set(AUTH_WORDS)


def test_the_identity_is_the_files_content_and_is_remembered(tiny: Path,
                                                             tmp_path: Path) -> None:
    copy = Path(shutil.copytree(tiny, tmp_path / "copy"))
    memo = tmp_path / "memo"
    memo.mkdir()
    key = identity(str(tiny), str(memo))
    assert re.fullmatch(r"[0-9a-f]{24}", key)
    assert identity(str(copy)) == key == identity(str(tiny), str(memo))
    assert Embedder(str(copy)).key == key
    tok = copy / "tokenizer.json"
    tok.write_text(tok.read_text().replace('"signin"', '"sign-in"'))
    assert identity(str(copy), str(memo)) != key


def one_error(folder: Path) -> str:
    with pytest.raises(AideError) as caught:
        Embedder(str(folder))
    msg = str(caught.value)
    assert "\n" not in msg and str(folder) in msg
    return msg


def test_a_model_that_cannot_be_used_is_one_line_saying_why(tiny: Path,
                                                             tmp_path: Path) -> None:
    assert "no model at" in one_error(tmp_path / "nowhere")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no model.onnx" in one_error(empty)
    no_tok = Path(shutil.copytree(tiny, tmp_path / "no-tok"))
    (no_tok / "tokenizer.json").unlink()
    assert "no tokenizer.json" in one_error(no_tok)
    corrupt = Path(shutil.copytree(tiny, tmp_path / "corrupt"))
    (corrupt / "model.onnx").write_bytes(b"\x08\x07 this is not a model" * 20)
    assert one_error(corrupt).startswith("cannot load the model in")
    bad_tok = Path(shutil.copytree(tiny, tmp_path / "bad-tok"))
    (bad_tok / "tokenizer.json").write_text("{not json")
    assert one_error(bad_tok).startswith("cannot load the model in")


def test_a_model_folder_in_the_exports_layout_is_found(tiny: Path, tmp_path: Path) -> None:
    """An upstream checkout keeps its ONNX file under onnx/: one there is used."""
    folder = tmp_path / "export"
    (folder / "onnx").mkdir(parents=True)
    shutil.copy(tiny / "model.onnx", folder / "onnx" / "model_qint8.onnx")
    shutil.copy(tiny / "tokenizer.json", folder / "tokenizer.json")
    assert Embedder(str(folder)).embed(["login"]).shape == (1, TINY_DIM)


@pytest.mark.parametrize("damage", ["missing", "no tokenizer", "corrupt"])
def test_the_cli_says_a_broken_model_in_one_line(repo: Path, tiny: Path, tmp_path: Path,
                                                 damage: str) -> None:
    folder = broken_model(tiny, tmp_path / "model", damage)
    remember(repo, "Users authenticate with a password and get a session")
    git(repo, "config", "aide.semantic.model", str(folder))
    r = aide(repo, "search", "signin", "--mode", "semantic")
    assert r.returncode != 0 and r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in r.stderr, r.stderr
    assert lines[0].startswith("git-aide: error:") and str(folder) in lines[0]


def test_the_default_known_model_is_pinned() -> None:
    """all-MiniLM-L6-v2 at a fixed upstream commit, each file with its sha256."""
    model = catalog.KNOWN[catalog.DEFAULT]
    assert catalog.DEFAULT == "all-MiniLM-L6-v2" == model.name
    assert re.fullmatch(r"[0-9a-f]{40}", model.revision)
    assert set(model.files) == {"model.onnx", "tokenizer.json"}
    for _remote, sha, size in model.files.values():
        assert re.fullmatch(r"[0-9a-f]{64}", sha) and size
    assert model.dim == 384 and model.licence
    remote = model.files["model.onnx"][0]
    assert model.url(remote) == (f"{catalog.UPSTREAM}/{model.repo}/resolve/"
                                 f"{model.revision}/{remote}")
    assert model.url(remote, "http://mirror/").startswith(f"http://mirror/{model.repo}/")


def in_time(repo: Path, *args: str) -> Result:
    """git-aide run as a process that fails the test, rather than hanging it, when it
    takes over a minute."""
    try:
        proc = subprocess.run([*AIDE, *args], cwd=repo, env=BASE_ENV, capture_output=True,
                              text=True, timeout=60)
    except subprocess.TimeoutExpired:
        pytest.fail(f"git-aide {' '.join(args)} hung")
    return Result(proc.returncode, proc.stdout, proc.stderr)


@pytest.mark.parametrize("kind", ["fifo", "dev zero", "tokenizer fifo"])
def test_a_model_file_that_is_not_a_regular_file_never_hangs(
        repo: Path, tiny: Path, tmp_path: Path, kind: str) -> None:
    """model.onnx a FIFO (or a link to /dev/zero) once hung every search while its
    identity was hashed: now it is said in one line and the search answers by words."""
    folder = Path(shutil.copytree(tiny, tmp_path / "model"))
    name = "tokenizer.json" if kind == "tokenizer fifo" else "model.onnx"
    (folder / name).unlink()
    if kind == "dev zero":
        (folder / name).symlink_to("/dev/zero")
    else:
        os.mkfifo(folder / name)
    auth = remember(repo, "Users authenticate with a password and get a session")["uuid"]
    git(repo, "config", "aide.semantic.model", str(folder))
    said = f"cannot load the model in {folder}: {name} is not a regular file"
    r = in_time(repo, "search", "password", "--json")
    assert r.returncode == 0 and uuids(r) == [auth], r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and said in lines[0] and "semantic search is off" in lines[0]
    r = in_time(repo, "recall", "src/x.py", "--query", "password", "--json")
    assert r.returncode == 0 and auth in uuids(r)
    r = in_time(repo, "index")
    assert r.returncode == 0 and "Embedded" not in r.stdout
    r = in_time(repo, "semantic", "status")
    assert r.returncode == 0 and said in r.stdout
    with pytest.raises(AideError, match="is not a regular file"):
        Embedder(str(folder))


def test_a_link_to_a_regular_model_file_is_fine(tiny: Path, tmp_path: Path) -> None:
    folder = tmp_path / "linked"
    folder.mkdir()
    for name in ("model.onnx", "tokenizer.json"):
        (folder / name).symlink_to(tiny / name)
    assert Embedder(str(folder)).embed(["login"]).shape == (1, TINY_DIM)
