"""google-adk's older import path of the environment tools (one module each now)."""

from adk_runtime.tools.environment._edit_file_tool import EditFileTool
from adk_runtime.tools.environment._execute_tool import ExecuteTool
from adk_runtime.tools.environment._read_file_tool import ReadFileTool
from adk_runtime.tools.environment._write_file_tool import WriteFileTool

__all__ = ["EditFileTool", "ExecuteTool", "ReadFileTool", "WriteFileTool"]
