"""The OpenAPI document: written for the clients nobody here wrote, generated from the contract's Structs.

``document`` holds the document's parts (operations, shared responses, the plugin that serves it), the AG-UI
modules its AG-UI operation and event schemas, ``agent_protocol_runs`` a run's request as the served graphs take it.
"""

from __future__ import annotations

from api.openapi.document import (
    ENDED_STREAM_RESPONSE,
    LAST_EVENT_ID_PATTERN,
    RUN_ID_HEADER,
    RUN_ID_PATTERN,
    SESSION_ID_HEADER,
    SESSION_ID_PATTERN,
    TAGS,
    ContractJsonPlugin,
    EventStreamOperation,
    ResumeOperation,
    RunOperation,
    TurnOperation,
    openapi_document,
    problem_responses,
    schema_ref,
    verbatim_examples,
)

__all__ = (
    "ENDED_STREAM_RESPONSE",
    "LAST_EVENT_ID_PATTERN",
    "RUN_ID_HEADER",
    "RUN_ID_PATTERN",
    "SESSION_ID_HEADER",
    "SESSION_ID_PATTERN",
    "TAGS",
    "ContractJsonPlugin",
    "EventStreamOperation",
    "ResumeOperation",
    "RunOperation",
    "TurnOperation",
    "openapi_document",
    "problem_responses",
    "schema_ref",
    "verbatim_examples",
)
