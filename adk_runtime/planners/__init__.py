"""Planners: how an LLM agent plans before it acts (``google.adk.planners``)."""

from adk_runtime.planners.base_planner import BasePlanner
from adk_runtime.planners.built_in_planner import BuiltInPlanner
from adk_runtime.planners.plan_re_act_planner import PlanReActPlanner

__all__ = ["BasePlanner", "BuiltInPlanner", "PlanReActPlanner"]
