"""Benchmarks; shared helpers for timing, tables and output files."""
