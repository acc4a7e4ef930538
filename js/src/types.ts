// The snapshot (schema 1) as produced by dsh_notebook.transcript.Transcript.snapshot(), mirrored
// field for field and state for state from dsh_notebook/transcript/schema.py (a test compares them).
// Every field comes from untrusted agent output: render it as text, never as HTML; a state outside
// its union (a snapshot of another version) is still shown, as text.
import type { ViewMessage } from "./messages";

/** The run's state (`Header.state`). */
export type RunState = "starting" | "queued" | "running" | "waiting" | "settled" | "error";
/** `undecided`: only in the view of a run that ended with the card pending. */
export type ApprovalState = "pending" | "decided" | "undecided";
export type QuestionState = "pending" | "answered" | "dismissed" | "cancelled" | "failed" | "undecided";
export type SubagentState = "running" | "done" | "failed";
/** `waiting`: only in a rendered view, for an open call that waits for the person. */
export type ToolState = "streaming" | "pending" | "running" | "waiting" | "done" | "failed" | "rejected";
/** Who decided an approval (`null` when unknown). */
export type DecidedBy =
  | "you"
  | "you-for-run"
  | "you-edited"
  | "scope"
  | "policy"
  | "timeout"
  | "connection-lost"
  | "runtime"
  | "cancelled-by-agent";

/** A line of a card's Changes section; `cell` heads one cell's lines on a run_cells card. */
export type ChangeKind =
  | "unparsed"
  | "rebinds"
  | "mutates"
  | "deletes"
  | "creates"
  | "files"
  | "installs"
  | "processes"
  | "network"
  | "unknown"
  | "undo"
  | "none"
  | "cell";

/** One line of a card's Changes section: what the code will change, read from its text by the
 * kernel (never sent to the model). */
export interface ChangeLine {
  kind: ChangeKind;
  text: string;
}

/** A plan step's status as the runtime's todo_write names it. */
export type TodoStatus = "pending" | "in_progress" | "completed";

/** One step of a plan (todo_write). */
export interface Todo {
  content: string;
  status: TodoStatus;
}

/** A session's plan as its latest todo/write left it (dsh_notebook/transcript/plan.py). */
export interface Plan {
  todos: Todo[];
  todos_omitted: number;
  writes: number;
  earlier: Todo[][];
  earlier_omitted: number;
}

/** The root session's goal (goal/change). */
export interface Goal {
  objective: string;
  phase: string | null;
}

/** The run's estimated cost (dsh_notebook/transcript/pricing.py): an estimate, never a bill. */
export interface Cost {
  usd: number;
  model: string;
  as_of: string;
}

export interface Usage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  reasoning_tokens: number;
}

/** The root session's context use as the runtime reported it (dsh_notebook.transcript.context_use). */
export interface ContextUse {
  tokens: number | null;
  window: number | null;
  fraction: number | null;
}

export interface Header {
  session_id: string;
  title: string | null;
  model: string | null;
  state: RunState;
  turns: number;
  finish_reason: string | null;
  usage: Usage;
  tool_calls: number;
  subagents: number;
  errors: number;
  /** Epoch ms of the root session's first and latest events that changed the transcript. */
  started_at?: number | null;
  ended_at?: number | null;
  /** The person stopped the run (state "settled", a "stopped" note, no error). */
  stopped?: boolean;
  /** Tokens in the session's context after its latest step, against the model's window. */
  context_use?: ContextUse | null;
  /** The root session's goal; absent in older snapshots. */
  goal?: Goal | null;
  /** The run was started read-only (%%dsh --read-only). */
  read_only?: boolean;
  /** The estimated cost; null when no price is known for the model. */
  cost?: Cost | null;
}

export interface Pending {
  kind: "approval" | "question";
  id: string;
  request_id: string | null;
  session_id: string;
}

export interface Snapshot {
  schema: number;
  seq: number;
  header: Header;
  prompt: string;
  context: ContextChip[];
  /** The root session's plan (todo_write); absent in older snapshots. */
  plan?: Plan | null;
  items: Item[];
  items_omitted: number;
  pending: Pending[];
  unknown: Record<string, number>;
}

export interface ContextChip {
  token?: string;
  kind?: string;
  summary?: string;
  chars?: number;
  truncated?: boolean;
  [key: string]: unknown;
}

export interface NodeBase {
  kind: string;
  id: string;
  rev: number;
}

