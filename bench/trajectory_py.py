"""Python side of bench/trajectory.bench.ts: ADK's per-invocation trajectory verdicts with Python ==.

A stand-in for ADK's TrajectoryEvaluator loop (google-adk 2.0, spec §2.1), written from the spec:
per invocation, compare the actual calls with the expected calls (name equal and args ==, ids
ignored) under EXACT, IN_ORDER or ANY_ORDER, score 1.0 or 0.0, then average. The data file is the
JSON written by the TypeScript side, decoded with json.loads so ints stay ints and floats floats.

usage: python3 bench/trajectory_py.py <data.json> [repeats]   (prints one JSON object on stdout)
"""

import json
import resource
import sys
import time


def same(a, b):
    return a["name"] == b["name"] and a.get("args") == b.get("args")


def exact(actual, expected):
    if len(actual) != len(expected):
        return False
    return all(same(a, e) for a, e in zip(actual, expected))


def in_order(actual, expected):
    if not expected:
        return True
    i = 0
    for a in actual:
        if same(a, expected[i]):
            i += 1
            if i == len(expected):
                return True
    return False


def any_order(actual, expected):
    remaining = list(actual)
    for e in expected:
        for i, a in enumerate(remaining):
            if same(a, e):
                del remaining[i]
                break
        else:
            return False
    return True


MATCHERS = {"EXACT": exact, "IN_ORDER": in_order, "ANY_ORDER": any_order}


def main():
    repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    out = {"python": sys.version.split()[0], "match_types": {}}
    for name, match in MATCHERS.items():
        seconds = float("inf")
        for _ in range(repeats):  # best of N, as on the TypeScript side
            start = time.perf_counter()
            total = 0.0
            bits = []
            for inv in data:
                score = 1.0 if match(inv["actual"], inv["expected"]) else 0.0
                total += score
                bits.append("1" if score else "0")
            seconds = min(seconds, time.perf_counter() - start)
        out["match_types"][name] = {
            "seconds": seconds,
            "mean": total / len(data),
            "verdicts": "".join(bits),
        }
    out["max_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
