/**
 * The protocol's identity carrier: `metadata.dsh_notebook` of the notebook document (what is
 * saved in the file: `{id, path, forked_from?}`) and of every execute_request the page sends
 * (`{v: 1, id, path, cell_id, forked_from?, private?}`), so the kernel knows the notebook of each
 * cell with no race, and that a cell tagged `dsh-private` ran (`private: true`: the kernel keeps
 * that run from the model even when it cannot read the page later). The rule that assigns and keeps the id: `../identity.ts`; the hook that adds it
 * to execute requests: `../executehook.ts`.
 *
 * Guarantee: `parseStoredIdentity` never throws; anything malformed gives `null`.
 */

import { isRecord, isText } from './checks';

const ID = /^[0-9a-f]{32}$/;

/** `metadata.dsh_notebook` of the notebook document itself (what is saved in the file). */
export interface IStoredIdentity {
  id: string;
  path: string;
  forked_from?: string;
}

/** `metadata.dsh_notebook` of an execute_request. */
export interface IIdentityMetadata {
  v: 1;
  id: string;
  path: string;
  cell_id: string | null;
  forked_from?: string;
  /** Only ever `true`: the cell is tagged `dsh-private`. */
  private?: true;
}

/** A notebook id: 32 lowercase hex digits. */
export function isId(value: unknown): value is string {
  return typeof value === 'string' && ID.test(value);
}

/**
 * A fresh notebook id: a uuid4 as 32 lowercase hex digits. Uses `crypto.getRandomValues`, not
 * `crypto.randomUUID`: the latter exists only in secure contexts, and JupyterLab is often served
 * over plain http on a LAN address.
 */
export function newId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x40; // version 4
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80; // RFC 4122 variant
  return Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

/** The identity stored in a notebook's metadata, or `null` when absent or malformed. */
export function parseStoredIdentity(value: unknown): IStoredIdentity | null {
  if (!isRecord(value) || !isId(value.id) || !isText(value.path)) {
    return null;
  }
  const stored: IStoredIdentity = { id: value.id, path: value.path };
  if (isId(value.forked_from)) {
    stored.forked_from = value.forked_from;
  }
  return stored;
}

/** What an execute_request of cell `cellId` (`isPrivate`: tagged `dsh-private`) carries for the
 * notebook `stored`. */
export function identityMetadata(stored: IStoredIdentity, cellId: string | null, isPrivate = false): IIdentityMetadata {
  const meta: IIdentityMetadata = { v: 1, id: stored.id, path: stored.path, cell_id: cellId };
  if (stored.forked_from !== undefined) {
    meta.forked_from = stored.forked_from;
  }
  if (isPrivate) {
    meta.private = true;
  }
  return meta;
}
