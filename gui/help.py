"""The Help menu: what the views' colours and marks mean, and the keyboard shortcuts, in one
window a teacher can leave open beside the main one."""

from __future__ import annotations

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QMainWindow, QMenu, QMessageBox

LEGEND = """<h3>Colours and marks</h3>
<p><b>Every view</b>: one colour per job, the same in the Nodes view, the Gantt chart and the
Queues table. A click on a job selects it everywhere (a white outline); a right click opens its
menu.</p>
<p><b>Nodes</b>: one cell per node. The coloured block is the job on it, filled from the bottom
by the share of the node's cores in use (grey above: idle cores). The bar under the cell is the
node's speed against the fastest node. Amber stripes: drained (no new job); red stripes: down.
Hover over a cell for the node, its cores and its job; the mouse wheel zooms a large
cluster.</p>
<p><b>Gantt chart</b>: time across, nodes down, one band per cluster. A rectangle is a job on a
range of nodes, with its id when it is wide enough. Dashed outline: a reservation (the planned
start, for the job's time limit). Solid orange outline: the window an economic policy (ALP,
AMP) chose, captioned with the number of alternatives it was the best of. Yellow line: now.
Cyan bar: the selected job's rectangles over several clusters (co-allocation). Magenta tick
captioned <i>64 north→south</i>: when a grid policy (realloc) moved the job from one cluster's
queue to another's, dotted until it starts there. The wheel
zooms time, a drag pans it; a double click fits the chart to the data again.</p>
<p><b>Links</b>: bandwidth in use on each cluster's link; dashed: its capacity; red: above
capacity (saturated, the jobs using it slow down).</p>
<p><b>Queues</b>: squeue's columns; right click on the header for more (PARTITION, NODES,
START).</p>
<p><b>Moves</b>: jobs a grid policy (realloc) moved from one cluster's queue to another: an
arrow per pair of queues with the number of moves (the latest in orange), and the list of moves
with the expected completion times (ECT) before and after. <b>Routes</b>: a grid broker's
figure for each site (ECT, or load per processor) when it routed the selected job (else the
latest), the site chosen in orange.</p>"""

SHORTCUTS = (
    ("Space", "Play / Pause"),
    ("N", "Step to the next event"),
    ("F5", "Presentation mode (large text, thick lines, high contrast)"),
    ("Ctrl+B", "Submit a job"),
    ("Ctrl+Q", "Quit"),
    ("F1", "This help"),
)


def help_text() -> str:
    """The legend and the shortcut table, as rich text."""
    rows = "".join(f"<tr><td><b>{key}</b></td><td>{what}</td></tr>" for key, what in SHORTCUTS)
    return f"{LEGEND}<h3>Keyboard shortcuts</h3><table cellpadding=3>{rows}</table>"


def add_help_menu(window: QMainWindow) -> QAction:
    """Help > Legend and shortcuts (F1) on ``window``'s menu bar; returns the action."""
    menu = window.menuBar().addMenu("&Help")
    action = QAction("Legend and shortcuts", window)
    action.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
    box = QMessageBox(QMessageBox.Icon.NoIcon, "batchlab — legend and shortcuts", "", parent=window)
    box.setTextFormat(box.textFormat().RichText)
    box.setText(help_text())
    box.setModal(False)
    action.triggered.connect(box.show)
    menu.addAction(action)
    window.help_box = box  # type: ignore[attr-defined]
    return action


def add_quit(window: QMainWindow, menu_title: str = "&File") -> QAction:
    """File > Quit (Ctrl+Q): closes ``window`` (its daemons stop)."""
    found = [a.menu() for a in window.menuBar().actions() if a.text() == menu_title]
    menu = (
        found[0] if found and isinstance(found[0], QMenu) else window.menuBar().addMenu(menu_title)
    )
    action = QAction("Quit", window)
    action.setShortcut(QKeySequence("Ctrl+Q"))
    action.triggered.connect(window.close)
    menu.addSeparator()
    menu.addAction(action)
    return action
