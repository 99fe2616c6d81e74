"""The answer pane: the realized two-stage answer with state and timings, and the prose baseline beside it."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Static

from ..answer.states import State
from .runs import RunState

STATE_STYLE = {State.DONE: "bold green", State.FALLBACK: "bold yellow", State.CANCELLED: "bold magenta",
               RunState.FAILED: "bold red"}


def _secs(v) -> str:
    return "n/a" if v is None else f"{v:.2f} s"


def answer_text(run, mode: str) -> Text:
    """One column: state line, timings and the text (or live progress while it runs)."""
    t = Text()
    state = run.state.get(mode, "")
    title = "Two-stage (verified)" if mode == "two-stage" else "Baseline (prose, not verified)"
    t.append(f"{title}  ", style="bold")
    t.append(state, style=STATE_STYLE.get(state, "bold cyan"))
    ans = run.answers.get(mode)
    if mode in run.errors:
        t.append(f"\n{run.errors[mode]}", style="red")
        return t
    if ans is None:
        t.append(f"  · {run.tokens.get(mode, 0)} tokens · {run.elapsed():.1f} s\n", style="dim")
        t.append(run.detail.get(mode, ""), style="italic")
        return t
    tm = ans.timings
    t.append(f"  · attempts {ans.attempts} · TTFT {_secs(tm.get('ttft_s'))} · E2E {_secs(tm.get('e2e_s'))}",
             style="dim")
    if mode == "two-stage":
        t.append(f" · {ans.verified_count} verified, {len(ans.rejected)} dropped", style="dim")
    t.append("\n")
    t.append(ans.answer or "(no answer)")
    numbers = getattr(ans, "unsupported_numbers", None)
    if mode == "baseline" and numbers:
        t.append(f"\n⚠ not in the document: {', '.join(numbers)}", style="bold red")
    if ans.error:
        t.append(f"\n{ans.error}", style="red")
    return t


class AnswerPane(Horizontal):
    """Two columns: the two-stage answer, and (in baseline mode) the prose answer for comparison."""

    def compose(self) -> ComposeResult:
        yield Static("No question asked yet. Type one below and press Enter.", id="answer-main")
        base = Static("", id="answer-baseline")
        base.display = False
        yield base

    def show(self, run, baseline_visible: bool) -> None:
        main = self.query_one("#answer-main", Static)
        base = self.query_one("#answer-baseline", Static)
        base.display = baseline_visible
        if run is None:
            main.update("No question asked yet. Type one below and press Enter.")
            base.update("Baseline mode: the next question is also answered as free prose.")
            return
        main.update(answer_text(run, run.main_mode))
        if "baseline" in run.modes:
            base.update(answer_text(run, "baseline"))
        else:
            base.update(Text("Baseline (prose): not asked for this question; toggle baseline mode and ask again.",
                             style="dim"))
