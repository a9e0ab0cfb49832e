"""HTTP load: each operation against a bare Starlette endpoint, and a fairness run.

The servers are child processes (``python -m benchmarks.bench_http --serve``)
under the settings ``semreport serve`` uses (uvicorn, its h11 protocol with
the header timeout, the same connection limit and keep-alive); the load
comes from ``wrk`` (a C load generator, so that the client does not take the
CPU the server needs; ``nox -s load`` installs Debian's package when it can).

One run measures, at 1, 8 and 32 connections and with one and with two
worker processes: a bare Starlette JSON endpoint (the baseline), then find,
similar, signals, GET report (cached: the same report again; cold: a
different ``as_of`` each request), the report export and the session
exports (json, pdf), each as requests per second and as a ratio to the
baseline under the same settings. The fairness run sends 48 concurrent PDF
exports while two other clients call ``find`` and ``/gnn/status``, whose p99
latencies are the point. ``nox -s load`` fails unless the verdict passed:
no 5xx and no transport error anywhere, and the servers' memory steady
through the fairness run. The issue's speed targets are listed as met or
not met beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Final

TIMES = "\u00d7"  # the multiplication sign, as in 0.3x
TITLE = "HTTP load"
ORDER = 90

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
PROJECT = "p-bench"
DECISIONS = 400
SESSION_TURNS = 2
CONNECTIONS = (1, 8, 32)
WORKERS = (1, 2)
DURATION = 6.0
QUICK_DURATION = 2.0
WARMUP = 1.5
QUICK_WARMUP = 0.5
FAIRNESS = 30.0
QUICK_FAIRNESS = 8.0
BURST = 48
MEMORY_GROWTH_LIMIT = 0.10

FIND = json.dumps({"text": "fire rated timber"})
# (name, method, path, body, as_of values to cycle through: 0 for none)
OPERATIONS: list[tuple[str, str, str, str, int]] = [
    ("bare Starlette JSON", "GET", "/bare", "", 0),
    ("find", "POST", f"/projects/{PROJECT}/semantic/find", FIND, 0),
    ("similar", "POST", f"/projects/{PROJECT}/semantic/similar", '{"decision_id": "d-7"}', 0),
    ("signals", "GET", f"/projects/{PROJECT}/semantic/signals", "", 0),
    ("GET report (cached)", "GET", f"/projects/{PROJECT}/report", "", 0),
    ("GET report (cold)", "GET", f"/projects/{PROJECT}/report", "", DECISIONS),
    ("report export", "POST", f"/projects/{PROJECT}/report/export", "", 0),
    ("session export json", "POST", "/sessions/s-bench/export/json", "", 0),
    ("session export pdf", "POST", "/sessions/s-bench/export/pdf", "", 0),
]

WRK_SCRIPT = r"""
local method = os.getenv("BENCH_METHOD")
local path = os.getenv("BENCH_PATH")
local body = os.getenv("BENCH_BODY") or ""
local vary = tonumber(os.getenv("BENCH_VARY") or "0")
wrk.method = method
wrk.headers["Authorization"] = "Bearer " .. os.getenv("BENCH_TOKEN")
if body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
local threads = {}
function setup(thread)
  table.insert(threads, thread)
end
function init(args)
  counter = 0
  server_errors = 0
end
function request()
  if vary > 0 then
    counter = counter + 1
    return wrk.format(nil, path .. "?as_of=" .. (counter % vary + 1))
  end
  return wrk.format(nil, path)
end
function response(status, headers, body)
  if status >= 500 then
    server_errors = server_errors + 1
  end
end
function done(summary, latency, requests)
  local five = 0
  for _, thread in ipairs(threads) do
    five = five + thread:get("server_errors")
  end
  local e = summary.errors
  io.write(string.format(
    'RESULT {"requests":%d,"duration_us":%d,"status_errors":%d,"server_errors":%d,' ..
    '"transport_errors":%d,"p50_us":%d,"p99_us":%d}\n',
    summary.requests, summary.duration, e.status, five,
    e.connect + e.read + e.write + e.timeout, latency:percentile(50), latency:percentile(99)))
