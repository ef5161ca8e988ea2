"""Which registered tool a USE_TOOL query means (seed 002: "Map to available tools").

Without it, the local router's USE_TOOL would name the only tool registered whatever was asked
("Update my company name" → calendar, asking for a time), and with two tools or more could only
ask "Which of these should I do: calendar, crm, email?". Here each tool is described by its name
and description and the example requests registered with it, embedded once per definition;
a query's score for a tool is its best cosine similarity to any of them. The best tool is
chosen when it scores at least ``tool_min_similarity`` and leads the runner-up by
``tool_margin``; when the two best are genuinely close the user is asked between those two
only; when no tool scores enough, none is chosen (nothing registered can do it).

Measured with all-MiniLM-L6-v2 on the seed's three actions (calendar, CRM, email with three
examples each): the right tool scores 0.74–0.94, the others ≤ 0.34; a description alone
scores 0.48–0.50, which is why examples are worth registering.

A request phrased unlike every example ("Add my colleague Dana as a contact") scores low
against all of them (0.33 for calendar, less for the CRM). The words it shares with a tool's
texts are evidence the embedding blurs, so a tool's score adds ``lexical_weight`` × the share
of the query's content words found in its name, description and examples (a little stemming:
a trailing "s" is dropped). On the sales set's dev half (48 requests for the three tools,
examples as registered, the bundled router) 0.2 named the right tool 26 times and the wrong
one twice, against 20 and 3 on similarity alone (decisions right: 74.6 % against 72.2 %); a request
no registered tool does shares no words with the others, so it still falls below
``min_similarity`` (journey: an email request with only a calendar registered).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from phronesis.embeddings.types import Embedder, Vectors
from phronesis.routing.dialogue import action_verbs, opening_verb
from phronesis.routing.lexical import WORD, content_words
from phronesis.routing.tools import Tool

__all__ = ["ToolChoice", "ToolChooser", "verb_owner", "word_overlap"]

_CACHE_SIZE = 512


@dataclass(frozen=True, slots=True)
class ToolChoice:
    scores: dict[str, float]
    """Each tool's score, best first: its best similarity to the query plus the shared-words bonus."""
    chosen: str | None
    """The tool meant, if one is clearly meant."""
    close: tuple[str, str] | None = None
    """The two best tools, when neither clearly wins."""
    reason: str = ""

    def explain(self) -> dict[str, object]:
        return {
            "scores": {name: round(score, 4) for name, score in self.scores.items()},
            "chosen": self.chosen,
            "close": list(self.close) if self.close else None,
            "reason": self.reason,
        }


def describe(tool: Tool) -> list[str]:
    """The texts a tool is matched by: its name and description, then each example request."""
    return [f"{tool.name.replace('_', ' ')}: {tool.description}", *tool.examples]


def _verb_tells(query: str, first: Tool, second: Tool) -> str | None:
    """Two tools match about as well: the one whose own texts use the request's action verb ("Send a
    reminder email for our call": the email tool sends, the calendar books), if only one does."""
    verbs = action_verbs(query)
    if not verbs:
        return None
    uses = [t.name for t in (first, second) if verbs & set(WORD.findall(" ".join(describe(t)).lower()))]
    return uses[0] if len(uses) == 1 else None


def verb_owner(
    query: str, chosen: str | None, tools: Sequence[Tool], scores: dict[str, float], floor: float
) -> str | None:
    """The tool the request's opening verb belongs to, when the tool chosen never does that: "Send a
    reminder email for our call" sends (the email tool's verb) whatever it mentions, "Note that we
    prefer calls in the afternoon" notes on the record, "Email the quote to finance@acme.io" emails.
    The nouns pulled the choice to the tool they name; the verb says what is to be done. Among the
    tools whose own texts use the verb, the best scored, if it scores ``floor`` (else the verb is
    not evidence enough: no registered tool does it as asked). None: keep the choice."""
    verb = opening_verb(query)
    by_name = {tool.name: tool for tool in tools}
    if verb is None or (chosen in by_name and verb in action_verbs(" ".join(describe(by_name[chosen])))):
        return None
    owners = [t.name for t in tools if verb in action_verbs(" ".join(describe(t))) and scores.get(t.name, 0.0) >= floor]
    return max(owners, key=lambda name: scores[name]) if owners else None


