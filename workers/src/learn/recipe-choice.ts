import type { Kind } from '../../../shared/src/domain/jobs.js';
import { canTrainBackbone } from './backbone.js';

let trainer: Promise<boolean> | null = null;

/** The loop's recipe: animals fine-tune a backbone where this machine has the trainer, everything else a linear metric. */
export async function chooseRecipe(kind: Kind): Promise<'linear' | 'backbone'> {
  if (kind !== 'animal') return 'linear';
  trainer ??= canTrainBackbone();
  return (await trainer) ? 'backbone' : 'linear';
}
