"""What the AI SDK's ``DefaultChatTransport`` sends to ``POST /ai-sdk/chat``: the fields this service reads.

The transport sends the chat's id, its UI messages, what triggered the request and, for an approval, the
message it answers, merged with whatever the application adds (``body`` of ``useChat``): unknown fields are
accepted and ignored. Only the newest message is read. Its parts are the AI SDK's (``text``, ``tool-<name>``,
``step-start``, ``data-*``, ...), an open set: they are taken as objects and read by ``api.ai_sdk.request``.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

from contracts.ids import ClientId, SessionId

__all__ = ("AiSdkChatRequest", "AiSdkTrigger", "AiSdkUIMessage")

AiSdkTrigger = Literal["submit-message", "regenerate-message"]


class AiSdkUIMessage(msgspec.Struct, kw_only=True):
    """One UI message of the chat (`UIMessage`)."""

    id: ClientId
    role: Literal["system", "user", "assistant"]
    parts: Annotated[
        list[dict[str, Any]],
        msgspec.Meta(
            description=(
                "The message's parts. Read of the newest message only: a user message's `{type: text}` parts "
                "(their text is the turn), or an assistant message's `tool-<action>` part in state "
                "`approval-responded` (its `approval: {id, approved, reason}` decides the paused run)."
            )
        ),
    ]
    metadata: Any = None


class AiSdkChatRequest(msgspec.Struct, rename="camel", kw_only=True):
    """The body `DefaultChatTransport` posts: a new user message, or the answer to a tool approval request."""

    id: Annotated[SessionId, msgspec.Meta(description="The chat's id: the session. A new id starts a session.")]
    messages: Annotated[
        list[AiSdkUIMessage],
        msgspec.Meta(
            min_length=1,
            description=(
                "The chat's messages; only the newest is read (the session's history is the server's, not the "
                "client's)."
            ),
        ),
    ]
    trigger: Annotated[
        AiSdkTrigger,
        msgspec.Meta(
            description=(
                "`submit-message` (a new message, or an approval answered), or `regenerate-message` (the newest "
                "user message is asked again as a new turn)."
            )
        ),
    ] = "submit-message"
    message_id: Annotated[
        ClientId | None,
        msgspec.Meta(description="The message the request is about (an approval's assistant message)."),
    ] = None
    input: Annotated[
        Any,
        msgspec.Meta(
            description=(
                "`POST /ai-sdk/{assistant_id}/chat` only: the graph's input, for a graph whose input has no `messages`."
            )
        ),
    ] = None
    config: Annotated[
        dict[str, Any] | None,
        msgspec.Meta(
            description=(
                "`POST /ai-sdk/{assistant_id}/chat` only: the run's config, as the Agent Protocol's (keys LangGraph or "
                "the service reads itself are refused)."
            )
        ),
    ] = None
    context: Annotated[
        dict[str, Any] | None,
        msgspec.Meta(description="`POST /ai-sdk/{assistant_id}/chat` only: the run's context."),
    ] = None
