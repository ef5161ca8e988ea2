"""A support agent as a LangGraph graph that asks phronesis at each step.

Each user turn is routed through phronesis (``route``): RETRIEVE recalls similar past runs,
REASON_ONLY lets the chat model answer, USE_TOOL names the tool and its arguments, CLARIFY asks
phronesis's question back, ESCALATE hands the conversation to a person. The agent's reply is
added to the session, so the next turn is routed with the whole conversation. A turn the agent
answered is offered to memory (``admit``: ADD, NOT, REPLACE or MERGE); one it asked back or
handed over did nothing worth keeping. When the user says how an answer went, its route is
rated (``feedback``), which is what phronesis learns from.

Run it against a server (``make run``, then in another shell)::

    pip install 'langgraph>=1.2,<1.3' 'langchain-core>=1.8,<1.9'
    PHRONESIS_URL=http://127.0.0.1:8000 python examples/langgraph_support_agent.py

It uses a scripted chat model so it needs no LLM account; give ``build_agent`` any LangChain
chat model (``ChatOpenAI``, ``ChatAnthropic`` …) instead. ``tests/examples`` runs it against a
real server.
"""

from __future__ import annotations

from typing import Any, TypedDict

from langchain_core.language_models import BaseChatModel
from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import HumanMessage, SystemMessage
from langgraph.graph import END, START, StateGraph

from phronesis.client import Client


class Turn(TypedDict, total=False):
    session_id: str
    query: str
    decision: str
    decision_id: str
    reply: str
    recalled: list[str]
    admitted: str


def build_agent(phronesis: Client, chat: BaseChatModel) -> Any:
    """The graph: route → (recall | answer | clarify | escalate | tool) → admit."""

    def route(turn: Turn) -> Turn:
        routed = phronesis.routing.route(turn["session_id"], {"query": turn["query"]})
        return {"decision": str(routed.decision), "decision_id": routed.decision_id, "reply": routed.message or ""}

    def recall(turn: Turn) -> Turn:
        hits = phronesis.admission.search(turn["query"], k=3).hits
        recalled = [hit.run.summary for hit in hits if hit.run.summary]
        context = "\n".join(f"- {summary}" for summary in recalled) or "- nothing similar on record"
        answer = chat.invoke([SystemMessage(f"What worked before:\n{context}"), HumanMessage(turn["query"])]).content
        return {"recalled": recalled, "reply": str(answer)}

    def answer(turn: Turn) -> Turn:
        return {"reply": str(chat.invoke([HumanMessage(turn["query"])]).content)}

    def ask_back(turn: Turn) -> Turn:  # CLARIFY and ESCALATE: phronesis wrote the message for the user
        reply = turn.get("reply") or "Could you tell me a little more?"
        phronesis.routing.add_message(turn["session_id"], {"role": "assistant", "text": reply})
        return {"reply": reply}

    def admit(turn: Turn) -> Turn:
        phronesis.routing.add_message(turn["session_id"], {"role": "assistant", "text": turn["reply"]})
        result = phronesis.admission.admit(
            {
                "task": turn["query"],
                "outcome": "success",
                "summary": turn["reply"],
                "steps": [f"routed {turn['decision']}", f"replied: {turn['reply']}"],
            }
        )
        return {"admitted": result.decision}

    graph = StateGraph(Turn)
    for name, node in (("route", route), ("recall", recall), ("answer", answer), ("ask_back", ask_back)):
        graph.add_node(name, node)
    graph.add_node("admit", admit)
    graph.add_edge(START, "route")
    graph.add_conditional_edges(
        "route",
        lambda turn: turn["decision"],
        {
            "RETRIEVE": "recall",
            "REASON_ONLY": "answer",
            "USE_TOOL": "answer",  # a real agent calls the tool phronesis named here
            "CLARIFY": "ask_back",
            "ESCALATE": "ask_back",
        },
    )
    for name in ("recall", "answer"):
        graph.add_edge(name, "admit")
    graph.add_edge("admit", END)
    graph.add_edge("ask_back", END)  # nothing was done: nothing to keep in memory
    return graph.compile()


def rate(phronesis: Client, turn: Turn, *, helpful: bool) -> None:
    """The user said how the turn went: phronesis's routing learns from its rated decisions."""
    phronesis.routing.feedback(turn["session_id"], {"decision_id": turn["decision_id"], "correct": helpful})


def main() -> None:
    chat = FakeListChatModel(responses=["You asked why your wifi drops; I suggested restarting the router."])
    with Client() as phronesis:  # PHRONESIS_URL, and PHRONESIS_API_KEY where the server wants one
        agent = build_agent(phronesis, chat)
        session = phronesis.routing.create_session()
        for query in ("My wifi keeps dropping, what should I do?", "Can you summarize our conversation so far?"):
            turn: Turn = agent.invoke({"session_id": session.id, "query": query})
            memory = f" (memory: {turn['admitted']})" if "admitted" in turn else ""
            print(f"> {query}\n{turn['decision']}: {turn['reply']}{memory}")
            if "admitted" in turn:  # an answer the user found helpful: the route learns from it
                rate(phronesis, turn, helpful=True)


if __name__ == "__main__":
    main()
