/**
 * The kernel <-> frontend-extension protocol, version 1.
 * Mirror of `dsh_notebook/frontend/protocol/` (shapes, parsing, messages): both name every message, same rules.
 *
 * - `identity`: `metadata.dsh_notebook` on every execute_request of a notebook
 *   (`{v: 1, id, path, cell_id, forked_from?}`), so the kernel knows the notebook of each cell
 *   with no race.
 * - comm target `dsh_notebook.frontend`, opened by the kernel:
 *   `hello` (kernel, in comm_open) -> `hello_reply` (frontend: version, capabilities);
 *   `waiting` (kernel: `{count, cells: [{cell_id, kind, label, request_id?}]}`, the whole current state);
 *   `run_output` (kernel: `{model_id, cell_id, state: 'live' | 'settled', bundle: {'text/markdown',
 *   'text/plain'}}`: the static transcript of the run a widget shows; see `runoutput.ts`).
 *   `insert_cell` (kernel: `{anchor, session, run, call, source, outputs}`: an approved
 *   `run_python` call that finished; the page inserts it as an unexecuted code cell below the
 *   anchor `%%dsh` cell, see `agentcells.ts`). Outputs are nbformat `stream` / `display_data` /
 *   `execute_result` / `error` with only `AGENT_OUTPUT_MIMES` data, never HTML.
 *   `read_notebook` (kernel: `{request_id}`) -> `read_notebook_reply` (frontend: the cells as the
 *   person sees them, bounded; see `cells.ts`).
 *   `subshell_ready` (frontend: `{}`), once this comm has its own kernel subshell: its header
 *   tells the kernel that this page's replies are handled while a cell runs.
 *   Editing and running the person's cells (`docs/cell-editing.md`; capabilities `edit_cells`,
 *   `run_cells`): `apply_change` (kernel: one approved change, `edit` / `insert` / `delete`) ->
 *   `apply_change_reply` (frontend: `applied` / `stale` / `missing` / `failed`, see `celledit.ts`);
 *   `run_cells` (kernel) -> `run_cells_reply` (frontend: each cell's status and bounded outputs,
 *   see `runcells.ts`); `undo_request` (frontend: the "Undo this run" button, `{anchor}`) ->
 *   `undo_changes` (kernel: a run's ledger, newest first) -> `undo_reply` (frontend: how many
 *   were reverted, which were skipped and why).
 * - a message of a capability is only sent to a side that announced it.
 *
 * Guarantee: `parseKernelMessage` never throws; anything that is not a well-formed message of
 * this version gives `null` and is ignored.
 */

import { WIDGET_BUNDLE_HASH } from './widgetbundle';

export const PROTOCOL_VERSION = 1;
export const METADATA_KEY = 'dsh_notebook';
export const COMM_TARGET = 'dsh_notebook.frontend';
export const RESERVED_TYPES: readonly string[] = [];
/** What this extension implements; announced in `hello_reply`. */
export const CAPABILITIES: readonly string[] = ['identity', 'waiting', 'run_output', 'insert_cell', 'read_notebook', 'edit_cells', 'run_cells'];
/** The cell tag of a cell the agent wrote. */
export const AGENT_TAG = 'dsh-agent';
/** The only mime types an agent cell's outputs may carry. */
export const AGENT_OUTPUT_MIMES: readonly string[] = ['text/plain', 'image/png', 'image/jpeg'];
export const MAX_CELL_SOURCE = 524288;
export const MAX_CELL_OUTPUTS = 64;
export const MAX_OUTPUTS_TEXT = 8388608;
/** The longest `text/markdown` or `text/plain` of a `run_output` bundle. */
export const MAX_BUNDLE_TEXT = 262144;
/** Bounds of a `read_notebook_reply` (the kernel rejects a reply over them). */
export const MAX_READ_CELLS = 500;
export const MAX_READ_SOURCE = 20000;
export const MAX_OUTPUT_TEXT = 2000;
export const MAX_READ_OUTPUTS = 20;

