"""Passwords never reach a message: redaction parses URLs the way the drivers do (fuzzed)."""

from __future__ import annotations

import string

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sqlalchemy.engine import make_url

from adk_runtime.errors import AdkRuntimeError, ConfigurationError, redact_url
from adk_runtime.sessions import session_service_from_url

# Anything a user may type into a password, unencoded, except '@' (it ends the password).
_PASSWORDS = st.text(
    alphabet=st.sampled_from(sorted(set(string.printable.strip()) - {"@"})), min_size=6, max_size=24
)
_SQL_SCHEMES = ["postgresql+asyncpg", "postgresql", "postgres"]


@given(password=_PASSWORDS, scheme=st.sampled_from([*_SQL_SCHEMES, "redis", "rediss"]))
def test_a_password_with_any_characters_is_hidden(password: str, scheme: str) -> None:
    url = f"{scheme}://app:{password}@db.internal:5432/prod"
    assume(password not in f"{scheme}://app:***@db.internal:5432/prod")
    assert password not in redact_url(url)


@given(password=_PASSWORDS)
def test_redaction_hides_what_sqlalchemy_would_send_as_the_password(password: str) -> None:
    url = f"postgresql+asyncpg://app:{password}@db.internal:5432/prod"
    parsed = make_url(url)
    assume(parsed.password is not None)
    secret = str(parsed.password)
    assume(secret not in "postgresql+asyncpg://app:***@db.internal:5432/prod")
    assert secret not in redact_url(url)


@given(password=_PASSWORDS)
async def test_a_redis_url_error_names_no_password(password: str) -> None:
    url = f"redis://:{password}@db.internal:notaport/0"
    assume(password not in "redis://:***@db.internal:notaport/0")
    message = ""
    try:
        service = session_service_from_url(url)
    except AdkRuntimeError as exc:  # any other exception fails the test
        message = str(exc)
    else:
        await service.close()
    assert password not in message


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("postgresql://u:p#a/s?w@h:5432/db", "postgresql://u:***@h:5432/db"),
        ("redis://:se/cr?t@h:6379/0", "redis://:***@h:6379/0"),
        ("postgresql://u@h/db", "postgresql://u@h/db"),
        ("sqlite+aiosqlite:///data/app.db", "sqlite+aiosqlite:///data/app.db"),
        ("redis://h:6379/0?password=abc&x=1", "redis://h:6379/0?password=***&x=1"),
    ],
)
def test_known_urls(url: str, shown: str) -> None:
    assert redact_url(url) == shown


def test_an_unknown_scheme_error_hides_the_password() -> None:
    with pytest.raises(ConfigurationError) as caught:
        session_service_from_url("mysql://root:s3cr#t/x@h/db")
    assert "s3cr#t/x" not in str(caught.value)
