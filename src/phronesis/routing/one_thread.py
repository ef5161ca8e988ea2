"""The router's numerics on one thread: fitting and calibrating.

Why: a router's matrices are small (tens of labels, a few thousand exemplars). Two BLAS or
OpenMP threads for them wait on each other, and on a loaded two-core machine on whatever else
holds the second core: fitting the bundled router takes 3.6-13.7 s with the libraries' default
threading and 0.56-0.68 s with one thread (the same fit, the same machine, minutes apart).

Both limits are process-wide (torch's intra-op thread count propagates to every thread at its
next parallel region; OpenBLAS has one count), so one fit runs at a time and each restores what
it found. A prediction limits BLAS on the router's own thread (``local_router``); a prediction
that overlaps a fit may run with the count the fit restores, which costs time, never a result.
"""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from threadpoolctl import ThreadpoolController

__all__ = ["blas", "one_thread"]

_FITTING = threading.RLock()  # a fit's classifier runs inside its router's block


@functools.cache
def blas() -> ThreadpoolController:
    """The BLAS libraries loaded when first asked, numpy's among them (finding them costs
    milliseconds; limiting them, microseconds): for predictions, whose products are numpy's."""
    return ThreadpoolController()


@contextmanager
def _torch_threads(count: int) -> Iterator[None]:
    torch = sys.modules.get("torch")  # only where a fit has imported it: never load torch for this
    if torch is None:
        yield
        return
    previous = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@contextmanager
def one_thread() -> Iterator[None]:
    """Fit or calibrate inside this block: one at a time in the process, on one BLAS and one torch
    thread, the counts found before restored after. Blocking: call it off the event loop."""
    # found again: a fit is rare and long, and a library loaded since (faiss brings its own
    # OpenBLAS) is limited too
    with _FITTING, ThreadpoolController().limit(limits=1, user_api="blas"), _torch_threads(1):
        yield
