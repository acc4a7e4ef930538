/**
 * Adds the notebook's identity to every execute_request its kernel connection sends.
 *
 * JupyterLab (and Notebook 7) run a cell through `CodeCell.execute` -> `OutputArea.execute` ->
 * `kernel.requestExecute(content, false, {cellId, ...})` on the notebook's own kernel
 * connection (one connection object per notebook session, kept across kernel restarts, replaced
 * on a kernel change). Wrapping `requestExecute` on that object puts the identity in the very
 * message that runs the cell: the kernel has it before the code runs, even for Run All right
 * after a restart. Other notebooks and consoles on the same kernel have their own connection
 * objects and are not touched.
 */

import type { Kernel, KernelMessage } from '@jupyterlab/services';
import type { JSONObject } from '@lumino/coreutils';

import { METADATA_KEY } from './protocol/constants';
import type { IIdentityMetadata } from './protocol/identity';

/** The identity for a request of cell `cellId`, or `null` to send none (not resolved yet). */
export type IdentitySource = (cellId: string | null) => IIdentityMetadata | null;

const patched = new WeakSet<Kernel.IKernelConnection>();

type RequestExecute = Kernel.IKernelConnection['requestExecute'];

/** Wrap `kernel.requestExecute` once; `source` is asked at each request. */
export function addIdentityToExecutes(kernel: Kernel.IKernelConnection, source: IdentitySource): void {
  if (patched.has(kernel)) {
    return;
  }
  patched.add(kernel);
  const original: RequestExecute = kernel.requestExecute.bind(kernel);
  const wrapped: RequestExecute = (
    content: KernelMessage.IExecuteRequestMsg['content'],
    disposeOnDone?: boolean,
    metadata?: JSONObject
  ) => original(content, disposeOnDone, withIdentity(metadata, source));
  kernel.requestExecute = wrapped;
}

/** `metadata` plus `dsh_notebook` (never throws: a failing source sends the request as is). */
export function withIdentity(metadata: JSONObject | undefined, source: IdentitySource): JSONObject | undefined {
  let identity: IIdentityMetadata | null = null;
  try {
    const cellId = metadata?.cellId;
    identity = source(typeof cellId === 'string' ? cellId : null);
  } catch (error) {
    console.warn('dsh-notebook: no identity for this execute request', error);
  }
  if (identity === null) {
    return metadata;
  }
  return { ...(metadata ?? {}), [METADATA_KEY]: identity as unknown as JSONObject };
}
