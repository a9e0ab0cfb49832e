"""Heuristic semantic search over Decision Memory: signals, criteria, exemplars, results.

The facade (:meth:`semreport.SemReport.find`, ``similar``, ``signals``) is the
usual entry point; this package holds the request and result types and the
:class:`HeuristicScorer` behind them.
"""

from semreport.search._analysis import Analyzer, AnalyzerInfo, Expansion, QueryAnalysis, Token
from semreport.search._highlight import Highlight, highlight, highlights, highlights_many
from semreport.search._models import (
    DEFAULT_LIMIT,
    MAX_FILTER_VALUES,
    MAX_LIMIT,
    MAX_TEXT,
    SIGNAL_NAMES,
    AttributeSummary,
    Counts,
    Criteria,
    Exemplar,
    FacetCounts,
    FacetSelection,
    Filters,
    Hit,
    NumericRange,
    PartialDecision,
    SearchResult,
    SignalCatalogue,
    SignalContribution,
    SignalInfo,
    StatusFilter,
    SupersededPolicy,
    TimeRange,
    parse_criteria,
    parse_exemplar,
)
from semreport.search._scorer import (
    FIND_WEIGHTS,
    HEURISTIC_VERSION,
    SIMILAR_WEIGHTS,
    HeuristicScorer,
    SearchScorer,
)
from semreport.search._stopwords import default_stop_words, snowball_stop_words
from semreport.search._warnings import SearchWarning
from semreport.search.signals import SIGNALS, Page, Prepared, Signal

__all__ = [
    "DEFAULT_LIMIT",
    "FIND_WEIGHTS",
    "HEURISTIC_VERSION",
    "MAX_FILTER_VALUES",
    "MAX_LIMIT",
    "MAX_TEXT",
    "SIGNALS",
    "SIGNAL_NAMES",
    "SIMILAR_WEIGHTS",
    "Analyzer",
    "AnalyzerInfo",
    "AttributeSummary",
    "Counts",
    "Criteria",
    "Exemplar",
    "Expansion",
    "FacetCounts",
    "FacetSelection",
    "Filters",
    "HeuristicScorer",
    "Highlight",
    "Hit",
    "NumericRange",
    "Page",
    "PartialDecision",
    "Prepared",
    "QueryAnalysis",
    "SearchResult",
    "SearchScorer",
    "SearchWarning",
    "Signal",
    "SignalCatalogue",
    "SignalContribution",
    "SignalInfo",
    "StatusFilter",
    "SupersededPolicy",
    "TimeRange",
    "Token",
    "default_stop_words",
    "highlight",
    "highlights",
    "highlights_many",
    "parse_criteria",
    "parse_exemplar",
    "snowball_stop_words",
]
