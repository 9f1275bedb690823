"""Headless Chromium drives google-adk's web UI served by ``adk-runtime serve --dev-ui``.

Needs Debian's ``chromium`` and ``chromium-driver`` (``make system-deps`` installs them);
screenshots go to ``$ADK_RUNTIME_TEST_ARTIFACTS`` (default: the test's tmp_path).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.serving import running_server

APP = "echo_app"


def _artifacts(tmp_path: Path) -> Path:
    where = Path(os.environ.get("ADK_RUNTIME_TEST_ARTIFACTS", tmp_path)) / "dev-ui"
    where.mkdir(parents=True, exist_ok=True)
    return where


@pytest.fixture
def browser() -> Iterator[WebDriver]:
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert chromium, "install Debian's chromium (make system-deps)"
    assert driver_path, "install Debian's chromium-driver (make system-deps)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--window-size=1400,900")
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _wait_text(driver: WebDriver, text: str, timeout: float = 20) -> None:
    WebDriverWait(driver, timeout).until(lambda d: text in d.find_element(By.TAG_NAME, "body").text)


@pytest.mark.browser
@pytest.mark.sqlite
def test_dev_ui_chat_state_and_reload(browser: WebDriver, tmp_path: Path) -> None:
    shots = _artifacts(tmp_path)
    url = f"sqlite+aiosqlite:///{tmp_path / 'ui.db'}"
    with running_server(
        "--agent", "tests.server.agent:root_agent", "--url", url, "--dev-ui"
    ) as base:
        browser.get(f"{base}/dev-ui/?app={APP}")
        box = WebDriverWait(browser, 30).until(
            lambda d: d.find_element(By.CSS_SELECTOR, "textarea")
        )
        browser.save_screenshot(str(shots / "1-loaded.png"))
        box.send_keys("hello durable world")
        box.send_keys(Keys.ENTER)
        _wait_text(browser, "echo: hello durable world")
        browser.save_screenshot(str(shots / "2-reply.png"))

        sessions = httpx.get(f"{base}/apps/{APP}/users/user/sessions", timeout=10).json()
        assert len(sessions) == 1
        session_id = sessions[0]["id"]
        stored = httpx.get(f"{base}/apps/{APP}/users/user/sessions/{session_id}", timeout=10).json()
        assert stored["state"]["turns"] == 1
        assert [e["author"] for e in stored["events"]] == ["user", "echo_app"]

        browser.find_element(By.XPATH, "//*[normalize-space(text())='State']").click()
        _wait_text(browser, "turns")
        browser.save_screenshot(str(shots / "3-state.png"))

        browser.get(f"{base}/dev-ui/?app={APP}&session={session_id}")  # a reload: from storage
        _wait_text(browser, "echo: hello durable world")
        _wait_text(browser, "hello durable world")
        browser.save_screenshot(str(shots / "4-reloaded.png"))
