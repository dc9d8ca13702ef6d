/** bytea ⇄ Float32Array. Drivers hand back Buffers at any byte offset, so always copy before viewing as floats. */
export const vectorToBytes = (v: Float32Array): Buffer => Buffer.from(v.buffer, v.byteOffset, v.byteLength);
export const bytesToVector = (b: Uint8Array): Float32Array => new Float32Array(Uint8Array.from(b).buffer);
export const toBytes = (b: Uint8Array): Uint8Array => Uint8Array.from(b);
