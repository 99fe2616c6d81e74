"""The Textual terminal UI (imports textual; the core modules never import this package)."""

from .app import AegisApp

__all__ = ["AegisApp"]
