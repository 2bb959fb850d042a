"""Routes: a grid broker's choice of site for a job, with the rule's figures as bars (the
brokers of issue 16: ML, MPL, MLB, MCT and their ``-a`` variants).

A broker routes each job to one site of its available (or admissible) set by a rule: the least
load per processor (ML, MPL, MLB) or the minimum expected completion time (MCT). Its Route
decision's explanation carries the figure it compared for every allowed site and the site it
chose: ``MCT: available south..north (first south); ECT south 00:06:40, east 00:03:20, north
00:05:00 -> east``, or ``...; load/proc north 12, east 3 -> east``. The view reads those from the
snapshot's decisions (it sees the session API only, never a policy) and draws them as one bar
per site, the chosen one in orange: for the selected job if a broker routed it, else for the
latest route."""

from __future__ import annotations

import re
from dataclasses import dataclass

import pyqtgraph as pg
from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from emulator.session import LogEntry, Snapshot
from gui.selection import Selection

# "<rule>: <sets>; <measure> <site> <figure>, ... -> <site>" (solvers/brokers/policy.py)
ROUTED = re.compile(
    r"^(?P<rule>[^:;]+): [^;]*; (?P<measure>\S+) (?P<values>.+) -> (?P<chosen>\S+)$"
)
KEPT = 10000  # routes remembered (by job), the oldest forgotten first
CHOSEN = (255, 150, 40)
OTHER = (150, 150, 160)


@dataclass(frozen=True, slots=True)
class Route:
    """One broker decision and its figures."""

    job_id: int  # engine id
    label: str  # as squeue shows it
    rule: str  # MCT, ML, ...
    measure: str  # ECT, load/proc, ...
    sites: tuple[str, ...]
    figures: tuple[float, ...]  # ECT in seconds from the decision, else the load per processor
    chosen: str

    def caption(self) -> str:
        unit = " (minutes from the decision)" if self.measure == "ECT" else ""
        return f"job {self.label}: {self.rule}, {self.measure} per site{unit} -> {self.chosen}"


def figure(text: str) -> float:
    """A figure of an explanation: ``[D-]HH:MM:SS`` in seconds, else a number."""
    if ":" not in text:
        return float(text)
    days, _, clock = text.rpartition("-")
    hours, minutes, seconds = (float(part) for part in clock.split(":"))
    return 86400.0 * float(days or 0) + 3600.0 * hours + 60.0 * minutes + seconds


def route_of(entry: LogEntry) -> Route | None:
    """The route a decision made, if a broker made it with its figures."""
    if entry.kind != "Route":
        return None
    found = ROUTED.match(entry.text.partition(": ")[2])  # (after "route to east: ")
    if found is None:
        return None
    sites, figures = [], []
    for pair in found["values"].split(", "):
        site, _, value = pair.rpartition(" ")
        try:
            figures.append(figure(value))
        except ValueError:
            return None
        sites.append(site)
    return Route(
        entry.job_id,
        entry.label,
        found["rule"],
        found["measure"],
        tuple(sites),
        tuple(figures),
        found["chosen"],
    )


class RoutesView(QWidget):
    """The bars of one route, under a caption naming the job, the rule and the site chosen."""

    def __init__(self, selection: Selection) -> None:
        super().__init__()
        self.selection = selection
        self.caption = QLabel("no broker route yet")
        self.plot = pg.PlotWidget()
        self.plot.setMouseEnabled(x=False, y=False)
        self.plot.hideButtons()
        self.plot.setMinimumHeight(40)  # (a projector's short window keeps its clock: issue 23)
        self.bars = pg.BarGraphItem(x=[], height=[], width=0.6)
        self.plot.addItem(self.bars)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.caption)
        layout.addWidget(self.plot)
        self.setToolTip(
            "a grid broker's route: the figure its rule compared for each allowed site "
            "(orange: the site chosen); the selected job's, else the latest"
        )
        self.routes: dict[int, Route] = {}
        self.last = 0  # seq of the last decision read
        self.shown: Route | None = None
        selection.changed.connect(lambda _: self._show())

    def show_snapshot(self, snapshot: Snapshot) -> None:
        new = [entry for entry in snapshot.events if entry.seq > self.last]
        if not new:
            return
        self.last = new[-1].seq
        for route in map(route_of, new):
            if route is not None:
                self.routes.pop(route.job_id, None)  # (re-inserted: the latest last)
                self.routes[route.job_id] = route
        while len(self.routes) > KEPT:
            del self.routes[next(iter(self.routes))]
        self._show()

    def drawn(self) -> list[tuple[str, float, bool]]:
        """The bars drawn: (site, height, chosen) (for tests and the teaching steps)."""
        route = self.shown
        if route is None:
            return []
        scale = 60.0 if route.measure == "ECT" else 1.0
        return [
            (site, value / scale, site == route.chosen)
            for site, value in zip(route.sites, route.figures, strict=True)
        ]

    def route(self) -> Route | None:
        """The route drawn: the selected job's, else the latest."""
        chosen = self.routes.get(self.selection.job_id)
        if chosen is None and self.routes:
            chosen = next(reversed(self.routes.values()))
        return chosen

    def _show(self) -> None:
        route = self.route()
        if route is None or route == self.shown:
            return
        self.shown = route
        self.caption.setText(route.caption())
        scale = 60.0 if route.measure == "ECT" else 1.0
        self.bars.setOpts(
            x=list(range(len(route.sites))),
            height=[value / scale for value in route.figures],
            brushes=[CHOSEN if site == route.chosen else OTHER for site in route.sites],
        )
        self.plot.getAxis("bottom").setTicks([list(enumerate(route.sites))])
        self.plot.setXRange(-0.5, len(route.sites) - 0.5, padding=0)
        self.plot.setYRange(0, max(max(route.figures) / scale, 1e-9) * 1.15, padding=0)
