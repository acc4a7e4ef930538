// One store per widget model: the snapshot every view of the model renders, kept current from the
// trait (full syncs) and the custom-message deltas, plus what was clicked here (sent once).
import { applyOps, DeltaError } from "./delta";
import type { AckMessage, AnswerMessage, ApprovalMessage, DeltaMessage, DismissMessage, KernelMessage } from "./messages";
import type { Answer, Snapshot, WidgetModel } from "./types";

/** A click about one request (approval or question), as sent: the store keeps one per request. */
export type DecisionMessage = ApprovalMessage | AnswerMessage | DismissMessage;
export type DecisionKind = DecisionMessage["type"] | "stop";

export interface LocalDecision {
  kind: DecisionKind;
  /** What the card shows it sent: the button's word for approvals, the answers for questions. */
  value: string | Answer[] | null;
  status: "sent" | "acknowledged" | "failed";
  error?: string;
}

const RESYNC_RETRY_MS = 2000;
const stores = new WeakMap<object, Store>();

export function storeFor(model: WidgetModel, now: () => number = Date.now): Store {
  let store = stores.get(model);
  if (!store) {
    store = new Store(model, now);
    stores.set(model, store);
  }
  return store;
}

export function emptySnapshot(): Snapshot {
  return {
    schema: 1,
    seq: 0,
    header: {
      session_id: "",
      title: null,
      model: null,
      state: "starting",
      turns: 0,
      finish_reason: null,
      usage: {
        input_tokens: 0,
        output_tokens: 0,
        total_tokens: 0,
        cache_read_tokens: 0,
        cache_write_tokens: 0,
        reasoning_tokens: 0,
      },
      tool_calls: 0,
      subagents: 0,
      errors: 0,
    },
    prompt: "",
    context: [],
    items: [],
    items_omitted: 0,
    pending: [],
    unknown: {},
  };
}

export class Store {
  snapshot: Snapshot = emptySnapshot();
  seq = 0;
  /** Run age in seconds at ``elapsedAt`` (local clock, ms). */
  elapsed = 0;
  elapsedAt = 0;
  resyncing = false;
  private resyncSentAt = 0;
  readonly decisions = new Map<string, LocalDecision>();
  stopRequest: LocalDecision | null = null;
  /** Bumped on every change a view must show (snapshot or local decisions). */
  version = 0;
  private listeners = new Set<() => void>();
  private readonly onChange = () => this.adopt();
  private readonly onCustom = (msg: unknown) => this.receive(msg);

  constructor(readonly model: WidgetModel, private readonly now: () => number = Date.now) {
    this.adopt();
    model.on("change:snapshot", this.onChange);
    model.on("msg:custom", this.onCustom);
  }

  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.model.off?.("change:snapshot", this.onChange);
    this.model.off?.("msg:custom", this.onCustom);
    this.listeners.clear();
  }

  get interactive(): boolean {
    return this.model.get("interactive") !== false;
  }

  /** Seconds since the run started, ticking locally between messages while it runs. */
  elapsedNow(): number {
    const state = this.snapshot.header.state;
    if (state === "settled" || state === "error") return this.elapsed;
    return this.elapsed + Math.max(0, this.now() - this.elapsedAt) / 1000;
  }

  private notify(): void {
    this.version += 1;
    for (const listener of [...this.listeners]) listener();
  }

  /** Take the trait snapshot as the truth (first render, full syncs, resync answers). */
  adopt(): void {
    const raw = this.model.get("snapshot");
    if (raw && typeof raw === "object" && raw.header) {
      this.snapshot = JSON.parse(JSON.stringify(raw));
      this.seq = typeof raw.seq === "number" ? raw.seq : Number(this.model.get("seq") || 0);
    } else {
      this.snapshot = emptySnapshot();
      this.seq = Number(this.model.get("seq") || 0);
    }
    const elapsed = Number(this.model.get("elapsed"));
    this.elapsed = Number.isFinite(elapsed) ? elapsed : 0;
    this.elapsedAt = this.now();
    this.resyncing = false;
    this.notify();
  }

  /** A custom message from the kernel (untrusted: every field is checked before it is used). */
  receive(msg: unknown): void {
    if (!msg || typeof msg !== "object") return;
    const message = msg as KernelMessage;
    if (message.type === "delta") this.applyDelta(message);
    else if (message.type === "ack") this.acknowledge(message);
  }

  private applyDelta(delta: DeltaMessage): void {
    if (typeof delta.base !== "number" || typeof delta.seq !== "number" || !Array.isArray(delta.ops)) return;
    if (delta.seq <= this.seq && delta.base < this.seq) return; // old news (e.g. after a resync)
    if (delta.base !== this.seq) {
      this.requestResync();
      return;
    }
    // applied in place: a delta that does not fit asks for the whole snapshot, which replaces it
    try {
      applyOps(this.snapshot, delta.ops);
    } catch (err) {
      if (err instanceof DeltaError) {
        this.requestResync();
        return;
      }
      throw err;
    }
    this.seq = delta.seq;
    if (typeof delta.elapsed === "number") {
      this.elapsed = delta.elapsed;
      this.elapsedAt = this.now();
    }
    this.notify();
  }

  requestResync(): void {
    const t = this.now();
    if (this.resyncing && t - this.resyncSentAt < RESYNC_RETRY_MS) return;
    this.resyncing = true;
    this.resyncSentAt = t;
    this.model.send({ type: "resync", seq: this.seq });
  }

  private acknowledge(msg: AckMessage): void {
    const entry =
      msg.action === "stop"
        ? this.stopRequest
        : typeof msg.request_id === "string"
          ? this.decisions.get(msg.request_id)
          : undefined;
    if (!entry) return;
    if (msg.ok) {
      entry.status = "acknowledged";
      entry.error = undefined;
    } else {
      entry.status = "failed";
      entry.error = typeof msg.error === "string" ? msg.error : "not delivered";
    }
    this.notify();
  }

  /** Send ``message`` once per request; false when this model already sent one about it.
   * ``shown``: what the card says was sent (see ``LocalDecision.value``). */
  decide(message: DecisionMessage, shown: LocalDecision["value"]): boolean {
    const requestId = message.request_id;
    if (this.decisions.has(requestId)) return false;
    this.decisions.set(requestId, { kind: message.type, value: shown, status: "sent" });
    this.model.send(message);
    this.notify();
    return true;
  }

  stop(): boolean {
    if (this.stopRequest) return false;
    this.stopRequest = { kind: "stop", value: null, status: "sent" };
    this.model.send({ type: "stop" });
    this.notify();
    return true;
  }
}
