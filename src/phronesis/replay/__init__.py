"""What-if replay of logged decisions under another setting (issue 25).

Only what the logs support is estimated: a replayed decision counts toward the estimated
success when its outcome is known, because it is the decision that was made and rated, or
because feedback said what the right decision was and the replayed one can be compared with it.
Everything else is reported as not covered, never guessed.
"""

from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.routing import replay_routing
from phronesis.replay.run import run_replay

__all__ = ["ReplayIn", "ReplayReport", "replay_routing", "run_replay"]
