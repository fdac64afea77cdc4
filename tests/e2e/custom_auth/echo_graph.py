"""A graph of the tests' own for the custom auth: it answers each message with its echo (no model)."""

from __future__ import annotations

from typing import Annotated

from langchain_core.messages import AIMessage, AnyMessage
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from typing_extensions import TypedDict


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def echo(state: State) -> State:
    return {"messages": [AIMessage(content=f"echo: {state['messages'][-1].content}")]}


graph = StateGraph(State).add_node("echo", echo).add_edge(START, "echo").compile(name="echo")