const MAX_TEXT = 4096;
const MAX_CELLS = 1000;
const ID = /^[0-9a-f]{32}$/;

/** `metadata.dsh_notebook` of the notebook document itself (what is saved in the file). */
export interface IStoredIdentity {
  id: string;
  path: string;
  forked_from?: string;
}

/** `metadata.dsh_notebook` of an execute_request. */
export interface IIdentityMetadata {
  v: 1;
  id: string;
  path: string;
  cell_id: string | null;
  forked_from?: string;
}

export interface IHello {
  v: 1;
  type: 'hello';
  kernel_version: string;
}

export interface IHelloReply {
  v: 1;
  type: 'hello_reply';
  version: string;
  capabilities: string[];
}

export type WaitingKind = 'approval' | 'question';

export interface IWaitingCell {
  cell_id: string;
  kind: WaitingKind;
  label: string;
  /** The kernel's id for `%dsh allow` / `%dsh answer` (`a1`, `q2`); absent from older kernels. */
  request_id?: string;
}

export interface IWaiting {
  v: 1;
  type: 'waiting';
  count: number;
  cells: IWaitingCell[];
}

export interface IRunBundle {
  'text/markdown': string;
  'text/plain': string;
}

export type RunOutputState = 'live' | 'settled';

export interface IRunOutput {
  v: 1;
  type: 'run_output';
  model_id: string;
  cell_id: string | null;
  state: RunOutputState;
  bundle: IRunBundle;
  /** Sent again in answer to this page's `hello_reply` (a reload, a second page). */
  replay?: true;
}

/** One nbformat v4 output of an agent cell, as validated (data values are strings). */
export type AgentOutput =
  | { output_type: 'stream'; name: 'stdout' | 'stderr'; text: string }
  | { output_type: 'error'; ename: string; evalue: string; traceback: string[] }
  | {
      output_type: 'display_data';
      data: Record<string, string>;
      metadata: Record<string, Record<string, unknown>>;
    }
  | {
      output_type: 'execute_result';
      data: Record<string, string>;
      metadata: Record<string, Record<string, unknown>>;
      execution_count: number | null;
    };

export interface IInsertCell {
  v: 1;
  type: 'insert_cell';
  anchor: string;
  session: string;
  run: string;
  call: number;
  source: string;
  outputs: AgentOutput[];
}

export interface IReadNotebook {
  v: 1;
  type: 'read_notebook';
  request_id: string;
}

export interface ICellOutput {
  output_type: 'stream' | 'execute_result' | 'display_data' | 'error' | 'update_display_data';
  mime?: string[];
  /** A stream's text; a display's `text/markdown`, else its `text/plain`. */
  text?: string;
  ename?: string;
  evalue?: string;
}

export interface INotebookCell {
  index: number;
  id: string;
  cell_type: 'code' | 'markdown' | 'raw';
  source: string;
  execution_count: number | null;
  agent: boolean;
  selected: boolean;
  outputs: ICellOutput[];
  /** Present (true) while the cell runs or waits to run (JupyterLab 4.1+; absent before). */
  running?: boolean;
}

export interface IReadNotebookReply {
  v: 1;
  type: 'read_notebook_reply';
  request_id: string;
  path: string;
  total_cells: number;
  cells: INotebookCell[];
}

/**
 * Who made a change: the runtime session, run and call id of the tool call. `anchor` (optional,
 * additive) is the id of the `%%dsh` cell of that run: where "Undo this run" is shown.
 */
export interface IChangeOrigin {
  session: string;
  run: string;
  call: string;
  anchor?: string;
}

export type Change =
  | { kind: 'edit'; cell_id: string; before: string; after: string }
  | { kind: 'insert'; after_cell_id: string; cell_type: 'code' | 'markdown'; source: string }
  | { kind: 'delete'; cell_id: string; before: string };

export interface IApplyChange {
  v: 1;
  type: 'apply_change';
  request_id: string;
  origin: IChangeOrigin;
  change: Change;
}

