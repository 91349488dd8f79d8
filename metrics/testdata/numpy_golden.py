#!/usr/bin/env python3
"""Writes numpy_golden.json, numpy's own statistics for the arrays that
numpy_golden_test.go compares llmbench's Distribution with, bit for bit.

GenAI-Perf computes its statistics with numpy 1.x (np.mean, np.std,
np.percentile), so numpy is the ground truth. Regenerate with Debian
bookworm's python3-numpy (1.24.2):

    /usr/bin/python3 numpy_golden.py > numpy_golden.json

Integer arrays stay integers in the JSON and in numpy, as GenAI-Perf's
nanosecond and token lists are Python ints. The large "generate" arrays
(past numpy's 8192-element reduction buffer) are not stored: both sides
build them from the same formula, exact in IEEE arithmetic.
"""
import json
import random
import sys

import numpy as np

PERCENTILES = [0, 1, 5, 10, 25, 33.3, 50, 75, 90, 95, 99, 99.9, 100]


def generated(n):
    return [1e6 / ((i * 7919) % 1009 + 1) for i in range(n)]


def stats(data):
    return {
        "avg": float(np.mean(data)),
        "std": float(np.std(data)),
        "min": float(np.min(data)),
        "max": float(np.max(data)),
        "percentiles": {repr(p): float(np.percentile(data, p)) for p in PERCENTILES},
    }


def main():
    rng = random.Random(42)
    cases = [
        ("foundations [1,2,3,4]", [1, 2, 3, 4]),
        ("foundations [15,20,35,40,50]", [15, 20, 35, 40, 50]),
        ("foundations [3,1,2]", [3, 1, 2]),
        ("foundations 1..100", list(range(1, 101))),
        ("example ttft ns", [4000000, 5000000]),
        ("example itl ns", [3500000, 1600000]),
        ("example tps/user", [1 / (3500000 / 1e9), 1 / (1600000 / 1e9)]),
        ("stats diverges [0,13]", [0, 13]),
    ]
    for n in [1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 64, 127, 128, 129, 200, 257]:
        cases.append((f"random ns ints n={n}", [rng.randrange(10**6, 10**10) for _ in range(n)]))
        cases.append((f"random floats n={n}", [rng.random() * 1000 for _ in range(n)]))
        cases.append((f"random small ints n={n}", [rng.randrange(5) for _ in range(n)]))
    out = [{"name": name, "data": data, **stats(data)} for name, data in cases]
    for n in [8191, 8192, 8193, 20000]:
        out.append({"name": f"generated n={n}", "generate": n, **stats(generated(n))})
    sys.stdout.write("[\n" + ",\n".join(json.dumps(c) for c in out) + "\n]\n")


if __name__ == "__main__":
    main()
