import busboy from 'busboy';
import type { Context } from 'koa';
import { ERRORS } from '../../../shared/src/domain/errors.js';

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  bytes: Buffer;
}

export interface MultipartLimits {
  fileBytes: number;
  totalBytes: number;
  maxFiles: number;
}

export interface MultipartResult {
  fields: Record<string, string | string[]>;
  files: UploadedFile[];
}

/**
 * Stream a multipart body, holding at most the limits in memory. Crossing a limit rejects at once
 * with 413 and marks the request `cutOff`: the error handler then closes the connection instead
 * of reading the rest. (multer, which @koa/multer wraps, drains the whole body before reporting
 * a limit, so a 25 MB upload would be read in full just to be refused.)
 */
export function parseMultipart(ctx: Context, limits: MultipartLimits): Promise<MultipartResult> {
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limits.totalBytes + 64 * 1024) return Promise.reject(cutOff(ctx, limits.totalBytes));
  return new Promise((resolve, reject) => {
    const fields: Record<string, string | string[]> = {};
    const files: UploadedFile[] = [];
    let total = 0;
    let failed = false;
    let pending = 0;
    let finished = false;
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: ctx.req.headers,
        limits: { fileSize: limits.fileBytes, files: limits.maxFiles, fields: 100, fieldSize: 64 * 1024 },
      });
    } catch (e) {
      // busboy throws at once for a body that is not multipart (e.g. JSON sent to an upload route): a 422, not a 500.
      return reject(ERRORS.validation('body', `expected multipart/form-data: ${(e as Error).message}`));
    }
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(bb);
      bb.removeAllListeners();
      bb.on('error', () => undefined);
      reject(err);
    };
    const maybeDone = () => finished && pending === 0 && !failed && resolve({ fields, files });
    ctx.req.on('data', (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.totalBytes) fail(cutOff(ctx, limits.totalBytes));
    });
    bb.on('field', (name, value) => {
      const prev = fields[name];
      fields[name] = prev === undefined ? value : ([] as string[]).concat(prev, value);
    });
    bb.on('file', (field, stream, info) => {
      pending += 1;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(cutOff(ctx, limits.fileBytes)));
      stream.on('end', () => {
        pending -= 1;
        if (!failed) files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) });
        maybeDone();
      });
    });
    bb.on('filesLimit', () => fail(ERRORS.tooManyFiles()));
    bb.on('error', (e: Error) => fail(ERRORS.validation('body', `malformed multipart body: ${e.message}`)));
    bb.on('close', () => {
      finished = true;
      maybeDone();
    });
    ctx.req.pipe(bb);
  });
}

function cutOff(ctx: Context, limit: number) {
  ctx.state.cutOff = true;
  return ERRORS.tooLarge(limit);
}

/**
 * After a 413 mid-upload the answer goes out at once; nothing more is buffered. What the client
 * still sends is read and thrown away for a short grace period ("lingering close", as nginx does),
 * because closing a socket with unread data makes the kernel send a reset that can destroy the
 * 413 before the client reads it. A client that keeps sending past the grace period is cut off.
 */
export function closeAfterResponse(ctx: Context, graceMs = 2000): void {
  ctx.res.once('finish', () => {
    const req = ctx.req;
    if (req.complete) return;
    req.resume();
    const timer = setTimeout(() => req.socket.destroy(), graceMs);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
  });
}
