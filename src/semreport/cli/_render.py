"""Rich renderings of the facade's results, read from their wire form.

Reading the wire form (``semreport.wire.to_wire``) rather than the attrs
classes keeps the tables identical to what ``--json`` prints and to what the
HTTP adapter returns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rich.console import Group, RenderableType
from rich.panel import Panel
from rich.table import Table
from rich.text import Text

from semreport.service import SemReport
from semreport.wire import to_wire

__all__ = [
    "digest_table",
    "explanation_table",
    "hits_table",
    "next_page",
    "signals_tables",
    "verification_lines",
]


def _number(value: object, digits: int = 3) -> str:
    if isinstance(value, bool) or value is None:
        return "" if value is None else str(value).lower()
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _plain(value: object) -> str:
    """A number as people write it: 0.65, 90, 1,420,000."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return f"{value:,.0f}" if float(value).is_integer() else f"{value:,.4g}"
    return str(value)


def _short(value: object, limit: int = 60) -> str:
    text = value if isinstance(value, str) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def signals_tables(catalogue: object, *, max_attributes: int | None = None) -> list[RenderableType]:
    """The signal catalogue: one table of signals, then facet values and numeric ranges.

    ``max_attributes`` keeps only the attributes most decisions carry.
    """
    wire = to_wire(catalogue)
    out: list[RenderableType] = []
    table = Table(
        title=f"Signals for {wire.get('project_id')} ({wire.get('decisions')} decisions, "
        f"as of sequence {wire.get('as_of_sequence')})",
        expand=False,
    )
    table.add_column("signal")
    table.add_column("kind")
    table.add_column("find weight", justify="right")
    table.add_column("similar weight", justify="right")
    table.add_column("coverage", justify="right")
    table.add_column("description", max_width=70)
    for signal in wire.get("signals", []):
        coverage = signal.get("coverage")
        table.add_row(
            str(signal.get("name", "")),
            str(signal.get("kind", "")),
            _number(signal.get("find_weight")),
            _number(signal.get("similar_weight")),
            f"{coverage:.0%}" if isinstance(coverage, int | float) else "",
            str(signal.get("description", "")),
        )
    policies = wire.get("superseded_policies") or []
    table.caption = (
        f"{wire.get('superseded', 0)} superseded decisions; treatment: "
        f"{' | '.join(policies)} (default {policies[0] if policies else 'demote'})"
    )
    out.append(table)
    facets = Table(title="Facet values", expand=False)
    facets.add_column("facet")
    facets.add_column("values (decisions)", max_width=100)
    for name, values in (wire.get("facets") or {}).items():
        facets.add_row(str(name), _counts(values))
    out.append(facets)
    spreads = list(wire.get("attributes") or [])
    title = "Numeric attributes"
    if max_attributes is not None and len(spreads) > max_attributes:
        title += f" (the {max_attributes} most common of {len(spreads)})"
        spreads = sorted(spreads, key=lambda a: (-a["count"], a["name"]))[:max_attributes]
    ranges = Table(title=title, expand=False)
    for column in ("attribute", "decisions", "min", "median", "max"):
        ranges.add_column(column, justify="left" if column == "attribute" else "right")
    for spread in spreads:
        ranges.add_row(
            str(spread.get("name")),
            _number(spread.get("count")),
            _plain(spread.get("min")),
            _plain(spread.get("median")),
            _plain(spread.get("max")),
        )
    out.append(ranges)
    return out


def _counts(values: Mapping[str, int]) -> str:
    ordered = sorted(values.items(), key=lambda item: (-item[1], item[0]))
    shown = [f"{name} ({count})" for name, count in ordered]
    text = ", ".join(shown[:20])
    return text + (f", … {len(shown) - 20} more" if len(shown) > 20 else "")


