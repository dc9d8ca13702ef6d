import type { Context } from 'koa';
import { ERRORS } from '../../../shared/src/domain/errors.js';

/** JSON and form bodies are small; anything bigger is refused while it streams in. */
export const SMALL_BODY_BYTES = 1_000_000;

async function readSmall(ctx: Context, limit: number): Promise<string> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limit) {
    ctx.state.cutOff = true;
    throw ERRORS.tooLarge(limit);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of ctx.req) {
    total += (chunk as Buffer).length;
    if (total > limit) {
      ctx.state.cutOff = true;
      throw ERRORS.tooLarge(limit);
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Parse a JSON body (empty means `{}`); bad JSON is a 422 on `body`. */
export async function readJson(ctx: Context, limit = SMALL_BODY_BYTES): Promise<unknown> {
  const text = await readSmall(ctx, limit);
  if (!text.trim()) return {};
  try {
    return JSON.parse(text);
  } catch {
    throw ERRORS.invalidJson();
  }
}

/** Parse an urlencoded form, or JSON when the client sent JSON to a form route. */
export async function readForm(ctx: Context, limit = SMALL_BODY_BYTES): Promise<Record<string, string>> {
  if (ctx.is('application/json')) return (await readJson(ctx, limit)) as Record<string, string>;
  const text = await readSmall(ctx, limit);
  return Object.fromEntries(new URLSearchParams(text));
}
