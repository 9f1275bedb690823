"""google-adk's path; the name lives in :mod:`adk_runtime.models._cache_performance_analyzer`."""

from adk_runtime.models._cache_performance_analyzer import CachePerformanceAnalyzer

__all__ = ["CachePerformanceAnalyzer"]
