"""Modal screens: ask for a path (open a document, export folder) and show the memory ledger."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static


class PathScreen(ModalScreen[str | None]):
    """Asks for a path; Enter returns it, Escape returns None."""

    BINDINGS = [Binding("escape", "dismiss_none", "Cancel")]

    def __init__(self, title: str, value: str = "", placeholder: str = "path") -> None:
        super().__init__()
        self.title_text = title
        self.value = value
        self.placeholder = placeholder

    def compose(self) -> ComposeResult:
        with Vertical(id="path-dialog", classes="dialog"):
            yield Label(self.title_text, classes="dialog-title")
            yield Input(self.value, placeholder=self.placeholder, id="path-input")
            yield Label("Enter to confirm · Esc to cancel", classes="dialog-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value.strip() or None)

    def action_dismiss_none(self) -> None:
        self.dismiss(None)


class LedgerScreen(ModalScreen[None]):
    """The memory ledger of the loaded model and config, as `aegis ledger` prints it."""

    BINDINGS = [Binding("escape,q,ctrl+l", "dismiss_none", "Close")]

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> ComposeResult:
        with Vertical(id="ledger-dialog", classes="dialog"):
            yield Label("Memory ledger (predicted from the GGUF metadata)", classes="dialog-title")
            with VerticalScroll():
                yield Static(self.text, id="ledger-text", markup=False)
            yield Label("Esc to close", classes="dialog-hint")

    def action_dismiss_none(self) -> None:
        self.dismiss(None)
