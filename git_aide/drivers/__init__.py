"""The programs git itself starts: the merge driver (merge.py) and textconv."""
