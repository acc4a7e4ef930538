// dsh-notebook bridge: an in-runtime plugin for DeepSeek Harness 0.2.1-rc.2 (`dsh --profile sdk`).
//
// Loaded with `--patch <dir>/notebook-bridge.patch.yml`. It shares the SDK server's stdio wire:
//   * server -> client REQUESTS `approval/request` and `user-question/ask` (ids "dshnb-<n>"),
//     answered by the client with ordinary JSON-RPC responses on stdin;
//   * notifications `approval/cancelled`, `user-question.cancelled`, `session.assistant_stream`
//     and the one-shot announcement `dsh_notebook/bridge.ready`.
// The wire contract is documented in README.md next to this file.
//
// Rules this module keeps:
//   * stdout receives only whole JSON-RPC frames, each in a single write of JSON + "\n" (the
//     SDK server writes the same way, and Node runs both on one thread, so lines never interleave);
//   * diagnostics go to stderr, prefixed "dsh-notebook-bridge:";
//   * an approval is granted only by an exact {"outcome":"allowed-once"} result; every failure
//     (error response, malformed result, timeout, stdin closed, disposal) rejects.
//
// Only Node built-ins are used, so the module loads from any path.

import { StringDecoder } from 'node:string_decoder';

export const name = 'dsh-notebook-bridge';

/** Version of the wire contract described in README.md. Bumped on incompatible changes. */
const BRIDGE_PROTOCOL_VERSION = 1;
const ID_PREFIX = 'dshnb-';
const LOG_PREFIX = 'dsh-notebook-bridge:';
const ACTIVE_KEY = Symbol.for('dsh-notebook-bridge.active');
const APPROVAL_OUTCOMES = new Set(['allowed-once', 'rejected', 'cancelled']);
const MERGEABLE_CHUNKS = new Set(['text-delta', 'reasoning-delta']);
const MAX_TIMER_SECONDS = 2_147_483; // setTimeout limit (2^31-1 ms), as the runtime uses

function log(message) {
  try {
    process.stderr.write(`${LOG_PREFIX} ${message}\n`);
  } catch {
    // stderr gone: nothing else to do
  }
}

