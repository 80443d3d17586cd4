"""Scaling of ``guardrail audit-bulk`` (issue 18): a synthetic log from RAGTruth, audited by each engine.

    python benchmarks/bulk_audit.py --answers 600 --shards 8 --work /tmp/bulk-bench
    python benchmarks/bulk_audit.py --answers 100000 --shards 64 --work /data/bulk --configs ray-2   # the long run

What it does:
1. writes a synthetic log of ``--answers`` answers into ``--shards`` JSONL files: question, context and
   answer drawn (seeded; without replacement while the file has enough rows) from the RAGTruth train
   file in ../shared/data, with a tenant, the answer's real generator as ``model`` and a prompt version
   as group keys, and one malformed line per shard (the audit must turn it into an error row);
2. audits it once per configuration, each in a fresh subprocess (no model, cache or thread pool
   carried from one to the next) and a fresh output folder:
   ``local``    --engine local, onnxruntime's default threads (all cores): what a user gets without Ray;
   ``local-1t`` --engine local with GUARDRAIL_THREADS=1: the per-core rate without Ray;
   ``ray-1``    --engine ray, 1 actor (1 CPU, 1 thread);   ``ray-2``  --engine ray, 2 actors;
3. prints the throughput of each (answers checked / wall seconds of the run: engine start, model loads
   and every shard, not the summary), the ratios the issue asks for, the peak RSS per worker, and the
   time for 10 M answers on a 32-node, 16-core cluster projected from the measured per-core rate and
   the measured 2-worker scaling efficiency; as JSON and as Markdown.

The machine's load average is recorded before and after each run: on a shared machine a figure taken
under load is a lower bound, and the script says so.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

TENANTS = ["acme", "globex", "initech", "umbrella", "hooli"]
PROMPTS = ["v1", "v2", "v3"]
CONFIGS = {
    "local": {"engine": "local", "env": {}},
    "local-1t": {"engine": "local", "env": {"GUARDRAIL_THREADS": "1"}},
    "ray-1": {"engine": "ray", "workers": 1, "env": {}},
    "ray-2": {"engine": "ray", "workers": 2, "env": {}},
}
CLUSTER_NODES, CLUSTER_CORES, PROJECT_ANSWERS = 32, 16, 10_000_000

# Runs one audit in a subprocess and prints its AuditRun as JSON (the public API, as audit-bulk does).
_RUN = """
import json, sys
from guardrail.bulk import CheckSettings, make_job, run_audit
a = json.loads(sys.argv[1])
job = make_job(a["input"], a["output"], CheckSettings(verifier=a["verifier"]), group_by=["tenant", "model", "prompt_version"])
run = run_audit(job, engine=a["engine"], workers=a.get("workers", 1), progress=False, object_store_mb=256)
print(run.model_dump_json(exclude={"summary"}))
"""


def generate(out: Path, answers: int, shards: int, seed: int) -> dict[str, Any]:
    from guardrail.datasets import load_ragtruth

    rows = load_ragtruth()
    rng = random.Random(seed)
    order = rng.sample(range(len(rows)), len(rows))
    picks = [order[i] if i < len(order) else rng.randrange(len(rows)) for i in range(answers)]
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    per = -(-answers // shards)
    for s in range(shards):
        part = picks[s * per:(s + 1) * per]
        lines = []
        for k, index in enumerate(part):
            r = rows[index]
            n = s * per + k
            lines.append(json.dumps({"id": f"log-{n:08d}", "tenant": TENANTS[n % len(TENANTS)], "model": r.model,
                                     "prompt_version": rng.choice(PROMPTS), "question": r.query or None,
                                     "context": r.context, "response": r.response, "source": f"ragtruth:{r.id}"}))
        lines.insert(len(lines) // 2, '{"id": "broken-%d", "response": ' % s)  # a truncated line
        (out / f"part-{s:05d}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return {"answers": answers, "shards": shards, "malformed_lines": shards, "source_rows": len(rows), "seed": seed,
            "distinct_rows": len(set(picks))}


def run_config(name: str, log: Path, work: Path, verifier: str) -> dict[str, Any]:
    cfg = CONFIGS[name]
    out = work / f"out-{name}"
    if out.exists():
        shutil.rmtree(out)
    args = {"input": str(log), "output": str(out), "verifier": verifier, "engine": cfg["engine"],
            "workers": cfg.get("workers", 1)}
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", **cfg["env"]}
    load_before = os.getloadavg()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _RUN, json.dumps(args)], capture_output=True, text=True, env=env,
                          cwd=REPO)
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{name} failed ({proc.returncode}):\n{proc.stderr[-3000:]}")
    run = json.loads(proc.stdout.strip().splitlines()[-1])
    results = run["results"]
    checked = sum(r["answers"] - r["errors"] for r in results)
    busy: dict[str, float] = {}
    for r in results:
        busy[r["worker"]] = busy.get(r["worker"], 0.0) + r["seconds"]
    return {
        "config": name, "engine": cfg["engine"], "workers": run["workers"], "answers": sum(r["answers"] for r in results),
        "checked": checked, "error_rows": sum(r["errors"] for r in results), "flagged": sum(r["flagged"] for r in results),
        "run_seconds": round(run["seconds"], 2), "process_seconds": round(wall, 2),
        "answers_per_s": round(checked / run["seconds"], 3),
        "shard_seconds": round(sum(r["seconds"] for r in results), 2),
        # Without engine start and model loads (what a long job amortises): the busiest worker's shard time.
        "steady_answers_per_s": round(checked / max(busy.values()), 3),
        "peak_rss_mb_per_worker": round(max(r["peak_rss_mb"] or 0 for r in results), 1),
        "worker_processes": len({r["worker"] for r in results}),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
    }


def figures(runs: dict[str, dict[str, Any]], key: str = "answers_per_s") -> dict[str, Any]:
    """The issue's ratios and projections from one rate column (end to end, or steady state)."""
    rate = {k: v[key] for k, v in runs.items()}
    out: dict[str, Any] = {}
    if "ray-1" in rate and "ray-2" in rate:
        out["ray_2_vs_1"] = round(rate["ray-2"] / rate["ray-1"], 3)
    if "local" in rate and "ray-2" in rate:
        out["ray_2_overhead_vs_local"] = round(rate["local"] / rate["ray-2"] - 1, 3)
    if "local-1t" in rate and "ray-1" in rate:
        out["ray_1_overhead_vs_local_1t"] = round(rate["local-1t"] / rate["ray-1"] - 1, 3)
    per_core = rate.get("ray-1") or rate.get("local-1t")
    if per_core:
        efficiency = min(1.0, out["ray_2_vs_1"] / 2) if "ray_2_vs_1" in out else 1.0
        cores = CLUSTER_NODES * CLUSTER_CORES
        cluster = per_core * cores * efficiency
        out["per_core_answers_per_s"] = per_core
        out["scaling_efficiency_used"] = round(efficiency, 3)
        out["projected_10M_on_32x16_hours"] = round(PROJECT_ANSWERS / cluster / 3600, 2)
        out["projected_10M_on_32x16_linear_hours"] = round(PROJECT_ANSWERS / (per_core * cores) / 3600, 2)
    best = rate.get("ray-2") or rate.get("local")
    if best:
        out["projected_100k_on_this_machine_hours"] = round(100_000 / best / 3600, 2)
    return out


