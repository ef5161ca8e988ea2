"""What-if replay of logged decisions under another setting, and tuning from it.

Only what the logs support is estimated: a replayed decision counts toward the estimated
success when its outcome is known (it is the decision that was made and rated, or feedback
said what the right decision was), or, for a randomised logging policy, through the recorded
propensity of the replayed choice. Everything else is reported as not covered, never guessed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from phronesis.lazy import exports

# ``tune`` is also the name of its module: the import system sets the package's ``tune`` to the
# module whenever ``phronesis.replay.tune`` is first imported, so the function must be bound here
from phronesis.replay.tune import tune

if TYPE_CHECKING:
    from phronesis.replay.admission import replay_admission
    from phronesis.replay.executive import replay_executive
    from phronesis.replay.models import ReplayIn, ReplayReport
    from phronesis.replay.proactive import replay_proactive
    from phronesis.replay.routing import replay_routing
    from phronesis.replay.run import run_replay
    from phronesis.replay.tune import TuneIn, TuneReport

__all__ = [
    "ReplayIn",
    "ReplayReport",
    "TuneIn",
    "TuneReport",
    "replay_admission",
    "replay_executive",
    "replay_proactive",
    "replay_routing",
    "run_replay",
    "tune",
]

__getattr__ = exports(
    __name__,
    {
        "ReplayIn": "phronesis.replay.models",
        "ReplayReport": "phronesis.replay.models",
        "TuneIn": "phronesis.replay.tune",
        "TuneReport": "phronesis.replay.tune",
        "replay_admission": "phronesis.replay.admission",
        "replay_executive": "phronesis.replay.executive",
        "replay_proactive": "phronesis.replay.proactive",
        "replay_routing": "phronesis.replay.routing",
        "run_replay": "phronesis.replay.run",
    },
)
