#!/usr/bin/env python3
"""Writes mooncake_sample.jsonl, the small trace replayed by trace_replay.star.

Mooncake's format: one JSON object per line with `timestamp` (ms from the
start of the trace), `input_length`, `output_length` and `hash_ids`, the ids
of the 512-token blocks the prompt is made of. Entries that share leading
hash ids share a prompt prefix, as conversations on one system prompt do;
that is what prefix caching exploits. This sample: 48 requests over about
4.5 s in bursts, three system prompts of 2 blocks each, 1-3 further blocks
of user text. Deterministic (seeded), so the file is reproducible.
"""
import json
import random

rng = random.Random(7)
system_prompts = [[1, 2], [3, 4], [5, 6]]
next_id = 100
t = 0.0
with open("mooncake_sample.jsonl", "w") as f:
    for i in range(48):
        t += rng.expovariate(1 / 90.0) if i % 8 else 400.0  # a burst every 8 requests
        blocks = list(rng.choice(system_prompts))
        for _ in range(rng.randint(1, 3)):
            blocks.append(next_id)
            next_id += 1
        last = rng.randint(64, 512)  # the last block is partial
        entry = {
            "timestamp": int(t),
            "input_length": 512 * (len(blocks) - 1) + last,
            "output_length": rng.choice([16, 32, 64]),
            "hash_ids": blocks,
        }
        f.write(json.dumps(entry) + "\n")
