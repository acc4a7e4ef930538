// The widget bundle is loaded once per page, ahead of the first widget, as its loader would.
import assert from 'node:assert/strict';
import { test } from 'vitest';

import { IPreloadEnv, bundleBase, bundleKey, preloadWidgetBundle } from '../src/preload';

interface IFakeLink {
  rel: string;
  href: string;
  dataset: Record<string, string>;
}

function fakeEnv(config: object | null, fail = false, steps = 1) {
  let warmed = 0;
  // a bundle's warm: one step per call, true while more remain
  const bundle = { render: 1, warm: () => (warmed += 1) < steps };
  const links: IFakeLink[] = [];
  const imported: string[] = [];
  const idle: Array<() => void> = [];
  const doc = {
    baseURI: 'http://127.0.0.1:8888/lab/tree/a.ipynb',
    getElementById: (id: string) =>
      id === 'jupyter-config-data' && config !== null ? { textContent: JSON.stringify(config) } : null,
    querySelector: (selector: string) =>
      links.find(l => selector === `link[data-dsh-widget-bundle="${l.dataset.dshWidgetBundle}"]`) ?? null,
    createElement: () => ({ rel: '', href: '', dataset: {} }),
    head: { appendChild: (link: IFakeLink) => links.push(link) }
  };
  const env: IPreloadEnv = {
    doc: doc as unknown as Document,
    global: {},
    importModule: url => {
      imported.push(url);
      return fail ? Promise.reject(new Error('404')) : Promise.resolve({ default: bundle });
    },
    whenIdle: run => idle.push(run)
  };
  const runIdle = () => idle.splice(0).forEach(run => run());
  return { env, links, imported, runIdle, warmed: () => warmed };
}

const settle = () => new Promise(resolve => setTimeout(resolve, 0));

test('the bundle URL is the one the widget loader computes', () => {
  const { env } = fakeEnv({ fullLabextensionsUrl: '/user/ann/lab/extensions' });
  assert.equal(
    bundleBase(env.doc, 'abc'),
    'http://127.0.0.1:8888/user/ann/lab/extensions/dsh-notebook/static/dsh-widget.abc'
  );
  assert.equal(bundleBase(fakeEnv(null).env.doc, 'abc'), 'http://127.0.0.1:8888/lab/extensions/dsh-notebook/static/dsh-widget.abc');
});

test('one import and one stylesheet per page, when idle, under the loader key', async () => {
  const { env, links, imported, runIdle } = fakeEnv({});
  preloadWidgetBundle('abc', env);
  assert.deepEqual(imported, []); // nothing before the browser is idle
  runIdle();
  preloadWidgetBundle('abc', env);
  runIdle();
  assert.deepEqual(imported, ['http://127.0.0.1:8888/lab/extensions/dsh-notebook/static/dsh-widget.abc.js']);
  assert.equal(links.length, 1);
  assert.equal(links[0]?.href, 'http://127.0.0.1:8888/lab/extensions/dsh-notebook/static/dsh-widget.abc.css');
  assert.equal(links[0]?.dataset.dshWidgetBundle, 'abc');
  const loaded = await (env.global[bundleKey('abc')] as Promise<{ render: number }>);
  assert.equal(loaded.render, 1);
});

test('the bundle is warmed once it is loaded, at the next idle moment', async () => {
  const { env, runIdle, warmed } = fakeEnv({});
  preloadWidgetBundle('abc', env);
  runIdle();
  await settle();
  assert.equal(warmed(), 0); // not in the same task as the import
  runIdle();
  assert.equal(warmed(), 1);
  preloadWidgetBundle('abc', env);
  runIdle();
  await settle();
  runIdle();
  assert.equal(warmed(), 1);
});

test('a bundle warmed in steps gets one idle moment per step, until it answers false', async () => {
  const { env, runIdle, warmed } = fakeEnv({}, false, 3);
  preloadWidgetBundle('abc', env);
  runIdle();
  await settle();
  for (const expected of [1, 2, 3, 3, 3]) {
    runIdle(); // (runIdle runs only what was queued before it: the next step waits for the next)
    assert.equal(warmed(), expected);
  }
});

test('a widget loader that came first is left alone', () => {
  const { env, imported, runIdle } = fakeEnv({});
  const theirs = Promise.resolve({});
  env.global[bundleKey('abc')] = theirs;
  preloadWidgetBundle('abc', env);
  runIdle();
  assert.deepEqual(imported, []);
  assert.equal(env.global[bundleKey('abc')], theirs);
});

test('a failed import is forgotten, so the widget loader tries again', async () => {
  const { env, runIdle } = fakeEnv({}, true);
  preloadWidgetBundle('abc', env);
  runIdle();
  assert.notEqual(env.global[bundleKey('abc')], undefined);
  await settle();
  assert.equal(env.global[bundleKey('abc')], undefined);
});
