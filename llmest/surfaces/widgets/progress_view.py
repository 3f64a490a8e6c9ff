"""Chapter 5's progress view: the cards due, accuracy by topic over time and the topics to review next, from a
progress store (``llmest.learn.progress``), with a button to read the store again."""

from __future__ import annotations

import html

import ipywidgets as w

from ...core.i18n import _
from ...core.units import format_percent
from .practice import named

SHOWN_DUE = 10   # due cards listed; the count gives the rest


def due_html(seen) -> str:
    waiting, new = seen.scheduled, seen.new
    rows = "".join(f"<li>{d.due.strftime('%Y-%m-%d %H:%M')} · {html.escape(named(d.item.topic))} · "
                   f"{html.escape(d.item.prompt)}</li>" for d in waiting[:SHOWN_DUE])
    more = ("<li>{}</li>".format(_("… and {n} more").format(n=len(waiting) - SHOWN_DUE))
            if len(waiting) > SHOWN_DUE else "")
    return (_("<b>Due today: {due}</b>, new: {new}").format(due=len(waiting), new=new) + f"<ul>{rows}{more}</ul>"
            if waiting else _("<b>Nothing due today</b>; new cards: {new}.").format(new=new))


def topics_html(standing) -> str:
    def accuracy(s):
        return (_("not reviewed yet") if s.accuracy is None else
                _("{share} right").format(share=format_percent(s.accuracy, 0)))

    rows = "".join("<li>{}</li>".format(_("{topic}: {accuracy} ({reviews} reviews), {due} to review today").format(
        topic=html.escape(named(s.topic)), accuracy=accuracy(s), reviews=s.reviews, due=s.due)) for s in standing)
    return _("<b>Review next</b> (weakest first)") + f"<ol>{rows}</ol>"


class ProgressView:
    """What the store says at ``now`` (default the present): due cards, topics to review next, the accuracy plot."""

    def __init__(self, store, now=None, topics=None):
        self.store, self.now, self.topics = store, now, topics
        # The plot as a PNG image: drawn off pyplot, so that nothing waits on an output area.
        self.due, self.next, self.plot = w.HTML(), w.HTML(), w.Image(format="png", layout=w.Layout(max_width="100%"))
        self.refresh_button = w.Button(description=_("Refresh"))
        self.refresh_button.on_click(lambda _: self.refresh())
        self.widget = w.VBox([w.HBox([self.due, self.next]), self.plot, self.refresh_button])
        self.widget.add_class("llmest-progress")
        self.refresh()

    def refresh(self):
        import io

        from matplotlib.figure import Figure

        from ...display import plots
        from ...learn import progress

        seen = progress.progress(self.store, self.now, self.topics)
        self.due.value, self.next.value = due_html(seen), topics_html(seen.next_topics)
        figure = Figure(figsize=(7, 3.4), layout="constrained")
        plots.accuracy_by_topic(seen.accuracy, figure.add_subplot())
        png = io.BytesIO()
        figure.savefig(png, format="png", dpi=90)
        self.plot.value = png.getvalue()

    def _ipython_display_(self):
        from IPython.display import display

        display(self.widget)


def progress_view(store, now=None, topics=None) -> ProgressView:
    return ProgressView(store, now, topics)
