"""Benchmarks and evaluation harnesses."""
