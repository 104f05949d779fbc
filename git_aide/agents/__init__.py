"""What git-aide says to coding agents: rules files in and out, and (elsewhere) MCP and hooks."""
