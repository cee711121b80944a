"""Shared statistics: intervals, resampling, rank correlation. Each lives here once."""
