"""The models the client's operations send and read: the server's own, imported from where each
is defined, so a client and a server of one version cannot disagree on a field."""

from phronesis.admission.feedback import AdmissionFeedback, AdmissionFeedbackIn
from phronesis.admission.models import AdmissionResult, Run, RunIn, SearchHit, UndoResult
from phronesis.api.bodies import (
    BatchResult,
    ConfidenceRequest,
    CycleRequest,
    DecisionPage,
    HeuristicPage,
    ImportResult,
    MatchRequest,
    MatchResponse,
    MemoryDecisionPage,
    RunBatch,
    RunPage,
    SettingList,
    SignalBatch,
    SignalsStored,
)
from phronesis.audit.models import DecisionRecord
from phronesis.executive.events import EventDecision, EventRequest
from phronesis.executive.report import StrategyReport
from phronesis.feedback.models import Feedback, FeedbackReceipt
from phronesis.heuristics.models import ConfidenceUpdate, Heuristic, HeuristicCreate, HeuristicUpdate
from phronesis.learning.models import ChannelReport, FireRequest, HistoryEntry, Observation, ObservedEvent
from phronesis.learning.types import FireRecord
from phronesis.proactive.controls import PauseIn, PauseState
from phronesis.proactive.models import (
    CycleResult,
    DeferredInsight,
    FeedbackSummary,
    MuteIn,
    OptOutIn,
    Preview,
    PreviewIn,
    ProactiveFeedback,
    Signal,
    TickReport,
    Timeline,
    UserIn,
    UserMessageIn,
    UserProfile,
    UserReply,
)
from phronesis.replay.models import ReplayIn, ReplayReport
from phronesis.replay.tune import TuneIn, TuneReport
from phronesis.routing.documents import Document, DocumentIn
from phronesis.routing.models import RouteRequest, RouteResult, ToolOutcomeIn, ToolOutcomeResult
from phronesis.routing.route_feedback import RouteFeedback, RouteFeedbackIn
from phronesis.routing.sessions import MessageIn, NewSession, Session
from phronesis.routing.tools import Tool, ToolPut
from phronesis.tenant_settings import AppliedSetting, ApplyIn, SettingName

__all__ = [
    "AdmissionFeedback",
    "AdmissionFeedbackIn",
    "AdmissionResult",
    "AppliedSetting",
    "ApplyIn",
    "BatchResult",
    "ChannelReport",
    "ConfidenceRequest",
    "ConfidenceUpdate",
    "CycleRequest",
    "CycleResult",
    "DecisionPage",
    "DecisionRecord",
    "DeferredInsight",
    "Document",
    "DocumentIn",
    "EventDecision",
    "EventRequest",
    "Feedback",
    "FeedbackReceipt",
    "FeedbackSummary",
    "FireRecord",
    "FireRequest",
    "Heuristic",
    "HeuristicCreate",
    "HeuristicPage",
    "HeuristicUpdate",
    "HistoryEntry",
    "ImportResult",
    "MatchRequest",
    "MatchResponse",
    "MemoryDecisionPage",
    "MessageIn",
    "MuteIn",
    "NewSession",
    "Observation",
    "ObservedEvent",
    "OptOutIn",
    "PauseIn",
    "PauseState",
    "Preview",
    "PreviewIn",
    "ProactiveFeedback",
    "ReplayIn",
    "ReplayReport",
    "RouteFeedback",
    "RouteFeedbackIn",
    "RouteRequest",
    "RouteResult",
    "Run",
    "RunBatch",
    "RunIn",
    "RunPage",
    "SearchHit",
    "Session",
    "SettingList",
    "SettingName",
    "Signal",
    "SignalBatch",
    "SignalsStored",
    "StrategyReport",
    "TickReport",
    "Timeline",
    "Tool",
    "ToolOutcomeIn",
    "ToolOutcomeResult",
    "ToolPut",
    "TuneIn",
    "TuneReport",
    "UndoResult",
    "UserIn",
    "UserMessageIn",
    "UserProfile",
    "UserReply",
]
