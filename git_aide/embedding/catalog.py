"""Known models: where each comes from (a pinned revision of its upstream repository),
what its files must hash to, and where a fetched model lives (the user's cache).

A model is a folder with an ONNX model (`model.onnx`) and its `tokenizer.json`.
`aide.semantic.model` names one: a path to such a folder, or a known name, which means
the folder `semantic fetch` made for it.

A catalog's names become paths under the models folder and parts of URLs: a model's
name must be a plain name, its revision hexadecimal, a file's local name a plain file
name and its remote path relative without `..`; anything else is refused in one line
naming the catalog and the field (a revision of `/../../..` once made `semantic fetch`
remove the user's cache folder as "a damaged earlier fetch").
"""

from __future__ import annotations

import os
import re

from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from git_aide.core.jsonvalue import JSON

#: The config key naming the model.
MODEL_KEY = "aide.semantic.model"
#: The model `semantic fetch` gets when none is named.
DEFAULT = "all-MiniLM-L6-v2"
#: Where the files of a known model are served from; `--mirror` replaces it.
UPSTREAM = "https://huggingface.co"
#: A JSON file of more known models, or of other pins for the same names (an
#: organisation's own mirror, and the tests, which serve a tiny model of their own).
CATALOG_ENV = "GIT_AIDE_MODEL_CATALOG"
#: The largest file a catalog may pin, and the bound of a file it gives no size for.
MAX_FILE = 2 << 30

#: A model's name, a file's local name, one part of a remote path or of a repository:
#: letters, digits, `.`, `_`, `-` and `+`, starting with a letter or a digit (so never
#: `.`, `..` or a hidden name), at most 100 of them.
PLAIN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}")
#: A pinned revision: a commit id, hexadecimal (a short one of 7 at least).
REVISION = re.compile(r"[0-9a-f]{7,64}")
#: A file's sha256.
SHA256 = re.compile(r"[0-9a-f]{64}")
#: What a folder `semantic fetch` made is named: `<model name>@<12 of its revision>`.
FETCHED = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]{0,99}@[0-9a-f]{7,12}")


class Known:
    """Name a model git-aide can fetch: its upstream repository, revision and files."""

    __slots__ = ("name", "repo", "revision", "files", "licence", "dim")

    def __init__(self, name: str, repo: str, revision: str,
                 files: dict[str, tuple[str, str, int | None]], licence: str, dim: int) -> None:
        #: The name `aide.semantic.model` and `semantic fetch` use.
        self.name = name
        #: The upstream repository (owner/name).
        self.repo = repo
        #: The pinned revision (a commit id): the files never change under it.
        self.revision = revision
        #: Local file name -> (path in the upstream repository, its sha256, its size in
        #: bytes; None: not pinned, bounded by MAX_FILE).
        self.files = files
        #: The licence of the weights, as upstream states it.
        self.licence = licence
        #: The length of its vectors.
        self.dim = dim

    def url(self, remote: str, base: str = UPSTREAM) -> str:
        """Return the URL one of its files is downloaded from."""
        return f"{base.rstrip('/')}/{self.repo}/resolve/{self.revision}/{remote}"


#: The models git-aide knows. all-MiniLM-L6-v2 is sentence-transformers' own ONNX
#: export, int8-quantised (23 MB), at a fixed revision; the checksums and sizes are those
#: of the files at that revision.
KNOWN: dict[str, Known] = {
    "all-MiniLM-L6-v2": Known(
        "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2",
        "d83dd3760b5bfe921f2fe125446b17bf0b7eda8c",
        {"model.onnx": ("onnx/model_qint8_avx512_vnni.onnx",
                        "4278337fd0ff3c68bfb6291042cad8ab363e1d9fbc43dcb499fe91c871902474",
                        23_026_053),
         "tokenizer.json": ("tokenizer.json",
                            "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
                            466_247)},
        "Apache-2.0", 384),
}


def known() -> dict[str, Known]:
    """Return the known models, with those of $GIT_AIDE_MODEL_CATALOG (which win by name).
    AideError (one line) naming the catalog and the field it cannot take."""
    models = dict(KNOWN)
    extra = os.environ.get(CATALOG_ENV)
    if not extra:
        return models
    import json

    def bad(why: str) -> AideError:
        return AideError(f"${CATALOG_ENV} ({extra}) is not a model catalog: {why}")

    try:
        with open(extra, encoding="utf-8") as f:
            doc: JSON = json.load(f)
        if not isinstance(doc, dict):
            raise bad("it is not a JSON object of models by name")
        for name, m in doc.items():
            _plain(name, "its model name", bad)
            models[name] = _entry(name, m, bad)
    except AideError:
        raise
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise bad(str(e)) from None
    return models


