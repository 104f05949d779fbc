"""A model download is bounded (git_aide/embedding/fetch.py): never read past a file's
pinned size, refused when the server's length disagrees, given up when the whole fetch
is too slow, removed when the fetch is stopped by a signal, and shown as it goes.
Servers here misbehave on purpose: an HTTP server in a thread, on 127.0.0.1."""

from __future__ import annotations

import contextlib
import http.server
import os
import pty
import re
import select
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from helpers import (
    AIDE,
    BASE_ENV,
    TINY_REMOTE,
    TINY_REPO,
    TINY_REVISION,
    Result,
    aide_ok,
    error_line,
    serve,
    sha256_of,
    shared_model,
    tiny_catalog,
)

from git_aide.embedding import catalog

REPO, REVISION, REMOTE = TINY_REPO, TINY_REVISION, TINY_REMOTE
#: A process that hangs fails its test after this many seconds, instead of hanging it.
PATIENCE = 60


def write_catalog(tmp_path: Path, tiny: Path, sizes: bool = True) -> Path:
    """A catalog naming the tiny model `tiny`, with each file's sha256 (and size)."""
    return tiny_catalog(tmp_path, tiny, sizes)


@pytest.fixture
def env(user_env: dict[str, str], tmp_path: Path, tiny: Path) -> dict[str, str]:
    return {**user_env, "GIT_AIDE_MODEL_CATALOG": str(write_catalog(tmp_path, tiny))}


def leftovers(env: dict[str, str]) -> list[str]:
    """What is in the user's models folder (a model, or what a download left)."""
    folder = Path(env["XDG_CACHE_HOME"]) / "git-aide" / "models"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def fetch(repo: Path, url: str, env: dict[str, str]) -> Result:
    """`semantic fetch tiny` from `url`; a hang fails the test after PATIENCE seconds."""
    proc = subprocess.run([*AIDE, "semantic", "fetch", "tiny", "--mirror", url], cwd=repo,
                          env={**BASE_ENV, **env}, capture_output=True, text=True,
                          timeout=PATIENCE)
    return Result(proc.returncode, proc.stdout, proc.stderr)


class Sent:
    """What a misbehaving server wrote, in bytes, over all its answers."""

    def __init__(self) -> None:
        self.bytes = 0


@contextlib.contextmanager
def misbehaving(answer: Callable[[http.server.BaseHTTPRequestHandler, Sent], None]
                ) -> Iterator[tuple[str, Sent]]:
    """A server whose every GET is answered by `answer(handler, sent)`."""
    sent = Sent()

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            with contextlib.suppress(OSError):
                answer(self, sent)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                              daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", sent
    finally:
        server.shutdown()
        server.server_close()


def endless(handler: http.server.BaseHTTPRequestHandler, sent: Sent) -> None:
    """200 and bytes without end (no Content-Length), up to 256 MB."""
    handler.send_response(200)
    handler.end_headers()
    block = b"\0" * (1 << 16)
    while sent.bytes < 256 << 20:
        handler.wfile.write(block)
        sent.bytes += len(block)


def test_the_default_model_pins_each_files_size() -> None:
    """all-MiniLM-L6-v2's files at the pinned revision: 23,026,053 and 466,247 bytes."""
    model = catalog.KNOWN[catalog.DEFAULT]
    sizes = {local: size for local, (_remote, _sha, size) in model.files.items()}
    assert sizes == {"model.onnx": 23_026_053, "tokenizer.json": 466_247}
    shared = shared_model()
    if shared is not None:  # the same tokenizer.json (its sha256 is the pinned one)
        tok = shared / "tokenizer.json"
        assert sha256_of(tok) == model.files["tokenizer.json"][1]
        assert tok.stat().st_size == sizes["tokenizer.json"]


def test_a_file_longer_than_its_pinned_size_is_not_read_past_it(
        repo: Path, env: dict[str, str]) -> None:
    """An endless answer once wrote 1.3 GB in 8 s: now the download stops one byte past
    the pinned size, says so, and leaves nothing."""
    with misbehaving(endless) as (url, sent):
        line = error_line(fetch(repo, url, env))
    assert "goes on past the" in line and "bytes pinned" in line
    # What the kernel's socket buffers took before the client hung up, not 256 MB.
    assert sent.bytes < 64 << 20
    assert leftovers(env) == []


def test_a_catalog_without_sizes_is_bounded_too(repo: Path, tiny: Path, tmp_path: Path,
                                                upstream: Path, env: dict[str, str]) -> None:
    """An older catalog pins no sizes: it still fetches, and a file is still bounded
    (MAX_FILE, made small here by the server's Content-Length being over it)."""
    unsized = {**env, "GIT_AIDE_MODEL_CATALOG": str(write_catalog(tmp_path, tiny, False))}
    with serve(upstream) as (url, _asked):
        aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, "--no-config",
                env=unsized)
    assert leftovers(env) == [f"tiny@{REVISION[:12]}"]
    shutil.rmtree(Path(env["XDG_CACHE_HOME"]) / "git-aide")

    def huge(handler: http.server.BaseHTTPRequestHandler, sent: Sent) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(catalog.MAX_FILE + 1))
        handler.end_headers()

    with misbehaving(huge) as (url, _sent):
        line = error_line(fetch(repo, url, unsized))
    assert "larger" in line and str(catalog.MAX_FILE) in line
    assert leftovers(env) == []


