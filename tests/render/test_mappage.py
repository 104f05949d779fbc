"""`git aide map --html`: one page that loads nothing, shown in a real browser
(headless Chromium, where it is installed): a screenshot that is not blank, and the
page's own script listing a folder's memories when the address names the folder."""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import zlib
from pathlib import Path
from typing import Any

import pytest
from helpers import BASE_ENV, aide_ok, code_file, commit, remember, write

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None, reason="headless Chromium is not installed (apt-get install chromium); "
    "the page is checked in a browser only where there is one")


@pytest.fixture
def page(repo: Path, tmp_path: Path) -> tuple[Path, dict[str, dict[str, Any]]]:
    """A repository's map written as a page, and the memories it shows."""
    for rel in ("src/auth/login.ts", "src/auth/keys/rsa.ts", "src/db/query.py",
                "src/ui/button.tsx", "src/ui/form.tsx"):
        code_file(repo, rel)
    write(repo, "docs/guide.md", "A short guide.\n")  # no memory, but little code
    write(repo, "vendor/big.js", "x" * 20_000)
    docs = {
        "auth": remember(repo, "Tokens rotate hourly </script><b>not markup</b>",
                         "--layer", "area_context", "--scope", "src/auth/**",
                         "--priority", "always"),
        "login": remember(repo, "Login retries are capped at five", "--layer",
                          "area_context", "--scope", "src/auth/login.ts"),
        "keys": remember(repo, "Keys are never logged", "--layer", "area_context",
                         "--scope", "src/auth/keys/**"),
        "src": remember(repo, "Everything under src is TypeScript first", "--layer",
                        "guidelines", "--scope", "src/**"),
        "db": remember(repo, "Queries go through the pool", "--layer", "area_context",
                       "--scope", "src/db/**"),
        "gone": remember(repo, "The old module is frozen", "--layer", "area_context",
                         "--scope", "src/old/**"),
        "wide": remember(repo, "Commit messages say why", "--layer", "guidelines"),
    }
    commit(repo, "code and memories")
    out = tmp_path / "map.html"
    r = aide_ok(repo, "map", "--html", str(out))
    assert r.stdout.startswith(f"wrote {out}: ")
    return out, docs


def embedded(html: str) -> Any:
    """The JSON document the page's script reads."""
    m = re.search(r'<script type="application/json" id="data">(.*?)</script>', html, re.S)
    assert m is not None
    return json.loads(m.group(1))


def test_the_page_loads_nothing_and_holds_its_data(page: tuple[Path, Any]) -> None:
    path, docs = page
    html = path.read_text(encoding="utf-8")
    assert "default-src 'none'" in html  # the browser refuses any load
    assert not re.search(r"(?i)<[^>]*\s(src|href)\s*=|@import|url\(|https?://", html)
    # Memory text cannot end the data early or become markup.
    assert "</script><b>" not in html and html.count("</script>") == 2
    data = embedded(html)
    assert data["start"] == "" and data["folders"][0][0] == ""
    whats = {m[0]: m[3] for m in data["memories"]}
    assert whats[docs["auth"]["uuid"]] == "Tokens rotate hourly </script><b>not markup</b>"
    assert [f[1] for f in data["findings"]] == ["orphaned"]
    assert aide_ok(path.parent / "repo", "map", "--html", "-").stdout.startswith(
        "<!doctype html>")


def run_chromium(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Headless Chromium, offline, with a profile of its own."""
    assert CHROMIUM is not None
    profile = tmp_path / "chromium-profile"
    profile.mkdir(exist_ok=True)
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", "--window-size=1200,900", *args],
        capture_output=True, text=True, timeout=120, env={**BASE_ENV, "HOME": str(tmp_path)})


def png_pixels(path: Path) -> tuple[int, int, set[bytes]]:
    """(width, height, the distinct colours) of an 8-bit RGB or RGBA PNG."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    at, idat = 8, b""
    width = height = kind = 0
    while at < len(data):
        (n,) = struct.unpack(">I", data[at:at + 4])
        tag, body = data[at + 4:at + 8], data[at + 8:at + 8 + n]
        at += 12 + n
        if tag == b"IHDR":
            width, height, depth, kind = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and kind in (2, 6)
        elif tag == b"IDAT":
            idat += body
    bpp = 3 if kind == 2 else 4
    raw = zlib.decompress(idat)
    stride = width * bpp
    prev = bytearray(stride)
    colours: set[bytes] = set()
    for y in range(height):
        row = raw[y * (stride + 1):(y + 1) * (stride + 1)]
        kind_of, cur = row[0], bytearray(row[1:])
        if kind_of == 1:
            for i in range(bpp, stride):
                cur[i] = (cur[i] + cur[i - bpp]) & 255
        elif kind_of == 2:
            cur = bytearray((a + b) & 255 for a, b in zip(cur, prev, strict=True))
        elif kind_of == 3:
            for i in range(stride):
                left = cur[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 255
        elif kind_of == 4:
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b = prev[i]
                c = prev[i - bpp] if i >= bpp else 0
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        if y % 4 == 0:
            colours.update(bytes(cur[i:i + 3]) for i in range(0, stride, bpp * 4))
        prev = cur
    return width, height, colours


@needs_chromium
def test_a_browser_draws_the_folders_and_lists_a_folders_memories(
        page: tuple[Path, Any], tmp_path: Path) -> None:
    path, docs = page
    shot = tmp_path / "map.png"
    r = run_chromium(tmp_path, f"--screenshot={shot}", f"{path.as_uri()}#folder=src")
    assert shot.exists(), r.stderr[-2000:]
    width, height, colours = png_pixels(shot)
    assert (width, height) == (1200, 900)
    assert shot.stat().st_size > 20_000
    assert len(colours) > 50  # a drawn map and text, not a blank page

    # The folder named in the address is opened: its subfolders drawn, its memories listed.
    r = run_chromium(tmp_path, "--dump-dom", f"{path.as_uri()}#folder=src/auth")
    dom = r.stdout
    assert 'data-ready="1"' in dom, r.stderr[-2000:]
    assert '<h2 id="panel-title">src/auth/</h2>' in dom
    panel = dom[dom.index('id="memories"'):dom.index("</aside>")]
    listed = set(re.findall(r'<span class="id">([0-9a-f]{8})</span>', panel))
    assert listed == {docs[k]["uuid"][:8] for k in ("auth", "login", "keys", "src")}
    # Scoped there (auth, and login: one file of it), below it (keys), from above (src/**).
    groups = re.findall(r'data-group="([^"]+)"><h3>[^<]*\((\d+)\)</h3>', panel)
    assert groups == [("Scoped here", "2"), ("Scoped below", "1"), ("From folders above", "1")]
    assert "not markup</b>" not in panel and "&lt;b&gt;not markup&lt;/b&gt;" in panel
    assert 'class="badge always"' in panel

    r = run_chromium(tmp_path, "--dump-dom", f"{path.as_uri()}#folder=src")
    cells = set(re.findall(r'class="cell[^"]*" data-path="([^"]+)"', r.stdout))
    assert {"src/auth", "src/db", "src/ui"} <= cells
    top = run_chromium(tmp_path, "--dump-dom", path.as_uri()).stdout
    assert re.search(r'class="cell uncovered[^"]*" data-path="vendor"', top)
    assert re.search(r'class="cell none[^"]*" data-path="docs"', top)
    assert "Findings (1)" in top and 'data-kind="orphaned"' in top
    assert "Always-on memories (1)" in top
