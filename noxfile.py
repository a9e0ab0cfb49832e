"""Development tasks: ``nox -s tests``, ``typecheck``, ``lint``, ``bench``."""

from __future__ import annotations

import os
import shutil

import nox

nox.needs_version = ">=2025.2.9"
nox.options.default_venv_backend = "uv|virtualenv"
nox.options.reuse_existing_virtualenvs = True
nox.options.sessions = ["lint", "typecheck", "tests"]

PYPROJECT = nox.project.load_toml("pyproject.toml")
PYTHON = os.environ.get("SEMREPORT_NOX_PYTHON") or None
EXTRAS = "postgres,pdf,http,cli,metrics"


def _install(session: nox.Session, *groups: str, extras: str = EXTRAS) -> None:
    session.install("-e", f".[{extras}]" if extras else ".")
    for group in groups:
        session.install(*nox.project.dependency_groups(PYPROJECT, group))


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """Run the whole test suite with branch coverage (fails under 90%)."""
    _install(session, "test")
    session.run("coverage", "erase")
    session.run(
        "pytest",
        "--cov=semreport",
        "--cov-branch",
        "--cov-report=term-missing:skip-covered",
        "--cov-fail-under=90",
        *session.posargs,
    )


@nox.session(python=PYTHON)
def typecheck(session: nox.Session) -> None:
    """Run mypy in strict mode over src/ and tests/typing/."""
    _install(session, "typecheck")
    session.run("mypy", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """Run ruff's linter and its formatter check."""
    session.install(*nox.project.dependency_groups(PYPROJECT, "lint"))
    # The docs' Python (the Sphinx extensions, conf.py and the notebook) with the rest; not
    # the Markdown pages' examples, whose comments are aligned by hand.
    code = ("src", "tests", "benchmarks", "tools", "noxfile.py", "docs/conf.py", "docs/_ext")
    session.run("ruff", "check", *code, "docs/notebooks")
    session.run("ruff", "format", "--check", *code, "docs/notebooks")


@nox.session(python=PYTHON)
def bench(session: nox.Session) -> None:
    """Run the benchmarks and write docs/performance.md (pass --quick for a smoke run)."""
    _install(session, "bench")
    session.run("python", "-m", "benchmarks", *session.posargs)


@nox.session(python=PYTHON)
def load(session: nox.Session) -> None:
    """Load-test the HTTP adapter against a bare Starlette endpoint; write docs/performance.md.

    Each operation at 1, 8 and 32 connections with one and two worker processes,
    and a fairness run (48 PDF exports while find and /gnn/status are timed).
    The load comes from wrk: installed here from Debian's package when missing and
    apt-get is usable, otherwise install it yourself. Fails on any 5xx or transport
    error, or when the servers' memory grows during the burst. ``-- --quick`` is short.
    """
    if shutil.which("wrk") is None:
        if shutil.which("apt-get") is None or os.geteuid() != 0:
            session.error("the load benchmark needs wrk: apt-get install wrk (or brew install wrk)")
        session.run("apt-get", "install", "-y", "-q", "wrk", external=True)
    _install(session, "bench")
    session.run("python", "-m", "benchmarks", "--only", "bench_http", *session.posargs)
    session.run("python", "-m", "benchmarks.bench_http", "--check", "docs/performance.md")


@nox.session(python=PYTHON)
def fuzz(session: nox.Session) -> None:
    """Fuzz the running HTTP application with schemathesis (positive and negative data)."""
    _install(session, "test")
    session.run("pytest", "-p", "no:cacheprovider", "tests/integration/test_http_schemathesis.py")


@nox.session(python=PYTHON)
def browser(session: nox.Session) -> None:
    """Open an exported report in headless Debian Chromium; fail on console errors or requests.

    Needs ``/usr/bin/chromium`` (``apt-get install -y chromium``; never a
    Playwright browser download). Screenshots go to ``$SEMREPORT_BROWSER_OUT``
    (default ``/tmp/semreport-browser``), outside the repository.
    """
    _install(session, "browser")
    session.run(
        "python",
        "tests/browser/check_report_page.py",
        env={
            "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1",
            "SEMREPORT_BROWSER_OUT": os.environ.get(
                "SEMREPORT_BROWSER_OUT",
                "/tmp/semreport-browser",  # noqa: S108 - outside the repo
            ),
        },
    )


@nox.session(python=PYTHON)
def pdfpreview(session: nox.Session) -> None:
    """Render the first pages of a sample session's PDF to PNG in build/pdfpreview/.

    Needs ``pdftoppm`` (Debian ``poppler-utils``). Look at the PNGs to check the
    layout and that every glyph (Greek, symbols, CJK, Hangul) really renders.
    """
    _install(session, extras="pdf")
    out = "build/pdfpreview"
    session.run("python", "-m", "semreport.testing.samples", f"{out}/sample-session.pdf")
    session.run(
        "pdftoppm",
        "-png",
        "-r",
        "80",
        "-f",
        "1",
        "-l",
        "3",
        f"{out}/sample-session.pdf",
        f"{out}/page",
        external=True,
    )
    session.log(f"PNG pages written to {out}/")


@nox.session(python=PYTHON)
def docs(session: nox.Session) -> None:
    """Build the HTML docs with Sphinx; every warning is an error."""
    _install(session, "docs", extras="cli,http,metrics")
    session.run(
        "sphinx-build",
        "--fail-on-warning",
        "--keep-going",
        "--fresh-env",
        "--quiet",
        "-b",
        "html",
        "docs",
        "docs/_build/html",
    )


@nox.session(python=PYTHON)
def notebook(session: nox.Session) -> None:
    """Execute docs/notebooks/quickstart.ipynb; any error in any cell fails the session."""
    _install(session, "notebook", extras="cli")
    session.run("jupyter-execute", "--timeout=300", "docs/notebooks/quickstart.ipynb")


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """Run ``semreport demo`` into demo-out/ (the README's first command, in a virtualenv)."""
    _install(session, extras="cli")
    session.run("semreport", "demo", "--out", "demo-out", *session.posargs)
