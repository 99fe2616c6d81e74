"""Benchmarks, one module per `aegis bench NAME`, and what they share: options, workload, stats, peers, output."""
