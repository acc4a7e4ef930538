// The header's context gauge: how full the session's context is, from what the runtime reported
// (header.context_use; see dsh_notebook.transcript.context_use). Never an estimate: without a
// reported window it shows the tokens alone, without a bar or a percentage.
import { h } from "./dom";
import type { ContextUse } from "./types";

/** From this fraction of the window on, the gauge warns and suggests a fresh conversation. */
export const HIGH = 0.8;

/** The cell option and the command that start a fresh conversation. */
export const FRESH = "%%dsh --new (or %dsh new)";

/** ``18``, ``1.2k``, ``120k``, ``1M`` (as the Python side writes them). */
export function formatCount(n: number): string {
  if (n < 1000) return String(n);
  if (n < 999_950) return `${(n / 1000).toFixed(1).replace(/\.0$/, "")}k`;
  return `${(n / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`;
}

/** ``12%``, ``<1%`` for a small use of a large window. */
export function percent(tokens: number, window: number): string {
  const fraction = tokens / window;
  return fraction > 0 && fraction < 0.01 ? "<1%" : `${Math.round(fraction * 100)}%`;
}

/** What the gauge says: ``context 12% · 120k / 1M tokens``, or without a window
 * ``context 120k tokens``; empty while no tokens were reported. */
export function gaugeWords(use: ContextUse | null | undefined): string {
  if (!use || use.tokens === null || use.tokens === undefined) return "";
  if (!use.window) return `context ${formatCount(use.tokens)} tokens`;
  return `context ${percent(use.tokens, use.window)} · ${formatCount(use.tokens)} / ${formatCount(use.window)} tokens`;
}

export class ContextGauge {
  /** A native meter draws the bar (no inline style: the widget sets none); the words and the
   * meter role for screen readers are on the gauge itself. */
  readonly bar = h("meter", { class: "dsh-gauge-bar", "aria-hidden": "true", min: 0, max: 1, value: 0 });
  readonly text = h("span", { class: "dsh-gauge-text" });
  readonly hint = h("span", { class: "dsh-gauge-hint" }, "nearly full: start afresh with %%dsh --new");
  readonly el = h("span", { class: "dsh-gauge", "aria-label": "Context in use", title: "" }, this.bar, this.text, this.hint);

  update(use: ContextUse | null | undefined): void {
    const words = gaugeWords(use);
    this.el.hidden = !words;
    this.text.textContent = words;
    const tokens = use?.tokens ?? 0;
    const window = use?.window ?? 0;
    const measured = Boolean(words && window);
    const high = measured && tokens / window >= HIGH;
    this.bar.hidden = !measured;
    this.hint.hidden = !high;
    if (measured) {
      this.bar.setAttribute("max", String(window));
      this.bar.setAttribute("value", String(Math.min(tokens, window)));
      this.bar.setAttribute("low", String(HIGH * window)); // from here on the meter is not "optimum"
      this.bar.setAttribute("high", String(0.95 * window));
      this.bar.setAttribute("optimum", "0");
    }
    this.el.className = high ? "dsh-gauge dsh-gauge-high" : "dsh-gauge";
    if (measured) {
      this.el.setAttribute("role", "meter");
      this.el.setAttribute("aria-valuemin", "0");
      this.el.setAttribute("aria-valuemax", String(window));
      this.el.setAttribute("aria-valuenow", String(Math.min(tokens, window)));
      this.el.setAttribute("aria-valuetext", words);
    } else {
      for (const name of ["role", "aria-valuemin", "aria-valuemax", "aria-valuenow", "aria-valuetext"]) this.el.removeAttribute(name);
    }
    const exact = words
      ? `${tokens.toLocaleString("en-US")} tokens in the session's context after its latest step` +
        (window ? ` of the model's ${window.toLocaleString("en-US")}` : " (the runtime did not report the model's window)")
      : "";
    this.el.title = high ? `${exact}. Nearly full: start a fresh conversation with ${FRESH}.` : exact;
  }
}
