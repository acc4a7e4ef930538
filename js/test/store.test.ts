import { beforeEach, describe, expect, it } from "vitest";
import { applyOps, DeltaError } from "../src/delta";
import { storeFor } from "../src/store";
import { FakeModel, mount, snap, text } from "./helpers";

import deltas from "./fixtures/deltas.json";

const fixture = deltas as any;

function streaming(seq: number, body: string) {
  return snap({ seq, items: [{ ...text("i1", body, true), rev: seq }] });
}

describe("deltas", () => {
  beforeEach(() => {
    document.body.textContent = "";
  });

  it("replays the Python side's deltas to the same final snapshot", () => {
    expect(fixture.runs.length).toBeGreaterThan(0);
    for (const run of fixture.runs) {
      const current = JSON.parse(JSON.stringify(run.initial));
      for (const delta of run.deltas) {
        expect(delta.base).toBe(current.seq);
        applyOps(current, delta.ops);
      }
      expect(current).toEqual(run.final);
    }
  });

  it("renders the fixture's final state the same whether it streamed in or arrived whole", () => {
    for (const run of fixture.runs) {
      document.body.textContent = "";
      const live = new FakeModel(run.initial);
      const a = mount(live);
      for (const delta of run.deltas) {
        live.custom({ type: "delta", ...delta });
        a.flush();
      }
      expect(live.sent).toEqual([]); // no gap, no resync
      const whole = mount(new FakeModel(run.final));
      const strip = (el: HTMLElement) => el.innerHTML.replace(/ name="dsh\d+-/g, ' name="');
      expect(strip(a.el)).toBe(strip(whole.el));
    }
  });

  it("rejects ops that do not fit, and forbidden keys", () => {
    const s: any = snap({ items: [text("i1", "a")] });
    expect(() => applyOps(s, [{ op: "append", path: ["items", "i9", "text"], text: "x" }])).toThrow(DeltaError);
    expect(() => applyOps(s, [{ op: "append", path: ["header"], text: "x" }])).toThrow(DeltaError);
    expect(() => applyOps(s, [{ op: "set", path: ["__proto__"], value: { polluted: true } }])).toThrow(DeltaError);
    expect(() => applyOps(s, [{ op: "items", path: ["items"], ids: ["i1", "i2"], add: {} }])).toThrow(DeltaError);
    expect(({} as any).polluted).toBeUndefined();
  });

  it("applies a delta and grows the text", () => {
    const model = new FakeModel(streaming(1, "Hello"));
    const { el, flush } = mount(model);
    model.custom({ type: "delta", base: 1, seq: 2, elapsed: 3, ops: [
      { op: "set", path: ["seq"], value: 2 },
      { op: "append", path: ["items", "i1", "text"], text: " world" },
      { op: "set", path: ["items", "i1", "rev"], value: 2 },
    ] });
    flush();
    expect(el.querySelector('[data-id="i1"]')!.textContent!.trim()).toBe("Hello world");
    expect(model.sent).toEqual([]);
  });

  it("asks for the whole snapshot on a gap, once, and adopts it", () => {
    const model = new FakeModel(streaming(1, "Hello"));
    const { el, flush } = mount(model);
    const gap = { type: "delta", base: 2, seq: 3, ops: [{ op: "append", path: ["items", "i1", "text"], text: "!" }] };
    model.custom(gap);
    model.custom({ ...gap, base: 3, seq: 4 });
    expect(model.sent).toEqual([{ type: "resync", seq: 1 }]);
    flush();
    expect(el.querySelector('[data-id="i1"]')!.textContent!.trim()).toBe("Hello"); // nothing applied
    model.sync(streaming(4, "Hello there"));
    flush();
    expect(el.querySelector('[data-id="i1"]')!.textContent!.trim()).toBe("Hello there");
    // an old delta arriving late is ignored; the next one applies
    model.custom({ type: "delta", base: 2, seq: 3, ops: [{ op: "append", path: ["items", "i1", "text"], text: "?" }] });
    model.custom({ type: "delta", base: 4, seq: 5, ops: [{ op: "append", path: ["items", "i1", "text"], text: "!" }] });
    flush();
    expect(el.querySelector('[data-id="i1"]')!.textContent!.trim()).toBe("Hello there!");
    expect(model.sent).toHaveLength(1);
  });

  it("resyncs when a delta does not fit the snapshot", () => {
    const model = new FakeModel(streaming(1, "Hello"));
    mount(model);
    model.custom({ type: "delta", base: 1, seq: 2, ops: [{ op: "append", path: ["items", "nope", "text"], text: "!" }] });
    expect(model.sent).toEqual([{ type: "resync", seq: 1 }]);
  });

  it("a view opened late shows the same as one that watched", () => {
    const model = new FakeModel(streaming(1, "Hello"));
    const early = mount(model);
    for (let i = 2; i < 20; i++) {
      model.custom({ type: "delta", base: i - 1, seq: i, ops: [
        { op: "append", path: ["items", "i1", "text"], text: ` w${i}` },
        { op: "set", path: ["items", "i1", "rev"], value: i },
      ] });
      early.flush();
    }
    const late = mount(model);
    expect(late.el.innerHTML).toBe(early.el.innerHTML);
    expect(late.el.textContent).toContain("w19");
    // and both keep up
    model.custom({ type: "delta", base: 19, seq: 20, ops: [{ op: "set", path: ["items", "i1", "streaming"], value: false }] });
    early.flush();
    late.flush();
    expect(late.el.innerHTML).toBe(early.el.innerHTML);
  });

  it("one store per model, renders coalesced to animation frames", () => {
    const model = new FakeModel(streaming(1, "a"));
    expect(storeFor(model)).toBe(storeFor(model));
    const { view, flush } = mount(model);
    const before = view.renders;
    for (let i = 2; i < 50; i++) {
      model.custom({ type: "delta", base: i - 1, seq: i, ops: [{ op: "append", path: ["items", "i1", "text"], text: "b" }] });
    }
    flush();
    expect(view.renders - before).toBe(1);
  });

  it("stops listening when the view and the model go away", () => {
    const model = new FakeModel(streaming(1, "a"));
    const { view } = mount(model);
    view.destroy();
    storeFor(model).dispose();
    expect(model.listeners("msg:custom")).toBe(0);
    expect(model.listeners("change:snapshot")).toBe(0);
  });
});