end
"""


# -- the server processes --------------------------------------------------------------------


def bare_app() -> Any:
    """The baseline: one Starlette route answering a small JSON document."""
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def bare(_request: Any) -> JSONResponse:
        return JSONResponse({"status": "ok", "model_inference": False})

    return Starlette(routes=[Route("/bare", bare)])


def _uvicorn_options(port: int, workers: int) -> dict[str, Any]:
    """The options ``semreport serve`` gives uvicorn (see semreport.http.serve)."""
    import functools

    from semreport.http import _serve

    return {
        "host": "127.0.0.1",
        "port": port,
        "workers": workers,
        "log_level": "warning",
        "proxy_headers": False,
        "access_log": False,
        "limit_concurrency": _serve.DEFAULT_LIMIT_CONCURRENCY,
        "timeout_keep_alive": _serve.DEFAULT_KEEP_ALIVE,
        "http": functools.partial(
            _serve.HeaderTimeoutProtocol, header_timeout=_serve.DEFAULT_HEADER_TIMEOUT
        ),
    }


def _seed(path: Path) -> None:
    import semreport
    from semreport.testing.samples import sample_decisions, sample_session

    with semreport.open(f"sqlite:///{path}") as service:
        decisions = sample_decisions(PROJECT, DECISIONS)
        for decision in decisions:
            number = int(decision["id"].split("-")[1])
            if number > 1:
                decision["links"] = [{"kind": "relates_to", "target": f"d-{number // 2}"}]
        service.record(decisions)
        service.record_sessions(
            [sample_session(SESSION_TURNS, session_id="s-bench", project_id=PROJECT)]
        )


def _serve(port: int, mode: str, workers: int, database: str) -> None:
    import uvicorn

    options = _uvicorn_options(port, workers)
    if mode == "bare":
        if workers > 1:
            uvicorn.run("benchmarks.bench_http:bare_app", factory=True, **options)
        else:
            uvicorn.run(bare_app(), **options)
        return
    from semreport.http import AuthSettings, serve

    serve(
        f"sqlite:///{database}",
        authenticator=AuthSettings(dev_token=TOKEN),
        port=port,
        workers=workers,
        log_level="warning",
    )


# -- measuring ---------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _tree(pid: int) -> list[int]:
    """The process and its descendants (the worker processes)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        todo.extend(children.get(current, []))
    return found


def _rss_mib(pid: int) -> float:
    total = 0
    for member in _tree(pid):
        try:
            text = Path(f"/proc/{member}/status").read_text()
        except OSError:
            continue
        match = re.search(r"^VmRSS:\s+(\d+) kB", text, re.MULTILINE)
        total += int(match.group(1)) if match else 0
    return total / 1024


class _Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.samples: list[float] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            self.samples.append(_rss_mib(self.pid))


class Server:
    """A server child process on a free loopback port."""

    def __init__(self, mode: str, workers: int, database: Path) -> None:
        self.port = _free_port()
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
        command = [
            sys.executable,
            "-m",
            "benchmarks.bench_http",
            "--serve",
            str(self.port),
            "--mode",
            mode,
            "--workers",
            str(workers),
            "--database",
            str(database),
        ]
        self.process = subprocess.Popen(command, cwd=ROOT, env=env)
        self.url = f"http://127.0.0.1:{self.port}"
        self._wait(mode)

    def _wait(self, mode: str) -> None:
        import httpx

        probe = "/bare" if mode == "bare" else "/readyz"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited with status {self.process.returncode}")
            try:
                if httpx.get(self.url + probe, timeout=1).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError("the server did not start in time")

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:  # pragma: no cover - a stuck server
            self.process.kill()
            self.process.wait()


def _wrk(
    url: str,
    operation: tuple[str, str, str, str, int],
    connections: int,
    duration: float,
    script: Path,
) -> subprocess.Popen[str]:
    _, method, path, body, vary = operation
    env = {
        **os.environ,
        "BENCH_METHOD": method,
        "BENCH_PATH": path,
        "BENCH_BODY": body,
        "BENCH_VARY": str(vary),
        "BENCH_TOKEN": TOKEN,
    }
    command = [
        _wrk_binary(),
        "-t1",
        f"-c{connections}",
        f"-d{max(1, round(duration))}s",
        "--timeout",
        "120s",
        "-s",
        str(script),
        url,
    ]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)


def _result(process: subprocess.Popen[str]) -> dict[str, Any]:
    out, _ = process.communicate()
    match = re.search(r"^RESULT (\{.*\})$", out, re.MULTILINE)
    if match is None:
        raise RuntimeError(f"wrk gave no result:\n{out}")
    result: dict[str, Any] = json.loads(match.group(1))
    result["rate"] = result["requests"] / (result["duration_us"] / 1e6)
    return result


def _wrk_binary() -> str:
    found = shutil.which("wrk")
    if found is None:
        raise RuntimeError(
            "the HTTP load benchmark needs wrk: apt-get install wrk (Debian, Ubuntu), "
            "brew install wrk (macOS)"
        )
    return found


def _measure(
    url: str, operation: tuple[str, str, str, str, int], connections: int, quick: bool, script: Path
) -> dict[str, Any]:
    warm = QUICK_WARMUP if quick else WARMUP
    _result(_wrk(url, operation, connections, warm, script))  # warm-up, not counted
    return _result(_wrk(url, operation, connections, QUICK_DURATION if quick else DURATION, script))


