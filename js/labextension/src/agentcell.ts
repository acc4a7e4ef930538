/**
 * Agent cells in notebook JSON: pure functions (no JupyterLab imports, tested with node).
 *
 * An agent cell is a code cell the page inserted for an `insert_cell` message: tag `dsh-agent`,
 * `metadata.dsh_notebook.agent = {session, run, call, anchor}`, the kernel's source (its first
 * line a comment naming the agent) and outputs, `execution_count: null` (never executed here).
 *
 * Placement: directly below the anchor `%%dsh` cell, after the agent cells of that anchor that
 * already follow it, so a run's calls stand in call order and a later run's below an earlier
 * one's (Run All replays them in the order they ran). A message whose cell (run, call) is in the
 * notebook already is not inserted again; one whose anchor is gone is not inserted at all.
 */

import { AGENT_TAG } from './protocol/constants';
import type { IInsertCell } from './protocol/kernel';

export const AGENT_METADATA_KEY = 'dsh_notebook';

export interface IAgentOrigin {
  session: string;
  run: string;
  call: number;
  anchor: string;
}

/** What placement and removal read of one cell. */
export interface ICellInfo {
  id: string;
  agent: IAgentOrigin | null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The agent origin in a cell's `dsh_notebook` metadata value, or `null`. */
export function agentOrigin(value: unknown): IAgentOrigin | null {
  const agent = isRecord(value) ? value.agent : undefined;
  if (!isRecord(agent)) {
    return null;
  }
  const { session, run, call, anchor } = agent;
  if (typeof session !== 'string' || typeof run !== 'string' || typeof anchor !== 'string') {
    return null;
  }
  if (typeof call !== 'number' || !Number.isInteger(call)) {
    return null;
  }
  return { session, run, call, anchor };
}

/**
 * Where the cell of `message` goes: an index into `cells`; `-1` when it is there already;
 * `null` when its anchor is not in the notebook.
 */
export function insertionIndex(cells: readonly ICellInfo[], message: IInsertCell): number | null {
  if (cells.some(c => c.agent?.run === message.run && c.agent.call === message.call)) {
    return -1;
  }
  const anchor = cells.findIndex(c => c.id === message.anchor);
  if (anchor < 0) {
    return null;
  }
  let index = anchor + 1;
  while (index < cells.length && cells[index]?.agent?.anchor === message.anchor) {
    index += 1;
  }
  return index;
}

/** The nbformat code cell of `message` (never executed: `execution_count: null`). */
export function agentCellJSON(message: IInsertCell): {
  cell_type: 'code';
  source: string;
  metadata: Record<string, unknown>;
  outputs: IInsertCell['outputs'];
  execution_count: null;
} {
  const origin: IAgentOrigin = {
    session: message.session,
    run: message.run,
    call: message.call,
    anchor: message.anchor
  };
  return {
    cell_type: 'code',
    source: message.source,
    metadata: { tags: [AGENT_TAG], [AGENT_METADATA_KEY]: { agent: origin } },
    outputs: message.outputs.map(o => ({ ...o })),
    execution_count: null
  };
}

/**
 * The cells "Remove this run's cells" removes for anchor `anchorId`: the agent cells of the
 * newest run anchored there (the run of the last such cell), as indices, highest first.
 */
export function newestRunCells(cells: readonly ICellInfo[], anchorId: string): { run: string | null; indices: number[] } {
  let run: string | null = null;
  for (const cell of cells) {
    if (cell.agent?.anchor === anchorId) {
      run = cell.agent.run;
    }
  }
  const indices: number[] = [];
  cells.forEach((cell, i) => {
    if (run !== null && cell.agent?.anchor === anchorId && cell.agent.run === run) {
      indices.push(i);
    }
  });
  return { run, indices: indices.reverse() };
}
