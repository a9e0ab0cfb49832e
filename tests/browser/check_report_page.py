"""Open an exported report in headless Debian Chromium and fail on any console error or request.

Run by ``nox -s browser``. Uses Playwright for Python with the system browser
(``/usr/bin/chromium``; never a Playwright browser download). The page and a
full-page screenshot are written to ``$SEMREPORT_BROWSER_OUT`` (default
``/tmp/semreport-browser``), outside the repository.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

import semreport

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
        browser.close()

    problems = list(errors)
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
