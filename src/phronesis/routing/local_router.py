"""The local router: seed 002's decision without an LLM, learned from labelled exemplars.

Why not a cosine threshold: semantic-router routes by mean cosine against one threshold and
its own docs say the scores "are not calibrated probabilities"; its healthcare example
abstains correctly a third of the time. Here:

- a linear softmax over [embedding ‖ hashed n-grams] gives per-label scores, and a
  temperature fitted on held-out data turns them into calibrated probabilities;
- labels are intents or decisions; a decision's probability is the sum over its labels, so
  two similar intents that route the same way are not "ambiguous";
- Rasa's ambiguity test: the top two *decisions* within ``ambiguity_margin`` → CLARIFY;
- out of scope: an in-scope score (the classifier's free energy, or on small sets its
  calibrated top probability, blended with the mean cosine to the nearest exemplars: how far
  the query is from anything the router has seen) below a threshold chosen on held-out data
  → the configured out-of-scope decision.

On CLINC150 (fit on train with its 100 out-of-scope train lines, 10 % held out for
calibration; measured on validation, never seen): 94.6 % in-scope accuracy with 93 %
out-of-scope recall (``benchmarks/bench_routing.py`` prints the current figures; it was
95.2 / 87 with the top-probability score at a 1 % budget, which held out on CLINC150's test
gave 95.5 / 75.7).
"""

from __future__ import annotations

import asyncio
import functools
import io
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field, fields, replace
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from phronesis.embeddings.types import Embedder, Vectors
from phronesis.exceptions import InvalidInputError
from phronesis.routing.calibration import ThresholdChoice, choose_threshold, fit_temperature, softmax
from phronesis.routing.classifier import FitOptions, SoftmaxClassifier
from phronesis.routing.decisions import Decision
from phronesis.routing.exemplars import Exemplar
from phronesis.routing.lexical import LexicalFeatures
from phronesis.routing.one_thread import blas, one_thread

__all__ = ["LocalPrediction", "LocalRouter", "RouterFitOptions", "Scoring"]

Abstention = Literal["ambiguous", "out_of_scope"]
InScopeScore = Literal["energy_knn", "maxp_knn"]


@dataclass(frozen=True, slots=True)
class RouterFitOptions:
    holdout_fraction: float = 0.1
    """Share of each label's exemplars held out to calibrate, when no validation set is given."""
    max_accuracy_loss: float = 0.015
    """How much held-out in-scope accuracy the out-of-scope threshold may cost. On CLINC150 the
    out-of-scope recall measured on validation overstated the held-out test's by 11 points at
    1 %; 1.5 % buys validation recall 93 % for 0.4 point of in-scope accuracy, so the
    unseen figure stays above 80 %."""
    in_scope_score: InScopeScore | Literal["auto"] = "auto"
    """``auto``: the energy score when at least ``energy_min_calibration`` in-scope lines calibrate
    it, else the top-probability blend (see ``Scoring``)."""
    energy_min_calibration: int = 500
    """The energy score is standardised on the in-scope calibration lines: on CLINC150's 1,500 it
    separates out-of-scope lines best; on the sales set's folds (10-20 lines) it escalated a third
    of the chit-chat (dev half, two folds: 69.8 % of decisions right against 82.4 % with the top
    probability). Measured at those two sizes only; 500 lies between them."""
    knn_k: int = 5
    knn_weight: float | None = None
    """The neighbours' share of the in-scope score; None: 0.3 with the energy score (CLINC150
    validation), 0.8 with the top probability (the sales set's dev half)."""
    lexical_width: int = 2**14
    """Hashed n-gram buckets; 0 uses the embedding alone."""
    default_decision: Decision = Decision.RETRIEVE
    refit: bool = False
    """After calibrating on a holdout, refit on every exemplar (keeping temperature and threshold).
    Worth it for small sets, where each held-out line is a real share of what a label knows."""
    seed: int = 0
    classifier: FitOptions = field(default_factory=FitOptions)


