"""The scripted fake chat model: the same conversation always gets the same answer, streamed as a provider's is."""

from __future__ import annotations

from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from agent.llm.scripted_model import ScriptedChatModel


def script(messages: list[BaseMessage]) -> AIMessage | str:
    if isinstance(messages[-1], ToolMessage):
        return f"It is {messages[-1].text}."
    return AIMessage("Let me look.", tool_calls=[{"name": "lookup_order", "args": {"order_id": "A-1"}, "id": None}])


async def test_an_answer_streams_word_by_word_with_its_tool_calls_and_counts_on_the_last_chunk() -> None:
    model = ScriptedChatModel(script=script).bind_tools([])
    chunks = [chunk async for chunk in model.astream([HumanMessage("Where is A-1?")])]
    whole: Any = chunks[0]
    for chunk in chunks[1:]:
        whole = whole + chunk

    assert [chunk.content for chunk in chunks] == ["Let", " me", " look."]
    assert [chunk.chunk_position for chunk in chunks] == [None, None, "last"]
    assert [(call["name"], call["args"]) for call in whole.tool_calls] == [("lookup_order", {"order_id": "A-1"})]
    assert whole.usage_metadata == {"input_tokens": 3, "output_tokens": 3, "total_tokens": 6}


async def test_the_same_conversation_gets_the_same_answer_and_tool_call_ids() -> None:
    model = ScriptedChatModel(script=script)
    conversation = [HumanMessage("Where is A-1?")]

    first = await model.ainvoke(conversation)
    again = model.invoke(conversation)
    other = await model.ainvoke([HumanMessage("Where is A-2?")])

    assert first.tool_calls == again.tool_calls
    assert first.tool_calls[0]["id"] != other.tool_calls[0]["id"]
    follow_up = [*conversation, first, ToolMessage("shipped", tool_call_id=first.tool_calls[0]["id"])]
    assert (await model.ainvoke(follow_up)).content == "It is shipped."