export type ApplyStatus = 'applied' | 'stale' | 'missing' | 'failed';

export interface IApplyChangeReply {
  v: 1;
  type: 'apply_change_reply';
  request_id: string;
  status: ApplyStatus;
  cell_id: string | null;
  index: number | null;
  source: string | null;
  message?: string;
}

export interface IRunCells {
  v: 1;
  type: 'run_cells';
  request_id: string;
  cell_ids: string[];
  timeout_s: number;
  origin: IChangeOrigin;
}

export type RunCellStatus = 'ok' | 'error' | 'running' | 'not_run' | 'missing';

export interface IRunCellOutput {
  output_type: 'stream' | 'execute_result' | 'display_data' | 'error';
  mime?: string[];
  text?: string;
  ename?: string;
  evalue?: string;
  /** The plain-text traceback (ANSI escapes stripped), at most `MAX_OUTPUT_TEXT`. */
  traceback?: string;
}

export interface IRunCellResult {
  cell_id: string;
  index: number | null;
  status: RunCellStatus;
  execution_count: number | null;
  outputs: IRunCellOutput[];
}

export interface IRunCellsReply {
  v: 1;
  type: 'run_cells_reply';
  request_id: string;
  cells: IRunCellResult[];
}

export type UndoEntry =
  | { kind: 'edit'; cell_id: string; before: string; after: string }
  | { kind: 'insert'; cell_id: string; source: string }
  | {
      kind: 'delete';
      cell: { cell_type: 'code' | 'markdown' | 'raw'; source: string; id: string };
      after_cell_id: string | null;
      index: number;
    }
  | { kind: 'agent_cell'; run: string; call: number; source: string };

export interface IUndoChanges {
  v: 1;
  type: 'undo_changes';
  request_id: string;
  run: string;
  changes: UndoEntry[];
}

export interface IUndoSkipped {
  cell_id: string;
  reason: string;
}

export interface IUndoReply {
  v: 1;
  type: 'undo_reply';
  request_id: string;
  reverted: number;
  skipped: IUndoSkipped[];
}

export interface IUndoRequest {
  v: 1;
  type: 'undo_request';
  anchor: string;
}

export type KernelMessage =
  | IHello
  | IWaiting
  | IRunOutput
  | IInsertCell
  | IReadNotebook
  | IApplyChange
  | IRunCells
  | IUndoChanges;

/** The most cells one `run_cells` may name, the longest it may wait, the most undo entries. */
export const MAX_RUN_CELLS = 20;
export const MAX_RUN_TIMEOUT = 600;
export const MAX_UNDO_CHANGES = 1000;
/** The longest `message` of a failed `apply_change_reply`. */
export const MAX_MESSAGE = 500;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isText(value: unknown, allowEmpty = true): value is string {
  return typeof value === 'string' && value.length <= MAX_TEXT && (allowEmpty || value.length > 0);
}

export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}

/**
 * A fresh notebook id: a uuid4 as 32 lowercase hex digits. Uses `crypto.getRandomValues`, not
 * `crypto.randomUUID`: the latter exists only in secure contexts, and JupyterLab is often served
 * over plain http on a LAN address.
 */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  return Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

/** The identity stored in a notebook's metadata, or `null` when absent or malformed. */
export function parseStoredIdentity(value: unknown): IStoredIdentity | null {
  if (!isRecord(value) || !isId(value.id) || !isText(value.path)) {
    return null;
  }
  const stored: IStoredIdentity = { id: value.id, path: value.path };
  if (isId(value.forked_from)) {
    stored.forked_from = value.forked_from;
  }
  return stored;
}

export function identityMetadata(stored: IStoredIdentity, cellId: string | null): IIdentityMetadata {
  const meta: IIdentityMetadata = { v: 1, id: stored.id, path: stored.path, cell_id: cellId };
  if (stored.forked_from !== undefined) {
    meta.forked_from = stored.forked_from;
  }
  return meta;
}

