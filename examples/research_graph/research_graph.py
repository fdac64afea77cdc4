"""A research graph: a planner that loops over the subjects of a topic, each researched by a subgraph.

``planner`` picks the next subject (and makes the plan on its first visit); while one is left, the
conditional edge goes to ``research_step``, a subgraph of two nodes (``search`` finds what the shop knows and
reports progress on the custom stream, ``summarize`` has the model write a note), and back to the planner: a
cycle. Once every subject is done, ``write_report`` has the model write the report.

``make_graph`` is a factory, called for every run with the run's config: ``configurable.max_steps`` (else
``RESEARCH_MAX_STEPS``, set by ``langgraph.json``'s ``env``) bounds the plan.
"""

from __future__ import annotations

import operator
import os
from typing import TYPE_CHECKING, Annotated, Literal

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langgraph.config import get_stream_writer
from langgraph.graph import END, START, StateGraph
from nimbus_shop import FACTS
from typing_extensions import TypedDict

from agent.llm.langchain_model import create_chat_model  # your own chat model goes here

if TYPE_CHECKING:
    from langchain_core.runnables import RunnableConfig
    from langgraph.graph.state import CompiledStateGraph

NOTE_PROMPT = "Write one sentence for a note about the subject, from the source."
REPORT_PROMPT = "Write a short report on the topic from the notes."


class ResearchState(TypedDict, total=False):
    topic: str
    plan: list[str]
    done: int
    subject: str
    notes: Annotated[list[str], operator.add]
    report: str


class StepInput(TypedDict):
    topic: str
    subject: str


class StepState(StepInput, total=False):
    source: str
    notes: Annotated[list[str], operator.add]


class StepOutput(TypedDict):
    notes: list[str]


def script(messages: list[BaseMessage]) -> AIMessage | str:
    """What the fake model says: the source as a note, the notes as a report."""
    prompt, request = messages[0].text, messages[-1].text
    fields = dict(line.split(": ", 1) for line in request.splitlines() if ": " in line)
    if prompt == NOTE_PROMPT:
        return f"In short: {fields.get('Source', 'nothing is known')}"
    notes = [line.removeprefix("- ") for line in request.splitlines() if line.startswith("- ")]
    return f"Report on {fields.get('Topic', 'the topic').rstrip('?.!')}. " + " ".join(notes)


model = create_chat_model(script)


def search(state: StepState) -> dict[str, str]:
    get_stream_writer()({"searching": state["subject"]})
    return {"source": FACTS.get(state["subject"], "Nothing is known about it.")}


async def summarize(state: StepState) -> dict[str, list[str]]:
    request = f"Subject: {state['subject']}\nSource: {state['source']}"
    reply = await model.ainvoke([SystemMessage(NOTE_PROMPT), HumanMessage(request)])
    return {"notes": [f"{state['subject']}: {reply.text}"]}


async def write_report(state: ResearchState) -> dict[str, str]:
    notes = "\n".join(f"- {note}" for note in state.get("notes", []))
    reply = await model.ainvoke([SystemMessage(REPORT_PROMPT), HumanMessage(f"Topic: {state['topic']}\n{notes}")])
    return {"report": reply.text}


def after_planner(state: ResearchState) -> Literal["research_step", "write_report"]:
    return "research_step" if state.get("subject") else "write_report"


def make_plan(topic: str, max_steps: int) -> list[str]:
    named = [subject for subject in FACTS if subject.rstrip("s") in topic.lower()]
    return (named or list(FACTS))[:max_steps]


def make_graph(config: RunnableConfig) -> CompiledStateGraph[ResearchState, None, ResearchState, ResearchState]:
    max_steps = int(config.get("configurable", {}).get("max_steps") or os.environ.get("RESEARCH_MAX_STEPS", "3"))

    def planner(state: ResearchState) -> ResearchState:
        plan = state.get("plan") or make_plan(state["topic"], max_steps)
        done = state.get("done", 0)
        if done < len(plan):
            return {"plan": plan, "subject": plan[done], "done": done + 1}
        return {"plan": plan, "subject": ""}

    step = StateGraph(StepState, input_schema=StepInput, output_schema=StepOutput)
    step.add_node("search", search)
    step.add_node("summarize", summarize)
    step.add_edge(START, "search")
    step.add_edge("search", "summarize")
    step.add_edge("summarize", END)

    research = StateGraph(ResearchState)
    research.add_node("planner", planner)
    research.add_node("research_step", step.compile())
    research.add_node("write_report", write_report)
    research.add_edge(START, "planner")
    research.add_conditional_edges("planner", after_planner)
    research.add_edge("research_step", "planner")
    research.add_edge("write_report", END)
    return research.compile(name="research_graph")
