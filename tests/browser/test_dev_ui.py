"""Headless Chromium drives google-adk's web UI served by ``adk-runtime serve --dev-ui``.

Needs Debian's ``chromium`` and ``chromium-driver`` (``make system-deps`` installs them);
screenshots go to ``$ADK_RUNTIME_TEST_ARTIFACTS/dev-ui`` (default: the test's tmp_path).
The served agents: ``tests/browser/agent.py`` streams its reply in chunks 0.4 s apart;
``tests/browser/model_agent.py`` is an LlmAgent whose scripted model calls a tool.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from selenium import webdriver
from selenium.common.exceptions import (
    ElementClickInterceptedException,
    StaleElementReferenceException,
)
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.chromium.webdriver import ChromiumDriver
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from tests.serving import running_server

APP = "ui_app"
AGENT = "tests.browser.agent:root_agent"
MODEL_APP = "model_app"
MODEL_AGENT = "tests.browser.model_agent:root_agent"


def _artifacts(tmp_path: Path) -> Path:
    where = Path(os.environ.get("ADK_RUNTIME_TEST_ARTIFACTS", tmp_path)) / "dev-ui"
    where.mkdir(parents=True, exist_ok=True)
    return where


@pytest.fixture
def browser() -> Iterator[ChromiumDriver]:
    chromium = shutil.which("chromium")
    driver_path = shutil.which("chromedriver")
    assert chromium, "install Debian's chromium (make system-deps)"
    assert driver_path, "install Debian's chromium-driver (make system-deps)"
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--window-size=1400,900")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})  # the console
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _body(driver: WebDriver) -> str:
    return driver.find_element(By.TAG_NAME, "body").text


def _wait(driver: WebDriver, check: Callable[[str], bool], timeout: float = 20) -> None:
    WebDriverWait(driver, timeout, poll_frequency=0.05).until(lambda d: check(_body(d)))


def _click(driver: WebDriver, by: str, selector: str, timeout: float = 10) -> None:
    """Click once the element takes the click (menus and dialogs animate in and out)."""

    def clicked(d: WebDriver) -> bool:
        try:
            d.find_element(by, selector).click()
        except (ElementClickInterceptedException, StaleElementReferenceException):
            return False
        return True

    WebDriverWait(driver, timeout, poll_frequency=0.1).until(clicked)


def _click_text(driver: WebDriver, text: str) -> None:
    _click(driver, By.XPATH, f"//*[normalize-space(text())='{text}']")


def _send(driver: WebDriver, text: str) -> None:
    box = WebDriverWait(driver, 30).until(lambda d: d.find_element(By.CSS_SELECTOR, "textarea"))
    box.send_keys(text)
    box.send_keys(Keys.ENTER)


def _watch_stream(driver: WebDriver, final: str, timeout: float = 20) -> bool:
    """Wait for ``final``; True if a partial reply was on screen before it."""
    saw_partial = False
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        body = _body(driver)
        if final in body:
            return saw_partial
        saw_partial = saw_partial or "Streamed" in body
        time.sleep(0.05)
    raise AssertionError(f"{final!r} never appeared")


@pytest.mark.browser
@pytest.mark.sqlite
def test_dev_ui_chat_stream_state_artifacts_traces_reload_delete(
    browser: ChromiumDriver, tmp_path: Path
) -> None:
    shots = _artifacts(tmp_path)
    url = f"sqlite+aiosqlite:///{tmp_path / 'ui.db'}"
    origin = "http://ui.example:4200"
    serve = ("--agent", AGENT, "--url", url, "--dev-ui", "--allow-origins", origin)
    with running_server(*serve) as base:
        preflight = httpx.options(
            f"{base}/run_sse",
            headers={"Origin": origin, "Access-Control-Request-Method": "POST"},
            timeout=10,
        )
        assert preflight.headers["access-control-allow-origin"] == origin
        browser.get(f"{base}/dev-ui/?app={APP}")
        _send(browser, "first message")  # typed before streaming is on: a whole reply
        _wait(browser, lambda body: "Streamed reply number 1" in body)
        browser.save_screenshot(str(shots / "1-first-reply.png"))

        _click(browser, By.CSS_SELECTOR, "button[aria-label='More options']")
        _click_text(browser, "Streaming")
        browser.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)
        _send(browser, "second message")
        assert _watch_stream(browser, "Streamed reply number 2"), "no partial reply was shown"
        browser.save_screenshot(str(shots / "2-streamed-reply.png"))

        sessions = httpx.get(f"{base}/apps/{APP}/users/user/sessions", timeout=10).json()
        assert len(sessions) == 1
        session_id = sessions[0]["id"]
        stored = httpx.get(f"{base}/apps/{APP}/users/user/sessions/{session_id}", timeout=10)
        assert stored.json()["state"]["turns"] == 2

        _click_text(browser, "State")
        _wait(browser, lambda body: "last_message" in body and "second message" in body)
        browser.save_screenshot(str(shots / "3-state.png"))
        _click_text(browser, "Artifacts")
        _wait(browser, lambda body: "note.txt" in body)
        browser.save_screenshot(str(shots / "4-artifacts.png"))
        _click(browser, By.XPATH, "//button[normalize-space(.)='Traces']")
        _wait(browser, lambda body: "session_store.append" in body and "Total latency" in body)
        browser.save_screenshot(str(shots / "5-traces.png"))
        assert _console_errors(browser, base) == []  # every route the UI asked answered

        # A reload: the conversation is rebuilt from the SQLite file (the UI keeps the Traces
        # view across reloads; its traces are answered again, then back to the events).
        browser.get(f"{base}/dev-ui/?app={APP}&session={session_id}")
        _wait(browser, lambda body: "first message" in body and "Total latency" in body)
        _click(browser, By.XPATH, "//button[normalize-space(.)='Events']")
        _wait(browser, lambda body: "first message" in body and "Streamed reply number 2" in body)
        browser.save_screenshot(str(shots / "6-reloaded.png"))

        # The session picker lists it; Delete removes it from the store.
        _click(browser, By.CSS_SELECTOR, "[mattooltip='Select a session']")
        _wait(browser, lambda body: "Select a Session" in body and session_id in body)
        _click_text(browser, "Delete")
        confirm = "//mat-dialog-container//button[normalize-space(.)!=''][last()]"
        WebDriverWait(browser, 10).until(lambda d: d.find_element(By.XPATH, confirm))
        browser.save_screenshot(str(shots / "7-delete.png"))
        _click(browser, By.XPATH, confirm)
        WebDriverWait(browser, 10).until(
            lambda d: httpx.get(f"{base}/apps/{APP}/users/user/sessions", timeout=10).json() == []
        )


def _graph_titles(driver: WebDriver) -> set[str]:
    """The titles in the rendered graph SVGs (graphviz titles each edge ``a->b``)."""
    titles = driver.find_elements(By.XPATH, "//*[local-name()='svg']//*[local-name()='title']")
    return {str(title.get_attribute("textContent")) for title in titles}


def _console_errors(driver: ChromiumDriver, base: str) -> list[str]:
    """The console's errors about this server: its answers and the UI's own code.

    (The UI's web fonts come from fonts.gstatic.com, out of reach of a test machine.)
    """
    entries: list[dict[str, Any]] = driver.get_log("browser")  # type: ignore[no-untyped-call]
    return [e["message"] for e in entries if e["level"] == "SEVERE" and base in e["message"]]


@pytest.mark.browser
def test_dev_ui_with_a_model_graph_calls_and_traces(
    browser: ChromiumDriver, tmp_path: Path
) -> None:
    shots = _artifacts(tmp_path)
    with running_server("--agent", MODEL_AGENT, "--url", "memory://", "--dev-ui") as base:
        browser.get(f"{base}/dev-ui/?app={MODEL_APP}")
        _send(browser, "weather in paris")
        _wait(browser, lambda body: "The answer is found weather in paris." in body)
        # "Turn complete" on the answer only, not on the call for the tool before it
        assert _body(browser).lower().count("turn complete") == 1
        # The agent graph: the sub-agent's edge and the tool's (build_graph_image's DOT)
        wanted = {"model_app->helper", "model_app->lookup"}
        WebDriverWait(browser, 20).until(lambda d: wanted <= _graph_titles(d))
        browser.save_screenshot(str(shots / "m1-answer-and-graph.png"))

        # The model call that asked for the tool: its request and response
        _click(browser, By.XPATH, "//*[contains(text(), 'lookup(\"weather in paris\")')]")
        _click(browser, By.XPATH, "//button[.//mat-icon[normalize-space(text())='input']]")
        _wait(
            browser, lambda body: "system_instruction" in body and "function_declarations" in body
        )
        browser.save_screenshot(str(shots / "m2-request.png"))
        _click(browser, By.XPATH, "//button[.//mat-icon[normalize-space(text())='output']]")
        _wait(browser, lambda body: "function_call" in body and "call-" in body)
        browser.save_screenshot(str(shots / "m3-response.png"))

        # Traces: the spans of the turn, the model calls and the tool call among them
        _click(browser, By.XPATH, "//button[normalize-space(.)='Traces']")
        _wait(browser, lambda body: "Total latency" in body and "generate_content" in body)
        assert "session_store.append" in _body(browser)
        browser.save_screenshot(str(shots / "m4-traces.png"))
        assert _console_errors(browser, base) == []
