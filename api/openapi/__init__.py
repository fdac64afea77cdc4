"""The OpenAPI document: written for the clients nobody here wrote, generated from the contract's Structs.

``document`` holds the document's parts (operations, shared responses, the plugin that serves it), the AG-UI
modules its AG-UI operation and event schemas, ``agent_protocol_runs`` a run's request as the served graphs take it.
The package exports what ``document`` exports.
"""

from __future__ import annotations

from api.openapi import document
from api.openapi.document import *  # noqa: F403

__all__ = document.__all__
