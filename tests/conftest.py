"""The fixtures: a real git repository with git-aide initialised, in a temporary folder.
What tests share besides fixtures is in helpers.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import make_repo


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh repository with git-aide initialised."""
    return make_repo(tmp_path / "repo")
