"""The LangGraph Agent Server API (the Agent Protocol) over the same runs: routes, views, the stream encoder."""

from __future__ import annotations
