"""The MCP server: the handshake without the SDK, the tools' schema, the server and what
its answers say.
"""
