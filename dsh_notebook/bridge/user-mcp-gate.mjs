// dsh-notebook: the approval gate of the person's own MCP servers (DeepSeek Harness 0.2.1-rc.2).
//
// Inserted by the patch that mounts those servers (dsh_notebook/notebook_tools/patch.py,
// write_user_patch). The runtime asks for no tool by itself, so every call of a tool of one of
// those servers (`mcp__<server>__<tool>`) answers the `tools/pre-execute` waterfall with
// `{kind: 'ask'}`: the runtime's approval service then asks its `approval/request` answerers
// (the notebook bridge: a card in the notebook), and without one, or under approval policy
// `never`, the call is denied before the server sees it. Tools the person listed in the
// server's `autoApprove` pass without asking. Other tools are not looked at.
//
// Their results pass `tools/post-execute`: each text block has every value of the person's
// `secrets` (their servers' env and header values) replaced by `[masked: <label>]` before the
// model, the session log or the SDK wire see it.
//
// config: {servers: {<server>: [<auto-approved tool>, ...]}, secrets: [[<value>, <label>], ...]}
// Only Node built-ins; never writes to stdout.

export const name = 'dsh-notebook-user-mcp-gate';

const REASON_ARGUMENTS_MAX = 400;

function argumentsText(value) {
  let text;
  try {
    text = JSON.stringify(value ?? {});
  } catch {
    text = '{}';
  }
  if (typeof text !== 'string') text = '{}';
  return text.length > REASON_ARGUMENTS_MAX ? `${text.slice(0, REASON_ARGUMENTS_MAX)}…` : text;
}

function maskText(text, secrets) {
  let out = text;
  for (const [value, label] of secrets) {
    if (out.includes(value)) out = out.split(value).join(`[masked: ${label}]`);
  }
  return out;
}

function maskContent(content, secrets) {
  let changed = false;
  const masked = content.map((block) => {
    if (!block || block.type !== 'text' || typeof block.text !== 'string') return block;
    const text = maskText(block.text, secrets);
    if (text === block.text) return block;
    changed = true;
    return { ...block, text };
  });
  return changed ? masked : undefined;
}

function serverOf(servers, full) {
  for (const [server, approved] of servers) {
    const prefix = `mcp__${server}__`;
    if (full.startsWith(prefix)) return { server, tool: full.slice(prefix.length), approved };
  }
  return undefined;
}

export function apply(ctx, config) {
  const servers = new Map();
  const table = config && typeof config.servers === 'object' && config.servers ? config.servers : {};
  for (const [server, approved] of Object.entries(table)) {
    servers.set(server, new Set(Array.isArray(approved) ? approved.map(String) : []));
  }
  const secrets = (Array.isArray(config?.secrets) ? config.secrets : [])
    .filter((pair) => Array.isArray(pair) && typeof pair[0] === 'string' && pair[0].length > 0)
    .map(([value, label]) => [value, String(label)])
    .sort((a, b) => b[0].length - a[0].length); // a longer value first: it may hold a shorter
  ctx.on('tools/pre-execute', async (exec, next) => {
    const found = serverOf(servers, typeof exec?.name === 'string' ? exec.name : '');
    if (found === undefined || found.approved.has(found.tool)) return next();
    return {
      kind: 'ask',
      reason: `your MCP server ${found.server}: ${argumentsText(exec.arguments)}`,
    };
  });
  ctx.on('tools/post-execute', async (exec, result, next) => {
    const downstream = await next();
    if (secrets.length === 0 || downstream?.kind !== 'accept') return downstream;
    if (Object.hasOwn(downstream, 'value')) return downstream;
    if (serverOf(servers, typeof exec?.name === 'string' ? exec.name : '') === undefined) {
      return downstream;
    }
    const content = Array.isArray(downstream.content) ? downstream.content : result?.content;
    const masked = Array.isArray(content) ? maskContent(content, secrets) : undefined;
    return masked === undefined ? downstream : { ...downstream, content: masked };
  });
}