def _contributions(hit: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [part for part in hit.get("explanation", []) if isinstance(part, Mapping)]


def _title_cell(hit: Mapping[str, Any]) -> Text:
    """The title, and below it the best highlight with the matched words in bold."""
    cell = Text(_short(hit.get("title", ""), 64))
    if hit.get("superseded"):
        cell.append(" (superseded)")
    shown = hit.get("highlights") or []
    if shown:
        fragment = str(shown[0].get("fragment", ""))
        cell.append("\n")
        line = Text(fragment, style="dim")
        for start, end in shown[0].get("spans", []):
            line.stylize("bold reverse", int(start), int(end))
        cell.append_text(line)
    return cell


def hits_table(sr: SemReport, project_id: str, result: object, title: str) -> Table:
    """The ranked hits: what each decision is and the signals that scored it; facet counts."""
    del sr, project_id  # a hit says what it is: nothing to look up
    wire = to_wire(result)
    table = Table(title=title, expand=False)
    table.add_column("#", justify="right")
    table.add_column("score", justify="right")
    # Ids never wrap: the column is as wide as the longest id.
    ids = [str(hit["decision_id"]) for hit in wire.get("hits", [])]
    table.add_column("decision", no_wrap=True, min_width=max([len(i) for i in ids] + [8]))
    table.add_column("title")
    table.add_column("domain / status")
    table.add_column("agent")
    table.add_column("recorded")
    table.add_column("top signals")
    for rank, hit in enumerate(wire.get("hits", []), start=1):
        signals = sorted(_contributions(hit), key=lambda part: -float(part["contribution"]))
        top = ", ".join(
            f"{part['signal']} {float(part['contribution']):.3f}"
            for part in signals[:3]
            if float(part["contribution"]) > 0
        )
        table.add_row(
            str(rank),
            _number(hit.get("score")),
            str(hit["decision_id"]),
            _title_cell(hit),
            f"{hit.get('domain', '')} / {hit.get('status', '')}",
            str(hit.get("agent", "")),
            str(hit.get("recorded_at") or "")[:10],
            top,
        )
    footer = [f"{wire.get('total', len(wire.get('hits', [])))} matched"]
    facets = wire.get("facets") or {}
    footer.extend(
        f"{name}: {_counts(facets[name])}" for name in ("domain", "status") if facets.get(name)
    )
    scorer = wire.get("scorer") or {}
    if scorer:
        footer.append(
            f"scorer {scorer.get('name')} {scorer.get('version')}, "
            f"model_inference={str(scorer.get('model_inference', False)).lower()}"
        )
    table.caption = "; ".join(footer)
    return table


def next_page(result: object) -> str | None:
    """The option that fetches the next page, if there is one (print it unwrapped)."""
    cursor = to_wire(result).get("next_cursor")
    return f"next page: --cursor {cursor}" if cursor else None


def explanation_table(hit: Mapping[str, Any]) -> Panel:
    """One hit's explanation: each signal's raw and normalised value, weight and share."""
    table = Table(expand=False, box=None)
    for column in ("signal", "raw", "normalised", "weight", "contribution", "evidence"):
        table.add_column(column, justify="left" if column in ("signal", "evidence") else "right")
    for part in _contributions(hit):
        table.add_row(
            str(part.get("signal")),
            _number(part.get("raw")),
            _number(part.get("normalised")),
            _number(part.get("weight")),
            _number(part.get("contribution")),
            _short(_evidence_text(part.get("evidence")), 90),
        )
    title = f"{hit['decision_id']}  {_short(hit.get('title', ''), 50)}"
    title += f"  score {_number(hit.get('score'))}"
    if hit.get("superseded"):
        title += f" (superseded, score times {_number(hit.get('demotion'))})"
    return Panel(table, title=title, title_align="left", expand=False)


def _evidence_text(evidence: object) -> str:
    if not isinstance(evidence, Mapping):
        return "" if not evidence else str(evidence)
    parts = []
    for key, value in evidence.items():
        if key == "attributes" and isinstance(value, Mapping):
            parts.extend(_attribute_evidence(value))
        elif isinstance(value, list):
            if value:
                parts.append(f"{key.replace('_', ' ')}: {', '.join(str(v) for v in value[:8])}")
        elif value not in (None, "", {}):
            parts.append(f"{key.replace('_', ' ')}: {value}")
    return "; ".join(parts)


def _attribute_evidence(attributes: Mapping[str, Any]) -> list[str]:
    parts = []
    missing = []
    for name, detail in attributes.items():
        if not isinstance(detail, Mapping):
            parts.append(f"{name}: {detail}")
        elif detail.get("value") is None:
            missing.append(name)
        else:
            parts.append(f"{name} {_plain(detail['value'])} vs {_plain(detail.get('target'))}")
    if missing:
        parts.append(f"missing: {', '.join(missing)}")
    return parts


def digest_table(digest: object) -> Group:
    """The record digest, one member a line; print it with ``soft_wrap=True``.

    Hashes are never wrapped nor cut, however narrow the terminal: each line
    is longer than the terminal rather than broken mid-hash.
    """
    wire = to_wire(digest)
    width = max([len(str(key)) for key in wire] + [1])
    lines = [Text("Record digest", style="bold")]
    lines.extend(
        Text(f"  {str(key).ljust(width)}  {value}", no_wrap=True, overflow="ignore")
        for key, value in wire.items()
    )
    return Group(*lines)


_CHECKS: Final = ("citations", "records_root", "report_sha256", "body", "memory", "page")


def verification_lines(verification: object) -> tuple[bool, RenderableType]:
    """Whether a verification passed, and a readable account of every check."""
    wire = to_wire(verification)
    ok = bool(wire.get("ok"))
    lines: list[RenderableType] = []
    about = f"project {wire.get('project_id')} as of sequence {wire.get('as_of_sequence')}, "
    about += f"{wire.get('records', 0)} records"
    verdict = "VERIFIED: every check matches" if ok else "NOT VERIFIED"
    lines.append(Text(f"{verdict} ({about})", style="bold green" if ok else "bold red"))
    checks = []
    for name in _CHECKS:
        value = wire.get(name)
        mark = "not checked" if value is None else ("ok" if value else "MISMATCH")
        checks.append(f"{name}: {mark}")
    lines.append(Text("  " + "; ".join(checks)))
    moved_on = wire.get("memory_moved_on")
    if moved_on:
        lines.append(
            Text(
                f"  memory has moved on: {moved_on} record(s) after sequence "
                f"{wire.get('as_of_sequence')} (memory is at {wire.get('memory_sequence')}); "
                "not a mismatch",
                style="yellow",
            )
        )
    lines.extend(Text(f"  ✓ {item}", style="green") for item in wire.get("matched", []))
    for problem in wire.get("problems", []):
        where = problem.get("location", "")
        concerned = [
            f"decision {problem['decision_id']}" if problem.get("decision_id") else "",
            f"sequence {problem['sequence']}" if problem.get("sequence") is not None else "",
        ]
        suffix = ", ".join(c for c in concerned if c)
        kind = f"[{problem['kind']}] " if problem.get("kind") else ""
        text = f"  ✗ {kind}{where}: {problem.get('reason', '')}" + (
            f" ({suffix})" if suffix else ""
        )
        lines.append(Text(text, style="red"))
    return ok, Group(*lines)
