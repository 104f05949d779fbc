"""Sentence-embedding models for semantic search: the catalog of known models, the one
download command, and running a model (onnxruntime + tokenizers, the `semantic` extra).

Nothing here is imported unless a model is configured or a `semantic` command runs:
without the extra, git-aide works by words alone.
"""
