// The header: title, session name (short), model, state, elapsed time (ticking while the run is live), turns,
// tokens, the session's context gauge, and the Stop button.
import { button, formatElapsed, formatTokens, h, plural } from "./dom";
import type { Ctx } from "./context";
import { ContextGauge } from "./gauge";
import { STATE_WORDS, isOver, runState } from "./cards/words";

/** Text that may be cut with an ellipsis by the stylesheet: the whole of it stays on hover. */
function setTruncated(el: HTMLElement, text: string): void {
  el.textContent = text;
  el.title = text;
}

/** A session name short enough for the header: user-chosen names as written (up to 24
 * characters); generated ones (``nb-<12 hex>``, ``nb-<12 hex>-<6 hex>``) and longer names cut
 * in the middle, keeping the end that tells fresh sessions apart. */
export function shortSession(name: string): string {
  const generated = /^nb-([0-9a-f]{12})(?:-([0-9a-f]{6}))?$/.exec(name);
  if (generated) return generated[2] ? `nb-${generated[1].slice(0, 4)}…-${generated[2]}` : `nb-${generated[1].slice(0, 4)}…`;
  return name.length <= 24 ? name : `${name.slice(0, 14)}…${name.slice(-8)}`;
}

/** `~$0.0012`: the estimated cost (dsh_notebook/transcript/pricing.py format_usd). */
export function formatUsd(usd: number): string {
  if (usd >= 1) return `~$${usd.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (usd >= 0.01) return `~$${usd.toFixed(3)}`;
  if (usd >= 0.0001) return `~$${usd.toFixed(4)}`;
  return usd === 0 ? "~$0" : "<$0.0001";
}

export class HeaderView {
  readonly title = h("span", { class: "dsh-title" });
  readonly session = h("span", { class: "dsh-session" });
  readonly model = h("span", { class: "dsh-model" });
  readonly state = h("span", { class: "dsh-state", role: "status", "aria-live": "polite" });
  readonly elapsed = h("span", { class: "dsh-elapsed", "aria-label": "Elapsed time" });
  readonly turns = h("span", { class: "dsh-turns" });
  readonly tokens = h("span", { class: "dsh-tokens" });
  readonly cost = h("span", { class: "dsh-cost" });
  readonly mode = h("span", { class: "dsh-mode" });
  readonly goal = h("div", { class: "dsh-goal" });
  readonly gauge = new ContextGauge();
  readonly stopNote = h("span", { class: "dsh-stop-note" });
  readonly stop: HTMLButtonElement;
  readonly el: HTMLElement;
  private lastKey = "";

  constructor(private readonly ctx: Ctx) {
    this.stop = button("Stop", "Stop the run", () => this.ctx.store.stop() && this.ctx.schedule(), "dsh-btn dsh-stop");
    this.el = h("div", { class: "dsh-header" },
      h("span", { class: "dsh-brand", "aria-hidden": "true" }, "dsh"),
      this.title, this.session, this.model, this.mode, this.state, this.elapsed, this.turns, this.tokens,
      this.cost, this.gauge.el, h("span", { class: "dsh-spacer" }), this.stopNote, this.stop, this.goal);
  }

  update(): void {
    const store = this.ctx.store;
    const header = store.snapshot.header;
    this.elapsed.textContent = formatElapsed(store.elapsedNow());
    const stop = store.stopRequest;
    const key = JSON.stringify([header, stop?.status, stop?.error, store.interactive]);
    if (key === this.lastKey) return;
    this.lastKey = key;
    setTruncated(this.title, header.title || (header.session_id ? "" : "dsh run"));
    this.title.hidden = !this.title.textContent;
    const session = header.session_id || "";
    this.session.textContent = session ? shortSession(session) : "";
    this.session.title = session ? `session ${session} (%dsh resume ${session} continues it)` : "";
    this.session.setAttribute("aria-label", session ? `session ${session}` : "");
    this.session.hidden = !session;
    setTruncated(this.model, header.model ?? "");
    this.model.hidden = !header.model;
    const state = header.state || "starting";
    const shown = runState(header);
    this.state.textContent = STATE_WORDS[shown] ?? shown;
    this.state.className = `dsh-state dsh-run-${shown}`;
    this.turns.textContent = plural(header.turns || 0, "turn");
    const usage = header.usage;
    // usage arrives with a model call's end: "0 tokens" while the first answer streams is wrong
    this.tokens.hidden = !usage?.total_tokens;
    this.tokens.textContent = `${formatTokens(usage?.total_tokens || 0)} tokens`;
    this.tokens.title = usage
      ? `${usage.input_tokens} input · ${usage.output_tokens} output · ${usage.cache_read_tokens} cache read · ${usage.cache_write_tokens} cache write · ${usage.reasoning_tokens} reasoning`
      : "";
    const cost = header.cost;
    this.cost.hidden = !cost || !usage?.total_tokens;
    this.cost.textContent = cost ? `${formatUsd(cost.usd)} est.` : "";
    this.cost.title = cost ? `An estimate: ${cost.model} prices of ${cost.as_of} (%config DshMagics.prices overrides them)` : "";
    this.mode.hidden = !header.read_only;
    this.mode.textContent = header.read_only ? "read-only" : "";
    this.mode.title = header.read_only ? "Read-only run: no tool may change the notebook, the kernel or files" : "";
    const goal = header.goal;
    this.goal.hidden = !goal;
    this.goal.textContent = goal ? `Goal: ${goal.objective}${goal.phase ? ` (${goal.phase})` : ""}` : "";
    this.gauge.update(header.context_use);
    const over = isOver(state);
    this.stop.hidden = over || !store.interactive;
    this.stop.disabled = Boolean(stop && stop.status !== "failed");
    this.stop.textContent = stop && stop.status !== "failed" ? "Stopping…" : "Stop";
    this.stopNote.textContent = stop?.status === "failed" ? `Stop failed: ${stop.error}` : "";
    this.stopNote.setAttribute("role", stop?.status === "failed" ? "alert" : "status");
  }
}
