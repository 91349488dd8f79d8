"""Apache Otava and llmbench's change point detector on otava-test-data's
patterns, scored against the change points the generators put there.

Run by run.sh (which makes the private venv); writes results.md (the table
docs/compare.md quotes) and results.json. A measurement, not a test: CI
does not install Otava.
"""

import argparse
import json
import subprocess
import sys
from collections import defaultdict

import otava
from importlib.metadata import version
from otava.analysis import compute_change_points
from otava_test_data.generators.combiner import CombinationGenerator

# Change types that move the level (the mean) of the series: what both
# detectors look for. Outliers, variance and phase changes keep the mean;
# they are scored apart.
LEVEL_SHIFTS = {"step", "regression_start", "regression_end"}
TOLERANCE = 2  # a found change point within this many values of a true one finds it


def generate(seeds, lengths):
    """Every basic pattern at every noise level and every pairwise
    combination, for each seed: (id, pattern, values, truth)."""
    out = []
    for seed in seeds:
        gen = CombinationGenerator(lengths=lengths, seed=seed)
        series = gen.generate_with_noise_variants() + gen.generate_pairwise_combinations()
        for i, ts in enumerate(series):
            pattern = ts.generator_name
            sigma = ts.parameters.get("noise_sigma", 0.0) if "+noise" in pattern else 0.0
            out.append({
                "id": f"s{seed}-{i}",
                "pattern": pattern.split("+noise")[0],
                "length": len(ts),
                "sigma": sigma,
                "values": [float(v) for v in ts.data],
                "truth": [(cp.index, cp.change_type) for cp in ts.change_points],
            })
    return out


def run_otava(values, window, pvalue, magnitude):
    cps, _ = compute_change_points(values, window_len=window, max_pvalue=pvalue, min_magnitude=magnitude)
    return sorted(int(cp.index) for cp in cps)


