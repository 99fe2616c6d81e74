"""The in-process inference engine: one llama.cpp context, n_parallel slots, continuous batching."""
