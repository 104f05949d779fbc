"""`git aide semantic fetch`: the one place git-aide downloads anything.

A known model's files are downloaded from its pinned upstream revision into a new
folder beside their final place, each checked against its sha256 as it arrives, and
the folder is renamed into place only when every file matched and the model loads:
an interrupted or tampered download leaves nothing behind that could be mistaken for
a model.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile

from git_aide.core.errors import AideError
from git_aide.model.catalog import UPSTREAM, Known, fetched_dir, known

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    Progress = Callable[[int, int], None]

#: Seconds without a byte before a download is given up.
TIMEOUT = 60.0


def model_named(name: str) -> Known:
    """The known model of this name; AideError listing the known ones."""
    models = known()
    if name not in models:
        raise AideError(f"no known model named {name!r} (known: {', '.join(sorted(models))})")
    return models[name]


def fetch(model: Known, mirror: str | None = None, progress: Progress | None = None) -> str:
    """Download and check a known model; its folder (already there: nothing is
    downloaded again once its files are checked)."""
    dest = fetched_dir(model)
    if _complete(model, dest):
        return dest
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".fetching-", dir=parent)
    try:
        for local, (remote, sha) in model.files.items():
            _download(model.url(remote, mirror or UPSTREAM), os.path.join(work, local), sha,
                      progress)
        if os.path.isdir(dest):  # a damaged earlier fetch
            shutil.rmtree(dest)
        os.replace(work, dest)
    except BaseException:
        shutil.rmtree(work, ignore_errors=True)
        raise
    return dest


def _complete(model: Known, folder: str) -> bool:
    """Whether every file of the model is in `folder` with its checksum."""
    for local, (_remote, sha) in model.files.items():
        path = os.path.join(folder, local)
        if not os.path.isfile(path) or _sha256(path) != sha:
            return False
    return True


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _download(url: str, path: str, sha: str, progress: Progress | None) -> None:
    """One file, streamed to `path` and hashed on the way; AideError (one line) on any
    failure or a checksum that does not match."""
    import urllib.error
    import urllib.request

    h = hashlib.sha256()
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "git-aide"})
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp, open(path, "wb") as out:
            total = int(resp.headers.get("Content-Length") or 0)
            done = 0
            while True:
                block = resp.read(1 << 16)
                if not block:
                    break
                h.update(block)
                out.write(block)
                done += len(block)
                if progress is not None:
                    progress(done, max(total, done))
    except urllib.error.HTTPError as e:
        raise AideError(f"cannot download {url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, OSError, ValueError) as e:
        why = getattr(e, "reason", None) or e
        raise AideError(f"cannot download {url}: {why} (offline? git-aide works without "
                        "a model: search by words)") from None
    got = h.hexdigest()
    if got != sha:
        raise AideError(f"{url} is not the pinned file: sha256 {got[:16]}..., "
                        f"expected {sha[:16]}...; nothing was installed")
