// Merged into the JupyterLab builder's webpack config (package.json "jupyterlab.webpackConfig").
// Module and chunk ids by order, not by hashes of identifiers: the module federation container's
// identifier holds absolute paths, so hashed ids (and the remoteEntry file name) changed with the
// checkout's folder, and CI's staleness check failed on a clean clone elsewhere.
module.exports = {
  optimization: {
    moduleIds: 'natural',
    chunkIds: 'natural'
  }
};