/**
 * `widget_bundle:<hash>`: this page serves the widget bundle of that content hash from the
 * extension's static folder (`<fullLabextensionsUrl>/dsh-notebook/static/dsh-widget.<hash>.js`
 * and `.css`), so a kernel with the same bundle sends widgets a small loader instead of it.
 */
export const WIDGET_BUNDLE_CAPABILITY = `widget_bundle:${WIDGET_BUNDLE_HASH}`;

/** Sent once the comm's subshell started; only its header matters to the kernel. */
export function subshellReady(): { v: 1; type: 'subshell_ready' } {
  return { v: 1, type: 'subshell_ready' };
}

export function helloReply(version: string): IHelloReply {
  return { v: 1, type: 'hello_reply', version, capabilities: [...CAPABILITIES, WIDGET_BUNDLE_CAPABILITY] };
}

function parseWaitingCell(raw: unknown): IWaitingCell | null {
  if (!isRecord(raw) || !isText(raw.cell_id, false) || !isText(raw.label)) {
    return null;
  }
  if (raw.kind !== 'approval' && raw.kind !== 'question') {
    return null;
  }
  const cell: IWaitingCell = { cell_id: raw.cell_id, kind: raw.kind, label: raw.label };
  if (isText(raw.request_id, false)) {
    cell.request_id = raw.request_id;
  }
  return cell;
}

/** A comm message from the kernel, or `null` (unknown, other version, malformed). */
export function parseKernelMessage(data: unknown): KernelMessage | null {
  if (!isRecord(data) || data.v !== PROTOCOL_VERSION) {
    return null;
  }
  if (data.type === 'hello') {
    return isText(data.kernel_version) ? { v: 1, type: 'hello', kernel_version: data.kernel_version } : null;
  }
  if (data.type === 'waiting') {
    const { count, cells } = data;
    if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
      return null;
    }
    if (!Array.isArray(cells) || cells.length > MAX_CELLS) {
      return null;
    }
    const parsed = cells.map(parseWaitingCell);
    if (parsed.some(c => c === null)) {
      return null;
    }
    return { v: 1, type: 'waiting', count, cells: parsed as IWaitingCell[] };
  }
  if (data.type === 'run_output') {
    return parseRunOutput(data);
  }
  if (data.type === 'insert_cell') {
    return parseInsertCell(data);
  }
  if (data.type === 'read_notebook') {
    return isText(data.request_id, false) ? { v: 1, type: 'read_notebook', request_id: data.request_id } : null;
  }
  if (data.type === 'apply_change') {
    return parseApplyChange(data);
  }
  if (data.type === 'run_cells') {
    return parseRunCells(data);
  }
  if (data.type === 'undo_changes') {
    return parseUndoChanges(data);
  }
  return null;
}

function isSource(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_CELL_SOURCE;
}

function parseOrigin(raw: unknown): IChangeOrigin | null {
  if (!isRecord(raw) || !isText(raw.session, false) || !isText(raw.run, false) || !isText(raw.call, false)) {
    return null;
  }
  const origin: IChangeOrigin = { session: raw.session, run: raw.run, call: raw.call };
  if (isText(raw.anchor, false)) {
    origin.anchor = raw.anchor;
  }
  return origin;
}

function parseChange(raw: unknown): Change | null {
  if (!isRecord(raw)) {
    return null;
  }
  if (raw.kind === 'edit') {
    const { cell_id, before, after } = raw;
    return isText(cell_id, false) && isSource(before) && isSource(after)
      ? { kind: 'edit', cell_id, before, after }
      : null;
  }
  if (raw.kind === 'insert') {
    const { after_cell_id, cell_type, source } = raw;
    const type = cell_type === undefined ? 'code' : cell_type;
    if (!isText(after_cell_id, false) || !isSource(source) || (type !== 'code' && type !== 'markdown')) {
      return null;
    }
    return { kind: 'insert', after_cell_id, cell_type: type, source };
  }
  if (raw.kind === 'delete') {
    const { cell_id, before } = raw;
    return isText(cell_id, false) && isSource(before) ? { kind: 'delete', cell_id, before } : null;
  }
  return null;
}

