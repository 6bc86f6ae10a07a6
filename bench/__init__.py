"""Benchmarks: each prints its figures, compares with a named baseline in the same
run, and records a section of bench/RESULTS.md."""
