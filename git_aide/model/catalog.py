"""Known models: where each comes from (a pinned revision of its upstream repository),
what its files must hash to, and where a fetched model lives (the user's cache).

A model is a folder with an ONNX model (`model.onnx`) and its `tokenizer.json`.
`aide.semantic.model` names one: a path to such a folder, or a known name, which means
the folder `semantic fetch` made for it.
"""

from __future__ import annotations

import os

from git_aide.core.errors import AideError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

#: The config key naming the model.
MODEL_KEY = "aide.semantic.model"
#: The model `semantic fetch` gets when none is named.
DEFAULT = "all-MiniLM-L6-v2"
#: Where the files of a known model are served from; `--mirror` replaces it.
UPSTREAM = "https://huggingface.co"
#: A JSON file of more known models, or of other pins for the same names (an
#: organisation's own mirror, and the tests, which serve a tiny model of their own).
CATALOG_ENV = "GIT_AIDE_MODEL_CATALOG"


class Known:
    """A model git-aide can fetch: its upstream repository, revision and files."""

    __slots__ = ("name", "repo", "revision", "files", "licence", "dim")

    def __init__(self, name: str, repo: str, revision: str, files: dict[str, tuple[str, str]],
                 licence: str, dim: int) -> None:
        #: The name `aide.semantic.model` and `semantic fetch` use.
        self.name = name
        #: The upstream repository (owner/name).
        self.repo = repo
        #: The pinned revision (a commit id): the files never change under it.
        self.revision = revision
        #: Local file name -> (path in the upstream repository, its sha256).
        self.files = files
        #: The licence of the weights, as upstream states it.
        self.licence = licence
        #: The length of its vectors.
        self.dim = dim

    def url(self, remote: str, base: str = UPSTREAM) -> str:
        """Where one of its files is downloaded from."""
        return f"{base.rstrip('/')}/{self.repo}/resolve/{self.revision}/{remote}"


#: The models git-aide knows. all-MiniLM-L6-v2 is sentence-transformers' own ONNX
#: export, int8-quantised (23 MB), at a fixed revision; the checksums are those of the
#: files at that revision.
KNOWN: dict[str, Known] = {
    "all-MiniLM-L6-v2": Known(
        "all-MiniLM-L6-v2", "sentence-transformers/all-MiniLM-L6-v2",
        "d83dd3760b5bfe921f2fe125446b17bf0b7eda8c",
        {"model.onnx": ("onnx/model_qint8_avx512_vnni.onnx",
                        "4278337fd0ff3c68bfb6291042cad8ab363e1d9fbc43dcb499fe91c871902474"),
         "tokenizer.json": ("tokenizer.json",
                            "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037")},
        "Apache-2.0", 384),
}


def known() -> dict[str, Known]:
    """The known models, with those of $GIT_AIDE_MODEL_CATALOG (which win by name)."""
    models = dict(KNOWN)
    extra = os.environ.get(CATALOG_ENV)
    if not extra:
        return models
    import json

    try:
        with open(extra, encoding="utf-8") as f:
            doc: Any = json.load(f)
        for name, m in doc.items():
            files = {local: (str(remote), str(sha)) for local, (remote, sha) in m["files"].items()}
            models[name] = Known(name, str(m["repo"]), str(m["revision"]), files,
                                 str(m.get("licence", "unknown")), int(m.get("dim", 0)))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
        raise AideError(f"${CATALOG_ENV} ({extra}) is not a model catalog: {e}") from None
    return models


def models_dir() -> str:
    """The folder fetched models live in: $XDG_CACHE_HOME/git-aide/models."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "git-aide", "models")


def fetched_dir(model: Known) -> str:
    """Where `semantic fetch` puts a known model."""
    return os.path.join(models_dir(), f"{model.name}@{model.revision[:12]}")


def resolve(value: str) -> str:
    """The model folder a value of aide.semantic.model names: a known name's fetched
    folder, else the path itself (`~` expanded). It may not exist: loading says so."""
    value = value.strip()
    models = known()
    if value in models and not os.path.isdir(os.path.expanduser(value)):
        return fetched_dir(models[value])
    return os.path.abspath(os.path.expanduser(value))
