"""Load benchmark of ``guardrail serve`` (issue 17), with the library's in-process ceiling measured in the same run.

    python benchmarks/service_load.py --clients 16 --seconds 30            # default verifier
    python benchmarks/service_load.py --clients 16 --seconds 30 --verifier heuristic

What it does, in order, on one machine:
1. starts ``guardrail serve`` as a subprocess on a free 127.0.0.1 port, with two tenants (the
   bundled ``healthcare`` and ``internal-search`` policies) and a key each, and waits for /readyz;
2. in this process, the same pipeline without HTTP: ``guard`` called one at a time (latency p50), then
   from ``--threads`` threads for ``--seconds`` (throughput: the ceiling the server is compared with);
3. one HTTP client, one request at a time (latency p50: the server's overhead is the difference);
4. ``--clients`` concurrent HTTP clients for ``--seconds``, the two tenants mixed: throughput,
   p50/p95/p99, errors (429s counted apart), and the server process's CPU use and peak RSS.

The requests are 5-claim answers over ~2k-token contexts built from a fixed seed: varied factual
sentences (places, years, quantities), two of the five claims with a changed number, so the
policies have something to decide. No request repeats within or across the phases: the embedding
model's text cache (guardrail.embeddings) would otherwise make whichever phase comes second look
faster. Results print as JSON and as a markdown table row.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import psutil

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from guardrail import Guardrail  # noqa: E402
from guardrail.policy import PolicyStore, guard  # noqa: E402
from guardrail.service import hash_key  # noqa: E402

TENANTS = {"healthcare": "bench-key-healthcare", "internal-search": "bench-key-internal-search"}

_CITIES = ["Lyon", "Porto", "Graz", "Turku", "Ghent", "Brno", "Bergen", "Malmo", "Split", "Aarhus", "Cork", "Bilbao"]
_THINGS = ["bridge", "library", "observatory", "harbour", "museum", "cathedral", "railway station", "market hall",
           "botanical garden", "concert hall", "lighthouse", "university"]
_VERBS = ["was opened", "was completed", "was rebuilt", "was extended", "was restored"]


def _sentence(rng: random.Random) -> tuple[str, int]:
    city, thing, verb = rng.choice(_CITIES), rng.choice(_THINGS), rng.choice(_VERBS)
    year, size = rng.randint(1700, 2020), rng.randint(12, 980)
    return f"The {thing} of {city} {verb} in {year} and is {size} metres long.", year


def make_case(rng: random.Random) -> dict[str, Any]:
    """A ~2k-token context and a 5-claim answer drawn from it, 2 claims with a wrong year."""
    sentences = [_sentence(rng) for _ in range(90)]  # ~22 tokens each: ~2,000 tokens
    context = [" ".join(s for s, _ in sentences[i:i + 10]) for i in range(0, len(sentences), 10)]
    answer = []
    for k, (text, year) in enumerate(rng.sample(sentences, 5)):
        answer.append(text.replace(str(year), str(year + rng.randint(3, 40))) if k in (1, 3) else text)
    return {"answer": " ".join(answer), "context": context}


class Cases:
    """An endless supply of new cases from one seed (thread-safe): nothing is ever checked twice."""

    def __init__(self, seed: int):
        self._rng, self._lock = random.Random(seed), threading.Lock()

    def next(self) -> dict[str, Any]:
        with self._lock:
            return make_case(self._rng)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(q / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(work: Path, verifier: str, threads: int, port: int) -> subprocess.Popen:
    keys = work / "keys.json"
    tenants = {t: {"keys": [hash_key(k)], "max_concurrency": 64, "timeout_s": 120} for t, k in TENANTS.items()}
    keys.write_text(json.dumps({"tenants": tenants}), encoding="utf-8")
    cmd = [sys.executable, "-m", "guardrail.cli", "serve", "--policies", str(REPO / "policies"), "--keys", str(keys),
           "--port", str(port), "--threads", str(threads), "--verifier", verifier, "--audit", str(work / "audit.db")]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false"}
    return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=open(work / "server.log", "wb"))


def wait_ready(url: str, proc: subprocess.Popen, timeout: float = 120) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"server exited with {proc.returncode}")
        try:
            if httpx.get(f"{url}/readyz", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit("server not ready in time")


def in_process(cases: Cases, verifier: str, threads: int, seconds: float, sequential: int) -> dict[str, float]:
    """The same pipeline without HTTP: guard() one at a time, then from ``threads`` threads."""
    g = Guardrail(verifier)
    store = PolicyStore(REPO / "policies")
    policies = [store.get(t) for t in TENANTS]
    for _ in range(3):  # warm-up
        case = cases.next()
        guard(case["answer"], case["context"], check=g.check, policy=policies[0])
    lat = []
    for i in range(sequential):
        case = cases.next()
        t0 = time.perf_counter()
        guard(case["answer"], case["context"], check=g.check, policy=policies[i % 2])
        lat.append((time.perf_counter() - t0) * 1e3)
    done = 0
    lock = threading.Lock()
    stop = time.perf_counter() + seconds

    def worker(k: int) -> None:
        nonlocal done
        i = k
        while time.perf_counter() < stop:
            case = cases.next()
            guard(case["answer"], case["context"], check=g.check, policy=policies[i % 2])
            i += threads
            with lock:
                done += 1

    t0 = time.perf_counter()
    with ThreadPoolExecutor(threads) as pool:
        list(pool.map(worker, range(threads)))
    return {"p50_ms": statistics.median(lat), "throughput_rps": done / (time.perf_counter() - t0)}


def http_sequential(url: str, cases: Cases, n: int) -> tuple[float, float]:
    """(p50 of the client's time, p50 of what the server added to it): the client's time minus the
    guard's own total, as the decision reports it, request by request. The second is the overhead
    that does not depend on how fast the (shared) CPU ran the check itself."""
    keys = list(TENANTS.values())
    lat, added = [], []
    with httpx.Client(base_url=url, timeout=120) as c:
        for i in range(n + 3):
            case = cases.next()
            t0 = time.perf_counter()
            r = c.post("/v1/guard", json=case, headers={"Authorization": f"Bearer {keys[i % 2]}"})
            r.raise_for_status()
            took = (time.perf_counter() - t0) * 1e3
            if i >= 3:  # warm-up
                lat.append(took)
                added.append(took - r.json()["decision"]["latencies_ms"]["total"])
    return statistics.median(lat), statistics.median(added)


async def http_load(url: str, cases: Cases, clients: int, seconds: float, proc: psutil.Process) -> dict[str, Any]:
    keys = list(TENANTS.values())
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    transport_errors = 0
    rss_peak = 0
    stop = time.perf_counter() + seconds

    async def client(k: int, http: httpx.AsyncClient) -> None:
        nonlocal transport_errors
        i = k
        while time.perf_counter() < stop:
            case = cases.next()
            t0 = time.perf_counter()
            try:
                r = await http.post("/v1/guard", json=case, headers={"Authorization": f"Bearer {keys[i % 2]}"})
                statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
                if r.status_code == 200:
                    latencies.append((time.perf_counter() - t0) * 1e3)
            except httpx.HTTPError:
                transport_errors += 1
            i += clients

    async def sample() -> None:
        nonlocal rss_peak
        while time.perf_counter() < stop:
            rss_peak = max(rss_peak, proc.memory_info().rss)
            await asyncio.sleep(0.5)

    cpu0, t0 = sum(proc.cpu_times()[:2]), time.perf_counter()
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=300, limits=limits) as http:
        await asyncio.gather(sample(), *(client(k, http) for k in range(clients)))
    wall = time.perf_counter() - t0
    cpu = sum(proc.cpu_times()[:2]) - cpu0
    ok = statuses.get(200, 0)
    return {
        "requests": sum(statuses.values()), "ok": ok, "throughput_rps": ok / wall,
        "p50_ms": pct(latencies, 50), "p95_ms": pct(latencies, 95), "p99_ms": pct(latencies, 99),
        "errors": sum(v for s, v in statuses.items() if s not in (200, 429)) + transport_errors,
        "rejected_429": statuses.get(429, 0), "statuses": statuses,
        "server_cpu_cores": cpu / wall, "server_rss_peak_mb": rss_peak / 2**20, "wall_s": wall,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--verifier", default="default")
    ap.add_argument("--threads", type=int, default=os.cpu_count() or 2, help="server check threads = in-process threads")
    ap.add_argument("--sequential", type=int, default=20, help="requests for the one-at-a-time latency")
    args = ap.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        port = free_port()
        url = f"http://127.0.0.1:{port}"
        server = start_server(Path(tmp), args.verifier, args.threads, port)
        try:
            wait_ready(url, server)
            ceiling = in_process(Cases(1), args.verifier, args.threads, args.seconds, args.sequential)
            http_p50, added_p50 = http_sequential(url, Cases(2), args.sequential)
            load = asyncio.run(http_load(url, Cases(3), args.clients, args.seconds, psutil.Process(server.pid)))
        finally:
            server.terminate()
            server.wait(timeout=60)
    result = {
        "verifier": args.verifier, "clients": args.clients, "seconds": args.seconds, "threads": args.threads,
        "cores": os.cpu_count(), "load_average": os.getloadavg(),
        "in_process": ceiling, "http_sequential_p50_ms": http_p50,
        "overhead_p50_ms": http_p50 - ceiling["p50_ms"], "server_added_p50_ms": added_p50, "load": load,
        "throughput_vs_ceiling": load["throughput_rps"] / ceiling["throughput_rps"] if ceiling["throughput_rps"] else None,
    }
    print(json.dumps(result, indent=2))
    print("| verifier | clients | in-process p50 | HTTP p50 (1 client) | server-added p50 | in-process ceiling | served | vs ceiling "
          "| p50 / p95 / p99 under load | errors (429) | server CPU | server RSS |")
    print(f"| {args.verifier} | {args.clients} | {ceiling['p50_ms']:.0f} ms | {http_p50:.0f} ms | {added_p50:.1f} ms | "
          f"{ceiling['throughput_rps']:.2f} req/s | {load['throughput_rps']:.2f} req/s | {result['throughput_vs_ceiling']:.0%} | "
          f"{load['p50_ms']:.0f} / {load['p95_ms']:.0f} / {load['p99_ms']:.0f} ms | {load['errors']} ({load['rejected_429']}) | "
          f"{load['server_cpu_cores']:.2f} cores | {load['server_rss_peak_mb']:.0f} MB |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