def word_overlap(query: str, tool: Tool) -> float:
    """The share of the query's content words that the tool's texts use."""
    asked = content_words(query)
    if not asked:
        return 0.0
    return len(asked & content_words(" ".join(describe(tool)))) / len(asked)


@dataclass
class ToolChooser:
    min_similarity: float
    margin: float
    lexical_weight: float = 0.0
    _vectors: OrderedDict[str, Vectors] = field(default_factory=OrderedDict, repr=False)
    """Embedded tool texts by a digest of the texts and the model: a re-registered tool with other
    texts misses, so nothing here can be older than the tool definitions read for the turn."""

    async def _tool_vectors(self, embedder: Embedder, tool: Tool) -> Vectors:
        texts = describe(tool)
        key = hashlib.blake2b("\x1f".join([embedder.model_name, *texts]).encode(), digest_size=16).hexdigest()
        cached = self._vectors.get(key)
        if cached is None:
            cached = await embedder.embed(texts)
            self._vectors[key] = cached
            while len(self._vectors) > _CACHE_SIZE:
                self._vectors.popitem(last=False)
        else:
            self._vectors.move_to_end(key)
        return cached

    async def choose(
        self, embedder: Embedder, query_vector: Vectors, tools: Sequence[Tool], *, query_text: str = ""
    ) -> ToolChoice:
        """``query_vector``: the query's normalised embedding (1 × d), as the local router computed it;
        ``query_text``: the query, for the words it shares with each tool (none: similarity alone)."""
        if not tools:
            return ToolChoice(scores={}, chosen=None, reason="no tool is registered")
        query = np.asarray(query_vector, dtype=np.float32).reshape(-1)
        scores = {}
        for tool in tools:
            vectors = np.asarray(await self._tool_vectors(embedder, tool), dtype=np.float32)
            similarity = float(np.max(vectors @ query))
            lexical = self.lexical_weight * word_overlap(query_text, tool) if query_text else 0.0
            scores[tool.name] = min(1.0, similarity + lexical)  # float32 can overshoot 1 by an ulp
        ranked = dict(sorted(scores.items(), key=lambda kv: -kv[1]))
        names = list(ranked)
        best = names[0]
        if ranked[best] < self.min_similarity:
            return ToolChoice(
                scores=ranked,
                chosen=None,
                reason=f"no registered tool fits (best: {best} at {ranked[best]:.2f} < {self.min_similarity})",
            )
        if len(names) > 1 and ranked[best] - ranked[names[1]] < self.margin:
            by_name = {tool.name: tool for tool in tools}
            verb = _verb_tells(query_text, by_name[best], by_name[names[1]])
            if verb is not None:
                return ToolChoice(
                    scores=ranked,
                    chosen=verb,
                    reason=f"{best} ({ranked[best]:.2f}) and {names[1]} ({ranked[names[1]]:.2f}) are close; "
                    f"the request's verb is {verb}'s",
                )
            return ToolChoice(
                scores=ranked,
                chosen=None,
                close=(best, names[1]),
                reason=f"{best} ({ranked[best]:.2f}) and {names[1]} ({ranked[names[1]]:.2f}) are too close",
            )
        owner = verb_owner(query_text, best, tools, ranked, self.min_similarity)
        if owner is not None:
            return ToolChoice(
                scores=ranked, chosen=owner, reason=f"{owner} at {ranked[owner]:.2f}: the request's verb is {owner}'s"
            )
        return ToolChoice(scores=ranked, chosen=best, reason=f"{best} at {ranked[best]:.2f}")
