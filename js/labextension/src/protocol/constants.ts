/**
 * The kernel <-> page protocol, version 1: its names and limits.
 * Mirror of `dsh_notebook/frontend/protocol/` (shapes, parsing, messages, editing): both sides
 * name every message and hold the same limits (checked against the shared examples,
 * `test/fixtures/page-protocol.json`).
 *
 * Two carriers:
 * - `identity`: `metadata.dsh_notebook` on every execute_request of a notebook
 *   (`{v: 1, id, path, cell_id, forked_from?}`), so the kernel knows the notebook of each cell
 *   with no race (`identity.ts` here).
 * - comm target `dsh_notebook.frontend`, opened by the kernel. Its halves:
 *   - what the kernel sends the page (`kernel.ts`: the shapes; `parse.ts`: reading them, one
 *     parser per type): `hello`; `waiting` (the whole current state); `run_output` (a run's
 *     static transcript, see `../runoutput.ts`); `insert_cell` (an approved `run_python` call
 *     that finished, see `../agentcells.ts`); and the requests the page answers:
 *     `read_notebook` (see `../cells.ts`), `apply_change` (see `../celledit.ts`), `run_cells`
 *     (see `../runcells.ts`), `undo_changes`;
 *   - what the page sends the kernel (`page.ts`: the shapes and builders): `hello_reply`
 *     (version, capabilities), `subshell_ready` (once this comm has its own kernel subshell),
 *     `undo_request` (the "Undo this run" button), and the reply to each request:
 *     `read_notebook_reply`, `apply_change_reply`, `run_cells_reply`, `undo_reply`.
 *   Editing and running the person's cells: `docs/cell-editing.md` (capabilities `edit_cells`,
 *   `run_cells`).
 * - a message of a capability is only sent to a side that announced it.
 */

export const PROTOCOL_VERSION = 1;
export const METADATA_KEY = 'dsh_notebook';
export const COMM_TARGET = 'dsh_notebook.frontend';
export const RESERVED_TYPES: readonly string[] = [];
/** What this extension implements; announced in `hello_reply`. */
export const CAPABILITIES: readonly string[] = ['identity', 'waiting', 'run_output', 'insert_cell', 'read_notebook', 'edit_cells', 'run_cells'];
/** The cell tag of a cell the agent wrote. */
export const AGENT_TAG = 'dsh-agent';
/** The cell tag of a private cell: read as `private: true`, never its source or outputs. */
export const PRIVATE_TAG = 'dsh-private';
/** The only mime types an agent cell's outputs may carry. */
export const AGENT_OUTPUT_MIMES: readonly string[] = ['text/plain', 'image/png', 'image/jpeg'];
export const MAX_CELL_SOURCE = 524288;
export const MAX_CELL_OUTPUTS = 64;
export const MAX_OUTPUTS_TEXT = 8388608;
/** The longest `text/markdown` or `text/plain` of a `run_output` bundle. */
export const MAX_BUNDLE_TEXT = 262144;
/** Bounds of a `read_notebook_reply` (the kernel rejects a reply over them). */
export const MAX_READ_CELLS = 500;
/** The most `cell_ids` one `read_notebook` may name. */
export const MAX_READ_IDS = 50;
export const MAX_READ_SOURCE = 20000;
export const MAX_OUTPUT_TEXT = 2000;
export const MAX_READ_OUTPUTS = 20;
/** The most cells one `run_cells` may name, the longest it may wait, the most undo entries. */
export const MAX_RUN_CELLS = 20;
export const MAX_RUN_TIMEOUT = 600;
export const MAX_UNDO_CHANGES = 1000;
/** The longest `message` of a failed `apply_change_reply`. */
export const MAX_MESSAGE = 500;
