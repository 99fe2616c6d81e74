"""PNG plots of benchmark results with matplotlib's Agg backend (imported only when a plot is written)."""

from __future__ import annotations

from pathlib import Path


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")  # no display: files only
    import matplotlib.pyplot as plt

    return plt


def plot_ladder(result: dict, path: str | Path) -> Path:
    """Two panels: throughput vs C (warm, cold, peers) and TTFT vs C (avg and p99, warm and cold)."""
    plt = _pyplot()
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4.2))
    series = [("aegis warm", result["rows"], "o-"), ("aegis cold", result["cold_rows"], "s--")]
    op = result.get("peers", {}).get("openai")
    if op:
        from urllib.parse import urlparse

        series.append((f"peer {urlparse(op['url']).netloc} ({Path(str(op.get('model', ''))).name})", op["rows"], "^-"))
    for label, rows, style in series:
        if not rows:
            continue
        cs = [r["concurrency"] for r in rows]
        (line,) = ax1.plot(cs, [r["throughput_tok_s"] or 0 for r in rows], style, label=label)
        color = line.get_color()
        ax2.plot(cs, [r["avg_ttft_s"] or 0 for r in rows], style, color=color, label=f"{label} avg")
        ax2.plot(cs, [r["p99_ttft_s"] or 0 for r in rows], style, color=color, alpha=0.4, label=f"{label} p99")
    base = result["rows"][0] if result["rows"] else None
    if base and base["concurrency"] and base["throughput_tok_s"]:
        cs = [r["concurrency"] for r in result["rows"]]
        per = base["throughput_tok_s"] / base["concurrency"]
        ax1.plot(cs, [per * min(c, result["n_parallel"]) for c in cs], ":", color="grey", label="linear up to slots")
    lq = result.get("peers", {}).get("llama_sequential")
    if lq and lq.get("throughput_tok_s"):
        ax1.axhline(lq["throughput_tok_s"], color="tab:red", linestyle="-.", label="Llama one by one")
    for ax, title, ylabel in ((ax1, "System throughput", "generated tokens / s"), (ax2, "Time to first token", "s")):
        ax.set_xscale("log", base=2)
        ax.set_xticks(result["concurrency"])
        ax.set_xticklabels([str(c) for c in result["concurrency"]])
        ax.set_xlabel("concurrent requests C")
        ax.set_ylabel(ylabel)
        ax.set_title(title)
        ax.grid(alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(f"{Path(result['model']).name}: {result['n_parallel']} slots, "
                 f"{result['max_tokens']} tokens/request, {result['document']['chars']}-char document", fontsize=9)
    fig.tight_layout()
    return _save(fig, plt, path)


def plot_ab(result: dict, path: str | Path) -> Path:
    """Grouped bars per level C: avg E2E and avg TTFT of each mode (baseline, fan-out, index cold and warm)."""
    plt = _pyplot()
    levels = result["levels"]
    fig, axes = plt.subplots(1, len(levels), figsize=(5 * len(levels), 4), squeeze=False)
    metrics = [("avg_ttft_s", "avg TTFT"), ("avg_e2e_s", "avg E2E"), ("p50_e2e_s", "p50 E2E")]
    for ax, lv in zip(axes[0], levels):
        modes = list(lv["modes"])
        width = 0.8 / max(1, len(modes))
        for i, key in enumerate(modes):
            vals = [lv["modes"][key].get(m) or 0 for m, _ in metrics]
            xs = [j + (i - (len(modes) - 1) / 2) * width for j in range(len(metrics))]
            bars = ax.bar(xs, vals, width, label=key.replace("_", " "))
            ax.bar_label(bars, fmt="%.2f", fontsize=6)
        ax.set_xticks(range(len(metrics)))
        ax.set_xticklabels([m[1] for m in metrics])
        ax.set_ylabel("seconds")
        ax.set_yscale("log")
        ax.set_title(f"C={lv['concurrency']}")
        ax.grid(axis="y", alpha=0.3)
        ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=len(modes))
    fig.suptitle(f"{Path(result['model']).name}: prose vs two-stage (fan-out, index cold/warm)", fontsize=9)
    fig.tight_layout()
    return _save(fig, plt, path)


def _save(fig, plt, path) -> Path:
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=110)
    plt.close(fig)
    return p
