// The widget's custom messages, both directions, as types: the mirror of
// dsh_notebook/widget/_messages.py (same names, same fields, same discriminators; a test compares
// the two). Trait syncs (snapshot, seq, elapsed, interactive) are ipywidgets' own messages: see
// `WidgetState` in types.ts.
//
// A kernel message arrives untrusted: `Store.receive` reads it field by field before it acts.
import type { Answer } from "./types";

/** Every `decision` a view may send: the protocol's approval outcomes (`DECISIONS`). */
export type Decision = "allowed-once" | "rejected" | "cancelled";

// -- delta ops (kernel -> view); specified in dsh_notebook/widget/delta.py ------------------------

/** Replace (or add) the value at `path`. */
export interface SetOp {
  op: "set";
  path: string[];
  value: unknown;
}

/** Remove the key at `path`. */
export interface DelOp {
  op: "del";
  path: string[];
}

/** Grow the string at `path` by `text`. */
export interface AppendOp {
  op: "append";
  path: string[];
  text: string;
}

/** Reorder the item list at `path`: keep the listed items it has, add `add` (whole). */
export interface ItemsOp {
  op: "items";
  path: string[];
  ids: string[];
  add: Record<string, unknown>;
}

export type Op = SetOp | DelOp | AppendOp | ItemsOp;

// -- kernel -> view -------------------------------------------------------------------------------

/** Turns the snapshot a view holds (`seq == base`) into the next one; else the view resyncs. */
export interface DeltaMessage {
  type: "delta";
  base: number;
  seq: number;
  elapsed?: number;
  ops: Op[];
}

/** The answer to one view message (`ok` false: `error` says why); `action`, `request_id` echo it. */
export interface AckMessage {
  type: "ack";
  action: string | null;
  request_id: string | null;
  ok: boolean;
  error: string | null;
}

export type KernelMessage = DeltaMessage | AckMessage;

// -- view -> kernel -------------------------------------------------------------------------------

/**
 * Allow once or reject one pending approval. With `allowed-once` only, at most one of `scope:
 * "run"` (the same tool for the rest of this run) or `code` (the person's edited code runs
 * instead); with `rejected` only, `note` (the person's reason, as typed).
 */
export interface ApprovalMessage {
  type: "approval";
  request_id: string;
  decision: Decision;
  scope?: "run";
  code?: string;
  note?: string;
}

/** Answer a pending question card: one answer per question, labels among its options. */
export interface AnswerMessage {
  type: "answer";
  request_id: string;
  answers: Answer[];
}

/** Dismiss a pending question card. */
export interface DismissMessage {
  type: "dismiss";
  request_id: string;
}

/** Stop the run (the Stop button). */
export interface StopMessage {
  type: "stop";
}

/** The view missed a delta (it holds `seq`) and wants the whole snapshot. */
export interface ResyncMessage {
  type: "resync";
  seq: number;
}

export type WidgetAction = ApprovalMessage | AnswerMessage | DismissMessage | StopMessage;

export type ViewMessage = WidgetAction | ResyncMessage;
