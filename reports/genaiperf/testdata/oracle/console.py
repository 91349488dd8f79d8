"""Writes the console references in ../reference/ by rendering GenAI-Perf's
console table with Rich itself, replicating export_data/console_exporter.py
(columns, textwrap at 36, N/A cells) on the values of GenAI-Perf's
test_console_exporter.py cases, at console width 100 as in that test.
Needs `pip install rich`; run from this folder: python3 console.py
"""
import io
import textwrap

from rich.console import Console
from rich.table import Table

STATS = ["avg", "min", "max", "p99", "p90", "p75"]


def name(metric, unit):
    s = metric.replace("_", " ").title()
    return textwrap.fill(f"{s} ({unit})" if unit else s, width=36)


def render(title, rows, system):
    t = Table(title=title)
    t.add_column("Statistic", justify="right", style="cyan")
    for s in STATS:
        t.add_column(s, justify="right", style="green")
    for metric, unit, values in rows:
        t.add_row(name(metric, unit), *[f"{v:,.2f}" for v in values])
    for metric, unit, value in system:
        t.add_row(name(metric, unit), f"{value:,.2f}", *["N/A"] * 5)
    out = io.StringIO()
    Console(width=100, file=out).print(t)
    return out.getvalue()


TTFT = ("time_to_first_token", "ms", [8, 7, 9, 8.98, 8.80, 8.50])
TTST = ("time_to_second_token", "ms", [2, 1, 3, 2.98, 2.8, 2.5])
LAT = ("request_latency", "ms", [5, 4, 6, 5.98, 5.8, 5.5])
ITL = ("inter_token_latency", "ms", [11, 10, 12, 11.98, 11.8, 11.5])
TPS = ("output_token_throughput_per_user", "tokens/sec/user", [5, 4, 6, 5.98, 5.8, 5.5])
OSL = ("output_sequence_length", "tokens", [2, 1, 3, 2.98, 2.8, 2.5])
ISL = ("input_sequence_length", "tokens", [6, 5, 7, 6.98, 6.8, 6.5])
OTT = ("output_token_throughput", "tokens/sec", 456)
RT = ("request_throughput", "per sec", 123)
RG = ("request_goodput", "per sec", 100)
RC = ("request_count", "count", 3)

cases = {
    "console_streaming_llm.txt": ("LLM", [TTFT, TTST, LAT, ITL, TPS, OSL, ISL], [OTT, RT, RC]),
    "console_nonstreaming_llm.txt": ("LLM", [LAT, OSL, ISL], [OTT, RT, RC]),
    "console_goodput_llm.txt": ("LLM", [TTFT, TTST, LAT, ITL, TPS, OSL, ISL], [OTT, RT, RG, RC]),
    "console_embeddings.txt": ("Embeddings", [LAT], [RT, RC]),
}
for fname, (kind, rows, system) in cases.items():
    with open(f"../reference/{fname}", "w", newline="") as f:
        f.write(render(f"NVIDIA GenAI-Perf | {kind} Metrics", rows, system))