def test_a_content_length_other_than_the_pinned_size_is_refused(
        repo: Path, tiny: Path, env: dict[str, str]) -> None:
    size = (tiny / "model.onnx").stat().st_size

    def longer(handler: http.server.BaseHTTPRequestHandler, sent: Sent) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(size + 10))
        handler.end_headers()
        handler.wfile.write((tiny / "model.onnx").read_bytes() + b"0123456789")
        sent.bytes += size + 10

    with misbehaving(longer) as (url, _sent):
        line = error_line(fetch(repo, url, env))
    assert f"the server gives {size + 10} bytes, the catalog pins {size}" in line
    assert leftovers(env) == []


def trickle(seconds: float, every: float = 0.2) -> Callable[
        [http.server.BaseHTTPRequestHandler, Sent], None]:
    """An answer of one byte every `every` seconds, for `seconds` at most: no read ever
    waits long enough for a timeout."""

    def answer(handler: http.server.BaseHTTPRequestHandler, sent: Sent) -> None:
        handler.send_response(200)
        handler.end_headers()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            handler.wfile.write(b"\0")
            handler.wfile.flush()
            sent.bytes += 1
            time.sleep(every)

    return answer


def test_a_server_too_slow_for_the_whole_fetch_is_given_up(
        repo: Path, env: dict[str, str]) -> None:
    """A byte every 0.2 s: the fetch's average rate, checked once its grace period
    passed (here 1 s and 50 KiB/s), gives it up long before the server stops."""
    slow = {**env, "GIT_AIDE_FETCH_GRACE": "1", "GIT_AIDE_FETCH_MIN_RATE": str(50 << 10)}
    start = time.monotonic()
    with misbehaving(trickle(40)) as (url, _sent):
        line = error_line(fetch(repo, url, slow))
    assert time.monotonic() - start < 30
    assert "too slow" in line and "GIT_AIDE_FETCH_MIN_RATE" in line
    assert leftovers(env) == []
    r = fetch(repo, "http://127.0.0.1:9", {**env, "GIT_AIDE_FETCH_GRACE": "soon"})
    assert "GIT_AIDE_FETCH_GRACE" in error_line(r)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_a_fetch_stopped_by_a_signal_leaves_nothing(repo: Path, env: dict[str, str],
                                                    sig: signal.Signals) -> None:
    """SIGTERM (a service stopping, a timeout's kill) or SIGINT (Ctrl-C) midway: the
    partial download is removed, and the fetch says so in one line."""
    slow = {**env, "GIT_AIDE_FETCH_MIN_RATE": "0"}
    with misbehaving(trickle(40, every=0.05)) as (url, sent):
        proc = subprocess.Popen([*AIDE, "semantic", "fetch", "tiny", "--mirror", url],
                                cwd=repo, env={**BASE_ENV, **slow}, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + PATIENCE
        while sent.bytes < 5 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert any(n.startswith(".fetching-") for n in leftovers(env))  # under way
        proc.send_signal(sig)
        try:
            _out, err = proc.communicate(timeout=PATIENCE)
        finally:
            proc.kill()
    assert proc.returncode == 128 + sig, (proc.returncode, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"stopped ({sig.name})" in lines[0]
    assert leftovers(env) == []


def test_a_fetch_says_what_it_downloaded_when_not_on_a_terminal(
        repo: Path, upstream: Path, env: dict[str, str]) -> None:
    with serve(upstream) as (url, _asked):
        r = aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
        again = aide_ok(repo, "semantic", "fetch", "tiny", "--mirror", url, env=env)
    [line] = r.stderr.splitlines()
    assert re.fullmatch(r"git-aide: fetching tiny: downloaded \d+\.\d MB in \d+\.\d s", line)
    assert again.stderr == ""  # nothing was downloaded


def test_a_fetch_shows_its_progress_on_a_terminal(repo: Path, upstream: Path,
                                                  env: dict[str, str]) -> None:
    """On a terminal, the progress bar is drawn as the bytes arrive, then the last
    line is said."""
    main, sub = pty.openpty()
    with serve(upstream) as (url, _asked):
        proc = subprocess.Popen([*AIDE, "semantic", "fetch", "tiny", "--mirror", url],
                                cwd=repo, env={**BASE_ENV, **env, "TERM": "xterm",
                                               "COLUMNS": "100"},
                                stdin=subprocess.DEVNULL, stdout=sub, stderr=sub)
        os.close(sub)
        shown = b""
        deadline = time.monotonic() + PATIENCE
        while time.monotonic() < deadline:
            ready, _, _ = select.select([main], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(main, 65536)
                except OSError:  # the terminal's other side closed
                    break
                if not chunk:
                    break
                shown += chunk
            elif proc.poll() is not None:
                break
        proc.wait(timeout=PATIENCE)
        os.close(main)
    text = shown.decode(errors="replace")
    assert proc.returncode == 0, text
    assert "fetching tiny" in text and "100%" in text, text
    assert "downloaded" in text and "Fetched tiny" in text
