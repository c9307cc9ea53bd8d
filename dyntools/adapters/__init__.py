"""Adapters: dyntools behind the tool interfaces agents already use.

    from dyntools.adapters import tools_for_anthropic, dispatch_tool_uses   # Anthropic tool use
    from dyntools.adapters import tools_for_openai, dispatch_openai_tool_calls  # OpenAI
    from dyntools.adapters.mcp_server import McpToolServer, serve_stdio     # MCP (imports mcp)

The MCP server is not imported here, so Anthropic users do not pay for the `mcp` package.
"""

from __future__ import annotations

from dyntools.adapters.anthropic_tools import (
    dispatch_tool_uses,
    tool_result,
    tool_use_blocks,
    tools_for_anthropic,
)
from dyntools.adapters.openai_tools import dispatch_openai_tool_calls, tools_for_openai
from dyntools.adapters.results import error_payload

__all__ = [
    "dispatch_openai_tool_calls",
    "dispatch_tool_uses",
    "error_payload",
    "tool_result",
    "tool_use_blocks",
    "tools_for_anthropic",
    "tools_for_openai",
]
