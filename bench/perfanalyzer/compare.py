#!/usr/bin/env python3
"""Client CPU per streamed token: perf_analyzer 2.52.0 against `llmbench profile`.

Both clients drive the same `llmbench sim` server with the same load (OpenAI
chat, streaming, the same prompts, N requests x 200 tokens at concurrency 64),
in interleaved rounds. For every run it records

  - whole process: user+sys CPU of the client process and its children
    (wait4's rusage, microsecond resolution);
  - load phase: user+sys CPU between the first request sent and the last
    response received, both read from the run's own profile_export.json;
    the process's /proc/<pid>/stat CPU ticks are sampled every 5 ms and
    interpolated at those two instants (tick = 10 ms: a few ms of error
    at each end, well under 1% of a run at these sizes);
  - tokens received: streamed chunks whose delta carries non-empty
    content, counted in the same profile_export.json;
  - the 1-minute load average when the run started.

Only the standard library; run through run.sh, which builds everything first.
"""

import argparse
import hashlib
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TICK_NS = 1e9 / os.sysconf("SC_CLK_TCK")
CONTENT = re.compile(r'"delta":\{[^}]*"content":"(?!")')


def proc_cpu_ticks(pid):
    """utime+stime of the whole process (all threads, live or exited), in ticks."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])  # fields 14 and 15 of proc(5)


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_sampled(cmd, log):
    """Runs cmd, sampling its CPU ticks; returns (samples, rusage CPU s, wall s, rc)."""
    start = time.time()
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
    samples = []  # (unix ns, ticks)
    while True:
        try:
            samples.append((time.time_ns(), proc_cpu_ticks(proc.pid)))
        except (FileNotFoundError, ProcessLookupError, IndexError):
            pass
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid:
            break
        time.sleep(0.005)
    rc = os.waitstatus_to_exitcode(status)
    return samples, ru.ru_utime + ru.ru_stime, time.time() - start, rc


def ticks_at(samples, t_ns):
    """CPU ticks at unix time t_ns, interpolated between the samples around it."""
    prev = samples[0]
    for cur in samples:
        if cur[0] >= t_ns:
            if cur[0] == prev[0]:
                return cur[1]
            return prev[1] + (cur[1] - prev[1]) * (t_ns - prev[0]) / (cur[0] - prev[0])
        prev = cur
    return samples[-1][1]


def read_export(path):
    """Load window (first send, last response, unix ns), requests and tokens received."""
    with open(path) as f:
        doc = json.load(f)
    first, last, requests, tokens = None, None, 0, 0
    for exp in doc["experiments"]:
        for r in exp["requests"]:
            requests += 1
            first = r["timestamp"] if first is None else min(first, r["timestamp"])
            if r["response_timestamps"]:
                last = max(last or 0, r["response_timestamps"][-1])
            tokens += sum(1 for o in r["response_outputs"] if CONTENT.search(o.get("response", "")))
    return first, last, requests, tokens


def sha256(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def measure(tool, cmd, art, workdir, size, rnd):
    load = load1()
    with open(os.path.join(workdir, f"{tool}-{size}-{rnd}.log"), "w") as log:
        samples, cpu_s, wall_s, rc = run_sampled(cmd, log)
    if rc != 0:
        sys.exit(f"{tool} exited {rc}: see {log.name}")
    export = only(art, "profile_export.json")
    first, last, requests, tokens = read_export(export)
    if requests != size:
        sys.exit(f"{tool}: {requests} requests in {export}, want {size}")
    load_ticks = ticks_at(samples, last) - ticks_at(samples, first)
    return {
        "tool": tool, "requests": size, "round": rnd, "load1": load, "wall_s": wall_s,
        "tokens": tokens, "cpu_us_per_token": cpu_s * 1e6 / tokens,
        "load_phase_s": (last - first) / 1e9,
        "load_cpu_us_per_token": load_ticks * TICK_NS / 1e3 / tokens,
        "samples": len(samples),
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--llmbench", required=True, help="llmbench binary")
    ap.add_argument("--pa", required=True, help="perf_analyzer wrapper from setup.sh")
    ap.add_argument("--sizes", default="600,2400", help="requests per run, comma-separated")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--concurrency", type=int, default=64)
    ap.add_argument("--output-tokens", type=int, default=200)
    ap.add_argument("--input-tokens", type=int, default=32)
    ap.add_argument("--results", help="write the markdown table here")
    ap.add_argument("--raw", help="append one JSON line per run here")
    ap.add_argument("--keep", action="store_true", help="keep the work folder (artifacts, logs)")
    ap.add_argument("--llmbench-commit", default="unknown", help="the llmbench commit measured, for the table")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    try:
        sizes = [int(s) for s in args.sizes.split(",")]
    except ValueError:
        sizes = []
    if not sizes or min(sizes) < 1:
        ap.error(f"--sizes {args.sizes!r}: want comma-separated request counts, e.g. 600,2400")
    for flag, path in (("--llmbench", args.llmbench), ("--pa", args.pa)):
        if not os.access(path, os.X_OK):
            ap.error(f"{flag} {path}: not an executable file")
    version = subprocess.run([args.pa, "--version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    args.pa_version = version.stdout.strip().splitlines()[-1] if version.stdout.strip() else ""

    workdir = tempfile.mkdtemp(prefix="llmbench-pa-")
    # The client benchmark's server (bench/client_test.go): 1 ms TTFT, 2 ms
    # per token, no jitter, no batching limit, so the client is the bottleneck
    # candidate and every run streams the same tokens.
    sim = subprocess.Popen([args.llmbench, "sim", "--addr", "127.0.0.1:0", "--ttft", "1ms", "--itl", "2ms",
                            "--itl-per-seq", "0", "--prefill-per-token", "0", "--jitter", "0",
                            "--max-batch", "1024"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        line = sim.stdout.readline()
        m = re.search(r"http://(127\.0\.0\.1:\d+)", line)
        if not m:
            sys.exit(f"llmbench sim did not start: {line!r}")
        addr = m.group(1)
        runs = rounds(args, sizes, workdir, addr)
    finally:
        sim.terminate()
        sim.wait()
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            print(f"work folder kept: {workdir}", file=sys.stderr)
    if args.raw:
        with open(args.raw, "a") as f:
            for r in runs:
                f.write(json.dumps(r) + "\n")
    table = markdown(args, sizes, runs)
    print(table)
    if args.results:
        write_between_markers(args.results, table)


def rounds(args, sizes, workdir, addr):
    profile_flags = ["-m", "bench", "-u", addr, "--endpoint-type", "chat", "--streaming",
                     "--concurrency", str(args.concurrency),
                     "--synthetic-input-tokens-mean", str(args.input_tokens),
                     "--output-tokens-mean", str(args.output_tokens), "--output-tokens-mean-deterministic"]
    # The prompts: llmbench's own inputs.json (perf_analyzer's input format)
    # from a short run; every llmbench run below must write the same file.
    prep = os.path.join(workdir, "prep")
    subprocess.run([args.llmbench, "profile", *profile_flags, "--request-count", str(args.concurrency),
                    "--artifact-dir", prep], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    inputs = os.path.join(workdir, "inputs.json")
    shutil.copy(only(prep, "inputs.json"), inputs)
    shutil.rmtree(prep)
    runs = []
    for rnd in range(1, args.rounds + 1):
        for size in sizes:
            order = ["perf_analyzer", "llmbench"] if (rnd + sizes.index(size)) % 2 else ["llmbench", "perf_analyzer"]
            for tool in order:
                art = os.path.join(workdir, f"{tool}-{size}-{rnd}")
                os.makedirs(art)
                if tool == "llmbench":
                    cmd = [args.llmbench, "profile", *profile_flags, "--request-count", str(size), "--artifact-dir", art]
                else:
                    cmd = [args.pa, "-m", "bench", "--async", "--stability-percentage", "999",
                           "--request-count", str(size), "-i", "http", "-u", addr,
                           "--concurrency-range", str(args.concurrency), "--service-kind", "openai",
                           "--endpoint", "v1/chat/completions", "--input-data", inputs,
                           "--profile-export-file", os.path.join(art, "profile_export.json")]
                r = measure(tool, cmd, art, workdir, size, rnd)
                if tool == "llmbench" and sha256(only(art, "inputs.json")) != sha256(inputs):
                    sys.exit(f"llmbench sent other prompts than perf_analyzer's {inputs} in {art}")
                runs.append(r)
                print(json.dumps(r), file=sys.stderr)
                shutil.rmtree(art)
    return runs


def only(folder, name):
    """The one file called name under folder (llmbench nests a point folder)."""
    found = [os.path.join(d, name) for d, _, files in os.walk(folder) if name in files]
    if len(found) != 1:
        sys.exit(f"want one {name} under {folder}, found {found}")
    return found[0]


BEGIN, END = "<!-- perfanalyzer:table -->", "<!-- /perfanalyzer:table -->"


def write_between_markers(path, table):
    """Replaces the text between the markers in path (the notes around them
    stay), or writes a new file holding only the markers and the table."""
    text = f"{BEGIN}\n{table}{END}\n"
    if os.path.exists(path):
        with open(path) as f:
            old = f.read()
        i, j = old.find(BEGIN), old.find(END)
        if i < 0 or j < i:
            sys.exit(f"{path}: no {BEGIN} ... {END} markers to write the table between")
        text = old[:i] + text + old[j + len(END):].lstrip("\n")
    with open(path, "w") as f:
        f.write(text)


def median_of(runs, tool, size, key):
    return statistics.median(r[key] for r in runs if r["tool"] == tool and r["requests"] == size)


def markdown(args, sizes, runs):
    cpu = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", cpu)
    out = [f"Machine: {model.group(1) if model else platform.processor()}, {os.cpu_count()} CPUs, "
           f"Linux {platform.release()}; {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}.",
           f"Clients: {args.pa_version or 'perf_analyzer (version unknown)'}; llmbench at {args.llmbench_commit}.",
           f"Load: `llmbench sim` (1 ms TTFT, 2 ms/token, no jitter), OpenAI chat streaming, "
           f"{args.input_tokens}-token prompts x {args.output_tokens} tokens, concurrency {args.concurrency}, "
           f"{args.rounds} interleaved rounds.",
           "",
           "Every run (CPU in us per token received; load phase = first request sent to last response):",
           "",
           "| round | requests | client | load1 | tokens | wall s | whole process | load phase |",
           "|---:|---:|---|---:|---:|---:|---:|---:|"]
    for r in runs:
        out.append(f"| {r['round']} | {r['requests']} | {r['tool']} | {r['load1']:.2f} | {r['tokens']} | "
                   f"{r['wall_s']:.1f} | {r['cpu_us_per_token']:.2f} | {r['load_cpu_us_per_token']:.2f} |")
    out += ["", f"Medians of the {args.rounds} rounds (ratio = llmbench / perf_analyzer):", "",
            "| requests | perf_analyzer whole | llmbench whole | ratio | perf_analyzer load phase | "
            "llmbench load phase | ratio | load1 |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for size in sizes:
        pw, lw = (median_of(runs, t, size, "cpu_us_per_token") for t in ("perf_analyzer", "llmbench"))
        pl, ll = (median_of(runs, t, size, "load_cpu_us_per_token") for t in ("perf_analyzer", "llmbench"))
        load = statistics.median(r["load1"] for r in runs if r["requests"] == size)
        out.append(f"| {size} | {pw:.2f} | {lw:.2f} | {lw / pw:.2f} | {pl:.2f} | {ll:.2f} | {ll / pl:.2f} | {load:.2f} |")
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    main()
