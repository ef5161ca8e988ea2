"""A linear softmax classifier over [sentence embedding ‖ hashed n-grams].

Fitting uses torch (present wherever the local sentence model is); prediction is plain
numpy, so a fitted router answers with no autograd machinery loaded. Weights start at
zero and the optimiser is full-batch Adam, so a fit is deterministic for its data.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from phronesis.exceptions import ConfigurationError
from phronesis.routing.lexical import SparseRows
from phronesis.routing.one_thread import one_thread

__all__ = ["FitOptions", "SoftmaxClassifier"]

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True, slots=True)
class FitOptions:
    """Defaults measured on CLINC150 (see ``lexical.py``); scales put both inputs on a footing
    where one weight decay suits them."""

    epochs: int = 300
    learning_rate: float = 0.05
    weight_decay: float = 1e-4
    embedding_scale: float = 10.0
    lexical_scale: float = 10.0


class SoftmaxClassifier:
    def __init__(
        self, embedding_weights: Matrix, lexical_weights: Matrix | None, bias: Matrix, options: FitOptions
    ) -> None:
        self.embedding_weights = embedding_weights
        self.lexical_weights = lexical_weights
        self.bias = bias
        self.options = options

    @property
    def classes(self) -> int:
        return int(self.bias.shape[0])

    def logits(self, embeddings: Matrix, lexical: SparseRows | None) -> Matrix:
        out = (embeddings * self.options.embedding_scale) @ self.embedding_weights + self.bias
        if self.lexical_weights is not None and lexical is not None:
            out += lexical.matmul(self.lexical_weights) * self.options.lexical_scale
        return out.astype(np.float32, copy=False)

    @classmethod
    def fit(
        cls,
        embeddings: Matrix,
        lexical: SparseRows | None,
        labels: npt.NDArray[np.int64],
        classes: int,
        options: FitOptions | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> SoftmaxClassifier:
        """``progress(epoch, epochs)`` is told every tenth of the way (a fit takes seconds: the CLI
        shows it instead of a bare spinner)."""
        options = options or FitOptions()
        every = max(1, options.epochs // 10)
        try:
            import torch
        except ImportError as exc:  # pragma: no cover - torch comes with phronesis[local]
            raise ConfigurationError('fitting a local router needs torch: pip install "phronesis[local]"') from exc
        x = torch.from_numpy(np.ascontiguousarray(embeddings, dtype=np.float32)) * options.embedding_scale
        y = torch.from_numpy(np.asarray(labels, dtype=np.int64))
        w_emb = torch.zeros(x.shape[1], classes, requires_grad=True)
        bias = torch.zeros(classes, requires_grad=True)
        params = [w_emb, bias]
        f = None
        w_lex = None
        if lexical is not None:
            with warnings.catch_warnings():  # "sparse CSR support is in beta": the matmul we use is stable
                warnings.simplefilter("ignore", UserWarning)
                f = torch.sparse_csr_tensor(
                    torch.from_numpy(lexical.indptr),
                    torch.from_numpy(lexical.indices),
                    torch.from_numpy(lexical.values * options.lexical_scale),
                    size=(lexical.rows, lexical.width),
                    check_invariants=True,
                )
            w_lex = torch.zeros(lexical.width, classes, requires_grad=True)
            params.append(w_lex)
        optimiser = torch.optim.Adam(params, lr=options.learning_rate)
        with one_thread():  # after torch's import, so that its thread count is limited too
            for epoch in range(options.epochs):
                if progress is not None and epoch % every == 0:
                    progress(epoch, options.epochs)
                optimiser.zero_grad()
                logits = x @ w_emb + bias
                penalty = (w_emb * w_emb).sum()
                if f is not None and w_lex is not None:
                    logits = logits + torch.sparse.mm(f, w_lex)
                    penalty = penalty + (w_lex * w_lex).sum()
                loss = torch.nn.functional.cross_entropy(logits, y) + options.weight_decay * penalty
                loss.backward()  # type: ignore[no-untyped-call]
                optimiser.step()
        return cls(
            w_emb.detach().numpy().copy(),
            None if w_lex is None else w_lex.detach().numpy().copy(),
            bias.detach().numpy().copy(),
            options,
        )

    def to_arrays(self) -> dict[str, Matrix]:
        arrays: dict[str, Matrix] = {
            "embedding_weights": self.embedding_weights,
            "bias": self.bias,
            "scales": np.asarray([self.options.embedding_scale, self.options.lexical_scale], dtype=np.float32),
        }
        if self.lexical_weights is not None:
            arrays["lexical_weights"] = self.lexical_weights
        return arrays

    @classmethod
    def from_arrays(cls, arrays: Mapping[str, Matrix]) -> SoftmaxClassifier:
        scales = arrays["scales"]
        return cls(
            np.asarray(arrays["embedding_weights"], dtype=np.float32),
            None if "lexical_weights" not in arrays else np.asarray(arrays["lexical_weights"], dtype=np.float32),
            np.asarray(arrays["bias"], dtype=np.float32),
            FitOptions(embedding_scale=float(scales[0]), lexical_scale=float(scales[1])),
        )
