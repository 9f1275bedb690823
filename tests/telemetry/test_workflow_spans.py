"""Each workflow node run is an ``invoke_node`` span, nested as the runs are."""

from __future__ import annotations

from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from adk_runtime.agents import LlmAgent
from adk_runtime.runners import InMemoryRunner
from adk_runtime.testing import ScriptedModel
from adk_runtime.workflow import START, NodeContext, Workflow
from tests.workflow.helpers import message


async def test_node_runs_nest_their_spans_and_agents_spans(spans: InMemorySpanExporter) -> None:
    def prepare(node_input: object) -> str:
        return "topic"

    async def plan(ctx: NodeContext) -> str:
        return await ctx.run_node(prepare)

    writer = LlmAgent(name="writer", model=ScriptedModel(replies=["text"]))
    runner = InMemoryRunner(node=Workflow(name="flow", edges=[(START, plan, writer)]))
    session = await runner.session_service.create_session(app_name="InMemoryRunner", user_id="u")
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=message("go")):
        pass

    finished = {span.name: span for span in spans.get_finished_spans()}
    flow, plan_span = finished["invoke_node flow"], finished["invoke_node plan"]
    prepare_span, writer_node = finished["invoke_node prepare"], finished["invoke_node writer"]
    assert plan_span.parent is not None
    assert plan_span.parent.span_id == flow.context.span_id
    assert prepare_span.parent is not None
    assert prepare_span.parent.span_id == plan_span.context.span_id
    agent_span = finished["invoke_agent writer"]
    assert agent_span.parent is not None
    assert agent_span.parent.span_id == writer_node.context.span_id
    attributes = dict(prepare_span.attributes or {})
    assert attributes["gen_ai.operation.name"] == "invoke_node"
    assert attributes["adk.node.path"] == "flow@1/plan@1/prepare@1"
    assert attributes["gen_ai.conversation.id"] == session.id
