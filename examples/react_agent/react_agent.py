"""A ReAct agent for the Nimbus Shop: it looks orders up, and refunds one once a person approves.

Plain LangGraph: a model node that may call tools, LangGraph's ``ToolNode`` running them, and
``tools_condition`` looping back until the model answers. ``issue_refund`` asks for approval with
``interrupt()``: the run pauses with ``{"action", "args", "summary"}`` and goes on when it is resumed with
``Command(resume={"decision": "approve"})`` (or ``"reject"``, with an optional ``"comment"``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import interrupt
from nimbus_shop import ORDERS, currency, shop_name

from agent.llm.langchain_model import create_chat_model  # your own chat model goes here

ORDER_ID = re.compile(r"\bA-\d{4}\b", re.IGNORECASE)


@tool
def lookup_order(order_id: str) -> str:
    """Look up an order's item, status and total by its id (like A-1001)."""
    order = ORDERS.get(order_id.upper())
    if order is None:
        return f"There is no order {order_id}."
    return json.dumps({"order_id": order_id.upper(), **order, "currency": currency()})


@tool
def issue_refund(order_id: str, reason: str) -> str:
    """Refund an order in full. A person approves every refund before it is made."""
    order = ORDERS.get(order_id.upper())
    if order is None:
        return f"There is no order {order_id}; nothing was refunded."
    total = f"{order['total']} {currency()}"
    answer: Any = interrupt(
        {
            "action": "issue_refund",
            "args": {"order_id": order_id.upper(), "reason": reason},
            "summary": f"Refund {total} for order {order_id.upper()} ({order['item']})",
        }
    )
    decision = answer.get("decision") if isinstance(answer, dict) else answer
    if decision == "approve":
        return f"Refunded {total} for order {order_id.upper()}."
    comment = answer.get("comment") if isinstance(answer, dict) else None
    return f"The refund of order {order_id.upper()} was rejected" + (f": {comment}" if comment else ".")


TOOLS = [lookup_order, issue_refund]


def script(messages: list[BaseMessage]) -> AIMessage | str:
    """What the fake model says: look the order up, refund it if that was asked, then say what happened."""
    asked = max(index for index, message in enumerate(messages) if isinstance(message, HumanMessage))
    question = messages[asked].text
    results = [message for message in messages[asked:] if isinstance(message, ToolMessage)]
    found = ORDER_ID.search(question)
    if found is None:
        return "Which order is it about? Its id looks like A-1001."
    order_id = found.group().upper()
    if not results:
        return AIMessage(
            content=f"Let me look up order {order_id}.",
            tool_calls=[{"name": "lookup_order", "args": {"order_id": order_id}, "id": None}],
        )
    last = results[-1]
    if last.name == "lookup_order" and last.text.startswith("{") and "refund" in question.lower():
        return AIMessage(
            content=f"I will ask for the refund of order {order_id}.",
            tool_calls=[
                {"name": "issue_refund", "args": {"order_id": order_id, "reason": "the customer asked"}, "id": None}
            ],
        )
    if last.name == "lookup_order" and last.text.startswith("{"):
        order = json.loads(last.text)
        return (
            f"Order {order_id} ({order['item']}) is {order['status']}; it came to {order['total']} {order['currency']}."
        )
    return last.text


model = create_chat_model(script).bind_tools(TOOLS)


async def call_model(state: MessagesState) -> dict[str, list[BaseMessage]]:
    system = SystemMessage(
        f"You are the support assistant of {shop_name()}. Use the tools to look orders up and to refund them."
    )
    reply = await model.ainvoke([system, *state["messages"]])
    return {"messages": [reply]}


builder = StateGraph(MessagesState)
builder.add_node("agent", call_model)
builder.add_node("tools", ToolNode(TOOLS))
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", tools_condition)
builder.add_edge("tools", "agent")
graph = builder.compile(name="react_agent")
