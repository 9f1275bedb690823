"""``adk-runtime chat`` on a real pseudo-terminal: Ctrl-C, Ctrl-D and a failing turn."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.cli.terminal import Terminal

PROMPT = "you   > "


@pytest.fixture
def chat() -> Iterator[Terminal]:
    terminal = Terminal(
        "chat", "--agent", "tests.server.agent:root_agent", "--session-url", "memory://"
    )
    try:
        yield terminal
    finally:
        terminal.close()


def test_one_ctrl_c_at_the_prompt_ends_the_chat(chat: Terminal) -> None:
    chat.expect(PROMPT)
    chat.send("\x03")
    assert chat.wait() == 130
    assert "Interrupted" in chat.output
    assert "Traceback" not in chat.output


def test_one_ctrl_c_during_a_turn_ends_the_chat(chat: Terminal) -> None:
    chat.expect(PROMPT)
    chat.send("slow 50\r")
    chat.expect("step 1")
    chat.send("\x03")
    assert chat.wait() == 130
    assert "Traceback" not in chat.output


def test_ctrl_d_leaves_the_prompt_line(chat: Terminal) -> None:
    chat.expect(PROMPT)
    chat.send("\x04")
    assert chat.wait() == 0
    assert chat.output.endswith(PROMPT + "\r\n")  # the shell's prompt starts on a new line


def test_a_failing_turn_is_reported_and_the_chat_goes_on(chat: Terminal) -> None:
    end = chat.expect(PROMPT)
    chat.send("fail\r")
    end = chat.expect("Error: The agent failed: RuntimeError: the agent broke", after=end)
    end = chat.expect(PROMPT, after=end)
    chat.send("hello\r")
    chat.expect("agent > echo: hello", after=end)
    chat.send("exit\r")
    assert chat.wait() == 0
    assert "Traceback" not in chat.output
