"""Routing test helpers: small exemplar sets and a router fitted on them with the hashing embedder."""

from __future__ import annotations

from phronesis.routing.exemplars import Exemplar

EXEMPLARS = {
    "pricing": [
        "what is the price of the pro plan",
        "how much does pro cost",
        "pro plan pricing per seat",
        "price list for plans",
        "what do plans cost",
        "pricing for the starter plan",
    ],
    "booking": [
        "book a meeting with sales",
        "schedule a call tomorrow",
        "set up a demo meeting",
        "book me a call on friday",
        "arrange a meeting next week",
        "schedule a demo please",
    ],
    "thanks": [
        "thanks that helps",
        "thank you so much",
        "great thanks",
        "ok thanks a lot",
        "perfect thank you",
        "thanks for the help",
    ],
}
DECISIONS = {"pricing": "RETRIEVE", "booking": "USE_TOOL", "thanks": "REASON_ONLY"}
OUT_OF_SCOPE = [
    "what is the weather in paris",
    "tell me a joke about cats",
    "who won the football match",
    "capital city of australia",
    "play some jazz music",
    "how tall is mount everest",
]


def exemplars() -> list[Exemplar]:
    return [
        Exemplar(text=text, label=label, decision=DECISIONS[label])  # type: ignore[arg-type]
        for label, texts in EXEMPLARS.items()
        for text in texts
    ]


def out_of_scope() -> list[Exemplar]:
    return [Exemplar(text=text, label="oos") for text in OUT_OF_SCOPE]