export interface TextItem extends NodeBase {
  kind: "text" | "reasoning";
  text: string;
  streaming: boolean;
  collapsed?: boolean;
  truncated?: boolean;
}

export interface UserItem extends NodeBase {
  kind: "user";
  text: string;
}

export interface ApprovalItem extends NodeBase {
  kind: "approval";
  session_id: string;
  approval_id: string | null;
  request_id: string | null;
  call_id: string | null;
  tool_name: string;
  reason: string | null;
  state: ApprovalState;
  outcome: string | null;
  decided_by: DecidedBy | null;
  /** What "Edit, then …" opens on, whole or null (never cut): a cell edit's new source
   * (edit/replace/insert), a run_python call's code (its reason is capped); after an edit, the
   * person's text. */
  proposed?: string | null;
  /** The full id of the cell a cell edit targets ("Show in notebook"). */
  target?: string | null;
  /** The person's note with a rejection. */
  note?: string | null;
  /** What the code will change (cards that run code); absent in older snapshots. */
  changes?: ChangeLine[] | null;
}

export interface Question {
  id: string;
  question: string;
  header: string | null;
  detail: string | null;
  options: { label: string; description: string | null }[];
  multi_select: boolean;
}

export interface Answer {
  id: string;
  selected: string[];
  custom?: string | null;
}

export interface QuestionItem extends NodeBase {
  kind: "question";
  session_id: string;
  request_id: string | null;
  call_id: string | null;
  questions: Question[];
  answers: Answer[] | null;
  state: QuestionState;
}

export interface SubagentItem extends NodeBase {
  kind: "subagent";
  child_id: string;
  label: string | null;
  description: string | null;
  mode: string | null;
  prompt: string | null;
  state: SubagentState;
  status: string | null;
  stop_reason: string | null;
  result: string | null;
  turns: number;
  usage: Usage;
  /** Its own plan (todo_write), nested under the subagent. */
  plan?: Plan | null;
  items: Item[];
  items_omitted: number;
}

export interface ToolItem extends NodeBase {
  kind: "tool";
  call_id: string;
  name: string;
  arguments: string;
  args: unknown;
  description: string | null;
  summary: string | null;
  state: ToolState;
  result: string | null;
  is_error: boolean | null;
  error_code: string | null;
  job: { job_id?: string; kind?: string; status?: string; detail?: string } | null;
  approval: ApprovalItem | null;
  question: QuestionItem | null;
  subagent: SubagentItem | null;
  /** Base64 PNGs the call's approved code showed (run_python); absent in older snapshots. */
  figures?: string[];
}

export interface ErrorItem extends NodeBase {
  kind: "error";
  source: string;
  message: string;
  code: string | null;
  status: number | null;
  hint: string | null;
  detail: string | null;
}

export interface NoteItem extends NodeBase {
  kind: "note";
  note: string;
  text: string;
  count: number;
  /** The cell the note is about (the queued note's: the cell of the run ahead); "Show" goes there. */
  cell?: string;
}

export type Item =
  | TextItem
  | UserItem
  | ApprovalItem
  | QuestionItem
  | SubagentItem
  | ToolItem
  | ErrorItem
  | NoteItem;

/** The traits `dsh_notebook.widget.RunWidget` syncs (`snapshot`, `seq`, `elapsed`, `interactive`). */
export interface WidgetState {
  snapshot: Snapshot;
  seq: number;
  elapsed: number;
  interactive: boolean;
}

/** A trait change listener, or a custom message listener. */
export type ModelListener = (() => void) | ((msg: unknown, buffers: DataView[]) => void);

/**
 * anywidget's `AnyModel<T>` (`@anywidget/types`, which this package does not install), the part the
 * widget uses: the traits of `T` by name and their change events, the custom messages.
 */
export interface AnyModel<T extends object> {
  get<K extends keyof T & string>(key: K): T[K];
  on(event: `change:${keyof T & string}`, callback: () => void): void;
  on(event: "msg:custom", callback: (msg: unknown, buffers: DataView[]) => void): void;
  off?(event?: string | null, callback?: ModelListener | null): void;
  send(content: ViewMessage, callbacks?: unknown, buffers?: ArrayBuffer[] | ArrayBufferView[]): void;
}

/** The widget's model. */
export type WidgetModel = AnyModel<WidgetState>;
