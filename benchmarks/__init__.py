"""Benchmarks and the seeded random game player shared with the tests."""
