"""ContextCacheConfig and CacheMetadata: their checks and forms (google-adk's names)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from adk_runtime.agents import LlmAgent
from adk_runtime.agents.context_cache_config import ContextCacheConfig
from adk_runtime.apps.app import App
from adk_runtime.apps.app import ContextCacheConfig as AtTheAppsPath
from adk_runtime.models.cache_metadata import CacheMetadata
from adk_runtime.testing import ScriptedModel


def test_defaults_and_ttl_string() -> None:
    config = ContextCacheConfig()
    assert (config.cache_intervals, config.ttl_seconds, config.min_tokens) == (10, 1800, 0)
    assert ContextCacheConfig(ttl_seconds=90).ttl_string == "90s"
    assert AtTheAppsPath is ContextCacheConfig


@pytest.mark.parametrize(
    ("settings", "field"),
    [
        ({"cache_intervals": 0}, "cache_intervals"),
        ({"cache_intervals": 101}, "cache_intervals"),
        ({"ttl_seconds": 0}, "ttl_seconds"),
        ({"ttl_seconds": -5}, "ttl_seconds"),
        ({"min_tokens": -1}, "min_tokens"),
        ({"cache_interval": 3}, "cache_interval"),  # a misspelt setting is refused
    ],
)
def test_out_of_range_settings_are_refused(settings: dict[str, int], field: str) -> None:
    with pytest.raises(ValidationError, match=field):
        ContextCacheConfig.model_validate(settings)


def test_the_bounds_themselves_are_accepted() -> None:
    config = ContextCacheConfig(cache_intervals=100, ttl_seconds=1, min_tokens=0)
    assert config.cache_intervals == 100


def test_the_app_takes_the_config_and_refuses_anything_else() -> None:
    agent = LlmAgent(name="a", model=ScriptedModel(replies=[]))
    config = ContextCacheConfig(cache_intervals=3)
    assert App(name="ok", root_agent=agent, context_cache_config=config).context_cache_config == (
        config
    )
    with pytest.raises(ValidationError, match="context_cache_config"):
        App(name="ok", root_agent=agent, context_cache_config=object())


def test_str_shows_settings_but_not_http_options() -> None:
    from google.genai import types

    options = types.HttpOptions(headers={"x-goog-api-key": "SECRET"})
    text = str(ContextCacheConfig(min_tokens=5, create_http_options=options))
    assert "min_tokens=5" in text
    assert "SECRET" not in text


def test_cache_metadata_is_active_or_fingerprint_only() -> None:
    CacheMetadata(fingerprint="f", contents_count=0)
    CacheMetadata(
        cache_name="cachedContents/c",
        expire_time=10.0,
        invocations_used=1,
        fingerprint="f",
        contents_count=2,
    )
    with pytest.raises(ValidationError, match="all set"):
        CacheMetadata(cache_name="cachedContents/c", fingerprint="f", contents_count=2)
    with pytest.raises(ValidationError, match="finite"):
        CacheMetadata(
            cache_name="c",
            expire_time=float("inf"),
            invocations_used=1,
            fingerprint="f",
            contents_count=2,
        )
    with pytest.raises(ValidationError, match="contents_count"):
        CacheMetadata(fingerprint="f", contents_count=-1)