def _fairness(url: str, pid: int, quick: bool, script: Path) -> dict[str, Any]:
    seconds = QUICK_FAIRNESS if quick else FAIRNESS
    by_name = {op[0]: op for op in OPERATIONS}
    status = ("/gnn/status", "GET", "/gnn/status", "", 0)
    # The same burst first, not measured: fonts, buffers and caches reach their steady size.
    _result(_wrk(url, by_name["session export pdf"], BURST, seconds / 3, script))
    sampler = _Sampler(pid)
    sampler.start()
    burst = _wrk(url, by_name["session export pdf"], BURST, seconds, script)
    time.sleep(1.0)  # the burst's connections open first
    probes = [
        _wrk(url, by_name["find"], 1, seconds - 2, script),
        _wrk(url, status, 1, seconds - 2, script),
    ]
    find, gnn = (_result(p) for p in probes)
    pdf = _result(burst)
    sampler.stop.set()
    sampler.join()
    return {"pdf": pdf, "find": find, "status": gnn, "rss": sampler.samples}


def measure(quick: bool) -> dict[str, Any]:
    """Run every measurement; return the raw figures."""
    script_dir = Path(tempfile.mkdtemp(prefix="semreport-bench-http-"))
    script = script_dir / "bench.lua"
    script.write_text(WRK_SCRIPT)
    database = script_dir / "bench.db"
    _seed(database)
    figures: dict[str, Any] = {"rates": {}, "p99": {}, "server_errors": 0, "transport": 0}
    try:
        for workers in WORKERS:
            for operation in OPERATIONS:
                mode = "bare" if operation[2] == "/bare" else "semreport"
                server = Server(mode, workers, database)
                try:
                    for connections in CONNECTIONS:
                        result = _measure(server.url, operation, connections, quick, script)
                        key = f"{operation[0]}|{workers}|{connections}"
                        figures["rates"][key] = result["rate"]
                        figures["p99"][key] = result["p99_us"] / 1000
                        figures["server_errors"] += result["server_errors"]
                        figures["transport"] += result["transport_errors"]
                        print(
                            f"{operation[0]:<24} workers={workers} c={connections:<3} "
                            f"{result['rate']:9.1f}/s p99 {result['p99_us'] / 1000:8.1f} ms",
                            file=sys.stderr,
                            flush=True,
                        )
                finally:
                    server.stop()
        server = Server("semreport", 1, database)
        try:
            figures["fairness"] = _fairness(server.url, server.process.pid, quick, script)
        finally:
            server.stop()
        fair = figures["fairness"]
        for part in ("pdf", "find", "status"):
            figures["server_errors"] += fair[part]["server_errors"]
            figures["transport"] += fair[part]["transport_errors"]
    finally:
        shutil.rmtree(script_dir, ignore_errors=True)
    return figures


# -- the report ------------------------------------------------------------------------------


