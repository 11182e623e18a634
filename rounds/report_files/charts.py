"""Charts for the PDF, drawn with matplotlib's Agg backend (no display, safe in a worker
thread) as PNG bytes."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure

from rounds.report_files.document import Chart


def chart_png(chart: Chart, *, width: float = 9.0, height: float = 3.6) -> bytes:
    """Grouped bars: one group per label, one bar per series; values as given."""
    # A Figure of its own, not pyplot's global state: two reports made at once in one
    # worker never draw on each other's axes.
    figure = Figure(figsize=(width, height), dpi=110)
    axes = figure.subplots()
    labels = sorted({label for values in chart.series.values() for label in values})
    count = max(len(chart.series), 1)
    bar = 0.8 / count
    for n, (name, values) in enumerate(sorted(chart.series.items())):
        xs = [i + (n - (count - 1) / 2) * bar for i in range(len(labels))]
        ys = [float(values.get(label, 0)) for label in labels]
        bars = axes.bar(xs, ys, width=bar, label=name)
        axes.bar_label(bars, labels=[str(values.get(label, "")) for label in labels],
                       fontsize=7, padding=2)
    axes.set_xticks(range(len(labels)), labels, fontsize=8)
    axes.axhline(0, color="#444", linewidth=0.6)
    axes.set_title(chart.title, fontsize=10)
    axes.set_ylabel(chart.y_label, fontsize=8)
    if len(chart.series) > 1:
        axes.legend(fontsize=7)
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()
