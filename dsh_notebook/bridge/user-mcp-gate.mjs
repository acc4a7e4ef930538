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
// Their results pass `tools/post-execute`: in each text block every value of the person's
// `secrets` (their servers' env and header values), and every piece of one `fragment`
// characters or longer (the kernel's rule), reads `[masked: <label>]` before the model, the
// session log or the SDK wire see it.
//
// config: {servers: {<server>: [<auto-approved tool>, ...]}, secrets: [[<value>, <label>], ...],
//          fragment: <characters>}
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

function fragmentTable(secrets, fragment) {
  // every piece of `fragment` characters of every value -> [value, label]
  const grams = new Map();
  if (!(fragment > 0)) return grams;
  for (const [value, label] of secrets) {
    for (let i = 0; i + fragment <= value.length; i += 1) {
      const gram = value.slice(i, i + fragment);
      if (!grams.has(gram)) grams.set(gram, [value, label]);
    }
  }
  return grams;
}

function maskText(text, secrets, grams, fragment) {
  let out = text;
  for (const [value, label] of secrets) {
    if (out.includes(value)) out = out.split(value).join(`[masked: ${label}]`);
  }
  if (grams.size === 0 || out.length < fragment) return out;
  // the kernel's fragment rule: a piece of a value `fragment` characters or longer is masked
  let masked = '';
  let last = 0;
  let i = 0;
  while (i + fragment <= out.length) {
    const hit = grams.get(out.slice(i, i + fragment));
    if (hit === undefined) {
      i += 1;
      continue;
    }
    const [value, label] = hit;
    let end = i + fragment;
    while (end < out.length && value.includes(out.slice(i, end + 1))) end += 1;
    masked += `${out.slice(last, i)}[masked: ${label}]`;
    i = end;
    last = end;
  }
  return last === 0 ? out : masked + out.slice(last);
}

function maskContent(content, mask) {
  let changed = false;
  const masked = content.map((block) => {
    if (!block || block.type !== 'text' || typeof block.text !== 'string') return block;
    const text = mask(block.text);
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
  const fragment = Number.isInteger(config?.fragment) ? config.fragment : 0;
  const grams = fragmentTable(secrets, fragment);
  const mask = (text) => maskText(text, secrets, grams, fragment);
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
    const masked = Array.isArray(content) ? maskContent(content, mask) : undefined;
    return masked === undefined ? downstream : { ...downstream, content: masked };
  });
}
