"""How ``POST /ag-ui`` appears in the OpenAPI document: its request examples and its event stream."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ag_ui.core import PROTOCOL_VERSION, RunStartedEvent
from litestar.openapi.spec import OpenAPIMediaType, OpenAPIResponse, Operation, RequestBody

from api.negotiation import EVENT_STREAM
from api.openapi.operations import verbatim_examples
from api.openapi.responses import schema_ref

__all__ = ("AGUI_REQUEST_EXAMPLES", "AgUiOperation")

_THREAD = "s_4f9c2a7d1e3b4c5a"
AGUI_REQUEST_EXAMPLES: dict[str, Any] = {
    "a question": {
        "threadId": _THREAD,
        "runId": "agui-run-1",
        "messages": [{"id": "m1", "role": "user", "content": "How do I reset my password?"}],
        "protocolVersion": PROTOCOL_VERSION,
    },
    "needs approval": {
        "threadId": "s_7b1e0c9d8a6f5e4d",
        "runId": "agui-run-2",
        "messages": [{"id": "m1", "role": "user", "content": "Please refund invoice INV-1001."}],
    },
    "approve the interrupt": {
        "threadId": "s_7b1e0c9d8a6f5e4d",
        "runId": "agui-run-3",
        "messages": [],
        "resume": [
            {
                "interruptId": "r_0c1d2e3f4a5b6c7d:apv_9a8b7c6d5e4f3a2b",
                "status": "resolved",
                "payload": {"decision": "approve"},
            }
        ],
    },
}
_EVENT_EXAMPLE = {
    "run started": {
        "data": RunStartedEvent(
            thread_id=_THREAD,
            run_id="agui-run-1",
            protocol_version=PROTOCOL_VERSION,
            timestamp=1796011979123,
            metadata={"harness_run_id": "r_0c1d2e3f4a5b6c7d"},
        ).model_dump_json(by_alias=True)
    }
}


@dataclass
class AgUiOperation(Operation):
    """``POST /ag-ui``: ``RunAgentInput`` in, the AG-UI event stream out."""

    def __post_init__(self) -> None:
        body = self.request_body
        assert isinstance(body, RequestBody)
        body.content["application/json"].examples = verbatim_examples(AGUI_REQUEST_EXAMPLES)
        ok = self.responses["200"] if self.responses else None
        assert isinstance(ok, OpenAPIResponse)
        ok.description = (
            "The AG-UI run as Server-Sent Events: `RUN_STARTED`, steps per node, the answer as a text message, "
            "`CUSTOM` events for the topology and cost, then `RUN_FINISHED` (success, an approval interrupt, or "
            "cancelled) or `RUN_ERROR`. The schema describes one event. See docs/ag-ui.md."
        )
        ok.content = {
            EVENT_STREAM: OpenAPIMediaType(
                schema=schema_ref("AgUiEventStream"), examples=verbatim_examples(_EVENT_EXAMPLE)
            )
        }