function isPlainObject(value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function toBoolean(value, fallback) {
  if (value === undefined || value === null || value === '') return fallback;
  if (typeof value === 'boolean') return value;
  if (typeof value === 'number') return value !== 0;
  const text = String(value).trim().toLowerCase();
  if (['0', 'false', 'no', 'off'].includes(text)) return false;
  if (['1', 'true', 'yes', 'on'].includes(text)) return true;
  return fallback;
}

function toSeconds(value, fallback) {
  if (value === undefined || value === null || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) return fallback;
  return Math.min(number, MAX_TIMER_SECONDS);
}

function toMillis(value, fallback, max) {
  if (value === undefined || value === null || value === '') return fallback;
  const number = Number(value);
  if (!Number.isFinite(number) || number < 0) return fallback;
  return Math.min(Math.floor(number), max);
}

/** Normalised plugin config. Every knob also tolerates strings (patch `!!js` env reads). */
function readConfig(raw) {
  const config = isPlainObject(raw) ? raw : {};
  return {
    approvals: toBoolean(config.approvals, true),
    questions: toBoolean(config.questions, true),
    stream: toBoolean(config.stream, true),
    approvalTimeout: toSeconds(config.approvalTimeout, 0),
    streamCoalesceMs: toMillis(config.streamCoalesceMs, 0, 1000),
    debug: toBoolean(config.debug, false),
  };
}

/** Error shaped so the runtime's user-questions service restores it as a UserQuestionError. */
function questionError(code, message, cause) {
  const error = new Error(message, cause === undefined ? undefined : { cause });
  error.name = 'UserQuestionError';
  error.code = code;
  return error;
}

/** Deep copy through JSON so the client sees plain data (drops functions/undefined). */
function jsonCopy(value) {
  return JSON.parse(JSON.stringify(value));
}

/**
 * Validate a `user-question/ask` result against the asked questions.
 * @returns {{answers: object[]} | {cancelled: true} | {error: string}}
 */
function validateQuestionResult(result, questions) {
  if (!isPlainObject(result)) return { error: 'the answer is not an object' };
  const keys = Object.keys(result);
  if ('cancelled' in result) {
    if (keys.length === 1 && result.cancelled === true) return { cancelled: true };
    return { error: 'a dismissal must be exactly {"cancelled": true}' };
  }
  if (!Array.isArray(result.answers)) return { error: 'the answer has no "answers" array' };
  const expected = new Set(questions.map((question) => question.id));
  const seen = new Set();
  const answers = [];
  for (const item of result.answers) {
    if (!isPlainObject(item)) return { error: 'an answer item is not an object' };
    if (typeof item.id !== 'string') return { error: 'an answer item has no string "id"' };
    if (!expected.has(item.id)) return { error: `the answer names unknown question ${JSON.stringify(item.id)}` };
    if (seen.has(item.id)) return { error: `the answer names question ${JSON.stringify(item.id)} twice` };
    seen.add(item.id);
    if (!Array.isArray(item.selected) || !item.selected.every((label) => typeof label === 'string')) {
      return { error: `answer ${JSON.stringify(item.id)} needs "selected" as an array of strings` };
    }
    if (item.custom !== undefined && item.custom !== null && typeof item.custom !== 'string') {
      return { error: `answer ${JSON.stringify(item.id)} has a non-string "custom"` };
    }
    answers.push({
      id: item.id,
      selected: [...item.selected],
      ...(typeof item.custom === 'string' ? { custom: item.custom } : {}),
    });
  }
  if (seen.size !== expected.size) {
    const missing = [...expected].filter((id) => !seen.has(id));
    return { error: `the answer does not name question(s) ${missing.map((id) => JSON.stringify(id)).join(', ')}` };
  }
  return { answers };
}

/** Map an approval response frame to an outcome; anything but a clean answer rejects. */
function approvalOutcome(frame) {
  if (frame.error !== undefined) return 'rejected';
  const result = frame.result;
  if (!isPlainObject(result)) return 'rejected';
  const keys = Object.keys(result);
  if (keys.length !== 1 || keys[0] !== 'outcome') return 'rejected';
  return APPROVAL_OUTCOMES.has(result.outcome) ? result.outcome : 'rejected';
}

function sessionIdOf(agent) {
  const id = agent?.session?.id;
  return id === undefined || id === null ? undefined : String(id);
}

export function apply(ctx, rawConfig) {
  const config = readConfig(rawConfig);
  const debug = config.debug ? (message) => log(message) : () => {};

  if (globalThis[ACTIVE_KEY] !== undefined) {
    log('another instance is already active in this process; this one stays inert');
    return;
  }
  const token = {};
  globalThis[ACTIVE_KEY] = token;

  const stdin = process.stdin;
  const stdout = process.stdout;
  const decoder = new StringDecoder('utf8');
  const pending = new Map(); // id -> { settle(frame), fail(reason) }
  let buffer = '';
  let nextId = 0;
  let attached = false; // our stdin listener is installed next to the SDK server's
  let inputClosed = false;
  let disposed = false;
  let announced = false;
  // Sessions whose next step starts in the runtime's plan mode (`dsh_notebook/bridge.plan`).
  const planWanted = new Set();

  // ---------------------------------------------------------------- output
  /** Write one whole frame. Returns false when it could not be written. */
  function send(frame) {
    let line;
    try {
      line = `${JSON.stringify(frame)}\n`;
    } catch (error) {
      log(`dropped an unserialisable ${String(frame.method ?? 'response')} frame: ${String(error)}`);
      return false;
    }
    if (stdout.destroyed || stdout.writableEnded) return false;
    try {
      stdout.write(line);
      return true;
    } catch (error) {
      log(`stdout write failed: ${String(error)}`);
      return false;
    }
  }

  function notify(method, params) {
    return send({ jsonrpc: '2.0', method, params });
  }

  function features() {
    const list = [];
    if (config.approvals) list.push('approval/request');
    if (config.questions) list.push('user-question/ask');
    if (config.stream) list.push('session.assistant_stream');
    return list;
  }

  function announce() {
    announced = notify('dsh_notebook/bridge.ready', {
      version: BRIDGE_PROTOCOL_VERSION,
      features: features(),
      approvalTimeout: config.approvalTimeout,
      streamCoalesceMs: config.streamCoalesceMs,
    }) || announced;
  }

  // ---------------------------------------------------------------- input
  function onLine(line) {
    let frame;
    try {
      frame = JSON.parse(line);
    } catch {
      return; // not JSON: the SDK server ignores it too
    }
    if (!isPlainObject(frame)) return;
    const { id, method } = frame;
    if (typeof method === 'string') {
      // Client notification asking the bridge to announce itself again (the SDK server drops
      // client notifications, so this never reaches it as a request).
      if (id === undefined && method === 'dsh_notebook/bridge.hello') announce();
      // Client notification: put this session in plan mode at its next step (`%%dsh --plan`).
      // The runtime's plan mode is entered only by its `/plan` command, which the SDK wire does
      // not reach; the plan-mode service's own `set` is what that command calls.
      if (id === undefined && method === 'dsh_notebook/bridge.plan') {
        const sessionId = frame.params?.sessionId;
        if (typeof sessionId === 'string' && sessionId.length > 0) planWanted.add(sessionId);
      }
      return;
    }
    if (typeof id !== 'string' || !id.startsWith(ID_PREFIX)) return;
    const entry = pending.get(id);
    if (entry === undefined) {
      debug(`ignored a response for ${id} (not pending: late, duplicate or unknown)`);
      return;
    }
    entry.settle(frame);
  }

  function drain() {
    for (;;) {
      const newline = buffer.indexOf('\n');
      if (newline < 0) break;
      const line = buffer.slice(0, newline).trim();
      buffer = buffer.slice(newline + 1);
      if (line) onLine(line);
    }
  }

  const onData = (chunk) => {
    buffer += typeof chunk === 'string' ? chunk : decoder.write(chunk);
    drain();
  };
  const onEnd = () => {
    buffer += decoder.end();
    drain();
    inputClosed = true;
    failAll('stdin closed');
  };
  const onError = (error) => {
    inputClosed = true;
    failAll(`stdin error: ${String(error)}`);
  };

  function attach() {
    if (attached || disposed) return;
    attached = true;
    stdin.on('data', onData);
    stdin.on('end', onEnd);
    stdin.on('error', onError);
    debug('attached to the stdio wire');
    announce();
  }

  // Attach only next to the SDK server's own stdin reader: adding a 'data' listener switches
  // stdin to flowing mode, and chunks emitted before the server listens would be lost to it.
  // Without the server (another profile) the bridge stays inert and never touches stdout.
  const onNewListener = (event) => {
    if (event !== 'data' || attached) return;
    stdin.off('newListener', onNewListener);
    // The server's listener is added right after this hook returns, in the same tick.
    process.nextTick(attach);
  };
  if (stdin.listenerCount('data') > 0) attach();
  else stdin.on('newListener', onNewListener);

  // ---------------------------------------------------------------- pending requests
  function failAll(reason) {
    const entries = [...pending.values()];
    for (const entry of entries) entry.fail(reason);
  }

  function wireUsable() {
    return attached && !inputClosed && !disposed;
  }

  /**
   * Send one server->client request and wait for its response.
   * @param method JSON-RPC method.
   * @param params request params; `requestId` is filled in by `makeParams(id)`.
   * @param options.signal abort signal of the runtime request.
   * @param options.timeoutMs 0 = wait forever.
   * @param options.onResponse(frame) -> value to resolve with.
   * @param options.onFail(kind, detail) -> value to resolve with, or throws (kind: aborted|timeout|closed).
   * @param options.onCancelNotice(id, kind) called when the client must discard the request.
   */
  function call(method, makeParams, options) {
    const id = `${ID_PREFIX}${++nextId}`;
    return new Promise((resolve, reject) => {
      let done = false;
      let timer;
      const { signal } = options;
      const finish = (produce) => {
        if (done) return;
        done = true;
        pending.delete(id);
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        try {
          resolve(produce());
        } catch (error) {
          reject(error);
        }
      };
      const onAbort = () => {
        options.onCancelNotice(id, 'aborted');
        finish(() => options.onFail('aborted', signal?.reason));
      };
      pending.set(id, {
        settle: (frame) => finish(() => options.onResponse(frame)),
        fail: (detail) => {
          if (disposed && !inputClosed) options.onCancelNotice(id, 'disposed');
          finish(() => options.onFail('closed', detail));
        },
      });
      if (signal !== undefined) {
        if (signal.aborted) {
          pending.delete(id);
          done = true;
          try {
            resolve(options.onFail('aborted', signal.reason));
          } catch (error) {
            reject(error);
          }
          return;
        }
        signal.addEventListener('abort', onAbort, { once: true });
      }
      if (options.timeoutMs > 0) {
        timer = setTimeout(() => {
          options.onCancelNotice(id, 'timeout');
          finish(() => options.onFail('timeout'));
        }, options.timeoutMs);
        timer.unref?.();
      }
      debug(`-> ${method} ${id}`);
      if (!send({ jsonrpc: '2.0', id, method, params: makeParams(id) })) {
        finish(() => options.onFail('closed', 'stdout unavailable'));
      }
    });
  }

  // ---------------------------------------------------------------- approvals
  if (config.approvals) {
    ctx.on('approval/request', (request, next) => {
      if (!wireUsable()) return next();
      const sessionId = sessionIdOf(request.agent);
      if (sessionId === undefined) return next();
      const params = {
        sessionId,
        toolName: request.toolName,
        ...(request.callId !== undefined ? { callId: request.callId } : {}),
        ...(request.reason !== undefined ? { reason: request.reason } : {}),
      };
      return call('approval/request', () => params, {
        signal: request.signal,
        timeoutMs: config.approvalTimeout * 1000,
        onResponse: (frame) => {
          const outcome = approvalOutcome(frame);
          debug(`approval ${String(frame.id)} -> ${outcome}`);
          return outcome;
        },
        onFail: (kind) => (kind === 'aborted' ? 'cancelled' : 'rejected'),
        onCancelNotice: (requestId, reason) => {
          notify('approval/cancelled', { requestId, sessionId, reason });
        },
      });
    });
  }

  // ---------------------------------------------------------------- user questions
  if (config.questions) {
    ctx.on('user-questions/request', (request, next) => {
      if (!wireUsable()) return next();
      const sessionId = sessionIdOf(request.agent);
      if (sessionId === undefined) return next();
      let questions;
      try {
        questions = jsonCopy(request.questions);
      } catch (error) {
        return Promise.reject(questionError('PROVIDER_ERROR', `the questions cannot be sent to the client: ${String(error)}`));
      }
      // `callId` (the ask_user_question tool call, when the runtime supplies it) is an extension
      // of the seed shape that lets a UI place the card next to its tool call.
      const callId = typeof request.wait?.callId === 'string' ? request.wait.callId : undefined;
      return call('user-question/ask', (requestId) => ({
        requestId,
        sessionId,
        questions,
        ...(callId !== undefined ? { callId } : {}),
      }), {
        signal: request.signal,
        timeoutMs: 0, // the runtime owns question timeouts (tool mode "timed")
        onResponse: (frame) => {
          if (frame.error !== undefined) {
            const message = isPlainObject(frame.error) && typeof frame.error.message === 'string'
              ? frame.error.message : 'error response';
            throw questionError('PROVIDER_ERROR', `the notebook client failed to answer: ${message}`);
          }
          const verdict = validateQuestionResult(frame.result, questions);
          if (verdict.cancelled) throw questionError('ASK_CANCELLED', 'the user cancelled ask_user_question');
          if (verdict.error !== undefined) throw questionError('BAD_ANSWER', `invalid answer from the notebook client: ${verdict.error}`);
          return { answers: verdict.answers };
        },
        onFail: (kind, detail) => {
          if (kind === 'aborted') {
            throw questionError('ASK_ABORTED', 'ask_user_question was aborted before the user answered', detail);
          }
          throw questionError('PROVIDER_ERROR', `the notebook client is unavailable (${String(detail ?? kind)})`);
        },
        onCancelNotice: (requestId) => {
          notify('user-question.cancelled', { requestId, sessionId });
        },
      });
    });
  }

  // ---------------------------------------------------------------- live assistant stream
  const coalesce = new Map(); // sessionId -> { params, texts, timer }

  function flushSession(sessionId) {
    const entry = coalesce.get(sessionId);
    if (entry === undefined) return;
    coalesce.delete(sessionId);
    if (entry.timer !== undefined) clearTimeout(entry.timer);
    const frame = entry.params.frame;
    if (entry.texts.length > 1) {
      frame.chunk = { ...frame.chunk, text: entry.texts.join('') };
      frame.lastIndex = entry.lastIndex;
      frame.revision = entry.lastRevision;
    }
    notify('session.assistant_stream', entry.params);
  }

  function flushAll() {
    for (const sessionId of [...coalesce.keys()]) flushSession(sessionId);
  }

  function mergeable(frame) {
    return frame.type === 'chunk' && isPlainObject(frame.chunk) && MERGEABLE_CHUNKS.has(frame.chunk.type)
      && typeof frame.chunk.text === 'string';
  }

  if (config.stream) {
    ctx.on('agent/assistant-stream', (payload) => {
      if (!attached || disposed) return;
      const frame = payload?.frame;
      const sessionId = sessionIdOf(payload?.agent);
      if (!isPlainObject(frame) || sessionId === undefined) return;
      if (config.streamCoalesceMs === 0 || !mergeable(frame)) {
        flushSession(sessionId);
        notify('session.assistant_stream', { sessionId, frame });
        return;
      }
      const entry = coalesce.get(sessionId);
      const head = entry?.params.frame;
      if (head !== undefined && head.attemptId === frame.attemptId && head.chunk.type === frame.chunk.type
          && head.chunk.index === frame.chunk.index && entry.lastIndex + 1 === frame.index) {
        entry.texts.push(frame.chunk.text);
        entry.lastIndex = frame.index;
        entry.lastRevision = frame.revision;
        return;
      }
      flushSession(sessionId);
      const copy = { ...frame, chunk: { ...frame.chunk } };
      const fresh = { params: { sessionId, frame: copy }, texts: [frame.chunk.text], lastIndex: frame.index, lastRevision: frame.revision };
      fresh.timer = setTimeout(() => {
        if (coalesce.get(sessionId) === fresh) flushSession(sessionId);
      }, config.streamCoalesceMs);
      fresh.timer.unref?.();
      coalesce.set(sessionId, fresh);
    }, { global: true });

    if (config.streamCoalesceMs > 0) {
      // Flush buffered text before the session's next durable event reaches the wire, so deltas
      // always precede the assistant/message that contains them (prepend: runs before the
      // SDK server's own session/event listener).
      ctx.on('session/event', (session) => {
        const sessionId = session?.id === undefined ? undefined : String(session.id);
        if (sessionId !== undefined) flushSession(sessionId);
      }, { global: true, prepend: true });
    }
  }

  // ---------------------------------------------------------------- plan mode
  // When the step after a `dsh_notebook/bridge.plan` claims its input (before the runtime
  // assembles that step's request), select plan mode the way the runtime's `/plan` command does
  // (PlanModeController.set): the selection is pending for this step, so its request already
  // carries the plan-mode guidance, and the service appends `plan/mode {active: true}` at the
  // step's boundary. A runtime without the service ignores it (logged with `debug`).
  ctx.on('agent/inbox/claimed', (payload) => {
    const sessionId = sessionIdOf(payload?.agent);
    if (sessionId === undefined || !planWanted.delete(sessionId)) return;
    let service;
    try {
      service = ctx.get?.('planMode');
    } catch {
      service = undefined;
    }
    if (service === undefined || typeof service.set !== 'function') {
      debug('no plan-mode service: --plan ignored');
      return;
    }
    try {
      debug(`plan mode for ${sessionId}: ${service.set(payload.agent, true)}`);
    } catch (error) {
      debug(`plan mode for ${sessionId} failed: ${String(error)}`);
    }
  }, { global: true });

  // ---------------------------------------------------------------- lifecycle
  const teardown = () => {
    if (disposed) return;
    flushAll();
    disposed = true;
    failAll('bridge disposed');
    stdin.off('newListener', onNewListener);
    stdin.off('data', onData);
    stdin.off('end', onEnd);
    stdin.off('error', onError);
    if (globalThis[ACTIVE_KEY] === token) delete globalThis[ACTIVE_KEY];
    debug('disposed');
  };
  if (typeof ctx.effect === 'function') ctx.effect(() => teardown, 'dsh-notebook-bridge');
  else ctx.on('dispose', teardown);

  debug(`applied (${JSON.stringify(config)}, announced=${String(announced)})`);
}