@dataclass(frozen=True, slots=True)
class Scoring:
    """What a fitted router needs at prediction time beside its weights.

    The in-scope score (``support``) blends how strongly the classifier answers with how
    close the query lies to the exemplars (mean cosine to the ``knn_k`` nearest):

    - ``energy_knn`` (``auto`` where enough lines calibrate it): the free energy ``T·logsumexp(logits/T)`` (Liu et al.,
      "Energy-based out-of-distribution detection", 2020) and the neighbour mean, each
      standardised on the in-scope calibration lines, blended and put through a logistic,
      so 0.5 is a typical in-scope query. The top softmax probability throws away how large
      the logits are: on CLINC150 validation the energy separates in-scope from
      out-of-scope lines better (AUROC 0.987 against 0.968 for the top probability; 0.990
      blended with the neighbours against 0.984 for the older blend), which at 92 %
      out-of-scope recall keeps one point more in-scope accuracy.
    - ``maxp_knn``: the calibrated top probability and the raw neighbour mean; what routers
      fitted before the energy score store, so they keep answering as they were fitted.
    """

    temperature: float
    threshold: float
    knn_k: int
    knn_weight: float
    lexical_width: int
    method: InScopeScore = "maxp_knn"
    energy_mean: float = 0.0
    energy_scale: float = 1.0
    knn_mean: float = 0.0
    knn_scale: float = 1.0


@dataclass(frozen=True, slots=True)
class LocalPrediction:
    label: str
    """The top label (intent or decision), even when the router abstains."""
    decision: Decision
    """The top label's decision; ``abstained`` says whether to trust it."""
    probability: float
    """Calibrated probability of ``decision`` (summed over the labels that route to it)."""
    label_probability: float
    support: float
    """In-scope score, compared with the fitted threshold."""
    margin: float
    """Top decision's probability minus the runner-up's."""
    candidates: list[tuple[str, float]]
    decision_probabilities: dict[str, float]
    abstained: Abstention | None

    def explain(self) -> dict[str, Any]:
        return {
            "label": self.label,
            "decision": self.decision.value,
            "probability": round(self.probability, 4),
            "label_probability": round(self.label_probability, 4),
            "support": round(self.support, 4),
            "margin": round(self.margin, 4),
            "candidates": [[name, round(p, 4)] for name, p in self.candidates],
            "abstained": self.abstained,
        }


_SCORING = ThreadPoolExecutor(max_workers=1, thread_name_prefix="phronesis-router")
"""Where predictions run: off the event loop (a turn's scoring over 13.5k exemplars is 3-6 ms of
numpy), and one at a time, so the BLAS thread limit set around each is never raced by another."""


def _decision_map(exemplars: Sequence[Exemplar], default: Decision) -> dict[str, Decision]:
    """Each label's decision: the label itself if it names one, else its lines' ``decision``."""
    named: dict[str, set[Decision]] = {}
    for exemplar in exemplars:
        chosen = named.setdefault(exemplar.label, set())
        if exemplar.label in Decision.__members__:
            chosen.add(Decision(exemplar.label))
        if exemplar.decision is not None:
            chosen.add(exemplar.decision)
    mapping: dict[str, Decision] = {}
    for label, chosen in sorted(named.items()):
        if len(chosen) > 1:
            both = " and ".join(sorted(d.value for d in chosen))
            raise InvalidInputError("decision", f"label {label!r} is mapped to both {both}")
        mapping[label] = next(iter(chosen)) if chosen else default
    return mapping


EMBED_BATCH = 64


async def _embed_showing(embedder: Embedder, texts: Sequence[str], say: Callable[[str], None]) -> Vectors:
    """The texts' embeddings in batches, saying how far it got (not 50 s of a bare
    spinner: the first batch loads the model)."""
    parts: list[Vectors] = []
    for start in range(0, len(texts), EMBED_BATCH):
        note = " (the first loads the sentence model)" if start == 0 else ""
        say(f"embedding {start}/{len(texts)} texts{note}")
        parts.append(await embedder.embed(texts[start : start + EMBED_BATCH]))
    say(f"embedded {len(texts)} texts")
    return np.concatenate(parts) if parts else await embedder.embed([])


def _stratified_holdout(labels: npt.NDArray[np.int64], fraction: float, seed: int) -> npt.NDArray[np.bool_]:
    rng = np.random.default_rng(seed)
    hold = np.zeros(len(labels), dtype=bool)
    for label in np.unique(labels):
        members = np.flatnonzero(labels == label)
        count = int(round(len(members) * fraction))
        if len(members) >= 3 and count > 0:
            hold[rng.choice(members, size=min(count, len(members) - 2), replace=False)] = True
    return hold


