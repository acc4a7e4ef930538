// The anywidget module (AFM): one store per model, one RunView per displayed output.
import { storeFor } from "./store";
import type { WidgetModel } from "./types";
import { RunView } from "./view";
import { warm } from "./warm";

export { RunView } from "./view";
export { storeFor } from "./store";

function initialize({ model }: { model: WidgetModel }): () => void {
  const store = storeFor(model);
  return () => store.dispose();
}

/** The kernel swaps the widget for the static transcript when a run ends: a final render this
 * soon after would be thrown away (see ``ViewOptions.settleDelay``). */
const SETTLE_DELAY_MS = 400;

function render({ model, el }: { model: WidgetModel; el: HTMLElement }): () => void {
  const view = new RunView(model, el, { settleDelay: SETTLE_DELAY_MS });
  return () => view.destroy();
}

/** ``warm``: the dsh-notebook extension runs it when the page is idle after preloading this
 * bundle, and again at each idle moment while it returns true, so the first real widget does not
 * compile the code paths it uses (see warm.ts). */
export default { initialize, render, warm };
