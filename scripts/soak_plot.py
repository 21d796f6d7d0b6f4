#!/usr/bin/env python3
"""Summarises and draws the samples of the long soak (scripts/soak.sh).

    python3 scripts/soak_plot.py target/soak/soak.csv target/soak/soak.png

The CSV has one row a second: seconds, rss_bytes, heap_bytes, live_handles, state_bytes,
failures. Prints, for RSS, state bytes and live handles, the mean of the first 10 minutes after
a 5-minute warm-up and of the last 10 minutes, and whether they are within 10% of each other (the
flatness bar of issue #21). Samples taken while the job restarted (no state-bytes gauge yet) are
left out of the state-bytes means. Draws the three curves, with a line at each injected failure,
if matplotlib is installed.
"""
import csv
import sys

WARM_UP = 300.0
WINDOW = 600.0


def read(path):
    with open(path, newline="") as f:
        return [{k: float(v) for k, v in row.items()} for row in csv.DictReader(f)]


def mean(rows, col, start, end):
    vals = [r[col] for r in rows if start <= r["seconds"] < end and r[col] > 0]
    return sum(vals) / len(vals) if vals else float("nan")


def summary(rows):
    end = rows[-1]["seconds"]
    ok = True
    for col in ("rss_bytes", "state_bytes", "live_handles"):
        first = mean(rows, col, WARM_UP, WARM_UP + WINDOW)
        last = mean(rows, col, end - WINDOW, end + 1)
        change = (last - first) / first if first else float("nan")
        flat = abs(change) <= 0.10
        ok &= flat
        print(f"{col}: first 10 min after warm-up {first:,.0f}, last 10 min {last:,.0f} "
              f"({100 * change:+.1f}%) {'flat' if flat else 'NOT flat'}")
    print(f"{end:.0f} s sampled, {int(rows[-1]['failures'])} failures injected, "
          f"peak RSS {max(r['rss_bytes'] for r in rows) / 2**20:,.0f} MB")
    return ok


def plot(rows, png):
    try:
        import matplotlib
    except ImportError:
        print("matplotlib is not installed: no chart")
        return
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    t = [r["seconds"] / 60 for r in rows]
    fails = [rows[i]["seconds"] / 60 for i in range(1, len(rows))
             if rows[i]["failures"] > rows[i - 1]["failures"]]
    fig, axes = plt.subplots(3, 1, sharex=True, figsize=(9, 7))
    series = [("rss_bytes", "process RSS (MB)", 2**20), ("state_bytes", "native state (KB)", 2**10),
              ("live_handles", "live native handles", 1)]
    for ax, (col, label, scale) in zip(axes, series):
        ax.plot(t, [r[col] / scale for r in rows], lw=0.8)
        for x in fails:
            ax.axvline(x, color="red", lw=0.5, alpha=0.5)
        ax.set_ylabel(label)
        ax.set_ylim(bottom=0)
    axes[-1].set_xlabel("minutes (red: injected failures)")
    fig.suptitle("sluice soak: native Calc, Deduplicate, GroupAggregate under failures")
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    print(f"chart: {png}")


def main():
    rows = read(sys.argv[1])
    if not rows:
        sys.exit("no samples")
    flat = summary(rows)
    if len(sys.argv) > 2:
        plot(rows, sys.argv[2])
    sys.exit(0 if flat else 1)


if __name__ == "__main__":
    main()
