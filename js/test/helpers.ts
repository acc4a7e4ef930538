// A fake anywidget model (AFM): get / set / on / off / send / save_changes, plus helpers to play
// the kernel's side (trait syncs and custom messages).
import { emptySnapshot } from "../src/store";
import type { RunState, Snapshot } from "../src/types";
import { RunView } from "../src/view";

type Callback = (...args: any[]) => void;

export class FakeModel {
  attrs: Record<string, any>;
  sent: any[] = [];
  private handlers = new Map<string, Set<Callback>>();

  constructor(snapshot: Snapshot, extra: Record<string, any> = {}) {
    this.attrs = { snapshot, seq: snapshot.seq, elapsed: 0, interactive: true, ...extra };
  }

  get(name: string): any {
    return this.attrs[name];
  }

  set(name: string, value: any): void {
    this.attrs[name] = value;
    this.emit(`change:${name}`, value);
  }

  save_changes(): void {}

  on(event: string, cb: Callback): void {
    if (!this.handlers.has(event)) this.handlers.set(event, new Set());
    this.handlers.get(event)!.add(cb);
  }

  off(event?: string | null, cb?: Callback | null): void {
    if (!event) this.handlers.clear();
    else if (!cb) this.handlers.delete(event);
    else this.handlers.get(event)?.delete(cb);
  }

  send(content: any): void {
    this.sent.push(content);
  }

  emit(event: string, ...args: any[]): void {
    for (const cb of [...(this.handlers.get(event) ?? [])]) cb(...args);
  }

  /** The kernel sends a full trait sync (snapshot + seq + elapsed in one message). */
  sync(snapshot: Snapshot, elapsed = 0): void {
    this.attrs.seq = snapshot.seq;
    this.attrs.elapsed = elapsed;
    this.set("snapshot", snapshot);
  }

  /** The kernel sends a custom message. */
  custom(content: any): void {
    this.emit("msg:custom", content, []);
  }

  listeners(event: string): number {
    return this.handlers.get(event)?.size ?? 0;
  }
}

export function snap(patch: Partial<Snapshot> & { state?: RunState } = {}): Snapshot {
  const s = emptySnapshot();
  s.header.session_id = "s1";
  s.header.state = patch.state ?? "running";
  const { state, ...rest } = patch;
  return { ...s, ...rest, header: { ...s.header, ...(rest.header ?? {}), state: state ?? rest.header?.state ?? "running" } };
}

let clock = 1_000_000;
export const now = () => clock;
export function advance(ms: number): void {
  clock += ms;
}

/** A view that renders synchronously when asked (no animation frames in tests). */
export function mount(model: FakeModel, host?: HTMLElement): { view: RunView; el: HTMLElement; flush: () => void } {
  const el = host ?? document.createElement("div");
  document.body.appendChild(el);
  const queue: (() => void)[] = [];
  const view = new RunView(model, el, { now: () => Date.now(), frame: (fn) => queue.push(fn) });
  const flush = () => {
    while (queue.length) queue.shift()!();
  };
  return { view, el, flush };
}

export function tool(id: string, extra: Record<string, any> = {}): any {
  return {
    kind: "tool", id, rev: 1, call_id: `call-${id}`, name: "bash", arguments: '{"command":"ls"}',
    args: { command: "ls" }, description: null, summary: "ls", state: "running", result: null,
    is_error: null, error_code: null, job: null, approval: null, question: null, subagent: null,
    ...extra,
  };
}

export function approval(id: string, requestId: string | null, extra: Record<string, any> = {}): any {
  return {
    kind: "approval", id, rev: 1, session_id: "s1", approval_id: "ap1", request_id: requestId,
    call_id: null, tool_name: "bash", reason: "writes outside the workspace", state: "pending",
    outcome: null, decided_by: null, ...extra,
  };
}

export function question(id: string, requestId: string | null, extra: Record<string, any> = {}): any {
  return {
    kind: "question", id, rev: 1, session_id: "s1", request_id: requestId, call_id: null,
    questions: [
      { id: "color", question: "Which color?", header: "Color", detail: "for the plot", multi_select: false,
        options: [{ label: "red", description: "warm" }, { label: "blue", description: null }] },
      { id: "extras", question: "Which extras?", header: null, detail: null, multi_select: true,
        options: [{ label: "grid", description: null }, { label: "legend", description: null }] },
    ],
    answers: null, state: "pending", ...extra,
  };
}

export function text(id: string, body: string, streaming = false, kind: "text" | "reasoning" = "text"): any {
  const node: any = { kind, id, rev: 1, text: body, streaming };
  if (kind === "reasoning") node.collapsed = true;
  return node;
}
