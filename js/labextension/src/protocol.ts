/**
 * The kernel <-> frontend-extension protocol, version 1.
 * Mirror of `dsh_notebook/frontend/protocol.py`: both name every message, same rules.
 *
 * - `identity`: `metadata.dsh_notebook` on every execute_request of a notebook
 *   (`{v: 1, id, path, cell_id, forked_from?}`), so the kernel knows the notebook of each cell
 *   with no race.
 * - comm target `dsh_notebook.frontend`, opened by the kernel:
 *   `hello` (kernel, in comm_open) -> `hello_reply` (frontend: version, capabilities);
 *   `waiting` (kernel: `{count, cells: [{cell_id, kind, label}]}`, the whole current state);
 *   `run_output` (kernel: `{model_id, cell_id, state: 'live' | 'settled', bundle: {'text/markdown',
 *   'text/plain'}}`: the static transcript of the run a widget shows; see `runoutput.ts`).
 *   `read_notebook` (kernel: `{request_id}`) -> `read_notebook_reply` (frontend: the cells as the
 *   person sees them, bounded; see `cells.ts`).
 * - reserved, not implemented: `insert_cell`; only sent to a side that announced the capability.
 *
 * Guarantee: `parseKernelMessage` never throws; anything that is not a well-formed message of
 * this version gives `null` and is ignored.
 */

export const PROTOCOL_VERSION = 1;
export const METADATA_KEY = 'dsh_notebook';
export const COMM_TARGET = 'dsh_notebook.frontend';
export const RESERVED_TYPES: readonly string[] = ['insert_cell'];
/** What this extension implements; announced in `hello_reply`. */
export const CAPABILITIES: readonly string[] = ['identity', 'waiting', 'run_output', 'read_notebook'];
/** The longest `text/markdown` or `text/plain` of a `run_output` bundle. */
export const MAX_BUNDLE_TEXT = 262144;
/** Bounds of a `read_notebook_reply` (the kernel rejects a reply over them). */
export const MAX_READ_CELLS = 500;
export const MAX_CELL_SOURCE = 20000;
export const MAX_OUTPUT_TEXT = 2000;
export const MAX_CELL_OUTPUTS = 20;

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
}

export interface IReadNotebook {
  v: 1;
  type: 'read_notebook';
  request_id: string;
}

export interface ICellOutput {
  output_type: 'stream' | 'execute_result' | 'display_data' | 'error' | 'update_display_data';
  mime?: string[];
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
}

export interface IReadNotebookReply {
  v: 1;
  type: 'read_notebook_reply';
  request_id: string;
  path: string;
  total_cells: number;
  cells: INotebookCell[];
}

export type KernelMessage = IHello | IWaiting | IRunOutput | IReadNotebook;

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

export function helloReply(version: string): IHelloReply {
  return { v: 1, type: 'hello_reply', version, capabilities: [...CAPABILITIES] };
}

function parseWaitingCell(raw: unknown): IWaitingCell | null {
  if (!isRecord(raw) || !isText(raw.cell_id, false) || !isText(raw.label)) {
    return null;
  }
  if (raw.kind !== 'approval' && raw.kind !== 'question') {
    return null;
  }
  return { cell_id: raw.cell_id, kind: raw.kind, label: raw.label };
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
  if (data.type === 'read_notebook') {
    return isText(data.request_id, false) ? { v: 1, type: 'read_notebook', request_id: data.request_id } : null;
  }
  return null;
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
  return {
    v: 1,
    type: 'run_output',
    model_id,
    cell_id,
    state,
    bundle: { 'text/markdown': markdown, 'text/plain': plain }
  };
}