def _memory(samples: list[float]) -> tuple[float, float]:
    if len(samples) < 4:
        return float("nan"), float("nan")
    quarter = max(1, len(samples) // 4)
    return statistics.mean(samples[:quarter]), statistics.mean(samples[-quarter:])


_VERDICT: Final = (
    "Verdict on errors and memory (what `nox -s load` fails on; the targets above are "
    "reported, not enforced)"
)


def _verdict(figures: dict[str, Any]) -> list[str]:
    problems: list[str] = []
    if figures["server_errors"]:
        problems.append(f"{figures['server_errors']} answers were 5xx")
    if figures["transport"]:
        problems.append(f"{figures['transport']} transport errors")
    first, last = _memory(figures["fairness"]["rss"])
    if last > first * (1 + MEMORY_GROWTH_LIMIT):
        problems.append(f"server RSS grew from {first:.0f} MiB to {last:.0f} MiB under the burst")
    return problems


def _targets(figures: dict[str, Any]) -> list[tuple[str, bool, str]]:
    rates = figures["rates"]
    base1 = rates["bare Starlette JSON|1|32"]
    find1, find2 = rates["find|1|32"], rates["find|2|32"]
    cached = rates["GET report (cached)|1|32"]
    fair = figures["fairness"]
    find_p99 = fair["find"]["p99_us"] / 1000
    status_p99 = fair["status"]["p99_us"] / 1000
    x = TIMES
    return [
        (
            f"find at 32 connections, one process, at least 0.3{x} the baseline",
            find1 >= 0.3 * base1,
            f"{find1 / base1:.3f}{x}",
        ),
        (
            f"two processes at least 1.6{x} one (find, 32 connections)",
            find2 >= 1.6 * find1,
            f"{find2 / find1:.2f}{x}",
        ),
        (
            f"cached GET report at least 0.3{x} the baseline (one process, 32 connections)",
            cached >= 0.3 * base1,
            f"{cached / base1:.4f}{x}",
        ),
        (
            "under the PDF burst, find and /gnn/status p99 under 250 ms",
            find_p99 < 250 and status_p99 < 250,
            f"find {find_p99:.0f} ms, /gnn/status {status_p99:.0f} ms",
        ),
        (f"0 {x} 5xx", figures["server_errors"] == 0, str(figures["server_errors"])),
    ]


def render(figures: dict[str, Any], quick: bool) -> str:
    """Markdown for docs/performance.md."""
    rates = figures["rates"]
    duration = QUICK_DURATION if quick else DURATION
    lines = [
        f"Each operation for {duration:.0f} s (after {QUICK_WARMUP if quick else WARMUP:g} s "
        "of warm-up) at 1, 8 and 32 connections from `wrk` (one thread) against uvicorn on "
        "127.0.0.1 with the settings of `semreport serve` (default executors: 4 threads for "
        "cheap calls, 1 for reports and exports; GIL switch interval 1 ms), with one and with "
        "two worker processes; "
        f"{DECISIONS} decisions in a SQLite file. Requests per second, and in brackets the "
        "ratio to a bare Starlette JSON endpoint served the same way (same worker count). "
        "The load generator shares the machine's cores with the server.",
        "",
        "| Operation | 1 proc, 1 conn | 1 proc, 8 | 1 proc, 32 "
        "| 2 procs, 1 | 2 procs, 8 | 2 procs, 32 |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for name, *_ in OPERATIONS:
        cells = []
        for workers in WORKERS:
            for connections in CONNECTIONS:
                rate = rates[f"{name}|{workers}|{connections}"]
                base = rates[f"bare Starlette JSON|{workers}|{connections}"]
                cells.append(f"{rate:,.1f} ({rate / base:.3g}{TIMES})")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    lines += [
        "",
        "p99 latency at 32 connections, one process (ms): "
        + ", ".join(f"{name} {figures['p99'][f'{name}|1|32']:.0f}" for name, *_ in OPERATIONS)
        + ".",
        "",
    ]
    fair = figures["fairness"]
    first, last = _memory(fair["rss"])
    seconds = QUICK_FAIRNESS if quick else FAIRNESS
    lines += [
        f"Fairness: {BURST} connections sending PDF session exports back to back for "
        f"{seconds:.0f} s (one process, after {seconds / 3:.0f} s of the same burst not "
        "measured), while one client calls `find` and another `/gnn/status`, each on its "
        "own connection from the burst's second second:",
        "",
        "| Client | Requests/s | p50 (ms) | p99 (ms) | non-2xx |",
        "|---|---:|---:|---:|---:|",
    ]
    for label, part in (("PDF burst", "pdf"), ("find", "find"), ("/gnn/status", "status")):
        result = fair[part]
        lines.append(
            f"| {label} | {result['rate']:.1f} | {result['p50_us'] / 1000:.1f} | "
            f"{result['p99_us'] / 1000:.1f} | {result['status_errors']} |"
        )
    lines += [
        "",
        f"- Server RSS under the burst: {first:.0f} MiB (first quarter), {last:.0f} MiB "
        "(last quarter)",
        "- Targets (issue 14):",
    ]
    for label, met, value in _targets(figures):
        lines.append(f"  - {label}: {value}, {'met' if met else 'NOT met'}")
    problems = _verdict(figures)
    verdict = "PASS" if not problems else "FAIL: " + "; ".join(problems)
    lines.append(f"- {_VERDICT}: {verdict}")
    return "\n".join(lines) + "\n"


def run(quick: bool) -> str:
    """The benchmark entry point used by ``python -m benchmarks``."""
    return render(measure(quick), quick)


def check(path: Path) -> int:
    """Exit status for ``nox -s load``: 0 when this section's verdict is PASS."""
    text = path.read_text("utf-8") if path.exists() else ""
    pattern = rf"## {re.escape(TITLE)}\n.*?- {re.escape(_VERDICT)}: (?P<verdict>[^\n]*)"
    match = re.search(pattern, text, re.S)
    if match is None:
        print(f"no '{TITLE}' section with a verdict in {path}", file=sys.stderr)
        return 1
    print(f"{TITLE}: {match['verdict']}")
    return 0 if match["verdict"] == "PASS" else 1


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_http")
    parser.add_argument("--serve", type=int, metavar="PORT", help="run a server")
    parser.add_argument("--mode", choices=("bare", "semreport"), default="semreport")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--database", default="")
    parser.add_argument("--check", type=Path, metavar="FILE", help="fail unless the verdict passed")
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve, args.mode, args.workers, args.database)
        return 0
    if args.check:
        return check(args.check)
    parser.error("give --serve PORT or --check FILE")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
