import busboy from 'busboy';
import type { Context } from 'koa';
import { AppError, ERRORS } from '../../../shared/src/domain/errors.js';

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
  /** The form field that carries the files, named in a too-many-files answer. */
  field?: string;
}

export interface MultipartResult {
  fields: Record<string, string | string[]>;
  files: UploadedFile[];
}

/** 415 for anything but multipart/form-data with a boundary: busboy would otherwise throw a bare Error (a 500). */
function checkMultipartType(ctx: Context): AppError | null {
  const type = ctx.get('content-type');
  if (ctx.is('multipart/form-data') && /;\s*boundary=("?)[^";]+\1/i.test(type)) return null;
  return new AppError(415, 'content_type_unsupported', {
    expected: 'multipart/form-data; boundary=…',
    got: type || '(none)',
    field: 'content-type',
  });
}

/**
 * Stream a multipart body, holding at most the limits in memory. Crossing a limit rejects at once
 * with 413 and marks the request `cutOff`: the error handler then closes the connection instead
 * of reading the rest. (multer, which @koa/multer wraps, drains the whole body before reporting
 * a limit, so a 25 MB upload would be read in full just to be refused.)
 *
 * Every stream involved (the request, busboy, each file part) has an 'error' listener: a part
 * cut short ("Unexpected end of form") is a 422, never an unhandled 'error' that ends the process.
 */
export function parseMultipart(ctx: Context, limits: MultipartLimits): Promise<MultipartResult> {
  const badType = checkMultipartType(ctx);
  if (badType) return Promise.reject(badType);
  const declared = Number(ctx.get('content-length') || 0);
  if (declared > limits.totalBytes + 64 * 1024) return Promise.reject(cutOff(ctx, limits.totalBytes));
  return new Promise((resolve, reject) => {
    // No prototype: a field named `__proto__` must be an ordinary field, not replace the prototype.
    const fields: Record<string, string | string[]> = Object.create(null);
    const files: UploadedFile[] = [];
    let total = 0;
    let failed = false;
    let pending = 0;
    let finished = false;
    let bb: busboy.Busboy;
    try {
      bb = busboy({
        headers: ctx.req.headers,
        // Browsers and fetch send file names as raw UTF-8; busboy's latin1 default turned every
        // Vietnamese name into mojibake.
        defParamCharset: 'utf8',
        limits: { fileSize: limits.fileBytes, files: limits.maxFiles, fields: 100, fieldSize: 64 * 1024 },
      });
    } catch {
      reject(
        checkMultipartType(ctx) ??
          new AppError(415, 'content_type_unsupported', {
            expected: 'multipart/form-data; boundary=…',
            got: ctx.get('content-type'),
            field: 'content-type',
          }),
      );
      return;
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (total > limits.totalBytes) fail(cutOff(ctx, limits.totalBytes));
    };
    const fail = (err: Error) => {
      if (failed) return;
      failed = true;
      ctx.req.unpipe(bb);
      ctx.req.off('data', onData);
      bb.removeAllListeners();
      bb.on('error', () => undefined);
      reject(err);
    };
    const maybeDone = () => finished && pending === 0 && !failed && resolve({ fields, files });
    ctx.req.on('error', () => fail(truncated()));
    ctx.req.on('aborted', () => fail(truncated()));
    ctx.req.on('data', onData);
    bb.on('field', (name, value) => {
      const prev = fields[name];
      fields[name] = prev === undefined ? value : ([] as string[]).concat(prev, value);
    });
    bb.on('file', (field, stream, info) => {
      pending += 1;
      const chunks: Buffer[] = [];
      stream.on('error', () => fail(truncated()));
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('limit', () => fail(cutOff(ctx, limits.fileBytes)));
      stream.on('end', () => {
        pending -= 1;
        if (!failed) files.push({ field, filename: info.filename ?? '', mimeType: info.mimeType, bytes: Buffer.concat(chunks) });
        maybeDone();
      });
    });
    bb.on('filesLimit', () => fail(new AppError(413, 'too_many_files_in', { field: limits.field ?? 'files', max: limits.maxFiles })));
    bb.on('error', () => fail(truncated()));
    bb.on('close', () => {
      finished = true;
      maybeDone();
    });
    ctx.req.pipe(bb);
  });
}

/** A body that ended before its closing boundary, or whose framing busboy could not read. */
function truncated() {
  return new AppError(422, 'multipart_truncated', { field: 'body' });
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
 * The socket is captured now: once the request is destroyed `req.socket` is null, and touching it
 * from the timer used to end the whole process.
 */
export function closeAfterResponse(ctx: Context, graceMs = 2000): void {
  const req = ctx.req;
  const socket = req.socket;
  ctx.res.once('finish', () => {
    if (req.complete || req.destroyed || !socket || socket.destroyed) return;
    req.on('error', () => undefined);
    req.resume();
    const timer = setTimeout(() => socket.destroy(), graceMs);
    timer.unref();
    req.once('end', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  });
}
