"""Writes pyfloat.txt: Python's repr(float) and f"{v:,.2f}" for a few
thousand values, the oracle pyfloat_test.go checks the Go imitations
against. Run with any Python 3 (no packages): python3 pyfloat.py > pyfloat.txt
"""
import math
import random
import struct

rng = random.Random(20260101)
values = [
    0.0, -0.0, 1.0, -1.0, 0.1, 0.2 + 0.1, 2.675, 0.125, 0.375, 1.005, 0.005, 0.015,
    12.799999999999999, 4.8999999999999995, 142.85714285714286, 1e-5, 1e-4,
    0.0001, 0.00012345, 0.000099999, 1e15, 1e16, 1.5e16, 9999999999999998.0,
    123456789012345680.0, 1e22, 1e21, 1e100, 5e-324, 2.2250738585072014e-308,
    1.7976931348623157e308, 999.995, 999.994999, 999.5, 1234567.891, -1234.5,
    -0.001, -0.005, 0.5, 1.5, 2.5, 1e7, 12345678.9, 100.0, 1000.0, 1e3 - 0.005,
    float("nan"), float("inf"), float("-inf"),
]
for _ in range(400):  # random bit patterns: every magnitude
    v = struct.unpack(">d", rng.getrandbits(64).to_bytes(8, "big"))[0]
    if math.isfinite(v):
        values.append(v)
for _ in range(1500):  # ns latencies scaled to ms the way GenAI-Perf does
    ns = rng.uniform(0, 5e10) if rng.random() < 0.5 else float(rng.randrange(0, 10**11))
    values.append(ns * 1e-6)
for _ in range(1500):  # decimals around the repr switch points and thousands
    values.append(round(rng.uniform(-1, 1) * 10 ** rng.randint(-8, 18), rng.randint(0, 6)))
for v in values:
    bits = struct.pack(">d", v).hex()
    print(bits, repr(v), f"{v:,.2f}")