function parseApplyChange(data: Record<string, unknown>): IApplyChange | null {
  const origin = parseOrigin(data.origin);
  const change = parseChange(data.change);
  if (!isText(data.request_id, false) || origin === null || change === null) {
    return null;
  }
  return { v: 1, type: 'apply_change', request_id: data.request_id, origin, change };
}

function parseRunCells(data: Record<string, unknown>): IRunCells | null {
  const { request_id, cell_ids, timeout_s } = data;
  const origin = parseOrigin(data.origin);
  if (!isText(request_id, false) || origin === null || !Array.isArray(cell_ids)) {
    return null;
  }
  if (cell_ids.length < 1 || cell_ids.length > MAX_RUN_CELLS || !cell_ids.every(id => isText(id, false))) {
    return null;
  }
  const timeout = timeout_s === undefined ? 60 : timeout_s;
  if (typeof timeout !== 'number' || !Number.isFinite(timeout) || timeout < 1 || timeout > MAX_RUN_TIMEOUT) {
    return null;
  }
  return { v: 1, type: 'run_cells', request_id, cell_ids: [...(cell_ids as string[])], timeout_s: timeout, origin };
}

function parseUndoEntry(raw: unknown): UndoEntry | null {
  if (!isRecord(raw)) {
    return null;
  }
  if (raw.kind === 'edit') {
    const { cell_id, before, after } = raw;
    return isText(cell_id, false) && isSource(before) && isSource(after)
      ? { kind: 'edit', cell_id, before, after }
      : null;
  }
  if (raw.kind === 'insert') {
    const { cell_id, source } = raw;
    return isText(cell_id, false) && isSource(source) ? { kind: 'insert', cell_id, source } : null;
  }
  if (raw.kind === 'agent_cell') {
    const { run, call, source } = raw;
    if (!isText(run, false) || typeof call !== 'number' || !Number.isInteger(call) || !isSource(source)) {
      return null;
    }
    return { kind: 'agent_cell', run, call, source };
  }
  if (raw.kind === 'delete') {
    const { cell, after_cell_id, index } = raw;
    if (!isRecord(cell) || !isText(cell.id, false) || !isSource(cell.source)) {
      return null;
    }
    const type = cell.cell_type;
    if (type !== 'code' && type !== 'markdown' && type !== 'raw') {
      return null;
    }
    if (!(after_cell_id === null || after_cell_id === undefined || isText(after_cell_id, false))) {
      return null;
    }
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
      return null;
    }
    return {
      kind: 'delete',
      cell: { cell_type: type, source: cell.source, id: cell.id },
      after_cell_id: after_cell_id ?? null,
      index
    };
  }
  return null;
}

function parseUndoChanges(data: Record<string, unknown>): IUndoChanges | null {
  const { request_id, run, changes } = data;
  // `run` is '' (and `changes` []) when the kernel has nothing to undo
  if (!isText(request_id, false) || !isText(run) || !Array.isArray(changes)) {
    return null;
  }
  if (changes.length > MAX_UNDO_CHANGES) {
    return null;
  }
  const parsed = changes.map(parseUndoEntry);
  if (parsed.some(c => c === null)) {
    return null;
  }
  return { v: 1, type: 'undo_changes', request_id, run, changes: parsed as UndoEntry[] };
}

/** The page's "Undo this run" on the `%%dsh` cell `anchor`. */
export function undoRequest(anchor: string): IUndoRequest {
  return { v: 1, type: 'undo_request', anchor };
}

function multiline(value: unknown): string | null {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value) && value.every(v => typeof v === 'string')) {
    return value.join('');
  }
  return null;
}

