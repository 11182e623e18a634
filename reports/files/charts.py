"""Charts for the PDF and the report's page, drawn with matplotlib's Agg backend (no
display, safe in a worker thread) as PNG bytes."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure

from reports.files.document import Chart


def chart_png(chart: Chart, *, width: float = 9.0, height: float = 3.6) -> bytes:
    """Grouped bars (one group per label, one bar per series) or, for ``style="line"``, a
    line per series through its labels; labels in the order the chart gives them (hours,
    days, movements), values as given."""
    # A Figure of its own, not pyplot's global state: two reports made at once in one
    # worker never draw on each other's axes.
    figure = Figure(figsize=(width, height), dpi=110)
    axes = figure.subplots()
    labels: list[str] = []
    for values in chart.series.values():
        labels += [label for label in values if label not in labels]
    count = max(len(chart.series), 1)
    for n, (name, values) in enumerate(chart.series.items()):
        if chart.style == "line":
            axes.plot([labels.index(label) for label in values],
                      [float(v) for v in values.values()], marker="o", label=name,
                      drawstyle="steps-post")
            continue
        bar = 0.8 / count
        xs: list[float] = [i + (n - (count - 1) / 2) * bar for i in range(len(labels))]
        ys = [float(values.get(label, 0)) for label in labels]
        # One series: a loss in red, a win in green; several: a colour per series.
        colours = ["#2e7d4f" if y >= 0 else "#b03a2e" for y in ys] if count == 1 else None
        bars = axes.bar(xs, ys, width=bar, label=name, color=colours)
        axes.bar_label(bars, labels=[str(values.get(label, "")) for label in labels],
                       fontsize=7, padding=2)
    # Many labels (a long statement): every one is still there, turned to fit.
    turned = 30 if len(labels) > 8 else 0
    axes.set_xticks(range(len(labels)), labels, fontsize=7, rotation=turned,
                    ha="right" if turned else "center")
    axes.axhline(0, color="#444", linewidth=0.6)
    axes.set_title(chart.title, fontsize=10)
    axes.set_ylabel(chart.y_label, fontsize=8)
    if chart.x_label:
        axes.set_xlabel(chart.x_label, fontsize=8)
    if len(chart.series) > 1:
        axes.legend(fontsize=7)
    figure.tight_layout()
    out = io.BytesIO()
    figure.savefig(out, format="png")
    return out.getvalue()
