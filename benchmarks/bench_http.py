"""HTTP load: a mixed workload against uvicorn on 127.0.0.1 from a separate process.

The server is a child process (``python -m benchmarks.bench_http --serve``)
holding a seeded in-memory project; this process drives 32 concurrent
connections through httpx for the run's duration, with a mix of find,
similar, signals, report, report export and session exports. It measures
p50/p99 latency per operation and overall, throughput, 5xx answers and the
server's RSS over time.

``nox -s load`` runs it for 60 s (after a warm-up under the same load),
writes its section of ``docs/performance.md`` through ``python -m benchmarks
--only bench_http``, then ``python -m benchmarks.bench_http --check`` fails
the session unless the verdict passed: no non-200 answer (so no 5xx) and
server memory steady from the first to the last ten seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

TITLE = "HTTP load"
ORDER = 90

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "bench-token"
CONNECTIONS = 32
DURATION = 60.0
QUICK_DURATION = 8.0
PROJECT = "p-bench"
DECISIONS = 400
MEMORY_GROWTH_LIMIT = 0.10
WARMUP = 15.0
QUICK_WARMUP = 3.0

# (weight, name, method, path, json body, query)
WORKLOAD: list[tuple[int, str, str, str, Any]] = [
    (30, "find", "POST", f"/projects/{PROJECT}/semantic/find", {"text": "fire rated timber"}),
    (20, "similar", "POST", f"/projects/{PROJECT}/semantic/similar", {"decision_id": "d-7"}),
    (20, "signals", "GET", f"/projects/{PROJECT}/semantic/signals", None),
    (12, "report", "GET", f"/projects/{PROJECT}/report", None),
    (8, "export_report", "POST", f"/projects/{PROJECT}/report/export", None),
    (4, "export_session json", "POST", "/sessions/s-bench/export/json", None),
    (4, "export_session graph", "POST", "/sessions/s-bench/export/graph", None),
    (2, "export_session pdf", "POST", "/sessions/s-bench/export/pdf", None),
]


# -- the server process --------------------------------------------------------------------


def _serve(port: int) -> None:
    import semreport
    from semreport import Principal
    from semreport.http import StaticTokenAuthenticator, serve
    from semreport.testing.samples import sample_decisions, sample_session

    service = semreport.open("memory://", require_caller=True)
    seeder = Principal.local("seeder")
    decisions = sample_decisions(PROJECT, DECISIONS)
    for decision in decisions:
        number = int(decision["id"].split("-")[1])
        if number > 1:
            decision["links"] = [{"kind": "relates_to", "target": f"d-{number // 2}"}]
    service.record(decisions, caller=seeder)
    service.record_sessions(
        [sample_session(2, session_id="s-bench", project_id=PROJECT)], caller=seeder
    )
    auth = StaticTokenAuthenticator({TOKEN: Principal("bench", roles={"user"}, projects={PROJECT})})
    serve(service=service, authenticator=auth, host="127.0.0.1", port=port, log_level="warning")


# -- the load generator ----------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _rss_kib(pid: int) -> int | None:
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return None
    match = re.search(r"^VmRSS:\s+(\d+) kB", text, re.MULTILINE)
    return int(match.group(1)) if match else None


class _Sampler(threading.Thread):
    def __init__(self, pid: int) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.samples: list[tuple[float, int]] = []
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(0.5):
            rss = _rss_kib(self.pid)
            if rss is not None:
                self.samples.append((time.monotonic(), rss))


async def _drive(base: str, duration: float, warmup: float) -> dict[str, Any]:
    import httpx

    weights = [w for w, *_ in WORKLOAD]
    latencies: dict[str, list[float]] = defaultdict(list)
    statuses: dict[int, int] = defaultdict(int)
    errors: list[str] = []
    limits = httpx.Limits(max_connections=CONNECTIONS, max_keepalive_connections=CONNECTIONS)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    async with httpx.AsyncClient(
        base_url=base, limits=limits, headers=headers, timeout=60.0
    ) as client:

        async def worker(seed: int, until: float, record: bool) -> None:
            rng = random.Random(seed)
            while time.monotonic() < until:
                _, name, method, path, body = rng.choices(WORKLOAD, weights)[0]
                started = time.perf_counter()
                try:
                    response = await client.request(method, path, json=body)
                    await response.aread()
                except httpx.HTTPError as exc:
                    errors.append(f"{name}: {exc!r}")
                    continue
                if record:
                    latencies[name].append(time.perf_counter() - started)
                statuses[response.status_code] += 1

        # Warm up under the same load (fonts, templates, the search index, buffers):
        # the measured window then shows the steady state the memory check is about.
        until = time.monotonic() + warmup
        await asyncio.gather(*(worker(-i - 1, until, False) for i in range(CONNECTIONS)))
        began = time.monotonic()
        await asyncio.gather(*(worker(i, began + duration, True) for i in range(CONNECTIONS)))
        ended = time.monotonic()
    return {
        "latencies": latencies,
        "statuses": statuses,
        "errors": errors,
        "elapsed": ended - began,
        "window": (began, ended),
    }


def _ms(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))
    return ordered[index] * 1000


def _wait_ready(base: str, process: subprocess.Popen[bytes], timeout: float = 60.0) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"the server exited early with status {process.returncode}")
        try:
            if httpx.get(f"{base}/openapi.json", timeout=1).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise RuntimeError("the server did not start in time")


def measure(duration: float, warmup: float = WARMUP) -> dict[str, Any]:
    """Run the load against a fresh server process; return the raw figures."""
    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *sys.path])}
    process = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.bench_http", "--serve", str(port)],
        cwd=ROOT,
        env=env,
    )
    try:
        _wait_ready(base, process)
        sampler = _Sampler(process.pid)
        sampler.start()
        figures = asyncio.run(_drive(base, duration, warmup))
        sampler.stop.set()
        sampler.join()
        figures["rss"] = sampler.samples
        figures["warmup"] = warmup
        return figures
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:  # pragma: no cover - a stuck server
            process.kill()
            process.wait()


def _verdict(figures: dict[str, Any]) -> tuple[list[str], float, float]:
    problems: list[str] = []
    server_errors = sum(n for status, n in figures["statuses"].items() if status >= 500)
    if server_errors:
        problems.append(f"{server_errors} answers were 5xx")
    unexpected = {s: n for s, n in figures["statuses"].items() if s != 200}
    if unexpected:
        problems.append(f"non-200 answers: {dict(sorted(unexpected.items()))}")
    if figures["errors"]:
        problems.append(f"{len(figures['errors'])} transport errors, e.g. {figures['errors'][0]}")
    began, ended = figures["window"]
    samples = [(t, rss) for t, rss in figures["rss"] if began <= t <= ended]
    first = [rss for t, rss in samples if t <= began + 10.0]
    last = [rss for t, rss in samples if t >= ended - 10.0]
    first_mib = statistics.mean(first) / 1024 if first else float("nan")
    last_mib = statistics.mean(last) / 1024 if last else float("nan")
    if first and last and last_mib > first_mib * (1 + MEMORY_GROWTH_LIMIT):
        problems.append(f"server RSS grew from {first_mib:.1f} MiB to {last_mib:.1f} MiB")
    return problems, first_mib, last_mib


def _series(figures: dict[str, Any]) -> str:
    began, ended = figures["window"]
    points: list[str] = []
    mark = began
    for t, rss in figures["rss"]:
        if began <= t <= ended and t >= mark:
            points.append(f"{rss / 1024:.0f}")
            mark += 5.0
    return ", ".join(points) or "none"


def render(figures: dict[str, Any], duration: float) -> str:
    """Markdown for docs/performance.md."""
    latencies: dict[str, list[float]] = figures["latencies"]
    everything = [v for values in latencies.values() for v in values]
    total = len(everything)
    problems, first_mib, last_mib = _verdict(figures)
    lines = [
        f"Mixed workload for {duration:.0f} s at {CONNECTIONS} concurrent connections from a "
        "separate process (httpx) against uvicorn on 127.0.0.1 (one worker process, facade "
        f"calls on one thread), {DECISIONS} decisions in memory storage, after "
        f"{figures['warmup']:.0f} s of the same load as warm-up (not measured). "
        "`nox -s load` fails unless the verdict is PASS.",
        "",
        "| Operation | Requests | p50 (ms) | p99 (ms) |",
        "|---|---:|---:|---:|",
    ]
    for _, name, *_rest in WORKLOAD:
        values = latencies.get(name, [])
        lines.append(
            f"| {name} | {len(values)} | {_ms(values, 0.5):.1f} | {_ms(values, 0.99):.1f} |"
        )
    lines.append(
        f"| **all** | {total} | {_ms(everything, 0.5):.1f} | {_ms(everything, 0.99):.1f} |"
    )
    statuses = ", ".join(f"{s}: {n}" for s, n in sorted(figures["statuses"].items()))
    lines += [
        "",
        f"- Throughput: {total / figures['elapsed']:.1f} requests/s",
        f"- Status codes (warm-up included): {statuses or 'none'}; 5xx: "
        f"{sum(n for s, n in figures['statuses'].items() if s >= 500)}",
        f"- Server RSS: {first_mib:.1f} MiB (mean of the first 10 s), {last_mib:.1f} MiB (mean "
        f"of the last 10 s)",
        f"- Server RSS every 5 s (MiB): {_series(figures)}",
        f"- Verdict: {'PASS' if not problems else 'FAIL: ' + '; '.join(problems)}",
    ]
    return "\n".join(lines) + "\n"


def run(quick: bool) -> str:
    """The benchmark entry point used by ``python -m benchmarks``."""
    duration = QUICK_DURATION if quick else DURATION
    return render(measure(duration, QUICK_WARMUP if quick else WARMUP), duration)


def check(path: Path) -> int:
    """Exit status for ``nox -s load``: 0 when this section's verdict is PASS."""
    text = path.read_text("utf-8") if path.exists() else ""
    match = re.search(rf"## {re.escape(TITLE)}\n.*?- Verdict: (?P<verdict>[^\n]*)", text, re.S)
    if match is None:
        print(f"no '{TITLE}' section with a verdict in {path}", file=sys.stderr)
        return 1
    print(f"{TITLE}: {match['verdict']}")
    return 0 if match["verdict"] == "PASS" else 1


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_http")
    parser.add_argument("--serve", type=int, metavar="PORT", help="run the seeded server")
    parser.add_argument("--check", type=Path, metavar="FILE", help="fail unless the verdict passed")
    args = parser.parse_args()
    if args.serve:
        _serve(args.serve)
        return 0
    if args.check:
        return check(args.check)
    parser.error("give --serve PORT or --check FILE")
    return 2


if __name__ == "__main__":
    raise SystemExit(main())