function size(value: unknown): number {
  if (typeof value === 'string') {
    return value.length;
  }
  if (Array.isArray(value)) {
    return value.reduce((n: number, v) => n + size(v), 0);
  }
  if (isRecord(value)) {
    return Object.values(value).reduce((n: number, v) => n + size(v), 0);
  }
  return 0;
}

/** One output of an agent cell, or `null` (any other mime type refuses it: never HTML). */
export function parseAgentOutput(raw: unknown): AgentOutput | null {
  if (!isRecord(raw)) {
    return null;
  }
  if (raw.output_type === 'stream') {
    const text = multiline(raw.text);
    if ((raw.name !== 'stdout' && raw.name !== 'stderr') || text === null) {
      return null;
    }
    return { output_type: 'stream', name: raw.name, text };
  }
  if (raw.output_type === 'error') {
    const { ename, evalue, traceback } = raw;
    if (typeof ename !== 'string' || typeof evalue !== 'string' || !Array.isArray(traceback)) {
      return null;
    }
    if (!traceback.every(line => typeof line === 'string')) {
      return null;
    }
    return { output_type: 'error', ename, evalue, traceback: [...(traceback as string[])] };
  }
  if (raw.output_type !== 'display_data' && raw.output_type !== 'execute_result') {
    return null;
  }
  const metadata = raw.metadata ?? {};
  if (!isRecord(raw.data) || !isRecord(metadata)) {
    return null;
  }
  const data: Record<string, string> = {};
  for (const [mime, value] of Object.entries(raw.data)) {
    const text = multiline(value);
    if (!AGENT_OUTPUT_MIMES.includes(mime) || text === null) {
      return null;
    }
    data[mime] = text;
  }
  const meta: Record<string, Record<string, unknown>> = {};
  for (const [mime, value] of Object.entries(metadata)) {
    if (mime in data && isRecord(value)) {
      meta[mime] = { ...value };
    }
  }
  if (raw.output_type === 'display_data') {
    return { output_type: 'display_data', data, metadata: meta };
  }
  const count = raw.execution_count;
  const executionCount = typeof count === 'number' && Number.isInteger(count) ? count : null;
  return { output_type: 'execute_result', data, metadata: meta, execution_count: executionCount };
}

function parseInsertCell(data: Record<string, unknown>): IInsertCell | null {
  const { anchor, session, run, call, source, outputs } = data;
  if (!isText(anchor, false) || !isText(session, false) || !isText(run, false)) {
    return null;
  }
  if (typeof call !== 'number' || !Number.isInteger(call) || call < 1) {
    return null;
  }
  if (typeof source !== 'string' || source.length > MAX_CELL_SOURCE) {
    return null;
  }
  if (!Array.isArray(outputs) || outputs.length > MAX_CELL_OUTPUTS) {
    return null;
  }
  const parsed = outputs.map(parseAgentOutput);
  if (parsed.some(o => o === null) || size(parsed) > MAX_OUTPUTS_TEXT) {
    return null;
  }
  return { v: 1, type: 'insert_cell', anchor, session, run, call, source, outputs: parsed as AgentOutput[] };
}

function isBundleText(value: unknown): value is string {
  return typeof value === 'string' && value.length <= MAX_BUNDLE_TEXT;
}

function parseRunOutput(data: Record<string, unknown>): IRunOutput | null {
  const { model_id, cell_id, state, bundle } = data;
  if (!isText(model_id, false) || !(cell_id === null || isText(cell_id, false))) {
    return null;
  }
  if ((state !== 'live' && state !== 'settled') || !isRecord(bundle)) {
    return null;
  }
  const markdown = bundle['text/markdown'];
  const plain = bundle['text/plain'];
  if (!isBundleText(markdown) || !isBundleText(plain)) {
    return null;
  }
  const message: IRunOutput = {
    v: 1,
    type: 'run_output',
    model_id,
    cell_id,
    state,
    bundle: { 'text/markdown': markdown, 'text/plain': plain }
  };
  if (data.replay === true) {
    message.replay = true;
  }
  return message;
}