class LocalRouter:
    def __init__(
        self,
        *,
        labels: list[str],
        decisions: Mapping[str, Decision],
        classifier: SoftmaxClassifier,
        exemplar_vectors: Vectors,
        scoring: Scoring,
        embedding_model: str,
        calibration: dict[str, Any] | None = None,
    ) -> None:
        self.labels = labels
        self.decisions = dict(decisions)
        self.classifier = classifier
        self.exemplar_vectors = exemplar_vectors  # float32, contiguous: see the setter
        self.scoring = scoring
        self.embedding_model = embedding_model
        self.calibration = calibration or {}
        self._lexical = LexicalFeatures(scoring.lexical_width) if scoring.lexical_width else None
        self._decision_names = sorted({d.value for d in self.decisions.values()})
        columns = np.zeros((len(labels), len(self._decision_names)), dtype=np.float32)
        for i, label in enumerate(labels):
            columns[i, self._decision_names.index(self.decisions[label].value)] = 1.0
        self._to_decisions = columns

    @property
    def exemplar_vectors(self) -> Vectors:
        return self._exemplar_vectors

    @exemplar_vectors.setter
    def exemplar_vectors(self, vectors: Vectors) -> None:
        # converted once here: a per-query ``astype`` copied 20 MB for CLINC150's 13,500
        # exemplars and cost 1.5 ms of every prediction
        self._exemplar_vectors: Vectors = np.ascontiguousarray(vectors, dtype=np.float32)

    # -- fitting -------------------------------------------------------------------------

    @classmethod
    async def fit(
        cls,
        exemplars: Sequence[Exemplar],
        embedder: Embedder,
        *,
        oos: Sequence[Exemplar] = (),
        validation: Sequence[Exemplar] = (),
        options: RouterFitOptions | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> LocalRouter:
        """Fit on ``exemplars``; calibrate on ``validation`` (or a stratified holdout) and ``oos``."""
        options = options or RouterFitOptions()
        say = progress or (lambda _message: None)
        in_scope = [e for e in exemplars if not e.out_of_scope]
        oos = [*oos, *(e for e in exemplars if e.out_of_scope), *(e for e in validation if e.out_of_scope)]
        val_in = [e for e in validation if not e.out_of_scope]
        counts = Counter(e.label for e in in_scope)
        if len(counts) < 2:
            raise InvalidInputError("exemplars", "need in-scope exemplars of at least two labels")
        decisions = _decision_map(in_scope, options.default_decision)
        labels = sorted(counts)
        index = {label: i for i, label in enumerate(labels)}
        if unknown := sorted({e.label for e in val_in} - set(index)):
            raise InvalidInputError("validation", f"labels not in the exemplars: {', '.join(unknown[:5])}")
        texts = [e.text for e in in_scope] + [e.text for e in val_in] + [e.text for e in oos]
        vectors = await _embed_showing(embedder, texts, say)
        train_vectors = vectors[: len(in_scope)]
        val_vectors = vectors[len(in_scope) : len(in_scope) + len(val_in)]
        oos_vectors = vectors[len(in_scope) + len(val_in) :]
        y = np.asarray([index[e.label] for e in in_scope], dtype=np.int64)
        y_val = np.asarray([index[e.label] for e in val_in], dtype=np.int64)
        train_texts = [e.text for e in in_scope]
        val_texts = [e.text for e in val_in]
        all_vectors, all_texts, all_y = train_vectors, train_texts, y
        held_out = not val_in
        if held_out:  # hold out part of the exemplars to calibrate on
            hold = _stratified_holdout(y, options.holdout_fraction, options.seed)
            then = "fitted on all of them afterwards" if options.refit else "not fitted on them"
            held = f"held out {int(hold.sum())} of {len(y)} exemplars to calibrate on"
            say(f"{held} (no validation set given); the router is {then}")
            val_vectors, y_val = train_vectors[hold], y[hold]
            val_texts = [t for t, h in zip(train_texts, hold, strict=True) if h]
            train_vectors, y = train_vectors[~hold], y[~hold]
            train_texts = [t for t, h in zip(train_texts, hold, strict=True) if not h]
        lexical = LexicalFeatures(options.lexical_width) if options.lexical_width else None
        method: InScopeScore = (
            options.in_scope_score
            if options.in_scope_score != "auto"
            else "energy_knn"
            if len(y_val) >= options.energy_min_calibration
            else "maxp_knn"
        )
        weight = options.knn_weight if options.knn_weight is not None else 0.3 if method == "energy_knn" else 0.8
        oos_texts = [e.text for e in oos]

        def classify(
            vectors: Vectors, texts: list[str], targets: npt.NDArray[np.int64], doing: str
        ) -> SoftmaxClassifier:
            say(doing)
            return SoftmaxClassifier.fit(
                vectors,
                lexical.transform(texts) if lexical else None,
                targets,
                len(labels),
                options.classifier,
                lambda epoch, epochs: say(f"{doing}: epoch {epoch}/{epochs}"),
            )

        def fit_and_calibrate() -> LocalRouter:
            classifier = classify(train_vectors, train_texts, y, f"fitting {len(labels)} labels on {len(y)} exemplars")
            router = cls(
                labels=labels,
                decisions=decisions,
                classifier=classifier,
                exemplar_vectors=train_vectors,
                scoring=Scoring(1.0, 0.0, options.knn_k, weight, options.lexical_width, method=method),
                embedding_model=embedder.model_name,
            )
            if len(y_val) < 2:  # nothing held out: the training lines are the only in-scope statistics there are
                router.scoring = router._standardised(router.scoring, train_vectors, train_texts)
            say(f"calibrating on {len(y_val)} in-scope and {len(oos)} out-of-scope examples")
            router._calibrate(val_vectors, val_texts, y_val, oos_vectors, oos_texts, options)
            router.calibration["held_out"] = int(len(y_val)) if held_out else 0
            if options.refit and held_out:
                refitting = f"fitting again on all {len(all_y)} exemplars"
                router.classifier = classify(all_vectors, all_texts, all_y, refitting)
                router.exemplar_vectors = all_vectors
            return router

        def on_one_thread() -> LocalRouter:
            with one_thread():
                return fit_and_calibrate()

        # seconds of CPU, never on the event loop; on one thread (``one_thread`` says why)
        router = await asyncio.to_thread(on_one_thread)
        return router

    def _calibrate(
        self,
        vectors: Vectors,
        texts: list[str],
        labels: npt.NDArray[np.int64],
        oos_vectors: Vectors,
        oos_texts: list[str],
        options: RouterFitOptions,
    ) -> None:
        temperature = 1.0
        choice = ThresholdChoice(0.0, "no_validation_data", float("nan"), None)
        if len(labels):
            temperature = fit_temperature(self._logits(vectors, texts), labels)
            self.scoring = self._standardised(replace(self.scoring, temperature=temperature), vectors, texts)
            probs, support = self._scores(vectors, texts)
            oos_support = self._scores(oos_vectors, oos_texts)[1] if len(oos_texts) else None
            choice = choose_threshold(
                support, probs.argmax(axis=1) == labels, oos_support, max_accuracy_loss=options.max_accuracy_loss
            )
        self.scoring = replace(self.scoring, temperature=temperature, threshold=choice.threshold)
        self.calibration = {
            "temperature": temperature,
            "threshold": choice.threshold,
            "threshold_rule": choice.rule,
            "calibration_in_scope": int(len(labels)),
            "calibration_out_of_scope": len(oos_texts),
            "calibration_in_scope_accuracy": None if np.isnan(choice.in_scope_accuracy) else choice.in_scope_accuracy,
            "calibration_oos_recall": choice.oos_recall,
            "max_accuracy_loss": options.max_accuracy_loss,
            "refit_on_all": options.refit,
        }

    def _standardised(self, scoring: Scoring, vectors: Vectors, texts: Sequence[str]) -> Scoring:
        """``scoring`` with the energy and neighbour statistics of the in-scope calibration lines."""
        if scoring.method != "energy_knn" or len(vectors) < 2:
            return scoring
        energy = self._energy(self._logits(vectors, texts), scoring.temperature)
        nearest = self._nearest(vectors, scoring.knn_k)
        return replace(
            scoring,
            energy_mean=float(energy.mean()),
            energy_scale=max(float(energy.std()), 1e-6),
            knn_mean=float(nearest.mean()),
            knn_scale=max(float(nearest.std()), 1e-6),
        )

    # -- predicting ----------------------------------------------------------------------

    @staticmethod
    def _energy(logits: npt.NDArray[np.float32], temperature: float) -> npt.NDArray[np.float32]:
        scaled = logits / temperature
        top = scaled.max(axis=1)
        energy: npt.NDArray[np.float32] = temperature * (top + np.log(np.exp(scaled - top[:, None]).sum(axis=1)))
        return energy.astype(np.float32, copy=False)

    def _nearest(self, vectors: Vectors, k: int) -> npt.NDArray[np.float32]:
        k = min(k, len(self.exemplar_vectors))
        similarity = vectors @ self.exemplar_vectors.T
        nearest: npt.NDArray[np.float32] = np.partition(similarity, -k, axis=1)[:, -k:].mean(axis=1)
        return nearest

    def _logits(self, vectors: Vectors, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        lexical = self._lexical.transform(texts) if self._lexical else None
        return self.classifier.logits(vectors, lexical)

    def _scores(
        self, vectors: Vectors, texts: Sequence[str]
    ) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]:
        scoring = self.scoring
        logits = self._logits(vectors, texts)
        probs = softmax(logits, scoring.temperature)
        nearest = self._nearest(vectors, scoring.knn_k)
        w = scoring.knn_weight
        if scoring.method == "energy_knn":
            energy = (self._energy(logits, scoring.temperature) - scoring.energy_mean) / scoring.energy_scale
            blended = (1 - w) * energy + w * (nearest - scoring.knn_mean) / scoring.knn_scale
            support = (1.0 / (1.0 + np.exp(-blended))).astype(np.float32)
        else:
            support = ((1 - w) * probs.max(axis=1) + w * nearest).astype(np.float32)
        return probs, support

    def predict_vectors(
        self, vectors: Vectors, texts: Sequence[str], *, ambiguity_margin: float, top: int = 5
    ) -> list[LocalPrediction]:
        # One query's products are too small to share: OpenBLAS's second thread waits for a
        # core that torch's threads still spin on after the embedding. Measured with the
        # 150-intent CLINC150 router on 2 cores: 16-20 ms per routed query (embedding
        # included) with two BLAS threads, 10 ms with one.
        with blas().limit(limits=1, user_api="blas"):
            probs, support = self._scores(vectors, texts)
        by_decision = probs @ self._to_decisions
        out: list[LocalPrediction] = []
        for row, decision_row, score in zip(probs, by_decision, support, strict=True):
            order = np.argsort(-row)[:top]
            label = self.labels[int(order[0])]
            decision = self.decisions[label]
            ranked = np.sort(decision_row)[::-1]
            # float32 sums can land a hair above 1; a probability is a probability
            probability = min(1.0, max(0.0, float(decision_row[self._decision_names.index(decision.value)])))
            margin = float(ranked[0] - (ranked[1] if len(ranked) > 1 else 0.0))
            abstained: Abstention | None = None
            if score < self.scoring.threshold:
                abstained = "out_of_scope"
            elif margin < ambiguity_margin:
                abstained = "ambiguous"
            out.append(
                LocalPrediction(
                    label=label,
                    decision=decision,
                    probability=probability,
                    label_probability=min(1.0, float(row[order[0]])),
                    support=float(score),
                    margin=margin,
                    candidates=[(self.labels[int(i)], float(row[i])) for i in order],
                    decision_probabilities={
                        name: float(p) for name, p in zip(self._decision_names, decision_row, strict=True)
                    },
                    abstained=abstained,
                )
            )
        return out

    async def predict(
        self, texts: Sequence[str], embedder: Embedder, *, ambiguity_margin: float
    ) -> list[LocalPrediction]:
        vectors = await embedder.embed(texts)
        return await self.predict_off_loop(vectors, texts, ambiguity_margin=ambiguity_margin)

    async def predict_off_loop(
        self, vectors: Vectors, texts: Sequence[str], *, ambiguity_margin: float
    ) -> list[LocalPrediction]:
        """``predict_vectors`` on the routers' thread: on the event loop a turn's scoring holds it
        6 ms (py-spy of a server), longer than the rest of the turn's Python."""
        work = functools.partial(self.predict_vectors, vectors, texts, ambiguity_margin=ambiguity_margin)
        return await asyncio.get_running_loop().run_in_executor(_SCORING, work)

    # -- storage -------------------------------------------------------------------------

    def metadata(self) -> dict[str, Any]:
        return {
            "labels": self.labels,
            "decisions": {label: d.value for label, d in self.decisions.items()},
            "scoring": asdict(self.scoring),
            "embedding_model": self.embedding_model,
            "calibration": self.calibration,
        }

    def weights(self) -> bytes:
        buffer = io.BytesIO()
        # exemplars as float16: half the bytes, and the nearest-neighbour mean barely moves
        arrays: dict[str, Any] = {"exemplar_vectors": self.exemplar_vectors.astype(np.float16)}
        np.savez_compressed(buffer, **(arrays | self.classifier.to_arrays()))
        return buffer.getvalue()

    @classmethod
    def restore(cls, metadata: Mapping[str, Any], weights: bytes) -> LocalRouter:
        with np.load(io.BytesIO(weights)) as arrays:
            loaded = {name: arrays[name] for name in arrays.files}
        scoring = metadata["scoring"]
        return cls(
            labels=list(metadata["labels"]),
            decisions={label: Decision(d) for label, d in metadata["decisions"].items()},
            classifier=SoftmaxClassifier.from_arrays(loaded),
            exemplar_vectors=np.ascontiguousarray(loaded["exemplar_vectors"], dtype=np.float32),
            # routers stored before the energy score have no method or statistics: the defaults
            # keep the blend they were fitted with
            scoring=Scoring(**{f.name: scoring[f.name] for f in fields(Scoring) if f.name in scoring}),
            embedding_model=str(metadata["embedding_model"]),
            calibration=dict(metadata.get("calibration", {})),
        )
