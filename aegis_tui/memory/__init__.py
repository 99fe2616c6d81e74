"""Memory: ggml type tables, the ledger's prediction and fit search, the whiteboard report, the proof against llama.cpp, the live gauge."""
