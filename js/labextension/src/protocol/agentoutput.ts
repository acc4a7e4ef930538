/**
 * Reading `insert_cell` (what the kernel sends the page: an approved `run_python` call that
 * finished) and the nbformat outputs of the agent cell it carries.
 *
 * Guarantees: never throws; an output of any mime type but `AGENT_OUTPUT_MIMES` refuses it
 * (never HTML), and a message over `MAX_CELL_SOURCE`, `MAX_CELL_OUTPUTS` or `MAX_OUTPUTS_TEXT`
 * is refused whole (`null`).
 */

import { isInteger, isRecord, isText, multiline, textSize } from './checks';
import { AGENT_OUTPUT_MIMES, MAX_CELL_OUTPUTS, MAX_CELL_SOURCE, MAX_OUTPUTS_TEXT } from './constants';
import type { AgentOutput, IInsertCell } from './kernel';

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
  return { output_type: 'execute_result', data, metadata: meta, execution_count: isInteger(count) ? count : null };
}

export function parseInsertCell(data: Record<string, unknown>): IInsertCell | null {
  const { anchor, session, run, call, source, outputs } = data;
  if (!isText(anchor, false) || !isText(session, false) || !isText(run, false)) {
    return null;
  }
  if (!isInteger(call) || call < 1) {
    return null;
  }
  if (typeof source !== 'string' || source.length > MAX_CELL_SOURCE) {
    return null;
  }
  if (!Array.isArray(outputs) || outputs.length > MAX_CELL_OUTPUTS) {
    return null;
  }
  const parsed = outputs.map(parseAgentOutput);
  if (parsed.some(o => o === null) || textSize(parsed) > MAX_OUTPUTS_TEXT) {
    return null;
  }
  return { v: 1, type: 'insert_cell', anchor, session, run, call, source, outputs: parsed as AgentOutput[] };
}