def run_llmbench(detector, series, window, pvalue, magnitude):
    lines = "".join(json.dumps({"id": s["id"], "values": s["values"]}) + "\n" for s in series)
    out = subprocess.run([detector, f"-window={window}", f"-max-pvalue={pvalue}", f"-min-magnitude={magnitude}"],
                         input=lines, capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        row = json.loads(line)
        found[row["id"]] = sorted(row["change_points"])
    return found


def score(found, truth):
    """Matches found change points to true ones one to one (nearest first,
    within TOLERANCE): (level shifts found, other changes found, false)."""
    pairs = sorted((abs(f - t), fi, ti) for fi, f in enumerate(found) for ti, (t, _) in enumerate(truth) if abs(f - t) <= TOLERANCE)
    used_f, used_t = set(), set()
    for _, fi, ti in pairs:
        if fi not in used_f and ti not in used_t:
            used_f.add(fi)
            used_t.add(ti)
    level = sum(1 for ti in used_t if truth[ti][1] in LEVEL_SHIFTS)
    other = len(used_t) - level
    return level, other, len(found) - len(used_f)


def tally(series, found):
    t = defaultdict(int)
    per_pattern = defaultdict(lambda: defaultdict(int))
    for s in series:
        level, other, false = score(found[s["id"]], s["truth"])
        n_level = sum(1 for _, kind in s["truth"] if kind in LEVEL_SHIFTS)
        for bucket in (t, per_pattern[s["pattern"]]):
            bucket["series"] += 1
            bucket["level_true"] += n_level
            bucket["other_true"] += len(s["truth"]) - n_level
            bucket["level_found"] += level
            bucket["other_found"] += other
            bucket["found"] += len(found[s["id"]])
            bucket["false"] += false
    return t, per_pattern


def row(name, t):
    tp = t["level_found"] + t["other_found"]
    prec = tp / t["found"] if t["found"] else float("nan")
    rec_level = t["level_found"] / t["level_true"] if t["level_true"] else float("nan")
    rec_all = tp / (t["level_true"] + t["other_true"]) if t["level_true"] + t["other_true"] else float("nan")
    return (f"| {name} | {t['found']} | {t['level_found']}/{t['level_true']} ({pct(rec_level)}) | "
            f"{t['other_found']}/{t['other_true']} | {t['false']} | {pct(prec)} | {pct(rec_all)} |")


def pct(x):
    return "—" if x != x else f"{100 * x:.1f}%"


def nightly_histories(count, runs=30, at=15, cv=0.03):
    """Histories shaped like llmbench's: `runs` nightly values of a metric
    at 100 with run-to-run noise of `cv` (normal), and a shift of 0, 5%,
    10% or 20% from run `at` on: (shift, id, values)."""
    import numpy as np
    out = []
    for shift in (0.0, 0.05, 0.10, 0.20):
        rng = np.random.default_rng(1000 + int(shift * 100))
        for i in range(count):
            v = 100 * (1 + rng.normal(0, cv, runs))
            v[at:] *= 1 + shift
            out.append((shift, f"n{shift}-{i}", [float(x) for x in v]))
    return out


def nightly_table(detector, count, settings):
    """False alarms and detections on nightly_histories, both detectors."""
    hist = nightly_histories(count)
    series = [{"id": i, "values": v} for _, i, v in hist]
    md = [f"**Nightly-shaped histories**: {count} histories of 30 runs per row, each run's value normal "
          f"around 100 with a 3% run-to-run spread, shifted from run 15 on by the row's shift. A false "
          f"alarm is a history with a change point more than 2 runs from 15 (any, with no shift); "
          f"detected is a change point within 2 runs of 15.", "",
          "| shift | min magnitude | Otava: false alarms | llmbench: false alarms | Otava: detected | llmbench: detected |",
          "|---|---|---|---|---|---|"]
    rows = []
    for window, pvalue, magnitude in settings:
        found_l = run_llmbench(detector, series, window, pvalue, magnitude)
        found_o = {i: run_otava(v, window, pvalue, magnitude) for _, i, v in hist}
        for shift in sorted({h[0] for h in hist}):
            ids = [i for sh, i, _ in hist if sh == shift]
            cell = {}
            for name, found in (("otava", found_o), ("llmbench", found_l)):
                false = sum(1 for i in ids if any(abs(c - 15) > TOLERANCE or shift == 0 for c in found[i]))
                hit = sum(1 for i in ids if any(abs(c - 15) <= TOLERANCE for c in found[i]))
                cell[name] = (false, hit)
            det = lambda n: "—" if shift == 0 else f"{cell[n][1]}/{len(ids)} ({pct(cell[n][1] / len(ids))})"
            md.append(f"| {shift:.0%} | {magnitude:.0%} | {cell['otava'][0]}/{len(ids)} ({pct(cell['otava'][0] / len(ids))}) | "
                      f"{cell['llmbench'][0]}/{len(ids)} ({pct(cell['llmbench'][0] / len(ids))}) | {det('otava')} | {det('llmbench')} |")
            rows.append({"shift": shift, "min_magnitude": magnitude, "histories": len(ids),
                         "otava": {"false_alarms": cell["otava"][0], "detected": cell["otava"][1]},
                         "llmbench": {"false_alarms": cell["llmbench"][0], "detected": cell["llmbench"][1]}})
    return md, rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--detector", required=True, help="the llmbench side: bench/otava built")
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--out", default=".")
    ap.add_argument("--nightly", type=int, default=500, help="nightly-shaped histories per shift")
    args = ap.parse_args()
    series = generate(range(1, args.seeds + 1), [50, 500])
    settings = [(50, 0.001, 0.0), (50, 0.001, 0.05)]
    header = ("| detector | found | level shifts found (recall) | outliers/variance/phase found | false | precision | recall (all marked) |\n"
              "|---|---|---|---|---|---|---|")
    md = [f"Apache Otava {version('apache-otava')} (`compute_change_points`) and llmbench's change point detector (metrics.DetectChangePoints) on "
          f"otava-test-data {version('otava-test-data')}: every pattern at noise σ 0, 2, 5, 10 and every pairwise "
          f"combination (σ 5), lengths 50 and 500, seeds 1–{args.seeds}: {len(series)} series. A found change point "
          f"within {TOLERANCE} values of a marked one finds it (one to one); any other is false.", ""]
    results = {"series": len(series), "tolerance": TOLERANCE, "settings": []}
    for window, pvalue, magnitude in settings:
        found_o = {s["id"]: run_otava(s["values"], window, pvalue, magnitude) for s in series}
        found_l = run_llmbench(args.detector, series, window, pvalue, magnitude)
        to, po = tally(series, found_o)
        tl, pl = tally(series, found_l)
        same = sum(1 for s in series if found_o[s["id"]] == found_l[s["id"]])
        md += [f"**window {window}, max p-value {pvalue}, minimum magnitude {magnitude:g}** "
               f"(identical output on {same} of {len(series)} series)", "", header,
               row("Otava", to), row("llmbench", tl), "", "<details><summary>by pattern</summary>", "", header]
        for pattern in sorted(po):
            md += [row(f"{pattern}: Otava", po[pattern]), row(f"{pattern}: llmbench", pl[pattern])]
        md += ["", "</details>", ""]
        diffs = [{"id": s["id"], "pattern": s["pattern"], "sigma": s["sigma"], "length": s["length"],
                  "truth": s["truth"], "otava": found_o[s["id"]], "llmbench": found_l[s["id"]]}
                 for s in series if found_o[s["id"]] != found_l[s["id"]]]
        results["settings"].append({"window": window, "max_pvalue": pvalue, "min_magnitude": magnitude,
                                    "otava": to, "llmbench": tl, "identical": same, "differences": diffs})
    nightly_md, nightly_rows = nightly_table(args.detector, args.nightly, settings)
    md += nightly_md + [""]
    results["nightly"] = nightly_rows
    with open(f"{args.out}/results.md", "w") as f:
        f.write("\n".join(md))
    with open(f"{args.out}/results.json", "w") as f:
        json.dump(results, f, indent=1)
    print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