def markdown(meta: dict[str, Any], runs: dict[str, dict[str, Any]], figs: dict[str, Any]) -> str:
    lines = [f"{meta['answers']} answers in {meta['shards']} shards (+{meta['malformed_lines']} malformed lines), "
             f"verifier {meta['verifier']}", "",
             "| config | workers | checked | wall s | answers/s end to end | answers/s steady | peak RSS/worker MB "
             "| load avg before → after |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs.values():
        lines.append(f"| {r['config']} | {r['workers']} | {r['checked']} | {r['run_seconds']} | {r['answers_per_s']} | "
                     f"{r['steady_answers_per_s']} | {r['peak_rss_mb_per_worker']} | {r['load_before'][0]} → "
                     f"{r['load_after'][0]} |")
    for title, block in figs.items():
        lines += ["", f"{title}:", *[f"- {k}: {v}" for k, v in block.items()]]
    return "\n".join(lines)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--answers", type=int, default=600)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--work", type=Path, default=Path("/tmp/bulk-bench"), help="log and outputs go here (not the repo)")
    ap.add_argument("--configs", default="local,local-1t,ray-1,ray-2", help=f"comma-separated, of {', '.join(CONFIGS)}")
    ap.add_argument("--verifier", default="default")
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--max-load", type=float, default=None,
                    help="refuse to start while the 1-minute load average is above this (a busy machine's figures are not the code's)")
    args = ap.parse_args()
    names = [n.strip() for n in args.configs.split(",") if n.strip()]
    unknown = [n for n in names if n not in CONFIGS]
    if unknown:
        ap.error(f"unknown config(s) {unknown}; known: {list(CONFIGS)}")
    if args.max_load is not None and os.getloadavg()[0] > args.max_load:
        raise SystemExit(f"load average {os.getloadavg()[0]:.2f} > --max-load {args.max_load}; try again when the machine is quiet")
    log = args.work / "log"
    meta = {**generate(log, args.answers, args.shards, args.seed), "verifier": args.verifier, "cpus": os.cpu_count()}
    runs = {}
    for name in names:
        runs[name] = run_config(name, log, args.work, args.verifier)
        print(json.dumps(runs[name]), file=sys.stderr, flush=True)
    figs = {"end to end (engine start, model loads, shards)": figures(runs),
            "steady state (shards only, busiest worker)": figures(runs, "steady_answers_per_s")}
    print(json.dumps({"meta": meta, "runs": runs, "figures": figs}, indent=2))
    print(markdown(meta, runs, figs))
    if any(r["load_before"][0] > 1.0 or r["load_after"][0] > 1.5 for r in runs.values()):
        print("\nnote: the machine was loaded during some runs (load average above); the figures are lower bounds "
              "and the ratios are noisy. Rerun when it is quiet.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
