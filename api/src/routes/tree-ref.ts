import { z } from 'zod';
import type { Services } from '../services/index.js';

/** Wherever a tree is asked for, its printed traceability code works as well as its id (issue 24). */
export const TreeRef = z.string().trim().min(1).max(100).describe('the tree: its id (uuid) or its printed traceability code');

/** The body with its tree_id (id or code) replaced by the tree's id. */
export async function withTreeId<T extends { tree_id?: string | undefined }>(s: Pick<Services, 'treeRef'>, body: T): Promise<T> {
  return body.tree_id ? { ...body, tree_id: await s.treeRef(body.tree_id) } : body;
}
