"""`git aide semantic fetch`: the one place git-aide downloads anything.

A known model's files are downloaded from its pinned upstream revision into a new
folder beside their final place, each checked against its size and sha256 as it
arrives, and the folder is renamed into place only when every file matched and the
model loads: an interrupted, stopped (SIGTERM, SIGINT) or tampered download leaves
nothing behind that could be mistaken for a model.

A download is bounded: a file is read no further than its pinned size (MAX_FILE when
the catalog pins none), a server whose Content-Length disagrees is refused at once, and
the whole fetch must keep an average of MIN_RATE bytes a second once GRACE seconds have
passed (a server that sends a byte every few seconds never trips a read's timeout).
Nothing is ever removed that fetch did not make: a damaged earlier fetch is replaced
only when it is a real folder of the models folder named as fetch names its folders,
and it is first renamed aside into a folder of fetch's own.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import tempfile
import time

from git_aide.core.errors import AideError
from git_aide.embedding.catalog import (
    FETCHED,
    MAX_FILE,
    UPSTREAM,
    Known,
    fetched_dir,
    inside,
    known,
    models_dir,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    Progress = Callable[[int, int], None]

#: Seconds without a byte before a download is given up.
TIMEOUT = 60.0
#: The average rate (bytes a second) a fetch must keep once GRACE seconds have passed;
#: $GIT_AIDE_FETCH_MIN_RATE replaces it.
MIN_RATE = 16 * 1024
MIN_RATE_ENV = "GIT_AIDE_FETCH_MIN_RATE"
#: Seconds a fetch may take before its average rate is checked; $GIT_AIDE_FETCH_GRACE.
GRACE = 30.0
GRACE_ENV = "GIT_AIDE_FETCH_GRACE"
#: Bytes asked of the server at a time (a read returns whatever has arrived).
BLOCK = 1 << 16


def model_named(name: str) -> Known:
    """Find the known model of this name; AideError listing the known ones."""
    models = known()
    if name not in models:
        raise AideError(f"no known model named {name!r} (known: {', '.join(sorted(models))})")
    return models[name]


def fetch(model: Known, mirror: str | None = None, progress: Progress | None = None,
          check: Callable[[str], None] | None = None) -> str:
    """Download and check a known model; its folder (already there: nothing is
    downloaded again once its files are checked). `check(folder)`: raises AideError
    when the model in the folder cannot be used; it runs before the folder is moved
    into place. `progress(done, total)`: bytes downloaded, of all the files."""
    dest = fetched_dir(model)
    if _complete(model, dest):
        if check is not None:
            check(dest)
        return dest
    parent = os.path.dirname(dest)
    os.makedirs(parent, exist_ok=True)
    sizes = [size for _remote, _sha, size in model.files.values()]
    pace = Pace(sum(s or 0 for s in sizes), progress)
    work: str | None = None
    with _stopped_by_signals():
        try:
            work = tempfile.mkdtemp(prefix=".fetching-", dir=parent)
            for local, (remote, sha, size) in model.files.items():
                _download(model.url(remote, mirror or UPSTREAM), inside(work, local), sha,
                          size, pace)
            if check is not None:
                check(work)
            _install(work, dest)
        except BaseException:
            if work is not None:
                shutil.rmtree(work, ignore_errors=True)
            raise
    return dest


def _complete(model: Known, folder: str) -> bool:
    """Tell whether every file of the model is in `folder` with its size and checksum."""
    for local, (_remote, sha, size) in model.files.items():
        path = inside(folder, local)
        try:
            st = os.stat(path)
        except OSError:
            return False
        if not stat.S_ISREG(st.st_mode) or st.st_size != (size or st.st_size) \
                or st.st_size > MAX_FILE or _sha256(path) != sha:
            return False
    return True


def _sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _install(work: str, dest: str) -> None:
    """Move the checked folder `work` to `dest`. What is at `dest` already (a damaged
    earlier fetch) is replaced only when it is a real folder of the models folder named
    as fetch names its folders; it is renamed aside into a folder fetch makes, and that
    is removed: nothing fetch did not make is ever removed."""
    if not os.path.lexists(dest):
        os.replace(work, dest)
        return
    parent, name = os.path.split(dest)
    try:
        mode = os.lstat(dest).st_mode
    except OSError:
        mode = 0
    if parent != models_dir() or not FETCHED.fullmatch(name) or not stat.S_ISDIR(mode):
        raise AideError(f"{dest} is in the way and is not a folder semantic fetch made (a "
                        "link or a file?): move it away and fetch again; nothing was "
                        "installed")
    aside = tempfile.mkdtemp(prefix=".replaced-", dir=parent)
    old = os.path.join(aside, "old")
    try:
        os.rename(dest, old)
        try:
            os.replace(work, dest)
        except BaseException:
            with contextlib.suppress(OSError):
                os.rename(old, dest)
            raise
    finally:
        shutil.rmtree(aside, ignore_errors=True)


def _setting(name: str, default: float) -> float:
    """Read a number from the environment, or `default`; AideError when it is not one."""
    value = os.environ.get(name)
    if not value:
        return default
    try:
        number = float(value)
    except ValueError:
        number = -1.0
    if not number >= 0:  # (NaN too)
        raise AideError(f"${name} is not a number of at least 0: {value!r}")
    return number


class Pace:
    """Count the bytes a fetch has downloaded, show them (`progress`) and hold the fetch to a
    minimum average rate once a grace period has passed."""

    def __init__(self, total: int, progress: Progress | None) -> None:
        #: Bytes expected in all (the pinned sizes, and what servers announced).
        self.total = total
        #: Bytes downloaded so far.
        self.done = 0
        self.progress = progress
        self.min_rate = _setting(MIN_RATE_ENV, MIN_RATE)
        self.grace = _setting(GRACE_ENV, GRACE)
        self.start = time.monotonic()

    def add(self, n: int, url: str) -> None:
        """Count `n` more bytes that arrived; AideError when the fetch is too slow."""
        self.done += n
        if self.progress is not None:
            self.progress(self.done, max(self.total, self.done))
        elapsed = time.monotonic() - self.start
        if elapsed > self.grace and self.done < self.min_rate * elapsed:
            raise AideError(
                f"cannot download {url}: too slow ({self.done} bytes in {elapsed:.0f} s, "
                f"under {self.min_rate / 1024:g} KiB/s; ${MIN_RATE_ENV} sets the bound); "
                "nothing was installed")


def _download(url: str, path: str, sha: str, size: int | None, pace: Pace) -> None:
    """Download one file to `path`, hashing it on the way and never reading past its pinned size
    (MAX_FILE when it has none); AideError (one line) on any failure, a size or a checksum that does
    not match."""
    import http.client
    import urllib.error
    import urllib.request

    h = hashlib.sha256()
    bound = size if size is not None else MAX_FILE
    got = 0
    length: int | None = None
    try:
        req = urllib.request.Request(url, headers={"User-Agent": "git-aide"})
        with urllib.request.urlopen(req, timeout=TIMEOUT) as resp, open(path, "xb") as out:
            said = resp.headers.get("Content-Length")
            if said is not None:
                length = int(said)
            if length is not None and length != (size if size is not None else length):
                raise AideError(f"{url} is not the pinned file: the server gives {length} "
                                f"bytes, the catalog pins {size}; nothing was installed")
            if length is not None and length > bound:
                raise AideError(f"{url} is larger ({length} bytes) than a model file may be "
                                f"({bound}); nothing was installed")
            if size is None and length is not None:
                pace.total += length
            while True:
                block = resp.read1(min(BLOCK, bound + 1 - got))
                if not block:
                    break
                got += len(block)
                if got > bound:
                    limit = "pinned" if size else "a model file may have"
                    raise AideError(f"{url} is not the pinned file: it goes on past the "
                                    f"{bound} bytes {limit}; nothing was installed")
                h.update(block)
                out.write(block)
                pace.add(len(block), url)
    except AideError:
        raise
    except urllib.error.HTTPError as e:
        raise AideError(f"cannot download {url}: HTTP {e.code} {e.reason}") from None
    except (urllib.error.URLError, http.client.HTTPException, OSError, ValueError) as e:
        why = getattr(e, "reason", None) or str(e) or type(e).__name__
        raise AideError(f"cannot download {url}: {why} (offline? git-aide works without "
                        "a model: search by words)") from None
    expected = size if size is not None else length
    if expected is not None and got != expected:
        raise AideError(f"cannot download {url}: the server stopped after {got} of "
                        f"{expected} bytes; nothing was installed")
    digest = h.hexdigest()
    if digest != sha:
        raise AideError(f"{url} is not the pinned file: sha256 {digest[:16]}..., "
                        f"expected {sha[:16]}...; nothing was installed")


@contextlib.contextmanager
def _stopped_by_signals() -> Iterator[None]:
    """Make SIGTERM and SIGINT raise AideError (once) while a fetch runs, so that what it
    downloaded is removed as on any failure; the handlers before are put back after.
    (Only the main thread can take signals: elsewhere this does nothing.)"""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    fired: list[int] = []

    def stop(signum: int, _frame: object) -> None:
        if fired:
            return  # the first one's cleanup is under way
        fired.append(signum)
        name = signal.Signals(signum).name
        raise AideError(f"semantic fetch was stopped ({name}); what it had downloaded was "
                        "removed", 128 + signum)

    before = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        yield
    finally:
        for s, handler in before.items():
            signal.signal(s, handler if handler is not None else signal.SIG_DFL)
