"""What the model tests share: the tiny model laid out as its upstream serves it."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import TINY_REMOTE, TINY_REPO, TINY_REVISION


@pytest.fixture
def upstream(tiny: Path, tmp_path: Path) -> Path:
    """A folder laid out as an upstream serves a model: <repo>/resolve/<revision>/<path>."""
    root = tmp_path / "upstream"
    for local, remote in TINY_REMOTE.items():
        dest = root / TINY_REPO / "resolve" / TINY_REVISION / remote
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(tiny / local, dest)
    return root
