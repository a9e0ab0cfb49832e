"""Reports from Decision Memory: assembly, the record digest, HTML export and verification.

A report is a pure function of Decision Memory as of a sequence number
(:func:`assemble_report`); its digest (``semreport-digest/1``) lets anyone
check it, or one cited decision (:class:`InclusionProof`), against the
records. :func:`verify` checks an exported page or report JSON.
"""

from semreport.canonical import canonical_json
from semreport.reports._assemble import assemble_report, build_report
from semreport.reports._cache import DEFAULT_REPORT_CACHE_BYTES, CacheInfo
from semreport.reports._digest import (
    DIGEST_SCHEME,
    Digest,
    InclusionProof,
    check_inclusion,
    citation_id,
    merkle_root,
)
from semreport.reports._html import REPORT_BLOCK_ID, ReportExport, embed_json, render_html
from semreport.reports._model import (
    REPORT_SCHEMA,
    EvidenceEntry,
    Report,
    ReportEntry,
    ReportRecord,
    ReportSection,
    ReportSummary,
    SupersessionChain,
    canonical_report,
)
from semreport.reports._proof import prove
from semreport.reports._stream import ReportStream
from semreport.reports._verify import Finding, FindingKind, Verification, verify
from semreport.reports._views import COST_ATTRIBUTE, TOTALLED_ATTRIBUTES

__all__ = [
    "COST_ATTRIBUTE",
    "DEFAULT_REPORT_CACHE_BYTES",
    "DIGEST_SCHEME",
    "REPORT_BLOCK_ID",
    "REPORT_SCHEMA",
    "TOTALLED_ATTRIBUTES",
    "CacheInfo",
    "Digest",
    "EvidenceEntry",
    "Finding",
    "FindingKind",
    "InclusionProof",
    "Report",
    "ReportEntry",
    "ReportExport",
    "ReportRecord",
    "ReportSection",
    "ReportStream",
    "ReportSummary",
    "SupersessionChain",
    "Verification",
    "assemble_report",
    "build_report",
    "canonical_json",
    "canonical_report",
    "check_inclusion",
    "citation_id",
    "embed_json",
    "merkle_root",
    "prove",
    "render_html",
    "verify",
]
