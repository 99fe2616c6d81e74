"""Pane tabs for narrow terminals: below the width breakpoint one pane (document, answer, report, monitor) fills the screen."""

from __future__ import annotations

from textual.widgets import Tab, Tabs

PANES = ("document", "answer", "report", "monitor")
FACTS = "facts"  # a fifth pane, shown only when the app indexes documents (enable_facts)
BREAKPOINT = 120  # columns: below it the panes are tabs, at or above it they sit side by side


class PaneTabs(Tabs):
    """Tabs that choose which pane a narrow screen shows, by a `-pane-NAME` class on the screen (CSS does the rest)."""

    def __init__(self, **kwargs) -> None:
        super().__init__(*(Tab(name.capitalize(), id=f"pane-{name}") for name in PANES),
                         Tab(FACTS.capitalize(), id=f"pane-{FACTS}", classes="-hidden"), **kwargs)
        self.facts = False

    def enable_facts(self, on: bool) -> None:
        """Offer the Facts pane (a tab after Monitor, and in the Ctrl+T cycle)."""
        if on != self.facts:
            (Tabs.show if on else Tabs.hide)(self, f"pane-{FACTS}")  # Tabs.show: ours (below) picks a pane
        self.facts = on

    @property
    def panes(self) -> tuple[str, ...]:
        return (*PANES, FACTS) if self.facts else PANES

    @property
    def pane(self) -> str:
        """The pane shown on a narrow screen."""
        return (self.active or "pane-document").removeprefix("pane-")

    def show(self, pane: str) -> None:
        """Make a pane the one a narrow screen shows (a no-op for the wide layout, where all are shown)."""
        self.active = f"pane-{pane}"

    def cycle(self) -> None:
        panes = self.panes
        self.show(panes[(panes.index(self.pane) + 1) % len(panes)] if self.pane in panes else panes[0])

    def on_tabs_tab_activated(self, event: Tabs.TabActivated) -> None:
        event.stop()
        screen = self.screen
        for name in (*PANES, FACTS):
            screen.set_class(self.pane == name, f"-pane-{name}")
