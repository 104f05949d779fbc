"""What only a long-lived process holds: the MCP server's state (state.py), the answers it
keeps (kept_answers.py), the stat of its git config's files (gitconfig.py), and the
watch of the memories folder (watch.py). The command line never imports it.
"""
