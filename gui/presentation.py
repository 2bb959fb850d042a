"""Presentation mode, for a projector: large text, thick lines, the high-contrast palette.

One switch for the whole application (:func:`mode`): it sets the application font and the
palette (:func:`gui.palette.use`), then tells every window (:attr:`Presentation.toggled`). A
window redraws its views once, so that every plot item exists, and calls :func:`restyle`, which
walks its widgets and plots: fonts the widgets set themselves (the console and the event log),
table rows, the axes, labels and titles of every pyqtgraph plot, and the width of every curve,
line and outline. Restyling is generic, so a view added later is restyled without knowing about
it. Each thing restyled remembers its size from before, so switching back restores it exactly.
"""

from __future__ import annotations

from typing import Any

import pyqtgraph as pg
from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QAction, QFont, QKeySequence, QPen
from PySide6.QtWidgets import (
    QApplication,
    QGraphicsItem,
    QGraphicsPathItem,
    QTableView,
    QWidget,
)

from gui import palette

TEXT_POINTS = 16.0  # the application font: tables, tool bar, dock titles, status bar
OWN_FONT_POINTS = 14.0  # widgets with a font of their own (the monospace console and event log)
TICK_POINTS = 13.0  # axis tick labels
LABEL_POINTS = 16.0  # axis labels, plot titles, legends, the nodes view's cluster labels
LINE_SCALE = 2.0  # pen widths of curves, lines and outlines
ROW_PADDING = 8  # a table row: the font's line height plus this

OWN_SCALE = "batchlab_own_scale"  # widget property: it scales its font itself (the clock)
_BEFORE = "batchlab_before_presentation"  # widget property: its size outside presentation mode
_ITEM_BEFORE = 0x6C62  # QGraphicsItem.data key: the same for a plot item


class Presentation(QObject):
    """The application's presentation mode: one instance, a child of the QApplication."""

    toggled = Signal(bool)

    def __init__(self, app: QApplication) -> None:
        super().__init__(app)
        self.on = False
        self.font = QApplication.font()  # the application font outside presentation mode

    def set(self, on: bool) -> None:
        if on == self.on:
            return
        self.on = on
        palette.use(palette.HIGH_CONTRAST if on else palette.DEFAULT)
        font = QFont(self.font)
        if on:
            font.setPointSizeF(TEXT_POINTS)
        QApplication.setFont(font)
        # the widgets learn of it through posted events: deliver them before the windows restyle
        QApplication.sendPostedEvents(None, QEvent.Type.ApplicationFontChange.value)
        self.toggled.emit(on)


def mode() -> Presentation:
    """The application's :class:`Presentation` (made on first use)."""
    app = QApplication.instance()
    assert isinstance(app, QApplication), "presentation mode needs a QApplication"
    found = app.findChild(Presentation)
    return found if isinstance(found, Presentation) else Presentation(app)


def action(window: QWidget) -> QAction:
    """The checkable "Presentation mode" action (F5) for a window's View menu. The window
    connects :attr:`Presentation.toggled` to its own slot, which checks this action again."""
    presenting = mode()
    result = QAction("Presentation mode", window)
    result.setCheckable(True)
    result.setShortcut(QKeySequence(Qt.Key.Key_F5))
    result.setToolTip("large fonts, thick lines and high-contrast colours, for a projector")
    result.setChecked(presenting.on)
    result.toggled.connect(presenting.set)
    return result


def restyle(window: QWidget, on: bool) -> None:
    """Give the widgets and plots inside ``window`` presentation sizes, or back their own."""
    for widget in window.findChildren(QWidget):
        if widget.testAttribute(Qt.WidgetAttribute.WA_SetFont) and not widget.property(OWN_SCALE):
            _own_font(widget, on)
    for table in window.findChildren(QTableView):
        _table(table, on)
    for view in window.findChildren(pg.GraphicsView):
        for item in view.scene().items():
            if isinstance(item, pg.AxisItem):
                _axis(item, on)
            elif isinstance(item, pg.LabelItem):
                _label(item, on)
            elif isinstance(item, pg.PlotDataItem | pg.InfiniteLine | QGraphicsPathItem):
                _pen(item, on)


def _before(holder: Any, current: Any) -> Any:
    """What ``holder`` (a widget or a plot item) was before presentation mode: remembered the
    first time it is restyled."""
    if isinstance(holder, QWidget):
        value = holder.property(_BEFORE)
        if value is None:
            holder.setProperty(_BEFORE, current)
            value = current
        return value
    # QGraphicsItem's own data(), which pyqtgraph's PlotDataItem hides behind its plot data
    value = QGraphicsItem.data(holder, _ITEM_BEFORE)
    if value is None:
        QGraphicsItem.setData(holder, _ITEM_BEFORE, current)
        value = current
    return value


def _own_font(widget: QWidget, on: bool) -> None:
    font = widget.font()
    before = float(_before(widget, font.pointSizeF()))
    font.setPointSizeF(OWN_FONT_POINTS if on else before)
    widget.setFont(font)


def _table(table: QTableView, on: bool) -> None:
    rows = table.verticalHeader()
    before = int(_before(table, rows.defaultSectionSize()))
    rows.setDefaultSectionSize(table.fontMetrics().height() + ROW_PADDING if on else before)
    table.resizeColumnsToContents()


def _axis(axis: pg.AxisItem, on: bool) -> None:
    tick_font, label_font = _before(axis, (axis.style["tickFont"], QFont(axis.label.font())))
    if on:
        tick_font = QFont(QApplication.font())
        tick_font.setPointSizeF(TICK_POINTS)
        label_font = QFont(label_font)
        label_font.setPointSizeF(LABEL_POINTS)
    axis.setTickFont(tick_font)
    axis.label.setFont(label_font)
    if axis.isVisible():
        axis.showLabel(axis.label.isVisible())  # makes room for the label's new size


def _label(label: pg.LabelItem, on: bool) -> None:
    before = _before(label, label.opts.get("size", ""))
    if on:
        label.opts["size"] = f"{LABEL_POINTS:g}pt"
    elif before:
        label.opts["size"] = before
    else:
        label.opts.pop("size", None)
    label.setText(label.text)


def _pen(item: pg.PlotDataItem | pg.InfiniteLine | QGraphicsPathItem, on: bool) -> None:
    if isinstance(item, pg.PlotDataItem):
        pen = pg.mkPen(item.opts["pen"])
    elif isinstance(item, pg.InfiniteLine):
        pen = QPen(item.pen)
    else:
        pen = item.pen()
    if pen.style() == Qt.PenStyle.NoPen:
        return
    before = float(_before(item, pen.widthF()))
    pen.setWidthF(max(before, 1.0) * LINE_SCALE if on else before)
    item.setPen(pen)
