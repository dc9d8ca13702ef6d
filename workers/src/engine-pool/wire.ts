/**
 * Engine errors across a thread boundary: structured clone keeps only message and name, but
 * callers branch on the class (`instanceof UnusableImageError`) and on `reasons`, `unrecoverable`.
 */
import { fromWire as rebuild, toWire, type WireErrorLike } from '../../../shared/src/jobs/host-protocol.js';
import { UndecodableImageError, UnusableImageError } from '../vision/intake.js';
import { NoSubjectError } from '../vision/subject.js';

export { toWire };
export type WireError = WireErrorLike;

const CLASSES: Record<string, object> = {
  UndecodableImageError: UndecodableImageError.prototype,
  UnusableImageError: UnusableImageError.prototype,
  NoSubjectError: NoSubjectError.prototype,
};

export const fromWire = (w: WireError): Error => rebuild(w, CLASSES[w.name]);
