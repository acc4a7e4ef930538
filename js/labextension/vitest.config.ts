// The labextension's unit tests run on the widget's vitest (js/node_modules: one JS test runner for
// both packages; this package installs no vitest of its own). No import of `vitest/config` here:
// it would resolve from this package's node_modules, which has no vitest.
export default {
  test: {
    environment: 'node',
    include: ['test/*.test.ts']
  }
};
