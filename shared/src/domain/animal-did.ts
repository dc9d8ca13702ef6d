/**
 * An animal's public identifier. The spec names animals by `animal_did`, a string; ours wraps the
 * individual's id in a DID-shaped name so it is self-describing on printed papers and in URLs
 * (`/api/animal/{animal_did}`), and maps back to the row without a lookup table.
 */
import { isUuid } from './ids.js';

const PREFIX = 'did:markless:animal:';

export const animalDid = (individualId: string): string => `${PREFIX}${individualId.toLowerCase()}`;

/** The individual id a DID names, or null for anything that is not one of ours. */
export function individualIdOf(did: string): string | null {
  if (!did.startsWith(PREFIX)) return null;
  const id = did.slice(PREFIX.length);
  return isUuid(id) ? id.toLowerCase() : null;
}

/**
 * The individual id an animal reference names: an `animal_did` or the bare uuid (both are
 * accepted everywhere an animal id is taken). Null for anything else, so callers answer 404.
 */
export function animalRefToId(ref: string): string | null {
  const trimmed = ref.trim();
  return individualIdOf(trimmed) ?? (isUuid(trimmed) ? trimmed.toLowerCase() : null);
}
