"""What only a long-lived process holds: the MCP server's state and the watch of the
memories folder. The command line never imports it.
"""
