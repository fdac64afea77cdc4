"""A graph of the tests' own for the custom auth: it answers each message with its echo (no model), and notes who
asked as the Agent Server tells a graph (``configurable["langgraph_auth_user"]``). A message that starts with
``approve:`` waits for a person's approval first (an ``interrupt()``)."""

from __future__ import annotations

from typing import Annotated, NotRequired

from langchain_core.messages import AIMessage, AnyMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import interrupt
from typing_extensions import TypedDict


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    asked_by: NotRequired[str]


def echo(state: State, config: RunnableConfig) -> State:
    asked = str(state["messages"][-1].content)
    if asked.startswith("approve:"):
        interrupt({"action": "echo", "summary": f"Echo {asked.removeprefix('approve:').strip()}"})
    user = config["configurable"].get("langgraph_auth_user") or {}
    asked_by = f"{config['configurable'].get('langgraph_auth_user_id')} of team {user.get('team')}"
    return {"messages": [AIMessage(content=f"echo: {state['messages'][-1].content}")], "asked_by": asked_by}


graph = StateGraph(State).add_node("echo", echo).add_edge(START, "echo").compile(name="echo")
