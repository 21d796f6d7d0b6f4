"""Per-query ratio bars (stock time / sluice time) with the geomean line, from nexmark.csv.

usage: python3 benches/nexmark/plot.py target/nexmark/nexmark.csv target/nexmark/nexmark.png
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main(src, dst):
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    names = [r["query"] for r in rows]
    ratios = [float(r["ratio"]) for r in rows]
    geomean = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
    fig, ax = plt.subplots(figsize=(10, 4))
    ax.bar(names, ratios, color=["tab:green" if r >= 1 else "tab:red" for r in ratios])
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(geomean, color="tab:blue", linestyle="--", label=f"geomean {geomean:.2f}x")
    ax.set_ylabel("stock time / sluice time")
    ax.set_title("Nexmark: sluice installed vs stock Flink")
    ax.legend()
    fig.tight_layout()
    fig.savefig(dst, dpi=100)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
