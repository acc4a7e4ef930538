// The anywidget module (AFM): one store per model, one RunView per displayed output.
import { storeFor } from "./store";
import type { ModelLike } from "./types";
import { RunView } from "./view";

export { RunView } from "./view";
export { storeFor } from "./store";

function initialize({ model }: { model: ModelLike }): () => void {
  const store = storeFor(model);
  return () => store.dispose();
}

function render({ model, el }: { model: ModelLike; el: HTMLElement }): () => void {
  const view = new RunView(model, el);
  return () => view.destroy();
}

export default { initialize, render };
