"""What only a long-lived process holds: the MCP server's state (state.py), the answers it
keeps (kept_answers.py), the stat of its git config's files (gitconfig.py), the watch of
the memories folder (watch.py), and the socket through which it answers hooks and
reading commands (listener.py, contexts.py; the thin client that asks it, client.py,
and where it listens, address.py). The command line never imports it, but for the thin
client, which __main__.py runs before anything else.
"""
