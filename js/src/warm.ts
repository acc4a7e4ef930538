/**
 * A first run of the widget's code paths, off screen, before a real run needs them.
 *
 * The browser compiles a function when it is first called, so the page's first widget paid for
 * compiling the markdown parser, the sanitizer, the highlighter and the views (~100 ms measured
 * in JupyterLab) in one task while its run streamed. The dsh-notebook extension calls
 * :func:`warm` when the page is idle after it preloaded the bundle, and again at each next idle
 * moment while it returns true: step by step, the sample (markdown with a code block, a table
 * and a link) is parsed, then rendered, then a small run with it (a tool call with a result, an
 * approval card) is rendered live and settled into a detached element and destroyed. Nothing is
 * sent (its model's ``send`` does nothing), nothing is added to the document, and nothing it
 * does can throw out of it.
 */

import { md, renderMarkdown } from "./markdown";
import { emptySnapshot } from "./store";
import type { ModelListener, Snapshot, WidgetModel, WidgetState } from "./types";
import { RunView } from "./view";

const SAMPLE = [
  "# Totals\n\nRevenue per **region**, with `groupby` and a [link](https://example.org).\n\n",
  "- north: 3\n- south: 2\n\n",
  "```python\nimport pandas as pd\ntotals = df.groupby('region')['revenue'].sum()\n```\n\n",
  "| region | revenue |\n|---|---:|\n| north | 3 |\n\n",
  "> a note\n\nDone.",
].join("");

function sampleSnapshot(state: string, streaming: boolean): Snapshot {
  const snap = emptySnapshot();
  snap.header = { ...snap.header, session_id: "warm", state: state as Snapshot["header"]["state"] };
  snap.prompt = "warm up";
  snap.items = [
    { kind: "text", id: "t1", rev: 1, text: SAMPLE, streaming },
    {
      kind: "tool", id: "c1", rev: 1, call_id: "c1", name: "mcp__notebook__run_python",
      arguments: '{"code":"print(1)"}', args: { code: "print(1)" }, description: null,
      summary: null, state: "done", result: "1\n", is_error: false, error_code: null, job: null,
      approval: {
        kind: "approval", id: "a1", rev: 1, session_id: "warm", approval_id: "a1",
        request_id: null, call_id: "c1", tool_name: "run_python", reason: "runs code",
        state: "decided", outcome: "allowed-once", decided_by: "you",
      },
      question: null, subagent: null,
    },
  ] as unknown as Snapshot["items"];
  return snap;
}

/** The warming steps, in order: each compiles a part of the widget's code the first time it
 * runs, and is short enough for one idle moment (the whole at once was a 50–66 ms task). */
const STEPS: (() => void)[] = [
  () => md.parse(SAMPLE, {}), // the markdown parser
  () => renderMarkdown(SAMPLE), // its renderer, the sanitizer, the highlighter, code bars
  () => {
    live = sampleRun(); // the views live: header, items, a streaming paragraph, the cards
  },
  () => {
    live?.settle(); // the same run ending: the final render, the settled cards
    live = null;
  },
];

/** A sample run rendered live into a detached element; ``settle`` ends it and destroys it. */
function sampleRun(): { settle: () => void } {
  let snapshot = sampleSnapshot("running", true);
  const listeners = new Map<string, ModelListener>();
  const model: WidgetModel = {
    get: <K extends keyof WidgetState>(key: K): WidgetState[K] => {
      const traits: WidgetState = { snapshot, seq: snapshot.seq, elapsed: 0, interactive: true };
      return traits[key];
    },
    on: (event: string, callback: ModelListener) => void listeners.set(event, callback),
    off: () => listeners.clear(),
    send: () => undefined,
  };
  const view = new RunView(model, document.createElement("div"), { frame: (fn) => fn() });
  return {
    settle: () => {
      snapshot = sampleSnapshot("settled", false);
      (listeners.get("change:snapshot") as (() => void) | undefined)?.();
      view.render();
      view.destroy();
    },
  };
}

let live: { settle: () => void } | null = null;
let next = 0;

/**
 * Run the next warming step (off screen: into a detached element, which is then destroyed;
 * nothing is sent, nothing is added to the document). Returns true while steps remain, so the
 * caller runs it again at the next idle moment; false once all have run. Never throws: a
 * failure only means the first real widget compiles what it uses itself.
 */
export function warm(): boolean {
  if (next >= STEPS.length) return false;
  const step = STEPS[next++];
  try {
    step();
  } catch {
    // warming is an optimisation only
  }
  return next < STEPS.length;
}

/** Start the steps over (tests). */
export function resetWarm(): void {
  live?.settle();
  live = null;
  next = 0;
}