def _plain(value: object, what: str, bad: Callable[[str], AideError]) -> str:
    """Return `value` when it is a plain name (PLAIN); else raise bad(...)."""
    if not isinstance(value, str) or not PLAIN.fullmatch(value):
        raise bad(f"{what} {value!r} is not a plain name (letters, digits, . _ - +)")
    return value


def _entry(name: str, m: JSON, bad: Callable[[str], AideError]) -> Known:
    """Read one model of a catalog, every field checked (bad(...) raised otherwise)."""
    where = f"model {name!r}:"
    if not isinstance(m, dict):
        raise bad(f"{where} it is not a JSON object")
    lacks = [k for k in ("repo", "revision", "files") if k not in m]
    if lacks:
        raise bad(f"{where} it has no {lacks[0]}")
    repo = m["repo"]
    if not isinstance(repo, str) or not all(PLAIN.fullmatch(p) for p in repo.split("/")):
        raise bad(f"{where} its repo {repo!r} is not owner/name")
    revision = m["revision"]
    if not isinstance(revision, str) or not REVISION.fullmatch(revision):
        raise bad(f"{where} its revision {revision!r} is not a hexadecimal commit id")
    if not isinstance(m["files"], dict) or not m["files"]:
        raise bad(f"{where} its files are not an object of files by local name")
    files: dict[str, tuple[str, str, int | None]] = {}
    for local, spec in m["files"].items():
        _plain(local, f"{where} the local file name", bad)
        if isinstance(spec, dict):
            remote, sha, size = spec["path"], spec["sha256"], spec.get("size")
        elif isinstance(spec, list) and len(spec) in (2, 3):
            remote, sha, size = (*spec, None)[:3]
        else:
            raise bad(f"{where} file {local!r} is not [path, sha256, size]")
        if not isinstance(remote, str) \
                or not all(PLAIN.fullmatch(p) for p in remote.split("/")):
            raise bad(f"{where} the remote path {remote!r} of {local!r} is not a relative "
                      "path of plain names (no .., not absolute)")
        if not isinstance(sha, str) or not SHA256.fullmatch(sha):
            raise bad(f"{where} the sha256 of {local!r} is not 64 hexadecimal digits")
        if size is not None and (type(size) is not int or not 0 < size <= MAX_FILE):
            raise bad(f"{where} the size of {local!r} is not a number of bytes "
                      f"from 1 to {MAX_FILE}")
        files[local] = (remote, sha, size)
    dim = m.get("dim", 0)
    if type(dim) is not int or dim < 0:
        raise bad(f"{where} its dim {dim!r} is not a number")
    return Known(name, repo, revision, files, str(m.get("licence", "unknown")), dim)


def models_dir() -> str:
    """Return the folder fetched models live in: $XDG_CACHE_HOME/git-aide/models (absolute)."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.abspath(os.path.join(base, "git-aide", "models"))


def fetched_dir(model: Known) -> str:
    """Return where `semantic fetch` puts a known model: a folder of models_dir() named
    FETCHED; AideError if the name would make anything else of it."""
    folder = models_dir()
    name = f"{model.name}@{model.revision[:12]}"
    if not FETCHED.fullmatch(name):
        raise AideError(f"the model {model.name!r} at revision {model.revision!r} cannot be "
                        "fetched: its name or revision is not plain")
    return inside(folder, name)


def inside(folder: str, *parts: str) -> str:
    """Join `folder` with `parts`, which must stay strictly inside it (as text: no
    `..`, no absolute part); AideError otherwise."""
    path = os.path.normpath(os.path.join(folder, *parts))
    base = os.path.normpath(folder)
    if os.path.commonpath([base, path]) != base or path == base:
        raise AideError(f"{os.path.join(*parts)!r} is not a path inside {folder}")
    return path


def resolve(value: str) -> str:
    """Return the model folder a value of aide.semantic.model names: a known name's fetched
    folder, else the path itself (`~` expanded). It may not exist: loading says so."""
    value = value.strip()
    models = known()
    if value in models and not os.path.isdir(os.path.expanduser(value)):
        return fetched_dir(models[value])
    return os.path.abspath(os.path.expanduser(value))
