"""Agents' hook events: what each event is given, the session's record, and which files
a tool call is about.
"""
