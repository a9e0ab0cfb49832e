"""Open exported reports in headless Debian Chromium and fail on any console error or request.

Run by ``nox -s browser``. Uses Playwright for Python with the system browser
(``/usr/bin/chromium``; never a Playwright browser download). Two pages: a
small project with hostile text, and the Lindenhof sample, whose table of
contents, domain navigation, charts and print layout are checked. Pages,
screenshots (the top, a domain section, the digest, the first printed page)
and the print-to-PDF file are written to ``$SEMREPORT_BROWSER_OUT`` (default
``/tmp/semreport-browser``), outside the repository; the PDF's page count is
printed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pypdf
from playwright.sync_api import sync_playwright

import semreport
from semreport import sample

CHROMIUM = os.environ.get("SEMREPORT_CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
NASTY = "</script><script>alert('x')</script> <b>bold?</b> \"quotes\" & \u2028 é 😀"


def _rows() -> list[dict[str, object]]:
    domains = ["regulation", "material", "cost", "lifecycle", "general"]
    return [
        {
            "id": f"d-{i}",
            "project_id": "tower-7",
            "title": f"Decision {i}" + (f" {NASTY}" if i == 3 else ""),
            "statement": f"What was decided in step {i}." + (f" {NASTY}" if i == 5 else ""),
            "rationale": "Because the fire strategy and the budget say so.",
            "agent": ["agent-reg", "agent-mat", "agent-cost"][i % 3],
            "domain": domains[i % 5],
            "status": ["accepted", "proposed", "accepted", "rejected"][i % 4],
            "attributes": {"cost_eur": 1000.5 * i, "fire_resistance_min": 30 * (i % 4)},
            "tags": ["timber"] if i % 2 else ["fire"],
            "evidence": [
                {"kind": "regulation", "ref": f"ADB B{i % 3}", "title": "Approved Document B"},
                {"kind": "cost_line", "ref": f"BQ {i}", "title": "Bill of quantities"},
            ],
            "links": [{"kind": "supersedes", "target": f"d-{i - 5}"}] if i > 5 else [],
        }
        for i in range(1, 16)
    ]


def _watch(page, url: str, errors: list[str], requests: list[str]) -> None:  # type: ignore[no-untyped-def]
    page.on(
        "console",
        lambda msg: (
            errors.append(f"console {msg.type}: {msg.text}")
            if msg.type in ("error", "warning", "assert")
            else None
        ),
    )
    page.on("pageerror", lambda exc: errors.append(f"page error: {exc}"))
    page.on("request", lambda req: requests.append(req.url) if req.url != url else None)


def _load(browser, url: str) -> tuple[list[str], list[str]]:  # type: ignore[no-untyped-def]
    errors: list[str] = []
    requests: list[str] = []
    page = browser.new_page()
    _watch(page, url, errors, requests)
    page.goto(url, wait_until="load")
    page.wait_for_timeout(300)
    page.close()
    return errors, requests


# Every in-page link must land on an element; every hash and id must sit on one line in print.
_BROKEN_LINKS = """() => [...document.querySelectorAll('a[href^="#"]')]
    .map(a => a.getAttribute('href').slice(1))
    .filter(id => !document.getElementById(id))"""
_SPLIT_TOKENS = """() => [...document.querySelectorAll('code')]
    .filter(c => c.getClientRects().length > 1)
    .map(c => c.textContent)"""
_OVERFLOW = """() => [...document.querySelectorAll('code')]
    .filter(c => c.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .map(c => c.textContent)"""
# A4 less the print stylesheet's side margins (210 - 28 mm) at 96 px per inch.
_PRINT_WIDTH = 688


def _navigable(browser, out: Path) -> tuple[list[str], int]:  # type: ignore[no-untyped-def]
    """Check the Lindenhof page's navigation, charts and print layout; return problems, pages."""
    with semreport.open("memory://") as sr:
        sample.load_into(sr)
        exported = sr.export_report(sample.PROJECT_ID)
    page_file = out / "lindenhof.html"
    page_file.write_text(exported.html, encoding="utf-8")
    problems: list[str] = []
    if not semreport.verify(exported.html).ok:
        problems.append("the Lindenhof page does not verify")
    url = page_file.resolve().as_uri()
    errors: list[str] = []
    requests: list[str] = []
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    page = context.new_page()
    _watch(page, url, errors, requests)
    page.goto(url, wait_until="load")
    page.screenshot(path=str(out / "lindenhof-top.png"))
    broken = page.evaluate(_BROKEN_LINKS)
    toc = page.locator("nav#toc a").count()
    charts = page.locator("figure.chart svg").count()
    bars = page.locator("figure.chart svg rect").count()
    domain_navs = page.locator("nav.domain-nav").count()
    page.locator("#domain-material").scroll_into_view_if_needed()
    page.evaluate("() => document.getElementById('domain-material').scrollIntoView()")
    page.screenshot(path=str(out / "lindenhof-domain.png"))
    page.evaluate("() => document.getElementById('digest').scrollIntoView()")
    page.screenshot(path=str(out / "lindenhof-digest.png"))
    page.evaluate("() => document.getElementById('costs').scrollIntoView()")
    page.screenshot(path=str(out / "lindenhof-costs.png"))
    page.set_viewport_size({"width": _PRINT_WIDTH, "height": 1000})
    page.emulate_media(media="print")
    split = page.evaluate(_SPLIT_TOKENS)
    overflow = page.evaluate(_OVERFLOW)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(out / "lindenhof-print.png"))
    pdf = out / "lindenhof.pdf"
    page.pdf(path=str(pdf), format="A4", print_background=True)
    context.close()
    pages = len(pypdf.PdfReader(pdf).pages)
    problems += errors + [f"network request: {r}" for r in requests]
    problems += [f"link to a missing anchor: #{target}" for target in broken]
    problems += [f"broken across lines in print: {text}" for text in split]
    problems += [f"wider than the printed page: {text}" for text in overflow]
    sections = len(exported.report.sections)
    if toc != sections + 4:
        problems.append(f"table of contents has {toc} links, expected {sections + 4}")
    if domain_navs != sections:
        problems.append(f"{domain_navs} domain navigation bars for {sections} domains")
    if charts != 3 or bars < 10:
        problems.append(f"expected 3 charts with bars, saw {charts} charts and {bars} bars")
    if pages < sections + 3:
        problems.append(f"print-to-PDF has {pages} pages, fewer than the sections")
    print(f"lindenhof: {page_file}  print-to-PDF: {pdf}  {pages} pages (A4)")
    print(
        f"lindenhof: {toc} contents links, {domain_navs} domain navigation bars, "
        f"{charts} charts of {bars} bars, 0 broken anchors"
        if not broken
        else f"lindenhof: {len(broken)} broken anchors"
    )
    return problems, pages


