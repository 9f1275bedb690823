"""A google-adk Runner process on a durable store: ``python -m tests.integrations.adk_worker``.

Arguments: ``URI SESSION_ID TEXT...`` (artifacts: ``ADK_TEST_ARTIFACT_URI``). Runs one turn
per TEXT with google-adk's Runner over :class:`DurableSessionService`; a turn refused as
stale (another process wrote first) is run again. Prints one JSON line: the ids of every
event the Runner yielded, the final reply texts, and how many turns were refused.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

from google.adk.errors import StaleSessionError
from google.adk.runners import Runner

from adk_runtime.integrations.google_adk import DurableArtifactService, DurableSessionService
from tests.integrations.adk_agent import root_agent
from tests.integrations.support import APP, message


async def main(uri: str, session_id: str, texts: list[str]) -> dict[str, Any]:
    sessions = DurableSessionService(uri)
    artifacts = DurableArtifactService(os.environ["ADK_TEST_ARTIFACT_URI"])
    runner = Runner(
        app_name=APP, agent=root_agent, session_service=sessions, artifact_service=artifacts
    )
    report: dict[str, Any] = {"yielded": [], "replies": [], "stale": 0}
    try:
        for text in texts:
            while True:
                try:
                    async for event in runner.run_async(
                        user_id="u", session_id=session_id, new_message=message(text)
                    ):
                        if not event.partial:
                            report["yielded"].append(event.id)
                        if event.is_final_response() and event.content and event.content.parts:
                            report["replies"].append(event.content.parts[0].text)
                    break
                except StaleSessionError:
                    report["stale"] += 1
    finally:
        await sessions.close()
        await artifacts.close()
    return report


if __name__ == "__main__":
    uri, session_id, *texts = sys.argv[1:]
    print(json.dumps(asyncio.run(main(uri, session_id, texts))))
