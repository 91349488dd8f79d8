// Package builtins is llmbench's Starlark layer and the only package that
// imports go.starlark.net. It loads a scenario file in two phases, as
// Skycfg does: execute the file (and what it loads) and freeze it, then
// call its main(ctx) and turn the experiments it returns into a validated
// runtime.Scenario of plain Go values, each experiment a plan.Experiment
// (package runtime/plan). The engine never sees the
// interpreter again — except through Scenario.Check, a Go closure that
// calls the script's check(results) after the run.
//
// Every builtin unpacks its arguments with starlark.UnpackArgs'
// conventions, so mistakes read the same everywhere ("experiment: for
// parameter warmup: got string, want int"), and every script fault that
// leaves Load is a *LoadError naming file:line:col — of the argument at
// fault when the call spans lines, of the offending character when a gate
// does not parse — followed by the Starlark backtrace.
//
// # The scenario API (SPEC §6)
//
// Durations are strings ("500ms", "10m") or numbers of seconds. Values the
// builtins return are immutable and hashable; str() shows the call that
// made them, with header values redacted.
//
//	endpoint(url, model, api="chat", stream=True, headers={}, extra={},
//	         tokenizer=None, token_count="auto", timeout="10m",
//	         server_metrics=[], insecure=False, model_selection="round_robin",
//	         reset_prefix_cache=False)
//	    url is "http(s)://...", "host:port", "sim://[?settings]" or sim(...).
//	    model is a name or a list of names (GenAI-Perf's -m a b): dataset
//	    entry i names model[i % n] under "round_robin", a uniform draw from
//	    a fixed seed under "random"; artifacts list every name.
//	    api="triton" is KServe v2 over gRPC (url grpc://host:port, grpcs://
//	    or host:port, port 8001 by default) with backend="tensorrtllm"
//	    (default) or "vllm" shaping its input tensors. A tokenizer
//	    naming a file or folder inside the scenario's folder becomes its
//	    absolute path; anything else is kept as a Hugging Face model id.
//	    server_metrics join the experiment's telemetry; server_metrics=False
//	    leaves the endpoint's own /metrics (tried by default) unscraped.
//	    reset_prefix_cache=True empties the server's prefix cache before
//	    every run of every point; a reset that fails stops the run.
//	sim(ttft=, itl=, prefill_per_token=, max_batch=, jitter=, error_rate=,
//	    itl_per_seq=, error_rate_429=, reset_rate=, malformed_rate=,
//	    stall_rate=, stall=, output_tokens=, reasoning=, reasoning_tokens=, seed=)
//	    The simulator; unset settings keep sim.DefaultConfig. error_rate is
//	    the HTTP 500 fraction. Usable as endpoint(url=sim(...)) or directly
//	    as experiment(endpoint=sim(...)), which means model "llmbench-sim".
//	synthetic(input_tokens, output_tokens=None, prefix_tokens=0, prefixes=1,
//	          seed=0, name=None, entries=100, deterministic_output=False)
//	    Lengths are distributions or ints (fixed). output_tokens None lets
//	    the server decide. name tags the entries inside a mix.
//	jsonl(path), sharegpt(path), trace(path, format="mooncake")
//	    Paths are relative to the scenario's folder and must exist there.
//	    The file is read when declared, so a malformed one is a load error
//	    naming its file:line and field. Attributes: .path, .entries;
//	    sharegpt .skipped (conversations without a human turn followed by
//	    a gpt turn); trace .format and .timed (every line has a timestamp).
//	mix(datasets, weights=None)
//	    Drawn with the experiment's seed; component names must differ.
//	fixed(n), normal(mean, stddev), uniform(lo, hi), lognormal(mean, stddev),
//	choice(values, weights=None)
//	concurrency(n), rate(r, arrival="poisson", burstiness=1.0, max_concurrency=None)
//	    burstiness other than 1 needs arrival="gamma" (it is the gamma shape).
//	replay(speed=1.0)
//	    Needs a timed trace() dataset; sends each entry at its timestamp
//	    divided by speed. Without requests= or duration= the whole trace
//	    is replayed.
//	experiment(name, endpoint, dataset, traffic, requests=None, duration=None,
//	           warmup=0, sweep=None, gates=[], goodput={}, repeats=1,
//	           telemetry=[], cost_per_hour=None, baseline=None, tags={}, seed=0)
//	    requests and duration exclude each other; with neither, 100
//	    requests per point. warmup is a request count. name is also a
//	    folder name: letters, digits, '_', '-', '.'. goodput maps metrics
//	    (ttft, itl, ttst, request_latency or GenAI-Perf's long names) to
//	    duration strings — a bare number is refused, since GenAI-Perf reads
//	    ms where every other duration here is seconds — and
//	    output_token_throughput_per_user to tokens/s. Gates are parsed now;
//	    an @ condition matching no point of a grid is an error. baseline
//	    is a folder inside the scenario's (a stored run whose experiment
//	    of the same name is compared with); run --baseline overrides it.
//	sweep(concurrency=, rate=, input_tokens=, output_tokens=)
//	    Lists; several keywords make a grid; concurrency with rate is
//	    refused. The load must be of the swept kind; token sweeps need a
//	    synthetic() dataset.
//	pow2(lo, hi)
//	    The powers of two in [lo, hi]: pow2(1, 64) is [1, 2, 4, ..., 64].
//	until_saturation(start=1, factor=2, limit=1024, growth="5%", ttft_factor=2.0,
//	                 over="concurrency")
//	search(gate, over="concurrency", lo=1, hi=1024, precision="5%")
//	    Percentages are "5%" or ratios (0.05).
//	steady(ci="5%", confidence=0.95, min_requests=100, max_requests=None, max_duration=None)
//	    The rule of an auto point, experiment(requests="auto") or
//	    experiment(duration="auto"), passed as steady_state=: the point
//	    stops once the CIs of the p50 and p99 of TTFT and ITL (request
//	    latency when not streaming) are within ±ci, after a warm-up
//	    dropped by MSER-5; max_requests (10000) caps requests="auto",
//	    max_duration ("10m") caps duration="auto" (docs/scenarios.md).
//	env(name, default=None), fail(*args, sep=" "), struct(**kwargs)
//
// The load pattern of experiment() is named traffic because `load` is a
// reserved word in Starlark: scenario files are plain Starlark that any
// Starlark tool parses. A file that still writes `load = ...` gets a
// syntax error whose message names traffic (see legacyLoadHint).
//
// # main, check and the results object
//
// main(ctx) returns an experiment or a list of them; ctx.vars is a frozen
// dict of the -D values. check(results), when defined, runs after every
// experiment: results["name"] has .name, .points (in load order), .repeats
// (the count each point ran), .knee(gate) (the highest-load point meeting
// gate before the first point that misses it, or None), and .saturation
// and .max_goodput (None until the sweeps that find them exist). A point
// has .label, .concurrency, .rate, .input_tokens, .output_tokens (None
// when not a parameter of the point), .passed and .gates (the
// experiment's gates there: .gate, .passed, .message), and every metric:
// distributions (ttft, ttst, itl, request_latency, ttfo, isl, osl,
// output_token_throughput_per_user, schedule_lag, ttft_from_schedule,
// request_latency_from_schedule, chunk_gap) as stats
// with .avg .min .max .std .count .p1 … .p99 and .percentile(p); and
// output_token_throughput, request_throughput, request_goodput,
// error_rate (a ratio), request_count, completed, failed, duration,
// achieved_request_rate, mean_concurrency, cost_per_mtok, errors. Times
// are ms, as in every report; a metric the run did not measure is None.
package builtins