def main() -> int:
    out = Path(os.environ.get("SEMREPORT_BROWSER_OUT", "/tmp/semreport-browser"))
    out.mkdir(parents=True, exist_ok=True)
    with semreport.open("memory://") as sr:
        sr.record(_rows())
        exported = sr.export_report("tower-7")
    page_file = out / "report.html"
    page_file.write_text(exported.html, encoding="utf-8")
    assert semreport.verify(exported.html).ok, "the exported page does not verify"
    url = page_file.resolve().as_uri()

    canary = out / "canary.html"
    canary.write_text(
        '<!DOCTYPE html><html><head><meta charset="utf-8"><title>canary</title></head>'
        '<body><img src="http://127.0.0.1:9/x.png" alt=""><script>console.error("boom")</script>'
        "</body></html>",
        encoding="utf-8",
    )
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        # The detectors must fire on a page that does what the report must not.
        caught = _load(browser, canary.resolve().as_uri())
        if not (any("boom" in e for e in caught[0]) and caught[1]):
            print(f"FAILED: the detectors missed the canary: {caught}", file=sys.stderr)
            return 1
        context = browser.new_context(viewport={"width": 1200, "height": 900})
        page = context.new_page()
        _watch(page, url, errors, requests)
        page.goto(url, wait_until="load")
        page.wait_for_timeout(500)
        title = page.title()
        shown_root = page.locator("#digest code.hash").first.inner_text()
        embedded = page.evaluate(
            "() => document.getElementById('semreport-report').textContent.length"
        )
        anchors = page.locator("article.decision").count()
        page.screenshot(path=str(out / "report.png"), full_page=True)
        page.screenshot(path=str(out / "report-top.png"))
        page.goto(url + "#decision-d-3", wait_until="load")
        page.wait_for_timeout(300)
        page.screenshot(path=str(out / "report-anchor.png"))
        context.close()
        navigable, _ = _navigable(browser, out)
        browser.close()

    problems = list(errors) + navigable
    problems += [f"network request: {r}" for r in requests]
    if shown_root != exported.digest.records_root:
        problems.append(f"digest not shown: {shown_root!r}")
    if anchors != 15:
        problems.append(f"expected 15 decision articles, saw {anchors}")
    if embedded < 100:
        problems.append("the JSON block is missing")
    print(f"title: {title}")
    print(f"page: {page_file}  screenshot: {out / 'report.png'}")
    if problems:
        print("FAILED:\n  " + "\n  ".join(problems), file=sys.stderr)
        return 1
    print("ok: no console errors, no network requests")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
