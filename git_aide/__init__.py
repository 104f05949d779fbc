"""git-aide: a git-native memory for AI coding agents and the people who work beside them."""

__version__ = "0.1.0"

#: Where memories live, relative to the repository root.
MEMORIES_DIR = ".aide/memories"
