"""The command palette's Aegis commands (Textual command provider): every action the footer offers, and more."""

from __future__ import annotations

from textual.command import DiscoveryHit, Hit, Hits, Provider

# (title, help, app action)
COMMANDS = [
    ("Open document…", "Load another .txt/.md document (UTF-8 or GB18030)", "open"),
    ("Open the bundled Chinese sample", "policy_zh.txt, the medical-insurance policy", "open_sample('policy_zh')"),
    ("Open the bundled English sample", "policy_en.txt, the travel policy", "open_sample('policy_en')"),
    ("Ask the question", "Ask what the question box holds", "ask"),
    ("Cancel the current question", "Stop its requests; their slots are freed", "cancel"),
    ("Toggle baseline mode", "Also answer as free prose, shown beside the verified answer", "toggle_baseline"),
    ("Export the report", "Write aegis-report-<n>.json and .md to the export folder", "export"),
    ("Export the report to…", "Choose the folder, then write JSON and Markdown", "export_to"),
    ("Copy the answer", "Copy the realized answer to the clipboard", "copy_answer"),
    ("Show the memory ledger", "Predicted weights, KV cache and buffers for this model and config", "ledger"),
    ("Next question", "Show the next asked question's report", "next_question"),
    ("Show the facts", "The document's verified fact table, filterable (strategy index)", "facts"),
    ("Export the facts as CSV", "Write <document>.facts.csv (every verified fact) to the export folder",
     "export_facts"),
]


class AegisCommands(Provider):
    """Aegis actions for the command palette (Ctrl+P)."""

    async def discover(self) -> Hits:
        for title, help_text, action in COMMANDS:
            yield DiscoveryHit(title, self._runner(action), help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for title, help_text, action in COMMANDS:
            score = matcher.match(title)
            if score > 0:
                yield Hit(score, matcher.highlight(title), self._runner(action), help=help_text)

    def _runner(self, action: str):
        async def run() -> None:
            await self.app.run_action(action)

        return run
