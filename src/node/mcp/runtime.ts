// The MCP client's heavy part (the SDK), bundled on its own as dist/mcp.js: the extension loads it only when a chat has servers to start.
export { McpHub } from './hub.js';
export { bridgeTransport } from './bridgeServer.js';
