"""A store URL with a misspelt or unknown option: one line naming it, for every command."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_cli import assert_one_line_error
from tests.serving import run_cli
from tests.stores import POSTGRES_URL, REDIS_URL


@pytest.mark.parametrize(
    ("url", "fragments"),
    [
        (f"{REDIS_URL}?keyprefix=x", ("'keyprefix'", "Did you mean 'key_prefix'?")),
        (f"{POSTGRES_URL}?pool_sise=5", ("'pool_sise'", "Did you mean 'pool_size'?")),
        ("sqlite+aiosqlite:///{tmp}/s.db?cache_byte=5", ("'cache_byte'", "'cache_bytes'")),
        ("sqlite+aiosqlite://relative.db", ("names a host", "'sqlite+aiosqlite:///relative.db'")),
    ],
)
@pytest.mark.parametrize(
    "command",
    [
        ("sessions", "list", "--app", "a", "--url"),
        ("sessions", "interrupted", "--app", "a", "--url"),
        ("chat", "--agent", "tests.server.agent:root_agent", "--url"),
    ],
    ids=["sessions-list", "sessions-interrupted", "chat"],
)
def test_a_bad_url_option_is_one_line(
    tmp_path: Path, url: str, fragments: tuple[str, ...], command: tuple[str, ...]
) -> None:
    result = run_cli(*command, url.format(tmp=tmp_path), stdin="hello\n")
    assert_one_line_error(result, *fragments)


def test_a_bad_artifact_url_option_is_one_line(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path}/s.db"
    result = run_cli(
        "sessions", "delete", "s", "--url", url, "--app", "a", "--user", "u", "--yes",
        "--artifact-url", f"{tmp_path.as_uri()}?mod=ro",
    )  # fmt: skip
    assert_one_line_error(result, "Unknown option 'mod' in the file:// URL")


@pytest.mark.sqlite
def test_session_options_on_the_session_url_stay_with_the_sessions(tmp_path: Path) -> None:
    # The artifacts default to the session database, and `db` reads the session URL: the
    # session service's own options are not theirs, and do not trouble them.
    url = f"sqlite+aiosqlite:///{tmp_path}/s.db?cache_bytes=1000000&ttl_seconds=86400"
    upgraded = run_cli("db", "upgrade", "--url", url)
    assert upgraded.returncode == 0, upgraded.stderr
    checked = run_cli("db", "check", "--url", url)
    assert checked.returncode == 0, checked.stderr
    deleted = run_cli(
        "sessions", "delete", "nope", "--url", url, "--app", "a", "--user", "u", "--yes"
    )
    assert_one_line_error(deleted, "No session 'nope'")
