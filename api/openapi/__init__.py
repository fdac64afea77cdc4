"""The OpenAPI document: written for the clients nobody here wrote, generated from the contract's Structs.

``document`` assembles the document (the contract's schemas, parameters as the server reads them, the plugin that
serves it), ``operations`` the operation classes routes opt into, ``responses`` the problem+json answers, the AG-UI
modules its AG-UI operation and event schemas, ``agent_protocol_runs`` a run's request as the served graphs take it.
The package exports what the first three export.
"""

from __future__ import annotations

from api.openapi import document, operations, responses
from api.openapi.document import *  # noqa: F403
from api.openapi.operations import *  # noqa: F403
from api.openapi.responses import *  # noqa: F403

__all__ = document.__all__ + operations.__all__ + responses.__all__
