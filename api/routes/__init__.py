"""The HTTP routes, one module per resource; the routes of each protocol are grouped as one Litestar ``Router``,
built by its module (``native``, ``agent_protocol``, ``agui``, ``ai_sdk``, ``a2a``, ``mcp``) and mounted by
``api.app``."""
