// A few lines that call Trailblaze back from a tool handler: the callback API is JSON-RPC over
// HTTP (README, "MCP toolsets"). The request's _meta says where, with which token, and which
// tool call (so which device) the command belongs to.

let nextId = 0;

export async function callTrailblaze(extra, method, params = {}) {
  const meta = extra?._meta ?? {};
  const context = meta.trailblaze ?? {};
  const url = context.baseUrl ?? process.env.TRAILBLAZE_CALLBACK_URL;
  const token = context.token ?? process.env.TRAILBLAZE_CALLBACK_TOKEN;
  const response = await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${token}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: ++nextId,
      method,
      params: { ...params, _meta: { trailblazeInvocationId: meta.trailblazeInvocationId } },
    }),
  });
  const message = await response.json();
  if (message.error) {
    throw new Error(`${method}: ${message.error.message}`);
  }
  return message.result;
}

// A delegating tool's result: Trailblaze runs (and records) these calls in order.
export function delegate(calls) {
  const delegates = calls.map(([tool, args = {}]) => ({ tool, args }));
  return {
    content: [{ type: "text", text: JSON.stringify({ _trailblaze_delegates: delegates }) }],
    structuredContent: { _trailblaze_delegates: delegates },
  };
}
